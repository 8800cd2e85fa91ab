"""Nornir inventory plugin built from the netauto source of truth.

    nr = InitNornir(inventory={"plugin": "NetautoInventory", "options": {"inventory": "inventory"}})

Registered under the entry point group `nornir.plugins.inventory` as `NetautoInventory`. Groups: switches,
servers, role_<role>, nos_<nos>, su_<n>, pod_<n>. Host data carries the netauto `Target` (role, ASN,
rendered files). Credentials come from the environment, never from files in the repository.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nornir.core.inventory import ConnectionOptions, Defaults, Group, Groups, Host, Hosts, Inventory

from netauto.deploy.connection import CONNECTION_NAME
from netauto.deploy.limit import groups_for
from netauto.deploy.targets import Access, Credentials, Target, build_targets, session_options
from netauto.pipeline import render


def target_groups(target: Target) -> list[str]:
    return groups_for(target.kind, target.role, target.nos, target.su, target.pod)


def nornir_inventory(targets: dict[str, Target], creds: Credentials) -> Inventory:
    groups = Groups()
    hosts = Hosts()
    for target in targets.values():
        for name in target_groups(target):
            if name not in groups:
                groups[name] = Group(name=name)
        extras: dict[str, Any] = session_options(target, creds)
        hosts[target.name] = Host(
            name=target.name, hostname=target.host, port=target.port, username=target.username,
            password=creds.password, platform="linux",
            groups=[groups[g] for g in target_groups(target)],
            data={"target": target, "role": target.role, "nos": target.nos, "asn": target.asn},
            connection_options={CONNECTION_NAME: ConnectionOptions(extras=extras)},
        )
    return Inventory(hosts=hosts, groups=groups, defaults=Defaults())


class NetautoInventory:
    def __init__(self, inventory: str = "inventory", templates: str | None = None,
                 access: Access | None = None, check_host_keys: bool = True) -> None:
        self.inventory = Path(inventory)
        self.templates = Path(templates) if templates else None
        self.access = access
        self.check_host_keys = check_host_keys

    def load(self) -> Inventory:
        model, artifacts = render(self.inventory, self.templates)
        targets = build_targets(model, artifacts, self.access)
        return nornir_inventory(targets, Credentials.from_env(self.check_host_keys))
