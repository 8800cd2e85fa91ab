"""What deploy talks to: one target per device, built from the model and the rendered artifacts.

Credentials never come from the inventory: the SSH user does, the key or password comes from the
environment (NETAUTO_SSH_KEY, NETAUTO_SSH_PASSWORD) or the SSH agent. Host keys are checked against
known_hosts (NETAUTO_KNOWN_HOSTS or ~/.ssh/known_hosts) unless the operator opts out explicitly.

Per device or group, NETAUTO_SSH_KEY_<NAME> / NETAUTO_SSH_PASSWORD_<NAME> win over the global ones, NAME being
the device or a group upper-cased with `-` as `_` (NETAUTO_SSH_KEY_SERVERS, NETAUTO_SSH_PASSWORD_NOS_SONIC,
NETAUTO_SSH_KEY_ROLE_SPINE, NETAUTO_SSH_KEY_SU1_R0_LEAF); the most specific wins: device, nos_, role_, su_,
pod_, switches/servers. An OpenSSH client config (NETAUTO_SSH_CONFIG, else ~/.ssh/config when it exists)
gives HostName, Port, IdentityFile and ProxyCommand/ProxyJump (bastions) per host, as `ssh` would.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from netauto.errors import NetautoError
from netauto.model.cluster import ClusterModel
from netauto.model.compute_planes import plane_of
from netauto.model.types import FabricModel, Switch
from netauto.platforms import nos
from netauto.render.engine import Artifact
from netauto.netutil.ip import ip_of
from netauto.deploy.limit import groups_for


@dataclass(frozen=True)
class Credentials:
    key_file: Path | None
    password: str | None = field(default=None, repr=False)
    known_hosts: Path | None = None
    check_host_keys: bool = True
    ssh_config: Path | None = None  # OpenSSH client config (HostName, Port, IdentityFile, ProxyJump...)
    per_device: bool = False  # NETAUTO_SSH_KEY_<NAME> / NETAUTO_SSH_PASSWORD_<NAME> apply (from_env only)
    host_keys: str | None = None  # strict | accept-new | off (None: strict, or off if not check_host_keys)
    passwords: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # NETAUTO_SSH_PASSWORD_<NAME>

    @property
    def host_key_mode(self) -> str:
        return self.host_keys or ("strict" if self.check_host_keys else "off")

    @classmethod
    def from_env(cls, check_host_keys: bool = True, host_keys: str | None = None) -> "Credentials":
        """Key, passwords and known_hosts from the environment (the CLI then calls scrub_env)."""
        key = os.environ.get("NETAUTO_SSH_KEY")
        known = os.environ.get("NETAUTO_KNOWN_HOSTS") or str(Path.home() / ".ssh" / "known_hosts")
        config = os.environ.get("NETAUTO_SSH_CONFIG")
        default_config = Path.home() / ".ssh" / "config"
        ssh_config = Path(config) if config else default_config if default_config.is_file() else None
        passwords = {n: v for n, v in os.environ.items() if n.startswith("NETAUTO_SSH_PASSWORD_")}
        return cls(Path(key) if key else None, os.environ.get("NETAUTO_SSH_PASSWORD"), Path(known), check_host_keys,
                   ssh_config, per_device=True, host_keys=host_keys, passwords=passwords)


def scrub_env() -> None:
    """Take NETAUTO_SSH_PASSWORD and every NETAUTO_SSH_PASSWORD_<NAME> out of this process's environment once
    Credentials.from_env has read them, so no child process (validators, vtysh, ssh) inherits them."""
    for name in [n for n in os.environ if n == "NETAUTO_SSH_PASSWORD" or n.startswith("NETAUTO_SSH_PASSWORD_")]:
        del os.environ[name]


def env_suffix(name: str) -> str:
    """`su1-r0-leaf` -> `SU1_R0_LEAF`: a device or group name as an environment variable suffix."""
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def credentials_for(target: "Target", creds: Credentials) -> Credentials:
    """`creds` with the key and password of the most specific NETAUTO_SSH_KEY_<NAME> / _PASSWORD_<NAME>."""
    if not creds.per_device:
        return creds

    groups = groups_for(target.kind, target.role, target.nos, target.su, target.pod, target.networks)
    order = [target.name] + [g for prefix in ("nos_", "role_", "su_", "pod_", "network_") for g in groups
                             if g.startswith(prefix)]
    order += [g for g in groups if g in ("switches", "servers")]
    key, password = creds.key_file, creds.password
    for name in reversed(order):  # least specific first, the most specific is applied last
        if os.environ.get(f"NETAUTO_SSH_KEY_{env_suffix(name)}"):
            key = Path(os.environ[f"NETAUTO_SSH_KEY_{env_suffix(name)}"])
        if creds.passwords.get(f"NETAUTO_SSH_PASSWORD_{env_suffix(name)}"):
            password = creds.passwords[f"NETAUTO_SSH_PASSWORD_{env_suffix(name)}"]
    if key == creds.key_file and password == creds.password:
        return creds
    return replace(creds, key_file=key, password=password)


@dataclass(frozen=True)
class Variant:
    """What a target environment really holds, when it is not the rendered intent verbatim (a lab)."""

    files: dict[str, dict[str, Artifact]]  # device -> on-device absolute path -> the file as it must be there
    inert: dict[str, set[str]] = field(default_factory=dict)  # device -> paths installed but applied by nothing
    skip: dict[str, str] = field(default_factory=dict)  # device -> why it is not a deploy target here


NVUE_STARTUP = "/" + nos.cumulus_path("nvue")
SONIC_FRR_CONTAINER = nos.frr_location("sonic")["container"]  # SONiC runs FRR in this container; /etc/sonic/frr is its /etc/frr


@dataclass(frozen=True)
class Access:
    """How to reach the management network: directly, or from inside a lab's management namespace."""

    addresses: dict[str, str]  # device -> management IP (no prefix)
    netns: str | None = None
    port: int = 22
    user: str | None = None  # overrides the inventory user (lab: root)
    variant: Callable[[FabricModel | ClusterModel, list[Artifact]], Variant] | None = None  # lab: its adapted files
    guard: str | None = None  # file on the device that must hold the device's name before anything is written
    sonic_frr_container: str | None = SONIC_FRR_CONTAINER  # None: FRR runs on the SONiC node itself (lab)
    cumulus_mode: str | None = None  # overrides the inventory's fabric.cumulus_config_mode (a lab: linux-files)
    fabric: str | None = None  # the fabric the environment runs (a lab's): another inventory's is refused


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
    sessions: dict[str, str] = field(default_factory=dict)  # BGP neighbour (as FRR names it) -> "peer port"
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
    networks: list[str] = field(default_factory=list)  # cluster networks it is on (groups network_<name>)
    fabric: str = ""  # the inventory's fabric (a cluster's name): what deploy writes to identity.MARKER
    fabric_names: frozenset[str] = frozenset()  # every name of it a device may carry (a cluster's network fabrics)
    adopt: bool = False  # --adopt: this run may take over a device that names another fabric or none
    fabric_id: str | None = None  # the inventory's fabric id (identity.ID_FILE), None before its first deploy
    fabric_id_file: str = ""  # where the inventory keeps it (for the refusal's fix)

    @property
    def expected_sessions(self) -> int:
        return len(self.sessions)


