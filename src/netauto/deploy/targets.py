"""What deploy talks to: one target per device, built from the model and the rendered artifacts.

Credentials never come from the inventory: the SSH user does, the key or password comes from the
environment (NETAUTO_SSH_KEY, NETAUTO_SSH_PASSWORD) or the SSH agent. Host keys are checked against
known_hosts (NETAUTO_KNOWN_HOSTS or ~/.ssh/known_hosts) unless the operator opts out explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from netauto.errors import NetautoError
from netauto.platforms import nos
from netauto.model.types import FabricModel
from netauto.render.engine import Artifact


_taken: dict[str, str] = {}  # secrets already removed from os.environ (from_env may be called again)


@dataclass(frozen=True)
class Credentials:
    key_file: Path | None
    password: str | None = field(default=None, repr=False)
    known_hosts: Path | None = None
    check_host_keys: bool = True
    host_keys: str | None = None  # strict | accept-new | off (None: strict, or off if not check_host_keys)

    @property
    def host_key_mode(self) -> str:
        return self.host_keys or ("strict" if self.check_host_keys else "off")

    @classmethod
    def from_env(cls, check_host_keys: bool = True, host_keys: str | None = None) -> "Credentials":
        """Key, password and known_hosts from the environment. The password is taken out of the process
        environment once read, so no child process (validators, vtysh, ssh) ever inherits it."""
        key = os.environ.get("NETAUTO_SSH_KEY")
        known = os.environ.get("NETAUTO_KNOWN_HOSTS") or str(Path.home() / ".ssh" / "known_hosts")
        password = os.environ.pop("NETAUTO_SSH_PASSWORD", None) or _taken.get("password")
        if password:
            _taken["password"] = password
        return cls(Path(key) if key else None, password, Path(known), check_host_keys, host_keys)


@dataclass(frozen=True)
class Variant:
    """What a target environment really holds, when it is not the rendered intent verbatim (a lab)."""

    files: dict[str, dict[str, Artifact]]  # device -> on-device absolute path -> the file as it must be there
    inert: dict[str, set[str]] = field(default_factory=dict)  # device -> paths installed but applied by nothing
    skip: dict[str, str] = field(default_factory=dict)  # device -> why it is not a deploy target here


NVUE_STARTUP = "/" + nos.cumulus_path("nvue")
SONIC_FRR_CONTAINER = "bgp"  # SONiC runs FRR in this container; /etc/sonic/frr is its /etc/frr


@dataclass(frozen=True)
class Access:
    """How to reach the management network: directly, or from inside a lab's management namespace."""

    addresses: dict[str, str]  # device -> management IP (no prefix)
    netns: str | None = None
    port: int = 22
    user: str | None = None  # overrides the inventory user (lab: root)
    variant: Callable[[FabricModel, list[Artifact]], Variant] | None = None  # lab: its adapted files
    guard: str | None = None  # file on the device that must hold the device's name before anything is written
    sonic_frr_container: str | None = SONIC_FRR_CONTAINER  # None: FRR runs on the SONiC node itself (lab)
    cumulus_mode: str | None = None  # overrides the inventory's fabric.cumulus_config_mode (a lab: linux-files)


@dataclass
class Target:
    name: str
    kind: str  # "switch" | "server"
    role: str
    nos: str
    host: str
    port: int
    username: str
    netns: str | None
    files: dict[str, Artifact]  # on-device absolute path -> artifact
    asn: int | None = None
    expected_sessions: int = 0
    neighbors: list[str] = field(default_factory=list)  # devices on the other end of BGP sessions
    facing: dict[str, list[str]] = field(default_factory=dict)  # neighbour -> its ports that face this device
    drained_by_intent: bool = False  # the inventory itself drains this device
    su: int | None = None
    pod: int | None = None
    inert: set[str] = field(default_factory=set)  # installed, but nothing on this device applies them (lab)
    skip_reason: str | None = None  # not a deploy target in this environment (no connection is made)
    guard: str | None = None  # see Access.guard
    frr_exec: str = ""  # prefix that runs vtysh/frr-reload where FRR runs (SONiC: `docker exec -i bgp `)
    cumulus_mode: str = "linux-files"  # Cumulus: nvue (deploy owns NVUE's config) | linux-files (owns the files)
    nvue_writes: list[str] = field(default_factory=list)  # NVUE mode: rendered files NVUE generates (not pushed)


