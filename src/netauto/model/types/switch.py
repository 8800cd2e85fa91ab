"""A resolved switch: its ports, BGP, QoS, bridging and overlays, telemetry, and what templates derive from them."""

from __future__ import annotations

from dataclasses import dataclass, field

from netauto.model.types.layer2 import BondPort, Evpn, Mlag, Svi, TenantVrf
from netauto.model.types.links import CageBreakout, Interface, Role
from netauto.model.types.qos import Qos, VxlanQos, pfc_profile_name
from netauto.model.types.routing import Bgp


@dataclass(frozen=True, slots=True)
class SwitchTelemetry:
    """Where and how often a switch exports its statistics (inventory features.telemetry)."""

    otlp_host: str
    otlp_port: int
    interval_s: int


@dataclass(slots=True)
class Switch:
    name: str
    role: Role
    nos: str
    pod: int
    su: int | None
    rail: int | None
    group: int | None  # three-tier: spine j of every pod and its super-spines form group j
    index: int
    loopback: str
    mgmt_address: str  # with prefix length
    mgmt_gateway: str
    mgmt_vrf: bool
    ssh_user: str
    cumulus_release: str
    mtu: int
    adaptive_routing: bool
    ar_link_util_threshold: int
    interfaces: list[Interface]
    bgp: Bgp
    qos: Qos
    svi: Svi | None = None
    hwsku: str | None = None  # SONiC HWSKU (port map, platform); None on Cumulus
    network: str = "compute"  # which network of the cluster: "compute" or a network name
    bonds: list[BondPort] = field(default_factory=list)
    mlag: Mlag | None = None
    evpn: Evpn | None = None  # EVPN multihoming network: l2vpn-evpn (+ VTEP on an access switch)
    hardware: str = "SN5600"  # switch model (platforms/data/hardware): cages, lanes, breakout modes
    cumulus_config_mode: str = "nvue"  # who owns a Cumulus switch's config: "nvue" | "linux-files" (platforms.nos)
    telemetry: SwitchTelemetry | None = None  # statistics export (features.telemetry); None: not rendered
    vrfs: list[TenantVrf] = field(default_factory=list)  # tenant VRFs of a leaf (inventory tenants:)
    vxlan_source: str | None = None  # the leaf's VTEP address (its loopback) when it holds tenant VRFs
    vxlan_qos: VxlanQos | None = None
    vxlan_mtu: int | None = None  # the tenant VXLAN devices' MTU: the underlay's less the VXLAN overhead

    def interface(self, name: str) -> Interface:
        for iface in self.interfaces:
            if iface.name == name:
                return iface
        raise KeyError(name)

    @property
    def access_peer(self) -> str | None:
        """The other switch of this access pair (MLAG peer or EVPN-MH segment peer): the same group subnet, the
        same VRR gateway on both SVIs by design."""
        if self.mlag is not None:
            return self.mlag.peer
        if self.evpn is not None and self.evpn.vtep is not None:
            return self.evpn.vtep.peer
        return None

    @property
    def fabric_ports(self) -> list[Interface]:
        return [i for i in self.interfaces if i.kind == "fabric" and i.enabled]

    @property
    def qos_ports(self) -> list[str]:
        """Every enabled front-panel port: classification, ECN and ETS apply to all of them."""
        return [i.name for i in self.interfaces if i.enabled]

    @property
    def pfc_interfaces(self) -> list[Interface]:
        """The lossless ports: PFC and its watchdog (a long-haul port run lossy with ECN only is not one)."""
        return [i for i in self.interfaces if i.enabled and i.pfc]

    @property
    def pfc_ports(self) -> list[str]:
        return [i.name for i in self.pfc_interfaces]

    def cable_of(self, iface: Interface) -> int:
        return iface.cable_length_m or self.qos.cable_length_m

    @property
    def pfc_groups(self) -> list[tuple[str | None, int, list[str]]]:
        """The lossless ports by cable length: (profile name, metres, ports). The fabric's cable length is the
        global profile (name None: NVUE `qos pfc default-global`, Linux files group ROCE_PFC); every other
        length has a profile of its own that its ports name."""
        by_len: dict[int, list[str]] = {}
        for i in self.pfc_interfaces:
            by_len.setdefault(self.cable_of(i), []).append(i.name)
        base = self.qos.cable_length_m
        return [(None if m == base else pfc_profile_name(m), m, ports) for m, ports in
                sorted(by_len.items(), key=lambda kv: (kv[0] != base, kv[0]))]

    @property
    def pfc_port_groups(self) -> list[tuple[str, int, list[str]]]:
        """`pfc_groups` as qos_features.conf PFC port groups: ROCE_PFC, then ROCE_PFC_<metres>M."""
        return [("ROCE_PFC" if name is None else f"ROCE_PFC_{m}M", m, ports) for name, m, ports in self.pfc_groups]

    @property
    def breakout_widths(self) -> list[str]:
        """Each breakout of this switch as "<cage lanes> / <ways> = <lanes> lanes per <speed> port" (ports.conf)."""
        speeds = {i.breakout_parent: i.speed for i in self.interfaces if i.breakout_parent}
        return sorted({f"{c.ways * c.lanes_per_port} / {c.ways} = {c.lanes_per_port} lanes per {speeds.get(c.parent, '?')} port"
                       for c in self.cage_breakouts})

    @property
    def breakout_cages(self) -> list[str]:
        return [c.parent for c in self.cage_breakouts]

    @property
    def cage_breakouts(self) -> list["CageBreakout"]:
        """Every split cage (Cumulus names it by its parent port swpN): ways and lanes per sub-port."""
        seen: dict[str, CageBreakout] = {}
        for i in self.interfaces:
            if i.breakout_parent and i.breakout_parent not in seen and i.cage is not None:
                seen[i.breakout_parent] = CageBreakout(i.breakout_parent, i.cage, i.breakout, len(i.lanes))
        return sorted(seen.values(), key=lambda c: c.cage)

    @property
    def host_ports(self) -> list[Interface]:
        return [i for i in self.interfaces if i.kind == "host"]
