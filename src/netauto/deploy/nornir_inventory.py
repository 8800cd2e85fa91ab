"""Nornir inventory plugin built from the netauto source of truth.

    nr = InitNornir(inventory={"plugin": "NetautoInventory", "options": {"inventory": "inventory"}})
    nr = InitNornir(inventory={"plugin": "NetautoInventory", "options": {"inventory": "inventory", "lab": "lab1"}})
    nr = InitNornir(inventory={"plugin": "NetautoInventory",
                               "options": {"inventory": "inventory", "adopt": True, "cumulus_mode": "linux-files"}})

With `lab`, the hosts are the devices of a running `netauto lab up --ssh --name lab1` (as `--lab` does for
netauto's own commands): management addresses from the lab, user root, the lab's key and known_hosts, and a
ProxyCommand into the lab's management namespace for every plugin; the environment's SSH settings do not apply.
`adopt` and `cumulus_mode` are `netauto deploy --adopt` and `--cumulus-mode`, with the same values.

Registered under the entry point group `nornir.plugins.inventory` as `NetautoInventory`. Groups: switches,
servers, role_<role>, nos_<nos>, su_<n>, pod_<n>. Host data carries the netauto `Target` (role, ASN,
rendered files, the inventory's fabric id: tasks/deploy_tasks pushes, and a device recording another fabric's
id is refused as by `netauto deploy`; the plugin never records an id). Credentials come from the environment, never from files in the repository.

Host.platform is the NOS (cumulus, sonic, linux); connection_options carry each plugin's own platform name
(netauto.platforms.automation) and the same SSH settings for the `netauto` plugin, nornir_netmiko,
nornir_napalm (netauto's NAPALM drivers) and nornir_scrapli, so stock tasks work unchanged:

    nr.filter(platform="cumulus").run(task=netmiko_send_command, command_string="nv show system")
"""

from __future__ import annotations

import os

from pathlib import Path
from typing import Any

from nornir.core.inventory import ConnectionOptions, Defaults, Group, Groups, Host, Hosts, Inventory, ParentGroups
import atexit
import sys
import tempfile

from netauto.deploy.connection import CONNECTION_NAME
from netauto.deploy.limit import groups_for
from netauto.deploy.run_targets import built_targets
from netauto.deploy.targets import Access, Credentials, Target, credentials_for, session_options
from netauto.errors import NetautoError
from netauto.platforms.automation import automation_names
from netauto.platforms.nos import CUMULUS_MODES
from netauto.cache import netns_ssh_config_path, read_trusted, write_cache


def target_groups(target: Target) -> list[str]:
    return groups_for(target.kind, target.role, target.nos, target.su, target.pod, target.networks)


def connection_options(target: Target, creds: Credentials) -> dict[str, ConnectionOptions]:
    """The same SSH settings for netauto's own plugin and for stock nornir_netmiko, nornir_napalm and
    nornir_scrapli tasks: key, known_hosts and host-key policy, ssh_config (bastions), the lab's namespace
    (an ssh_config whose ProxyCommand relays from inside it), each plugin's platform name."""
    own = session_options(target, creds)
    names = automation_names(target.nos)
    ssh_config = own["ssh_config"] or (netns_ssh_config(target.netns) if target.netns else None)
    key, known, strict = own["key_file"], own["known_hosts"], bool(own["check_host_keys"])
    netmiko: dict[str, Any] = {"use_keys": key is not None, "key_file": key, "allow_agent": key is None,
                               "ssh_strict": strict, "system_host_keys": strict and known is None,
                               "alt_host_keys": strict and known is not None, "alt_key_file": known or "",
                               "ssh_config_file": ssh_config}
    scrapli: dict[str, Any] = {"auth_private_key": key or "", "auth_strict_key": strict,
                               "ssh_known_hosts_file": known or False, "ssh_config_file": ssh_config or False,
                               "transport": "system"}
    if names.scrapli == "cumulus_linux" and target.username == "root":
        scrapli["variant"] = "root-login"
    napalm = {"optional_args": {**own, "ssh_config": ssh_config, "port": target.port}}
    return {
        CONNECTION_NAME: ConnectionOptions(extras=own),
        "netmiko": ConnectionOptions(platform=names.netmiko, port=target.port, extras=netmiko),
        "napalm": ConnectionOptions(platform=names.napalm, port=target.port, extras=napalm),
        "scrapli": ConnectionOptions(platform=names.scrapli, port=target.port, extras=scrapli),
    }