def session_options(target: Target, creds: Credentials) -> dict[str, object]:
    """open_session's options for `target` (also the Nornir connection extras): keys, host keys, netns and
    where FRR runs on the device."""
    return {
        "key_file": str(creds.key_file) if creds.key_file else None,
        "known_hosts": str(creds.known_hosts) if creds.known_hosts else None,
        "check_host_keys": creds.check_host_keys,
        "host_keys": creds.host_key_mode,
        "netns": target.netns,
        "frr_exec": target.frr_exec,
    }


def _mgmt_ip(address: str) -> str:
    return address.split("/", 1)[0]


def build_targets(model: FabricModel, artifacts: Iterable[Artifact], access: Access | None = None,
                  cumulus_mode: str | None = None) -> dict[str, Target]:
    """One target per device. A Cumulus switch's mode is `cumulus_mode` (--cumulus-mode), else the access's
    (a lab has no NVUE: linux-files), else the inventory's fabric.cumulus_config_mode (default nvue). In NVUE
    mode its only file is NVUE's startup.yaml; the Linux files NVUE generates are neither pushed nor diffed."""
    artifacts = list(artifacts)
    variant = access.variant(model, artifacts) if access and access.variant else None
    by_device: dict[str, dict[str, Artifact]] = {}
    for art in artifacts:
        by_device.setdefault(art.device, {})["/" + art.path] = art
    if variant is not None:
        by_device = variant.files
    targets: dict[str, Target] = {}
    for sw in model.switches:
        targets[sw.name] = Target(
            name=sw.name, kind="switch", role=sw.role, nos=sw.nos,
            host=_address(access, sw.name, sw.mgmt_address, variant), port=access.port if access else 22,
            username=(access.user if access and access.user else sw.ssh_user), netns=access.netns if access else None,
            files=by_device.get(sw.name, {}), asn=sw.bgp.asn, expected_sessions=len(sw.bgp.neighbors),
            neighbors=sorted({nb.peer_device for nb in sw.bgp.neighbors}), su=sw.su, pod=sw.pod,
            facing=_facing(sw), drained_by_intent=sw.bgp.graceful_shutdown, frr_exec=_frr_exec(sw.nos, access),
        )
    for server in model.servers:
        targets[server.name] = Target(
            name=server.name, kind="server", role="server", nos="linux",
            host=_address(access, server.name, server.mgmt_address, variant), port=access.port if access else 22,
            username=(access.user if access and access.user else server.ssh_user),
            netns=access.netns if access else None, files=by_device.get(server.name, {}), su=server.su,
        )
    override = cumulus_mode or (access.cumulus_mode if access else None)
    # fabric.cumulus_config_mode on the switch model (h-nvue's inventory key; "nvue" until it is merged)
    modes = {sw.name: override or getattr(sw, "cumulus_config_mode", None) or "nvue" for sw in model.switches}
    for target in targets.values():
        if target.kind == "switch" and target.nos == "cumulus":
            mode = modes[target.name]
            pushed = {"/" + p for p in nos.cumulus_pushed(mode)}  # refuses an unknown mode
            target.cumulus_mode = mode
            if mode == "nvue" and NVUE_STARTUP in target.files:  # NVUE generates the rest (platforms.nos)
                target.nvue_writes = sorted(p for p in target.files if p not in pushed)
                target.files = {p: a for p, a in target.files.items() if p in pushed}
    if variant is not None:
        for name, target in targets.items():
            target.inert = set(variant.inert.get(name, ()))
            target.skip_reason = variant.skip.get(name)
            target.guard = access.guard if access else None
    return targets


def _frr_exec(nos: str, access: Access | None) -> str:
    container = access.sonic_frr_container if access is not None else SONIC_FRR_CONTAINER
    return f"docker exec -i {container} " if nos == "sonic" and container else ""


def _facing(sw) -> dict[str, list[str]]:
    facing: dict[str, list[str]] = {}
    for nb in sw.bgp.neighbors:
        facing.setdefault(nb.peer_device, []).append(nb.peer_port)
    return facing


def _address(access: Access | None, name: str, mgmt: str, variant: Variant | None = None) -> str:
    if access is None:
        return _mgmt_ip(mgmt)
    if variant is not None and name in variant.skip:
        return access.addresses.get(name, "")  # never connected to
    if name not in access.addresses:
        raise NetautoError(f"{name}: no management address in the lab (was it started with --ssh?)")
    return access.addresses[name]
