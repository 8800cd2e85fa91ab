"""SSH sessions to devices: a Netmiko connection (Linux shell on Cumulus, SONiC and GPU hosts) whose
underlying paramiko transport also carries exec channels (real exit codes) and SFTP (file transfer).

Registered as the Nornir connection plugin `netauto`, so any Nornir task can use it.

Per-device cost (what a dry-run of 40 switches pays 40 times, measured with cProfile and strace):
- the TCP socket is opened here, with TCP_NODELAY and an immediate ACK after every read (TCP_QUICKACK):
  without them each connection stalled on Nagle + delayed ACK, ~40 ms at a time, on any network (strace:
  ~50 ms more in the key exchange + auth without TCP_NODELAY, and sshd's confirmation of the first channel
  held ~42 ms until our delayed ACK went out);
- known_hosts is parsed once per file (paramiko's HostKeys.load is quadratic: ~12 ms of CPU per device
  for a 40-line file) and the client key once per file, then shared read-only by every session (ssh_files);
- Netmiko's interactive shell (a PTY and a login shell on the device, one more channel) is opened only
  when `session.netmiko` is used: every command here runs on an exec channel.
"""

from __future__ import annotations

import logging
import os
import shlex
import socket
import threading
from dataclasses import dataclass
from typing import Any

import paramiko
from netmiko import ConnectHandler
from netmiko.channel import SSHChannel

from netauto.deploy.host_keys import HOST_KEY_MODES, UNCHECKED_BANNER, AcceptNew, announce, host_key_warning, \
    known_status
from netauto.deploy.netns import connect_in_netns
from netauto.deploy.ssh_config import ssh_route
from netauto.deploy.ssh_files import known_host_entries, private_key
from netauto.errors import NetautoError

CONNECTION_NAME = "netauto"
log = logging.getLogger(__name__)
SUDO_HINT = ("the SSH user needs password-less sudo for the commands deploy runs (docs/deploy.md, sudo), "
             "or log in as root")


OUTPUT_LIMIT = 64 * 2**20  # bytes of stdout read per command (a whole `ip -j route` of a large fabric is < 30 MiB)
FILE_LIMIT = 16 * 2**20  # bytes read per device file (a rendered frr.conf or config_db.json is < 2 MiB)
STDERR_LIMIT = 2**20  # bytes of stderr read per command (only its last lines are ever shown)


class DeviceOutputTooLarge(NetautoError):
    """A device sent more than netauto reads (OUTPUT_LIMIT, FILE_LIMIT, STDERR_LIMIT)."""


def _mib(size: int) -> str:
    return f"{size / 2**20:g} MiB"


def _short(command: str) -> str:
    return command if len(command) <= 60 else command[:57] + "..."


@dataclass
class CommandResult:
    rc: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def tail(self, chars: int) -> str:
        """The end of what the command printed (stdout then stderr), for an error message."""
        return (self.stdout + self.stderr).strip()[-chars:]


