"""SSH sessions to devices: a Netmiko connection (Linux shell on Cumulus, SONiC and GPU hosts) whose
underlying paramiko transport also carries exec channels (real exit codes) and SFTP (file transfer).

Registered as the Nornir connection plugin `netauto`, so any Nornir task can use it.
"""

from __future__ import annotations

import io
import shlex
import uuid
from dataclasses import dataclass
from typing import Any

from netmiko import ConnectHandler

from netauto.deploy.netns import connect_in_netns
from netauto.errors import NetautoError

CONNECTION_NAME = "netauto"


@dataclass
class CommandResult:
    rc: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.rc == 0


class DeviceSession:
    """One device: exec with exit codes, file read/write. Commands run through sudo unless root."""

    def __init__(self, netmiko_conn: Any, username: str) -> None:
        self.netmiko = netmiko_conn
        self.client = netmiko_conn.remote_conn_pre  # paramiko.SSHClient
        self.sudo = "" if username == "root" else "sudo -n "

    def run(self, command: str, timeout: float = 120.0) -> CommandResult:
        full = f"{self.sudo}sh -c {shlex.quote(command)}"
        _, stdout, stderr = self.client.exec_command(full, timeout=timeout)
        out = stdout.read().decode(errors="replace")
        err = stderr.read().decode(errors="replace")
        return CommandResult(stdout.channel.recv_exit_status(), out, err)

    def read_file(self, path: str) -> bytes | None:
        res = self.run(f"if [ -f {shlex.quote(path)} ]; then base64 -w0 {shlex.quote(path)}; else echo __MISSING__; fi")
        if not res.ok:
            raise NetautoError(f"cannot read {path}: {res.stderr.strip()}")
        text = res.stdout.strip()
        if text == "__MISSING__":
            return None
        import base64

        return base64.b64decode(text)

    def write_file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        self.write_files({path: (data, mode)})

    def write_files(self, files: dict[str, tuple[bytes, int]]) -> None:
        """Upload over one SFTP channel to unique temp names, then rename each into place (atomic).

        An existing file keeps its owner, group and mode (frr.conf must stay frr:frr 0640 on a switch);
        a new file gets the given mode.
        """
        staging = {path: f"/tmp/.netauto-upload-{uuid.uuid4().hex}" for path in files}
        sftp = self.client.open_sftp()
        try:
            for path, (data, _) in files.items():
                sftp.putfo(io.BytesIO(data), staging[path])
        finally:
            sftp.close()
        script = " && ".join(install_cmd(staging[p], p, mode) for p, (_, mode) in files.items())
        cleanup = " ".join(staging.values())
        res = self.run(f"{{ {script}; }}; rc=$?; rm -f {cleanup}; exit $rc")
        if not res.ok:
            raise NetautoError(f"cannot write {', '.join(files)}: {res.stderr.strip() or res.stdout.strip()}")

    def close(self) -> None:
        try:
            self.netmiko.disconnect()
        except Exception:  # noqa: BLE001 - closing a dead session must not mask the real error
            pass


def install_cmd(source: str, dest: str, mode: int) -> str:
    """Shell: copy `source` next to `dest`, take over the owner/mode of an existing `dest`, rename over it."""
    q, new = shlex.quote(dest), shlex.quote(dest + ".netauto-new")
    return (f"mkdir -p $(dirname {q}) && install -m {mode:o} {shlex.quote(source)} {new} "
            f"&& {{ [ ! -e {q} ] || {{ chown --reference={q} {new} && chmod --reference={q} {new}; }}; }} "
            f"&& mv -f {new} {q}")


def open_session(
    host: str,
    port: int,
    username: str,
    *,
    key_file: str | None = None,
    password: str | None = None,
    known_hosts: str | None = None,
    check_host_keys: bool = True,
    netns: str | None = None,
    timeout: float = 15.0,
) -> DeviceSession:
    params: dict[str, Any] = {
        "device_type": "linux",  # lab notes G6: `generic` leaves bracketed-paste codes in output
        "host": host,
        "port": port,
        "username": username,
        "conn_timeout": timeout,
        "auth_timeout": timeout,
        "banner_timeout": timeout,
        "fast_cli": True,
        "allow_agent": key_file is None and password is None,
    }
    if key_file:
        params.update(use_keys=True, key_file=key_file)
    if password:
        params["password"] = password
    if check_host_keys:
        params.update(ssh_strict=True, system_host_keys=known_hosts is None)
        if known_hosts:
            params.update(alt_host_keys=True, alt_key_file=known_hosts)
    else:
        params["ssh_strict"] = False
    if netns:
        params["sock"] = connect_in_netns(netns, host, port, timeout)
    try:
        # Netmiko builds the paramiko client (host-key policy, known_hosts, keys, the netns socket) and opens
        # the interactive channel; its prompt-detection session preparation is skipped: every command here
        # runs on an exec channel (real exit codes), and that preparation costs about 1 s per device and
        # times out under load (40 parallel sessions on 2 cores).
        conn = ConnectHandler(**params, auto_connect=False)
        conn._modify_connection_params()
        conn.establish_connection()
    except Exception as exc:  # noqa: BLE001 - netmiko raises many types; report one clear line
        raise NetautoError(f"{host}:{port}: SSH failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    return DeviceSession(conn, username)


class NetautoConnection:
    """Nornir connection plugin: `host.get_connection("netauto", nornir.config)` is the DeviceSession."""

    def open(self, hostname: str | None, username: str | None, password: str | None, port: int | None,
             platform: str | None, extras: dict[str, Any] | None = None, configuration: Any = None) -> None:
        extras = extras or {}
        self.connection = open_session(
            hostname or "", port or 22, username or "root", password=password,
            key_file=extras.get("key_file"), known_hosts=extras.get("known_hosts"),
            check_host_keys=extras.get("check_host_keys", True), netns=extras.get("netns"),
        )

    @property
    def session(self) -> DeviceSession:
        return self.connection

    def close(self) -> None:
        self.connection.close()
