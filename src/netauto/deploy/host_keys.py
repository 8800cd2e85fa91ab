"""SSH host keys: OpenSSH's accept-new policy, fingerprints, and the one place a host key accepted although it
CHANGED (--no-host-key-check) is announced. Every command that opens SSH (deploy, drift, drain, backup, verify,
acceptance) opens it through deploy.connection.open_session, which calls `announce`."""

from __future__ import annotations

import base64
import errno
import hashlib
import os
import sys
import threading

import paramiko

from netauto.deploy.ssh_files import known_host_entries
from netauto.visible import visible

HOST_KEY_MODES = ("strict", "accept-new", "off")
_known_hosts_write = threading.Lock()


def fingerprint(key: paramiko.PKey) -> str:
    """OpenSSH's SHA256 fingerprint (as `ssh-keygen -lf` prints it)."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(key.asbytes()).digest()).decode().rstrip("=")


class AcceptNew(paramiko.MissingHostKeyPolicy):
    """OpenSSH's StrictHostKeyChecking=accept-new: trust a host never seen (append its key to known_hosts);
    a host whose key changed is still refused (paramiko raises BadHostKeyException before asking a policy)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.added: str | None = None

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        client.get_host_keys().add(hostname, key.get_name(), key)
        with _known_hosts_write:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), mode=0o700, exist_ok=True)
            # never through a link: root with a user's HOME (sudo -E) appended to whatever the user linked there
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                raise OSError(exc.errno, f"{self.path} is a symbolic link: --accept-new-host-keys appends only to a "
                              "real file (fix: NETAUTO_KNOWN_HOSTS=<the file it points to>, or replace the link "
                              "with that file)") from None
            with os.fdopen(fd, "a") as handle:
                handle.write(f"{hostname} {key.get_name()} {key.get_base64()}\n")
        self.added = f"new host: trusted on first use, {fingerprint(key)} added to {self.path} (--accept-new-host-keys)"


def host_key_warning(device: str, status: str | None) -> str | None:
    """The console/report line for a host key accepted although it CHANGED (--no-host-key-check), else None."""
    if status and status.startswith("CHANGED"):
        return f"WARNING {device}: {status}"
    return None


UNCHECKED_BANNER = ("WARNING: --no-host-key-check: SSH host keys are NOT verified; a man in the middle would get the "
                    "device sessions. A device whose key differs from known_hosts is named in a WARNING line.")
_announced: list[str] = []  # this process's host-key lines, in order (each once)
_announce_lock = threading.Lock()


def announce(line: str) -> None:
    """The one place a host-key warning reaches the console: every command that opens SSH (deploy, drift,
    drain, backup, verify, acceptance) opens it through open_session, which calls this. stderr, whatever the
    report format, once per line and process; reports add host_key_warnings() to their `warnings`."""
    with _announce_lock:
        if line in _announced:
            return
        _announced.append(line)
    sys.stderr.write(visible(line) + "\n")  # one line, never wrapped
    sys.stderr.flush()


def host_key_warnings() -> list[str]:
    """The CHANGED host keys accepted so far in this process (`WARNING <device>: CHANGED ...`), for a report."""
    with _announce_lock:
        return [line for line in _announced if line != UNCHECKED_BANNER]


def known_status(client: paramiko.SSHClient, host: str, port: int, known: str | None) -> str:
    """--no-host-key-check: the key was not checked, but say loudly whether it differs from known_hosts."""
    key = client.get_transport().get_remote_server_key()  # type: ignore[union-attr]
    name = host if port == 22 else f"[{host}]:{port}"
    found = None
    if known and os.path.isfile(known):
        keys = paramiko.HostKeys()
        keys._entries = list(known_host_entries(known))  # type: ignore[attr-defined]
        found = keys.lookup(name)
    if not found:
        return f"NOT CHECKED (--no-host-key-check): host not in known_hosts, key {fingerprint(key)}"
    if found.get(key.get_name()) is not None and found[key.get_name()] == key:
        return f"NOT CHECKED (--no-host-key-check): matches known_hosts ({fingerprint(key)})"
    return (f"CHANGED host key accepted only because of --no-host-key-check: {fingerprint(key)} differs from "
            f"{known}")