class DeviceSession:
    """One device: exec with exit codes, file read/write. Commands run through sudo unless root."""

    def __init__(self, netmiko_conn: Any, username: str, frr_exec: str = "") -> None:
        self._netmiko = netmiko_conn
        self.client = netmiko_conn.remote_conn_pre  # paramiko.SSHClient
        self.sudo = "" if username == "root" else "sudo -n "
        self.frr_exec = frr_exec  # prefix for FRR's tools where FRR runs in a container (SONiC: docker exec -i bgp)
        self.host_key = "verified (known_hosts)"  # how the host key was checked; set by open_session
        self._shell_lock = threading.Lock()

    @property
    def netmiko(self) -> Any:
        """The Netmiko connection, its interactive shell opened on first use (not needed by exec/SFTP)."""
        with self._shell_lock:
            if getattr(self._netmiko, "remote_conn", None) is None and self.client is not None:
                _open_shell(self._netmiko)
        return self._netmiko

    def run(self, command: str, timeout: float = 120.0, sudo: bool = True) -> CommandResult:
        rc, out, err = self.run_bytes(command, timeout, sudo)
        return CommandResult(rc, out.decode(errors="replace"), err)

    def run_bytes(self, command: str, timeout: float = 120.0, sudo: bool = True,
                  limit: int = OUTPUT_LIMIT) -> tuple[int, bytes, str]:
        """(exit code, stdout as bytes, stderr): for binary output such as a tar stream. At most `limit` bytes
        of stdout and STDERR_LIMIT of stderr are read (a device is hostile too): more is DeviceOutputTooLarge."""
        full = f"{self.sudo if sudo else ''}sh -c {shlex.quote(command)}"
        _, stdout, stderr = self.client.exec_command(full, timeout=timeout)
        out = stdout.read(limit + 1)
        raw_err = stderr.read(STDERR_LIMIT + 1) if len(out) <= limit else b""
        if len(out) > limit or len(raw_err) > STDERR_LIMIT:
            stdout.channel.close()
            which, bound = ("output", limit) if len(out) > limit else ("error output", STDERR_LIMIT)
            raise DeviceOutputTooLarge(
                f"the device sent more than {_mib(bound)} of {which} for `{_short(command)}`: refused, nothing read "
                f"(netauto reads at most that per command; fix: make the device's output smaller, or read it by hand)")
        err = raw_err.decode(errors="replace")
        rc = stdout.channel.recv_exit_status()
        if rc != 0 and self.sudo and "a password is required" in err:
            raise NetautoError(f"sudo -n refused: {err.strip().splitlines()[0]} ({SUDO_HINT})")
        return rc, out, err

    def upload(self, directory: str, files: dict[str, bytes]) -> None:
        """Upload into `directory` (a private dir on the device, e.g. the 0700 stage dir), each file 0600.

        SFTP writes as the login user, so the bytes go first into a `mktemp -d` dir of that user (0700, files
        chmod 0600 before a byte is written), then move into place with root's `umask 077`: no file is ever
        readable by another user on the device, not even for a moment.
        """
        made = self.run("umask 077; mktemp -d /tmp/.netauto-upload.XXXXXXXX", sudo=False)
        tmp = made.stdout.strip()
        if not made.ok or not tmp.startswith("/tmp/.netauto-upload."):
            raise NetautoError(f"cannot create an upload dir on the device: {made.tail(200)}")
        names = {path: f"{tmp}/{i}" for i, path in enumerate(files)}
        try:
            sftp = self.client.open_sftp()
            try:
                for path, data in files.items():
                    with sftp.open(names[path], "wb") as handle:
                        handle.chmod(0o600)
                        handle.write(data)
            finally:
                sftp.close()
            moves = " && ".join(f"mkdir -p $(dirname {shlex.quote(p)}) && cp {shlex.quote(names[p])} {shlex.quote(p)}"
                                for p in files)
            res = self.run(f"umask 077; [ -d {shlex.quote(directory)} ] && {moves}")
            if not res.ok:
                raise NetautoError(f"cannot write {', '.join(files)}: {res.tail(300)}")
        finally:
            self.run(f"rm -rf {shlex.quote(tmp)}", sudo=False)

    def close(self) -> None:
        try:
            if getattr(self._netmiko, "remote_conn", None) is not None:
                self._netmiko.disconnect()  # says `exit` on the interactive shell, then closes
            elif self.client is not None:
                self.client.close()
        except Exception:  # noqa: BLE001 - closing a dead session must not mask the real error
            pass


def install_cmd(source: str, dest: str, mode: int, owner: str | None = None, keep_mode: bool = True) -> str:
    """Shell: copy `source` next to `dest` with `mode`, give it `owner` (user:group) or else the owner of an
    existing `dest` (with `keep_mode` also its mode), rename over it."""
    q, new = shlex.quote(dest), shlex.quote(dest + ".netauto-new")
    keep = f"chown --reference={q} {new} && chmod --reference={q} {new}" if keep_mode else \
        f"chown --reference={q} {new} && chmod {mode:o} {new}"
    existing = f"{{ [ ! -e {q} ] || {{ {keep}; }}; }}"
    if owner is not None and not keep_mode:
        existing = f"chown {shlex.quote(owner)} {new} && chmod {mode:o} {new}"
    return (f"mkdir -p $(dirname {q}) && (umask 077 && install -m {mode:o} {shlex.quote(source)} {new}) "
            f"&& {existing} && mv -f {new} {q}")


def _open_shell(conn: Any, width: int = 511, height: int = 1000) -> None:
    """What Netmiko's establish_connection does after the SSH connect: the interactive channel."""
    conn.remote_conn = conn.remote_conn_pre.invoke_shell(term="vt100", width=width, height=height)
    conn.remote_conn.settimeout(conn.blocking_timeout)
    if conn.keepalive:
        conn.remote_conn.transport.set_keepalive(conn.keepalive)
    conn.channel = SSHChannel(conn=conn.remote_conn, encoding=conn.encoding)
    conn.special_login_handler()


_QUICKACK = getattr(socket, "TCP_QUICKACK", None)  # Linux


class _QuickAckSocket(socket.socket):
    """A TCP socket that acknowledges what it reads at once.

    SSH is request/response: a delayed ACK (40 ms on Linux) lets the device's sshd hold its next small
    packet under Nagle, e.g. the confirmation of the first channel (seen with OpenSSH 9.2 in the lab).
    TCP_QUICKACK is not sticky, so it is set again after every read.
    """

    def recv(self, bufsize: int, flags: int = 0) -> bytes:  # type: ignore[override]
        data = super().recv(bufsize, flags)
        try:
            self.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)  # type: ignore[arg-type]
        except OSError:
            pass
        return data