def session_options(target: Target, creds: Credentials) -> dict[str, object]:
    """open_session's options for `target` (also the Nornir connection extras): keys, host keys, netns and
    where FRR runs on the device."""
    creds = credentials_for(target, creds)
    return {
        "key_file": str(creds.key_file) if creds.key_file else None,
        "known_hosts": str(creds.known_hosts) if creds.known_hosts else None,
        "check_host_keys": creds.check_host_keys,
        "host_keys": creds.host_key_mode,
        "netns": target.netns,
        "frr_exec": target.frr_exec,
        "ssh_config": str(creds.ssh_config) if creds.ssh_config and not target.netns else None,
        "device": target.name,  # names it in a host-key warning
    }


def build_targets(model: FabricModel | ClusterModel, artifacts: Iterable[Artifact], access: Access | None = None,
                  cumulus_mode: str | None = None) -> dict[str, Target]:
    """One target per device. A Cumulus switch's mode is `cumulus_mode` (--cumulus-mode), else the access's
    (a lab has no NVUE: linux-files), else the inventory's fabric.cumulus_config_mode (default nvue). In NVUE
    mode its only file is NVUE's startup.yaml; the Linux files NVUE generates are neither pushed nor diffed.

    A cluster (ClusterModel with networks) gives the compute fabric's devices, then every network's switches and the
    servers only a network has (storage nodes); a server's target holds all its files (its network netplan too).
    Each target lists its networks (groups network_<name>); network switches carry no su/pod (those groups are
    the compute fabric's)."""
    artifacts = list(artifacts)
    if access is not None and access.fabric is not None and access.fabric != model.name:
        raise NetautoError(f"this environment runs fabric {access.fabric}, the inventory is fabric {model.name}: "
                           f"refused, nothing changed (another fabric's inventory?)")
    variant = access.variant(model, artifacts) if access and access.variant else None
    by_device: dict[str, dict[str, Artifact]] = {}
    for art in artifacts:
        by_device.setdefault(art.device, {})["/" + art.path] = art
    if variant is not None:
        by_device = variant.files
    targets: dict[str, Target] = {}
    tagged = isinstance(model, ClusterModel) and bool(model.networks or model.compute_planes)
    networks = model.fabrics() if isinstance(model, ClusterModel) else [("compute", model)]
    modes: dict[str, str] = {}
    override = cumulus_mode or (access.cumulus_mode if access else None)
    for net, fabric in networks:
        compute = plane_of(net) is not None  # every compute plane has SUs and pods (network_compute-p<p> apart)
        tag = [net] if tagged else []
        for sw in fabric.switches:
            targets[sw.name] = Target(
                name=sw.name, kind="switch", role=sw.role, nos=sw.nos,
                host=_address(access, sw.name, sw.mgmt_address, variant), port=access.port if access else 22,
                username=(access.user if access and access.user else sw.ssh_user),
                netns=access.netns if access else None, files=by_device.get(sw.name, {}), asn=sw.bgp.asn,
                # the fabric sessions, and a frontend aggregation switch's sessions to the site routers
                sessions={**{nb.interface: f"{nb.peer_device} {nb.peer_port}" for nb in sw.bgp.neighbors},
                          **{p.address: f"{p.router or 'upstream'} via {p.interface}"
                             for p in (sw.bgp.upstream.peers if sw.bgp.upstream else [])}},
                neighbors=sorted({nb.peer_device for nb in sw.bgp.neighbors}),
                su=sw.su if compute else None, pod=sw.pod if compute else None, facing=_facing(sw),
                drained_by_intent=sw.bgp.graceful_shutdown, frr_exec=_frr_exec(sw.nos, access), networks=list(tag),
            )
            modes[sw.name] = override or sw.cumulus_config_mode  # fabric.cumulus_config_mode
        for server in fabric.servers:
            if server.name in targets:
                targets[server.name].networks += tag
                continue
            targets[server.name] = Target(
                name=server.name, kind="server", role="server", nos="linux",
                host=_address(access, server.name, server.mgmt_address, variant), port=access.port if access else 22,
                username=(access.user if access and access.user else server.ssh_user),
                netns=access.netns if access else None, files=by_device.get(server.name, {}),
                su=server.su if compute else None, networks=list(tag),
            )
    if isinstance(model, ClusterModel) and model.oob:
        _oob_targets(model, targets, modes, by_device, access, variant, override)
    for target in targets.values():
        if target.kind == "switch" and target.nos == "cumulus":
            mode = modes[target.name]
            pushed = {"/" + p for p in nos.cumulus_pushed(mode)}  # type: ignore[arg-type]  # refuses an unknown mode
            target.cumulus_mode = mode
            if mode == "nvue" and NVUE_STARTUP in target.files:  # NVUE generates the rest (platforms.nos)
                target.nvue_writes = sorted(p for p in target.files if p not in pushed)
                target.files = {p: a for p, a in target.files.items() if p in pushed}
            elif mode == "linux-files":  # startup.yaml is a rendered view: pushing it would hand the switch back
                target.files = {p: a for p, a in target.files.items() if p in pushed}  # to NVUE at its next boot
    names = frozenset([model.name, *(f.name for _, f in networks)])
    for target in targets.values():
        target.fabric, target.fabric_names = model.name, names
    if variant is not None:
        for name, target in targets.items():
            target.inert = set(variant.inert.get(name, ()))
            target.skip_reason = variant.skip.get(name) or target.skip_reason
            target.guard = access.guard if access else None
    return targets