def netns_ssh_config(netns: str) -> str:
    """An OpenSSH/paramiko client config that reaches every host from inside network namespace `netns`
    (ProxyCommand: `python -m netauto.deploy.netns_proxy NETNS %h %p`), for tools that take no socket."""
    path = netns_ssh_config_path(netns)
    text = f"Host *\n  ProxyCommand {sys.executable} -m netauto.deploy.netns_proxy {netns} %h %p\n"
    # ssh runs its ProxyCommand: only a file of this user's own, in a folder of this user's own, is used
    if read_trusted(path) == text.encode() or write_cache(path, text):
        return str(path)
    fd, own = tempfile.mkstemp(prefix="netauto-ssh-", suffix=".config")  # the cache is not ours: this run's copy
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    atexit.register(os.unlink, own)
    return own


def nornir_inventory(targets: dict[str, Target], creds: Credentials) -> Inventory:
    groups = Groups()
    hosts = Hosts()
    for target in targets.values():
        for name in target_groups(target):
            if name not in groups:
                groups[name] = Group(name=name)
        hosts[target.name] = Host(
            name=target.name, hostname=target.host, port=target.port, username=target.username,
            password=credentials_for(target, creds).password, platform=automation_names(target.nos).nornir,
            groups=ParentGroups(groups[g] for g in target_groups(target)),
            data={"target": target, "role": target.role, "nos": target.nos, "asn": target.asn, "su": target.su,
                  "pod": target.pod, "kind": target.kind, "networks": target.networks},
            connection_options=connection_options(target, creds),
        )
    return Inventory(hosts=hosts, groups=groups, defaults=Defaults())


def _option(name: str, value: object, ok: bool, want: str) -> None:
    """A plugin option as the CLI's flag would take it (options come from a Nornir config file: YAML or JSON)."""
    if not ok:
        raise NetautoError(f"NetautoInventory option {name} {str(value)[:60]!r}: not {want} (fix: {want}, as "
                           f"`netauto deploy --{name.replace('_', '-')}`)")


class NetautoInventory:
    def __init__(self, inventory: str = "inventory", templates: str | None = None,
                 access: Access | None = None, check_host_keys: bool = True, lab: str | None = None,
                 adopt: bool = False, cumulus_mode: str | None = None) -> None:
        """`adopt` and `cumulus_mode` mean `netauto deploy --adopt` and `--cumulus-mode`: every host's target is
        marked for adoption of a device naming another fabric or none; every Cumulus switch runs `cumulus_mode`
        (nvue | linux-files; default: the inventory's fabric.cumulus_config_mode, with a lab linux-files)."""
        _option("adopt", adopt, isinstance(adopt, bool), "true or false")
        _option("cumulus_mode", cumulus_mode, cumulus_mode is None or cumulus_mode in CUMULUS_MODES,
                f"one of {', '.join(CUMULUS_MODES)}")
        self.inventory = Path(inventory)
        self.templates = Path(templates) if templates else None
        self.access = access
        self.check_host_keys = check_host_keys
        self.lab = lab
        self.adopt = adopt
        self.cumulus_mode = cumulus_mode

    def load(self) -> Inventory:
        """Every network's devices (groups network_<name>); with a lab, only the devices it runs. Each host's
        target carries the inventory's fabric id, as `netauto deploy`'s: tasks/deploy_tasks.apply_task pushes."""
        run = built_targets(self.inventory, self.templates, self.lab,
                            "strict" if self.check_host_keys or self.lab else "off", self.adopt,
                            cumulus_mode=self.cumulus_mode, access=self.access, lab_devices_only=True)
        return nornir_inventory(run.targets, run.creds)