def _tcp(host: str, port: int, netns: str | None, timeout: float) -> socket.socket:
    """The connected socket for the SSH transport: Nagle off, immediate ACKs (see _QuickAckSocket)."""
    sock = connect_in_netns(netns, host, port, timeout) if netns else socket.create_connection((host, port), timeout)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    if _QUICKACK is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return sock
    quick = _QuickAckSocket(sock.family, sock.type, sock.proto, fileno=sock.detach())
    quick.settimeout(timeout)
    return quick


def open_session(
    host: str,
    port: int,
    username: str,
    *,
    key_file: str | None = None,
    password: str | None = None,
    known_hosts: str | None = None,
    check_host_keys: bool = True,
    host_keys: str | None = None,
    netns: str | None = None,
    frr_exec: str = "",
    ssh_config: str | None = None,
    timeout: float = 15.0,
    device: str | None = None,
) -> DeviceSession:
    """`host_keys`: strict (known_hosts only), accept-new (trust a new host, refuse a changed key) or off
    (no check: the session's host_key says whether the key differs from known_hosts, and a changed one is
    announced on stderr, `device` naming it). Default: strict, or off when check_host_keys is False."""
    mode = host_keys or ("strict" if check_host_keys else "off")
    if mode not in HOST_KEY_MODES:
        raise NetautoError(f"host key mode {mode!r}: one of {', '.join(HOST_KEY_MODES)}")
    route = ssh_route(host, port, key_file, None if netns else ssh_config)
    host, port, key_file = route.hostname, route.port, route.key_file
    log.info("ssh %s@%s:%s key=%s known_hosts=%s host-key-check=%s netns=%s proxy=%s", username, host, port,
             key_file or ("agent" if password is None else "password"), known_hosts, mode, netns,
             route.proxy_command)
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
        pkey = private_key(key_file)
        params.update(use_keys=True, key_file=key_file, pkey=pkey)  # paramiko offers the loaded pkey first
    if password:
        params["password"] = password
    known = None
    if mode != "off":
        params.update(ssh_strict=True, system_host_keys=known_hosts is None)
        if known_hosts and os.path.isfile(known_hosts):
            known = known_hosts
    else:
        params.update(ssh_strict=False, system_host_keys=False)
    accept = AcceptNew(known_hosts or os.path.expanduser("~/.ssh/known_hosts")) if mode == "accept-new" else None
    if netns:
        params["sock"] = _tcp(host, port, netns, timeout)
    conn = None
    try:
        if route.proxy_command:
            params["sock"] = paramiko.ProxyCommand(route.proxy_command)
        elif not netns:
            params["sock"] = _tcp(host, port, None, timeout)
        # Netmiko builds the paramiko client (host-key policy, system known_hosts, keys) and the connect
        # parameters; the SSH connect happens here and the interactive channel only when `session.netmiko`
        # is used. Its prompt-detection session preparation is skipped: every command here runs on an exec
        # channel (real exit codes), and that preparation costs about 1 s per device and times out under
        # load (40 parallel sessions on 2 cores).
        conn = ConnectHandler(**params, auto_connect=False)
        conn._modify_connection_params()
        client = conn._build_ssh_client()
        if known:
            client._host_keys._entries.extend(known_host_entries(known))  # type: ignore[attr-defined]  # = load_host_keys()
        if accept is not None:
            client.set_missing_host_key_policy(accept)
        conn.remote_conn_pre = client
        client.connect(**conn._connect_params_dict())
    except Exception as exc:  # noqa: BLE001 - paramiko/netmiko raise many types; report one clear line
        pre = getattr(conn, "remote_conn_pre", None)  # set above only once the client was built
        if pre is not None:
            pre.close()
        if params.get("sock") is not None:
            params["sock"].close()  # also when the SSH client never took it over
        raise NetautoError(f"{host}:{port}: SSH failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    session = DeviceSession(conn, username, frr_exec)
    if mode == "off":
        session.host_key = known_status(client, host, port, known_hosts or os.path.expanduser("~/.ssh/known_hosts"))
        announce(UNCHECKED_BANNER)
        changed = host_key_warning(device or host, session.host_key)
        if changed:
            announce(changed)
    elif accept is not None and accept.added:
        session.host_key = accept.added
    return session


class NetautoConnection:
    """Nornir connection plugin: `host.get_connection("netauto", nornir.config)` is the DeviceSession."""

    def open(self, hostname: str | None, username: str | None, password: str | None, port: int | None,
             platform: str | None, extras: dict[str, Any] | None = None, configuration: Any = None) -> None:
        extras = extras or {}
        self.connection = open_session(
            hostname or "", port or 22, username or "root", password=password,
            key_file=extras.get("key_file"), known_hosts=extras.get("known_hosts"),
            check_host_keys=extras.get("check_host_keys", True), host_keys=extras.get("host_keys"),
            netns=extras.get("netns"), frr_exec=extras.get("frr_exec", ""), ssh_config=extras.get("ssh_config"),
            device=extras.get("device"),
        )

    @property
    def session(self) -> DeviceSession:
        return self.connection

    def close(self) -> None:
        self.connection.close()