OOB_NOT_IN_LAB = "the OOB network is not in the lab (no rendered lab view of its switches)"


def _oob_targets(cluster: ClusterModel, targets: dict[str, Target], modes: dict[str, str],  # noqa: PLR0913
                 by_device: dict[str, dict[str, Artifact]], access: Access | None, variant: Variant | None,
                 override: str | None) -> None:
    """The OOB switches (group network_oob): files per Cumulus mode like every Cumulus switch (startup.yaml, or
    the Linux files: interfaces, and frr.conf + daemons for their static routes), no BGP, no drain."""
    assert cluster.oob is not None
    for sw in cluster.oob.switches:
        in_lab = access is None or sw.name in access.addresses
        targets[sw.name] = Target(
            name=sw.name, kind="switch", role=sw.group_role, nos=sw.nos,
            host=_address(access, sw.name, sw.mgmt_address, variant) if in_lab else "",
            port=access.port if access else 22, username=(access.user if access and access.user else sw.ssh_user),
            netns=access.netns if access else None, files=by_device.get(sw.name, {}), networks=["oob"],
            skip_reason=None if in_lab else OOB_NOT_IN_LAB,
        )
        modes[sw.name] = override or sw.cumulus_config_mode


def _frr_exec(nos: str, access: Access | None) -> str:
    container = access.sonic_frr_container if access is not None else SONIC_FRR_CONTAINER
    return f"docker exec -i {container} " if nos == "sonic" and container else ""


def _facing(sw: Switch) -> dict[str, list[str]]:
    facing: dict[str, list[str]] = {}
    for nb in sw.bgp.neighbors:
        facing.setdefault(nb.peer_device, []).append(nb.peer_port)
    return facing


def _address(access: Access | None, name: str, mgmt: str, variant: Variant | None = None) -> str:
    if access is None:
        return ip_of(mgmt)
    if variant is not None and name in variant.skip:
        return access.addresses.get(name, "")  # never connected to
    if name not in access.addresses:
        raise NetautoError(f"{name}: no management address in the lab (was it started with --ssh?)")
    return access.addresses[name]
