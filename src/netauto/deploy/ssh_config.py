"""The OpenSSH client config (`ssh_config:` of the inventory, `-F` of ssh): where a connection really goes."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass

import paramiko


@dataclass(frozen=True)
class SshRoute:
    """Where an SSH connection really goes after the OpenSSH client config: address, port, key, proxy."""

    hostname: str
    port: int
    key_file: str | None
    proxy_command: str | None


def ssh_route(host: str, port: int, key_file: str | None, ssh_config: str | None) -> SshRoute:
    """Apply an OpenSSH client config as `ssh` would (paramiko's parser): HostName, Port (unless the inventory
    gives a port other than 22), IdentityFile (unless a key is given), ProxyCommand, ProxyJump (as
    `ssh -W host:port`, through every hop)."""
    if not ssh_config or not os.path.isfile(ssh_config):
        return SshRoute(host, port, key_file, None)
    entry = paramiko.SSHConfig.from_path(ssh_config).lookup(host)
    hostname = entry.get("hostname", host)
    if port == 22 and "port" in entry:
        port = int(entry["port"])
    if key_file is None and entry.get("identityfile"):
        key_file = os.path.expanduser(entry["identityfile"][0])
    proxy = entry.get("proxycommand")
    if proxy and proxy.lower() == "none":
        proxy = None
    jump = entry.get("proxyjump")
    if not proxy and jump and jump.lower() != "none":
        hops = [h.strip() for h in jump.split(",") if h.strip()]
        argv = ["ssh", "-F", ssh_config, "-W", f"{hostname}:{port}"]
        if len(hops) > 1:
            argv += ["-J", ",".join(hops[:-1])]
        proxy = " ".join(shlex.quote(a) for a in [*argv, hops[-1]])
    return SshRoute(hostname, port, key_file, proxy)
