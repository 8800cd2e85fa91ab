"""The source-of-truth schema: what an operator may write in `inventory/`.

Unknown keys are rejected everywhere (extra="forbid") so a typo never silently falls back to a default.
Cross-field checks that need the whole fabric (pool sizes, overlaps, port clashes) live in the resolver.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict, check_asn, ipv4_network
from netauto.inventory.cabling import Cabling
from netauto.inventory.compute_planes import ComputePlanes
from netauto.inventory.hall import Hall
from netauto.inventory.kubernetes import Kubernetes
from netauto.inventory.names import check_template
from netauto.inventory.bom import Bom
from netauto.inventory.networks import Network
from netauto.inventory.oob import OutOfBand
from netauto.inventory.server_groups import ServerGroup
from netauto.inventory.qos import Qos
from netauto.inventory.servers import Servers
from netauto.inventory.tenants import Tenants
from netauto.inventory.strings import Ipv4Address, Name, PortName, UserName
from netauto.platforms.nos import cumulus_releases, unsupported_release

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
