"""deploy's SSH follows an OpenSSH client config like `ssh` does: HostName/Port/IdentityFile, and a bastion
(ProxyJump) for real, through a throw-away sshd on loopback that is both the bastion and the device."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
from conftest import require_tool

from netauto.deploy.connection import open_session
from netauto.deploy.ssh_config import ssh_route


def test_route_applies_hostname_port_identity_and_proxyjump(tmp_path):
    cfg = tmp_path / "config"
    cfg.write_text(
        "Host bastion\n  HostName 10.9.9.9\n  User jump\n"
        "Host spine*\n  HostName 10.1.0.%h\n  Port 2222\n  IdentityFile ~/.ssh/fabric_key\n  ProxyJump bastion\n"
        "Host leaf1\n  ProxyJump jump1,jump2\n"
        "Host gpu01\n  ProxyCommand nc -x socks:1080 %h %p\n"
        "Host direct\n  ProxyJump none\n  HostName 10.2.0.1\n")
    spine = ssh_route("spine1", 22, None, str(cfg))
    assert (spine.hostname, spine.port) == ("10.1.0.spine1", 2222)
    assert spine.key_file == os.path.expanduser("~/.ssh/fabric_key")
    assert spine.proxy_command == f"ssh -F {cfg} -W 10.1.0.spine1:2222 bastion"
    assert ssh_route("spine1", 22, "/k", str(cfg)).key_file == "/k"  # an explicit key wins
    assert ssh_route("spine1", 2200, None, str(cfg)).port == 2200  # so does an explicit port
    assert ssh_route("leaf1", 22, None, str(cfg)).proxy_command == f"ssh -F {cfg} -W leaf1:22 -J jump1 jump2"
    assert ssh_route("gpu01", 22, None, str(cfg)).proxy_command == "nc -x socks:1080 gpu01 22"
    direct = ssh_route("direct", 22, None, str(cfg))
    assert direct.proxy_command is None and direct.hostname == "10.2.0.1"
    assert ssh_route("spine1", 22, None, None).hostname == "spine1"
    assert ssh_route("spine1", 22, None, str(tmp_path / "missing")).hostname == "spine1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def sshd(tmp_path):
    """A real sshd on 127.0.0.1 (root login with a throw-away key only); yields (port, key, known_hosts, log)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (sshd)")
    sshd_bin = require_tool("sshd", "apt-get install openssh-server")
    require_tool("ssh", "apt-get install openssh-client")
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "host")], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "client")], check=True)
    (tmp_path / "authorized_keys").write_text((tmp_path / "client.pub").read_text())
    port = _free_port()
    host_pub = (tmp_path / "host.pub").read_text().split()
    (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_pub[0]} {host_pub[1]}\n")
    (tmp_path / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp_path / 'host'}\nPidFile {tmp_path / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {tmp_path / 'authorized_keys'}\nStrictModes no\nPermitRootLogin prohibit-password\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nAllowTcpForwarding yes\n"
        "LogLevel VERBOSE\n")
    log = tmp_path / "sshd.log"
    proc = subprocess.Popen([sshd_bin, "-D", "-f", str(tmp_path / "sshd_config"), "-E", str(log)])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port, tmp_path / "client", tmp_path / "known_hosts", log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_proxyjump_through_a_real_bastion(sshd, tmp_path):
    port, key, known, log = sshd
    cfg = tmp_path / "ssh_config"
    cfg.write_text(
        f"Host bastion\n  HostName 127.0.0.1\n  Port {port}\n  User root\n  IdentityFile {key}\n"
        f"  UserKnownHostsFile {known}\n  StrictHostKeyChecking yes\n  BatchMode yes\n"
        f"Host spine1\n  HostName 127.0.0.1\n  Port {port}\n  ProxyJump bastion\n")
    session = open_session("spine1", 22, "root", key_file=str(key), known_hosts=str(known), ssh_config=str(cfg))
    try:
        res = session.run("echo via $SSH_CONNECTION")
    finally:
        session.close()
    assert res.ok and res.stdout.startswith("via 127.0.0.1")
    accepted = [line for line in log.read_text().splitlines() if "Accepted publickey for root" in line]
    assert len(accepted) == 2, log.read_text()  # the bastion login (ssh -W) and the device login through it


def test_wrong_host_key_behind_the_bastion_is_refused(sshd, tmp_path):
    port, key, known, _ = sshd
    other = tmp_path / "other_known_hosts"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "impostor")], check=True)
    pub = (tmp_path / "impostor.pub").read_text().split()
    other.write_text(f"[127.0.0.1]:{port} {pub[0]} {pub[1]}\n")
    cfg = tmp_path / "ssh_config"
    cfg.write_text(
        f"Host bastion\n  HostName 127.0.0.1\n  Port {port}\n  User root\n  IdentityFile {key}\n"
        f"  UserKnownHostsFile {known}\n  StrictHostKeyChecking yes\n  BatchMode yes\n"
        f"Host spine1\n  HostName 127.0.0.1\n  Port {port}\n  ProxyJump bastion\n")
    from netauto.errors import NetautoError

    with pytest.raises(NetautoError, match="SSH failed: (BadHostKeyException|SSHException)") as exc:
        open_session("spine1", 22, "root", key_file=str(key), known_hosts=str(other), ssh_config=str(cfg))
    assert "127.0.0.1" in str(exc.value)
