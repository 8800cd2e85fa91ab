"""The source-of-truth schema: what an operator may write in `inventory/`.

Unknown keys are rejected everywhere (extra="forbid") so a typo never silently falls back to a default.
Cross-field checks that need the whole fabric (pool sizes, overlaps, port clashes) live in the resolver.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict, check_asn, check_ifname, ipv4_network
from netauto.inventory.cabling import Cabling
from netauto.inventory.compute_planes import ComputePlanes, PlanePort
from netauto.inventory.hall import Hall
from netauto.inventory.kubernetes import Kubernetes
from netauto.inventory.names import check_template
from netauto.inventory.networks import Bom, OutOfBand, Network, ServerGroup
from netauto.inventory.tenants import Tenants
from netauto.inventory.strings import IfName, Ipv4Address, Name, Note, PortName, RdmaName, Text, UserName

Nos = Literal["cumulus", "sonic"]
Role = Literal["leaf", "spine", "super_spine"]

SPEEDS_MBPS = {"1G": 1000, "10G": 10000, "25G": 25000, "50G": 50000, "100G": 100000, "200G": 200000, "400G": 400000, "800G": 800000}


class NosPlan(Strict):
    default: Nos = "cumulus"
    leaf: Nos | None = None
    spine: Nos | None = None
    super_spine: Nos | None = None

    def for_role(self, role: Role) -> Nos:
        return getattr(self, role) or self.default


class Mtu(Strict):
    switch: int = Field(9216, ge=1500, le=9216)
    host: int = Field(9000, ge=1280, le=9216)


class BgpTimers(Strict):
    keepalive: int = Field(3, ge=1, le=65535)
    holdtime: int = Field(9, ge=3, le=65535)
    connect_retry: int = Field(10, ge=1, le=65535)

    @model_validator(mode="after")
    def _hold_gt_keepalive(self) -> "BgpTimers":
        if self.holdtime < 3 * self.keepalive:
            raise SchemaValueError(
                f"holdtime {self.holdtime} is below 3 x keepalive {self.keepalive}", key="holdtime",
                hint=f"set holdtime to at least {3 * self.keepalive} or lower keepalive",
            )
        return self


class BgpStartup(Strict):
    """Keep a rebooted switch from attracting traffic before its ASIC is programmed.

    update_delay / establish_wait (default on, 120 s): read-only mode after a restart, no best-path and no updates
    until every peer sent End-of-RIB or the delay expires (FRR `update-delay`, NVUE `router bgp convergence-wait
    time / establish-wait-time`, NVUE reference "nv set router bgp convergence-wait"); 0 = off. Tested in the lab
    (FRR 8.4 in namespaces): the fabric converges as fast as without it.
    wait_for_install (default off): advertise a route only once it is in the FIB (FRR `bgp suppress-fib-pending`,
    NVUE `router bgp wait-for-install`, SONiC DEVICE_METADATA suppress-fib-pending + synchronous_mode). Off by
    default: with FRR 8.4 (the lab's) the switches then never advertise their `network`, redistributed-connected
    and aggregate routes (observed in the lab; FRR issues #12112 / PR #12113 fixed `network` only), so enable it
    only for NOS builds whose FRR handles locally originated routes.
    """

    wait_for_install: bool = False
    update_delay: int = Field(120, ge=0, le=3600)
    establish_wait: int = Field(0, ge=0, le=3600)

    @model_validator(mode="after")
    def _establish_within_delay(self) -> "BgpStartup":
        if self.establish_wait > self.update_delay:
            raise SchemaValueError(f"establish_wait {self.establish_wait} exceeds update_delay {self.update_delay}",
                                   key="establish_wait", hint="FRR requires establish-wait <= update-delay")
        return self


class Bgp(Strict):
    timers: BgpTimers = BgpTimers()
    maximum_paths: int = Field(64, ge=1, le=256)
    multipath_relax: bool = True
    startup: BgpStartup = BgpStartup()
    # Inbound limit per fabric session (FRR `maximum-prefix`, NVUE `prefix-limits inbound maximum`). None: what
    # the address plan can ever announce (loopback pools + leaf blocks of the host pool): stable as the fabric grows.
    maximum_prefix: int | None = Field(None, ge=1, le=4294967295)


HardwareName = Name


class RoleHardware(Strict):
    """`switch_hardware: {leaf: SN3420, spine: SN4600C}`: a tier's switch model (default SN5600)."""

    leaf: HardwareName = "SN5600"
    spine: HardwareName = "SN5600"
    super_spine: HardwareName = "SN5600"


class Sites(Strict):
    """How far the fabric spans: more than one site drives the NCCL long-haul settings (buffers, QPs)."""

    count: int = Field(1, ge=1, le=16)
    max_distance_km: float = Field(0, ge=0, le=2000)  # fibre distance between the farthest two sites


class Fabric(Strict):
    name: Name
    nos: NosPlan = NosPlan()
    cumulus_release: str = Field("5.14", pattern=r"^5\.\d+(\.\d+)?$")
    # switch model (platforms/data/hardware: cages, lanes, breakouts): one for every tier, or per tier
    switch_hardware: HardwareName | RoleHardware = "SN5600"
    # Who owns a Cumulus switch's configuration (netauto.platforms.nos, data/nos_cumulus.yaml): "nvue" (deploy owns
    # startup.yaml only; NVUE generates the Linux files) or "linux-files" (NVUE disabled as NVIDIA documents).
    cumulus_config_mode: Literal["nvue", "linux-files"] = "nvue"
    # SONiC switches: port map; default: the switch model's default HWSKU (SN5600: ACS-SN5600, platforms/data/hardware)
    sonic_hwsku: Name | None = None
    mtu: Mtu = Mtu()
    host_link_speed: Literal["100G", "200G", "400G", "800G"] = "400G"
    fabric_link_speed: Literal["100G", "200G", "400G", "800G"] = "400G"
    fec: Literal["rs", "none", "default"] = "rs"  # the fabric links (switch to switch)
    # the server-facing ports: None = what the NIC runs at the port's speed (platforms/data/nics.yaml fec_by_speed)
    host_fec: Literal["rs", "none", "default"] | None = None
    cable_length_m: int = Field(100, ge=1, le=100000)
    bgp: Bgp = Bgp()
    sites: Sites = Sites()

    @field_validator("cumulus_release")
    @classmethod
    def _supported_release(cls, value: str) -> str:
        from netauto.platforms.nos import cumulus_releases, unsupported_release

        why = unsupported_release(value)
        if why:
            raise SchemaValueError(why, hint=f"set cumulus_release to one of {', '.join(cumulus_releases())}")
        return value


class PortRange(Strict):
    """Where a class of ports starts and how its cages are split.

    The split follows from the link speed and the switch's lane rate (`netauto.platforms.hardware`): on a
    Spectrum-4 8 x 100G cage a 400G port is a 2x breakout (swpNs0/swpNs1, 4 lanes each). `breakout`, when given,
    must agree; `lane_speed` states a slower lane rate (e.g. 50G for 400G on all 8 lanes of a cage)."""

    first: int = Field(1, ge=1, le=512)
    breakout: Literal[1, 2, 4] | None = None
    lane_speed: Literal["10G", "25G", "50G", "100G", "200G"] | None = None


class RolePorts(Strict):
    cages: int = Field(64, ge=1, le=512)
    downlinks: PortRange = PortRange(first=1)
    uplinks: PortRange = PortRange(first=33)


class Ports(Strict):
    leaf: RolePorts = RolePorts()
    spine: RolePorts = RolePorts()
    super_spine: RolePorts = RolePorts()


class Naming(Strict):
    """Python format strings. Fields: su (1-based), rail (0-based: NIC k is rail k), pod, group, index
    (1-based); formats: none or a zero-padded width (`{index:02d}`); literal text: letters, digits, '-' (names are hostnames)."""

    leaf: str = "su{su}-r{rail}-leaf"
    spine: str = "pod{pod}-spine{index}"
    super_spine: str = "group{group}-superspine{index}"
    server: str = "su{su}-gpu{index:02d}"

    @field_validator("leaf", "spine", "super_spine", "server")
    @classmethod
    def _template(cls, v: str) -> str:
        return check_template(v)


class Topology(Strict):
    rails: int = Field(8, ge=1, le=16)
    servers_per_su: int = Field(ge=1, le=256)
    sus_per_pod: int = Field(1, ge=1, le=256)
    pods: int = Field(1, ge=1, le=64)
    spines_per_pod: int = Field(ge=1, le=256)
    leaf_spine_links: int = Field(1, ge=1, le=32)
    super_spines_per_group: int = Field(0, ge=0, le=64)
    spine_super_spine_links: int = Field(1, ge=1, le=32)
    oversubscription: float = Field(1.0, ge=1.0, le=16.0)
    compute_planes: ComputePlanes = ComputePlanes()  # NVIDIA multi-plane: docs/compute-planes.md

    @model_validator(mode="before")
    @classmethod
    def _old_group_key(cls, data: Any) -> Any:
        # the super-spine group (spine j of every pod and its super-spines) was a "plane" before compute planes
        if isinstance(data, dict) and "super_spines_per_plane" in data:
            raise SchemaValueError("`super_spines_per_plane` is the old name of the super-spine group size",
                                   key="super_spines_per_plane",
                                   hint="renamed super_spines_per_group: rename the key, keep the value")
        return data

    @model_validator(mode="after")
    def _pods_need_super_spines(self) -> "Topology":
        if self.pods > 1 and self.super_spines_per_group == 0:
            raise SchemaValueError("pods > 1 needs a super-spine tier", key="super_spines_per_group",
                                   hint="set super_spines_per_group >= 1 or pods: 1")
        return self


class LoopbackPools(Strict):
    leaf: str = "10.254.0.0/20"
    spine: str = "10.253.0.0/22"
    super_spine: str = "10.252.0.0/24"

    @field_validator("leaf", "spine", "super_spine")
    @classmethod
    def _check(cls, v: str) -> str:
        return str(ipv4_network(v))


class HostLinks(Strict):
    mode: Literal["p2p", "leaf-subnet"] = "p2p"
    pool: str = "10.0.0.0/12"
    rail_prefix_len: int = Field(16, ge=8, le=30)
    leaf_prefix_len: int = Field(24, ge=16, le=30)

    @field_validator("pool")
    @classmethod
    def _check(cls, v: str) -> str:
        return str(ipv4_network(v))


class Management(Strict):
    switch_pool: str = "192.168.200.0/24"
    server_pool: str = "192.168.201.0/24"
    gateway_switch: str | None = None
    gateway_server: str | None = None
    switch_user: UserName = "cumulus"
    server_user: UserName = "ubuntu"
    vrf: bool = True

    @field_validator("switch_pool", "server_pool")
    @classmethod
    def _check(cls, v: str) -> str:
        return str(ipv4_network(v))

    @field_validator("gateway_switch", "gateway_server")
    @classmethod
    def _gateway(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                ipaddress.IPv4Address(v)
            except ValueError:
                raise SchemaValueError(f"{v!r} is not an IPv4 address", hint="write the gateway's address, e.g. 192.168.200.1") from None
        return v


class Addressing(Strict):
    loopbacks: LoopbackPools = LoopbackPools()
    host_links: HostLinks = HostLinks()
    management: Management = Management()


class Asns(Strict):
    """RFC 7938: every leaf unique (leaf_base + leaf number), spines of pod p share spine_base + p - 1,
    super-spines share one."""

    leaf_base: int = 65101
    spine_base: int = 65100
    super_spine: int = 65000

    @field_validator("leaf_base", "spine_base", "super_spine")
    @classmethod
    def _check(cls, v: int) -> int:
        return check_asn(v)


class Gshut(Strict):
    honour: bool = True
    prepend: bool = True
    drain: list[Name] = []  # switch names


class VerifySpec(Strict):
    """`netauto verify`: the most a counter may increase per --window before it is a finding (default 0).
    Names: np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets, rx_prio<N>_pause, tx_prio<N>_pause, discards
    (rail NICs; discards also switch ports); switch_rx_prio<N>_pause, switch_tx_prio<N>_pause, switch_ecn_marked
    (switch ports of a lossless network: ECN marks are informational unless switch_ecn_marked is set; drops on
    the lossless queue and PFC watchdog storms must stay 0, no threshold)."""

    thresholds: dict[Name, Annotated[int, Field(ge=0)]] = {}


class OtlpCollector(Strict):
    """An OpenTelemetry (OTLP/gRPC) collector the switches export their statistics to."""

    host: Ipv4Address
    port: int = Field(4317, ge=1, le=65535)  # OTLP/gRPC's IANA port


class Telemetry(Strict):
    """Switch telemetry export (Cumulus NVUE `system telemetry`, CL 5.10+): docs/monitoring.md "Switch telemetry"."""

    otlp: OtlpCollector
    interval_s: int = Field(1, ge=1, le=86400)  # NVUE interface-stats / buffer-stats sample-interval range


class Features(Strict):
    adaptive_routing: bool = True
    telemetry: Telemetry | None = None
    ar_link_util_threshold: int = Field(70, ge=1, le=100)
    gshut: Gshut = Gshut()
    verify: VerifySpec = VerifySpec()


class ClassMap(Strict):
    dscp: int = Field(ge=0, le=63)
    priority: int = Field(ge=0, le=7)


class Ecn(Strict):
    min_threshold: int = Field(150000, ge=1)
    max_threshold: int = Field(1500000, ge=1)
    probability: int = Field(100, ge=1, le=100)

    @model_validator(mode="after")
    def _min_below_max(self) -> "Ecn":
        if self.min_threshold >= self.max_threshold:
            raise SchemaValueError(
                f"min_threshold {self.min_threshold} must be below max_threshold {self.max_threshold}",
                key="min_threshold", hint="lower min_threshold or raise max_threshold",
            )
        return self


class PfcWatchdog(Strict):
    enabled: bool = True
    polling_interval_ms: int = Field(100, ge=100, le=1000)
    robustness: int = Field(3, ge=1, le=1000)


class Qos(Strict):
    """RoCE lossless profile; defaults are NVIDIA's `qos roce` values."""

    mode: Literal["lossless"] = "lossless"
    roce: ClassMap = ClassMap(dscp=26, priority=3)
    cnp: ClassMap = ClassMap(dscp=48, priority=6)
    ets: dict[int, int] = {0: 50, 3: 50}
    # extra classes: switch priority -> the DSCPs hosts mark that traffic with (an ETS weight needs traffic)
    classes: dict[int, list[int]] = {}
    ecn: Ecn = Ecn()
    pfc_watchdog: PfcWatchdog = PfcWatchdog()
    host_tos: int = Field(106, ge=0, le=255)

    @field_validator("ets")
    @classmethod
    def _ets(cls, v: dict[int, int]) -> dict[int, int]:
        for tc, w in v.items():
            if not 0 <= tc <= 7:
                raise ValueError(f"traffic class {tc} out of range 0..7")
            if not 1 <= w <= 100:
                raise ValueError(f"weight {w} of traffic class {tc} out of range 1..100")
        if sum(v.values()) != 100:
            raise SchemaValueError(f"ETS weights sum to {sum(v.values())}, they must sum to 100",
                                   hint="adjust the weights so they add up to 100")
        return dict(sorted(v.items()))

    @model_validator(mode="after")
    def _classes(self) -> "Qos":
        if self.roce.priority == self.cnp.priority:
            raise SchemaValueError("roce.priority and cnp.priority must differ (CNP is strict and not PFC)",
                                   key="cnp", hint="use the NVIDIA defaults: roce priority 3, cnp priority 6")
        if self.roce.dscp == self.cnp.dscp:
            raise SchemaValueError("roce.dscp and cnp.dscp must differ", key="cnp",
                                   hint="use the NVIDIA defaults: roce dscp 26, cnp dscp 48")
        if self.roce.priority not in self.ets:
            raise SchemaValueError(f"ets must give the RoCE traffic class {self.roce.priority} a weight", key="ets",
                                   hint=f"add {self.roce.priority}: <weight> to ets")
        if self.cnp.priority in self.ets:
            raise SchemaValueError(f"ets must not weight the CNP class {self.cnp.priority}: it is strict priority",
                                   key="ets", hint=f"remove {self.cnp.priority} from ets")
        for prio, dscps in self.classes.items():
            if not 0 <= prio <= 7 or prio in (self.roce.priority, self.cnp.priority):
                raise SchemaValueError(f"classes: priority {prio} must be 0..7 and not the RoCE or CNP priority",
                                       key="classes", hint="use a free priority such as 1 or 2")
            bad = [d for d in dscps if not 0 <= d <= 63 or d in (self.roce.dscp, self.cnp.dscp)]
            if bad:
                raise SchemaValueError(f"classes.{prio}: DSCP {bad} out of 0..63 or taken by RoCE/CNP", key="classes",
                                       hint="list the DSCPs the hosts mark this traffic with")
        fed = {0, self.roce.priority} | set(self.classes)
        starved = sorted(tc for tc in self.ets if tc not in fed)
        if starved:
            raise SchemaValueError(
                f"ets weights traffic class {starved[0]} but nothing is classified into it (traffic reaches only "
                f"RoCE {self.roce.priority}, CNP {self.cnp.priority} and the default class 0): the weight would "
                "be unused", key="ets",
                hint=f"map DSCPs into it with classes: {{{starved[0]}: [<dscp>, ...]}} (hosts must mark that traffic; "
                "TCP and UDP cannot be told apart by DSCP alone), or remove it from ets")
        if self.host_tos >> 2 != self.roce.dscp:
            raise SchemaValueError(
                f"host_tos {self.host_tos} carries DSCP {self.host_tos >> 2}, not roce.dscp {self.roce.dscp}",
                key="host_tos", hint=f"set host_tos to {(self.roce.dscp << 2) | 2} (DSCP << 2 | ECT(0))",
            )
        return self


NicKind = Literal["connectx-7", "connectx-8", "bluefield-3-supernic"]
_PCI = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
_MAC = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}")


NicNames = Literal["renamed", "kernel"]
# Names the kernel gives NICs itself (ethN enumeration, ibN, the predictable en* names): renaming a NIC into them
# races with the kernel's own naming (systemd.link(5), "NamePolicy"; domain.md Corrections "NIC names in the
# kernel's namespace")
KERNEL_NIC_PREFIXES = ("eth", "ib", "en")


class RailNic(Strict):
    """One rail NIC of a server model: which rail it serves, how the host finds it, what it is."""

    rail: int = Field(ge=0, le=15)
    name: IfName  # the interface name netauto gives it (netplan set-name / systemd .link Name=)
    rdma: RdmaName  # RDMA device name the host shows for it (NCCL_IB_HCA); checked at boot by the provisioning unit
    pci: str | None = None  # PCI address "0000:18:00.0": matched by a systemd .link Path=pci-<address>
    kind: NicKind | None = None  # defaults to the profile's nic_kind
    gpus: list[int] = []  # GPUs local to this NIC (PCIe switch affinity), documentation and NCCL topology checks
    plane_ports: dict[int, PlanePort] = {}  # compute plane (2..count) -> this NIC's port on it (docs/compute-planes.md)

    @field_validator("name", "rdma")
    @classmethod
    def _names(cls, v: str) -> str:
        return check_ifname(v)

    @field_validator("pci")
    @classmethod
    def _pci(cls, v: str | None) -> str | None:
        if v is not None and not _PCI.fullmatch(v.lower()):
            raise ValueError(f"{v!r} is not a PCI address like 0000:18:00.0 (domain:bus:device.function)")
        return v.lower() if v else v


class ServerProfile(Strict):
    """A server model: its rail NICs. Rails of the fabric it has no NIC for must be listed in absent_rails."""

    model: Text = "unspecified"  # in comments of the rendered host files
    source: Note | None = None  # where the PCI addresses / RDMA names come from
    nic_kind: NicKind = "connectx-7"
    nics: list[RailNic]
    absent_rails: list[int] = []
    socket_ifname: IfName | None = None  # NCCL_SOCKET_IFNAME (bootstrap); default: the first rail NIC
    # nics[].name: "renamed" (netauto names the NIC: udev by PCI path, netplan set-name by MAC; the name must be
    # outside the kernel's namespaces eth*/ib*/en*, systemd.link(5)) or "kernel" (the names ARE the host's own
    # predictable names, e.g. enp24s0np0: nothing renames them, netplan configures them by name)
    nic_names: NicNames = "renamed"

    @field_validator("socket_ifname")
    @classmethod
    def _sock(cls, v: str | None) -> str | None:
        return check_ifname(v) if v is not None else v

    @model_validator(mode="after")
    def _unique(self) -> "ServerProfile":
        for key in ("rail", "name", "rdma", "pci"):
            vals = [getattr(n, key) for n in self.nics if getattr(n, key) is not None]
            dup = sorted({str(v) for v in vals if vals.count(v) > 1})
            if dup:
                raise SchemaValueError(f"two NICs share {key} {', '.join(dup)}", key="nics",
                                       hint=f"give every rail NIC its own {key}")
        both = sorted({n.rail for n in self.nics} & set(self.absent_rails))
        if both:
            raise SchemaValueError(f"rail(s) {both} both have a NIC and are listed in absent_rails", key="absent_rails",
                                   hint="remove them from absent_rails")
        return self


class ServerHost(Strict):
    """Per-server facts: another profile than its SU's, and the MACs of its rail NICs (netplan match by MAC)."""

    profile: Name | None = None
    macs: dict[IfName, str] = {}  # rail NIC name -> MAC

    @field_validator("macs")
    @classmethod
    def _macs(cls, v: dict[str, str]) -> dict[str, str]:
        out = {}
        for nic, mac in v.items():
            if not _MAC.fullmatch(str(mac).lower()):
                raise ValueError(f"{nic}: {mac!r} is not a MAC address like b8:3f:d2:00:00:01")
            out[nic] = str(mac).lower()
        return out


class Servers(Strict):
    """GPU servers. Either profiles (per server model, assigned per SU or per server) or, the older form, one NIC
    list for every server (`nics`, `rdma_devices`, optional `pci`), which becomes the profile `default`."""

    nics: list[IfName] | None = None
    rdma_devices: list[RdmaName] | None = None
    pci: list[str] | None = None  # older form: PCI address per rail, same order as nics
    profile: Name | None = None  # profile of every server not assigned otherwise
    profiles: dict[Name, ServerProfile] = {}
    su_profiles: dict[int, Name] = {}  # SU number -> profile
    hosts: dict[Name, ServerHost] = {}  # server name -> profile and/or NIC MACs
    table_base: int = Field(100, ge=1, le=240)
    rule_priority_base: int = Field(1000, ge=1, le=32000)
    nic_names: NicNames = "renamed"  # older form (`nics`): as ServerProfile.nic_names

    @field_validator("nics", "rdma_devices")
    @classmethod
    def _unique(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        dup = sorted({n for n in v if v.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate names {dup}")
        for n in v:
            check_ifname(n)
        return v

    @field_validator("pci")
    @classmethod
    def _pcis(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        for a in v:
            if not _PCI.fullmatch(a.lower()):
                raise ValueError(f"{a!r} is not a PCI address like 0000:18:00.0")
        return [a.lower() for a in v]

    @model_validator(mode="after")
    def _forms(self) -> "Servers":
        legacy = self.nics is not None or self.rdma_devices is not None or self.pci is not None
        if legacy and self.profiles:
            raise SchemaValueError("give either profiles or nics/rdma_devices, not both", key="nics",
                                   hint="move the NIC list into a profile (README: GPU servers)")
        if self.profiles:
            names = set(self.profiles)
            refs = [("profile", self.profile)] + [(f"su_profiles.{k}", v) for k, v in self.su_profiles.items()] + [
                (f"hosts.{k}.profile", h.profile) for k, h in self.hosts.items()]
            for where, ref in refs:
                if ref is not None and ref not in names:
                    raise SchemaValueError(f"{where}: no profile {ref!r} (profiles: {', '.join(sorted(names))})",
                                           key=where.split(".")[0], hint="name a profile defined under servers.profiles")
            if self.profile is None and len(names) > 1 and not self.su_profiles and not self.hosts:
                raise SchemaValueError("several profiles but none assigned", key="profile",
                                       hint="set servers.profile (the default) or su_profiles / hosts")
        elif self.su_profiles or self.profile or any(h.profile for h in self.hosts.values()):
            raise SchemaValueError("profile assignments without servers.profiles", key="profiles",
                                   hint="define the profiles under servers.profiles")
        return self


class DeviceOverride(Strict):
    absent: bool = False
    nos: Nos | None = None
    hwsku: Name | None = None  # SONiC HWSKU of this switch
    mgmt_ip: str | None = None
    drain: bool = False

    @field_validator("mgmt_ip")
    @classmethod
    def _ip(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                ipaddress.IPv4Address(v)
            except ValueError:
                raise SchemaValueError(f"{v!r} is not an IPv4 address", hint="write an address, e.g. 192.168.200.10") from None
        return v


class PortOverride(Strict):
    device: Name
    port: PortName
    disabled: bool = True


class Overrides(Strict):
    devices: dict[Name, DeviceOverride] = {}
    ports: list[PortOverride] = []


class Inventory(Strict):
    fabric: Fabric
    topology: Topology
    ports: Ports = Ports()
    naming: Naming = Naming()
    addressing: Addressing = Addressing()
    asns: Asns = Asns()
    features: Features = Features()
    qos: Qos = Qos()
    servers: Servers = Servers()
    overrides: Overrides = Overrides()
    server_groups: dict[Name, ServerGroup] = {}  # non-GPU servers (storage nodes, CPU servers)
    networks: dict[Name, Network] = {}  # storage / frontend networks beside the compute fabric
    oob: OutOfBand | None = None  # out-of-band network: BMCs and switch management ports
    bom: Bom | None = None  # inputs of `netauto bom` (platforms, NIC cages, cable lengths)
    kubernetes: Kubernetes | None = None  # the pods' RDMA networks (docs/kubernetes.md)
    cabling: Cabling = Cabling()  # cable length per link, sites, long-haul links (PFC headroom)
    hall: Hall | None = None  # the data hall: racks, power, places, cable runs (docs/site.md)
    tenants: Tenants | None = None  # a GPU cloud's customers: one VRF + L3VNI each on the leaves (docs/tenants.md)

    @model_validator(mode="before")
    @classmethod
    def _old_networks_key(cls, data: Any) -> Any:
        # `planes:` was this section's name before compute planes (parallel compute fabrics) took the word
        if isinstance(data, dict) and "planes" in data:
            raise SchemaValueError("`planes:` is the old name of the storage/frontend networks section", key="planes",
                                   hint="rename `planes:` to `networks:`")
        return data
