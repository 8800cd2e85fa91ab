"""The resolved fabric model: everything a template or a validator needs, already computed.

Addresses are stored as strings ("10.0.0.0/31") so templates never do IP arithmetic and the model
serialises straight to JSON/YAML for `netauto show model`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Role = Literal["leaf", "spine", "super_spine"]
IfKind = Literal["fabric", "host", "peerlink", "upstream"]
# "upstream": a frontend aggregation switch to a site router (networks.<name>.upstream.links); the far end is no
# device of the cluster, so these links live in FabricModel.exit_links, not in FabricModel.links
LinkKind = Literal["leaf-spine", "spine-superspine", "server-leaf", "oob-access", "oob-uplink", "mlag-peerlink",
                   "upstream", "mlag-backup"]


@dataclass(slots=True)
class Interface:
    name: str
    kind: IfKind
    speed: str
    speed_mbps: int
    mtu: int
    fec: str | None
    enabled: bool
    peer_device: str | None
    peer_port: str | None
    description: str
    address: str | None = None  # "10.0.0.0/31" (p2p host link); None on unnumbered fabric ports
    access_vlan: int | None = None  # leaf-subnet mode: host ports are access ports of the rail VLAN
    adaptive_routing: bool = False
    pfc: bool = True
    pfc_watchdog: bool = False
    breakout_parent: str | None = None  # "swp1" for "swp1s0"
    cage: int | None = None  # 1-based front-panel cage (SONiC: HWSKU lanes and alias)
    subport: int | None = None  # breakout sub-port, 0-based; None when the cage is not split
    breakout: int = 1  # how many ways the cage is split
    lanes: list[int] = field(default_factory=list)  # the SerDes lanes of this port (platforms.hardware)
    # 1000BASE-T (an RJ45 port): the speed comes from auto-negotiation, which the standard requires (IEEE 802.3
    # clause 40); never forced (CL <= 5.13 turns auto-negotiation off when `link speed` is set)
    autoneg_only: bool = False
    # metres of the cable on this port (model.cabling: per link, site pair, bom run length or fabric default);
    # sizes its PFC headroom. 0 before cabling ran (then the fabric's cable_length_m applies)
    cable_length_m: int = 0
    vrf: str | None = None  # a tenant's server-facing port: the tenant's VRF (model.tenants); None: the default VRF


@dataclass(slots=True)
class BgpNeighbor:
    interface: str
    peer_group: str
    peer_device: str
    peer_port: str
    peer_asn: int


@dataclass(slots=True)
class PrefixRule:
    prefix: str
    max_len: int

    @property
    def le(self) -> int | None:
        """The `le` bound, None for an exact match (max_len == the prefix's own length)."""
        return None if self.max_len == int(self.prefix.rsplit("/", 1)[1]) else self.max_len

    @property
    def frr(self) -> str:
        """The prefix-list match as FRR writes it: `10.0.0.0/8 le 32`, or `0.0.0.0/0` (exact)."""
        return self.prefix if self.le is None else f"{self.prefix} le {self.le}"


@dataclass(frozen=True, slots=True)
class Bfd:
    detect_multiplier: int
    min_rx_interval: int  # ms
    min_tx_interval: int


@dataclass(slots=True)
class UpstreamPeer:
    """A numbered eBGP session from a frontend aggregation switch to an upstream (site/DC) router."""

    address: str  # the router's address (the neighbour's name in FRR and NVUE)
    asn: int
    interface: str  # this switch's port of the point-to-point link
    description: str
    bfd: Bfd | None = None
    router: str = ""  # the router's name (inventory `peer`): the lab's stand-in namespace, docs


@dataclass(slots=True)
class Upstream:
    """The frontend's exit on this switch: its sessions and the policy every one of them gets."""

    peers: list[UpstreamPeer]
    accept: list[PrefixRule]  # UPSTREAM-IN: 0.0.0.0/0 (exact) and any site prefixes (exact)
    advertise: list[PrefixRule]  # UPSTREAM-OUT: the network's own aggregates (exact), nothing else
    aggregates: list[str]  # aggregate-address without summary-only: the fabric keeps its more-specific routes
    maximum_prefix: int

    @property
    def bfd(self) -> bool:
        """Some session runs BFD (the FRR daemons file starts bfdd)."""
        return any(p.bfd for p in self.peers)


@dataclass(slots=True)
class PeerGroup:
    name: str
    description: str


@dataclass(slots=True)
class Bgp:
    asn: int
    router_id: str
    keepalive: int
    holdtime: int
    connect_retry: int
    maximum_paths: int
    multipath_relax: bool
    graceful_shutdown: bool  # this device is drained
    gshut_honour: bool
    gshut_prepend: bool
    peer_groups: list[PeerGroup]
    neighbors: list[BgpNeighbor]
    networks: list[str]
    aggregates: list[str]
    connected_prefixes: list[PrefixRule]  # what redistribute connected may announce besides the loopback
    # startup protection (inventory fabric.bgp.startup): FRR suppress-fib-pending / update-delay, NVUE
    # wait-for-install / convergence-wait
    wait_for_install: bool = True
    update_delay: int = 0  # seconds; 0 = off
    establish_wait: int = 0
    # what fabric sessions accept inbound: only these prefixes (any length up to max_len) ...
    accept_prefixes: list[PrefixRule] = field(default_factory=list)
    maximum_prefix: int = 0  # ... and at most this many (0 = no limit)
    upstream: Upstream | None = None  # frontend aggregation switches: the eBGP exit to the site network


def pfc_profile_name(metres: int) -> str:
    """The PFC profile of the ports on `metres` of cable (NVUE `qos pfc <name>`; Linux files pfc port group)."""
    return f"cable-{metres}m"


@dataclass(slots=True)
class EtsClass:
    traffic_class: int
    mode: Literal["dwrr", "strict"]
    weight: int  # 0 for strict


@dataclass(slots=True)
class Qos:
    roce_dscp: int
    roce_priority: int
    cnp_dscp: int
    cnp_priority: int
    ets: list[EtsClass]
    ecn_traffic_classes: list[int]
    ecn_min_threshold: int
    ecn_max_threshold: int
    ecn_probability: int
    pfc_priorities: list[int]
    pfc_watchdog: bool
    pfc_watchdog_polling_interval_ms: int
    pfc_watchdog_robustness: int
    cable_length_m: int
    host_tos: int
    pfc_bitmap: str  # mlnx_qos --pfc form: "0,0,0,1,0,0,0,0"
    is_nvidia_default: bool  # the plain `qos roce` profile, no tweaks needed
    mode: Literal["lossless", "lossy"] = "lossless"  # lossy: a network without RoCE (no PFC/ECN/ETS rendered)

    @property
    def lossless(self) -> bool:
        return self.mode == "lossless"
    # Classification, complete: DSCP (0..63) -> switch priority, switch priority (0..7) -> traffic class.
    # Base: Cumulus `qos roce` (DSCP >> 3, SP3 -> TC3, SP6 -> TC6, every other SP -> TC0); SONiC renders the same.
    dscp_to_priority: dict[int, int] = field(default_factory=dict)
    priority_to_tc: dict[int, int] = field(default_factory=dict)
    dscp_changes: dict[int, int] = field(default_factory=dict)  # entries that differ from the DSCP >> 3 base
    wred_drop: bool = False  # ECN marks ECT packets; non-ECT packets are never RED-dropped (Cumulus red_enable false)

    @property
    def dscp_to_tc(self) -> dict[int, int]:
        return {d: self.priority_to_tc[p] for d, p in self.dscp_to_priority.items()}

    @property
    def dscps_by_priority(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {p: [] for p in range(8)}
        for d, p in sorted(self.dscp_to_priority.items()):
            out[p].append(d)
        return out

    @property
    def lossy_priorities(self) -> list[int]:
        return [p for p in range(8) if p not in self.pfc_priorities]

    @property
    def pfc_map(self) -> str:
        """dcb(8) pfc form: "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"."""
        return " ".join(f"{p}:{'on' if p in self.pfc_priorities else 'off'}" for p in range(8))


@dataclass(slots=True)
class Svi:
    """leaf-subnet mode: the leaf's gateway on the rail subnet shared by its hosts."""

    name: str
    vlan: int
    address: str
    members: list[str]
    vrr_address: str | None = None  # MLAG pair: the shared gateway (VRR) address and MAC
    vrr_mac: str | None = None
    bridge: str = "br_default"  # the VLAN-aware bridge (NVUE's default domain; the same name in interfaces)


@dataclass(slots=True)
class BondPort:
    """An LACP bond: a server-facing bond of an MLAG access pair (frontend network, `host_routing: bond`), or a
    switch-to-switch trunk of the OOB network (`trunk_vlans`; `mlag_id` 0 on a switch that is no MLAG pair)."""

    name: str
    members: list[str]
    mlag_id: int
    access_vlan: int
    description: str
    mtu: int
    trunk_vlans: list[int] = field(default_factory=list)  # a tagged trunk of these VLANs (access_vlan unused)
    segment: "EthernetSegment | None" = None  # EVPN-MH: the server's Ethernet Segment (no mlag_id then)


@dataclass(frozen=True, slots=True)
class EthernetSegment:
    """EVPN multihoming: one server bond, the same segment on both access switches of its group. The ESI is
    type 3, 03:<mac>:<local_id> (CL 5.x user guide "EVPN Multihoming"), so `local_id` and `mac` must match on both
    switches; the switch with the higher `df_preference` is the designated forwarder for BUM traffic."""

    local_id: int  # the bond's number (= the server's slot in its group); NVUE 1..16777215
    mac: str  # the leaf group's segment MAC (44:38:39:ff:xx:xx, the same formula as the MLAG system MAC)
    df_preference: int  # NVUE 1..65535


@dataclass(slots=True)
class Evpn:
    """BGP l2vpn-evpn on a switch of an EVPN-MH network (`bond_redundancy: evpn-mh`). An access switch is a VTEP
    (`vtep` set: VXLAN source, the group VLAN's VNI, the MH uplinks, its segment peer); an aggregation switch only
    carries the address family between the access switches (`vtep` None: no VXLAN, no advertise-all-vni)."""

    vtep: "Vtep | None" = None


@dataclass(slots=True)
class Vtep:
    source: str  # VXLAN tunnel source: the switch's loopback address (no prefix length)
    vlan_vni: dict[int, int]  # VLAN -> L2 VNI, mapped on the single VXLAN device
    uplinks: list[str]  # EVPN-MH uplinks: every fabric port (all down -> the segment bonds go protodown)
    peer: str  # the other switch of the leaf group: the same segments, the same gateway
    device: str = "vxlan48"  # the single VXLAN device, as NVUE names it (CL user guide EVPN-MH example)


@dataclass(frozen=True, slots=True)
class PeerSession:
    """The routed link between the two switches of an MLAG pair, over their peerlink: an IPv6-link-local-only
    interface in VLAN `vlan` of the peerlink LAG `lag`, carrying an eBGP unnumbered session (peer-group PEERLINK).
    An access switch that loses every uplink routes through its peer instead of blackholing the half of the bonds'
    traffic the hosts hash to it (Cumulus MLAG page, "MLAG and Peer Link Peering"). Both switches use the same
    interface name (both run the network's NOS)."""

    interface: str  # Cumulus "peerlink.4094" (the clagd control sub-interface); SONiC "Vlan4094" (a VLAN interface)
    vlan: int
    lag: str  # "peerlink" / "PortChannel999"


@dataclass(frozen=True, slots=True)
class TenantVrf:
    """A tenant's L3 VRF on a leaf (model.tenants): symmetric EVPN routing over its L3VNI, type-5 routes with the
    tenant's route target. Linux files: a VXLAN device `vni<vni>` in a traditional bridge `br<vni>` enslaved to the
    VRF (the L3VNI's SVI); NVUE: `vrf <name> evpn vni <vni>`."""

    name: str
    vni: int
    route_target: str  # "<asn>:<vni>", import and export
    tenant: str = ""  # the tenant; `name` is its VRF's name on this leaf (SONiC: platforms.vxlan.sonic_vrf_name)
    routes: tuple[tuple[str, str], ...] = ()  # tenant-owned prefixes on this leaf: (prefix, next hop) (model.tenant_prefixes)

    @property
    def vxlan_device(self) -> str:
        return f"vni{self.vni}"

    @property
    def bridge(self) -> str:
        return f"br{self.vni}"


@dataclass(frozen=True, slots=True)
class VxlanQos:
    """How the leaves' VTEPs carry DSCP through the tunnel (netauto.platforms.vxlan)."""

    encap_dscp: str  # NVUE nve vxlan encapsulation dscp action / switchd vxlan.def_encap_dscp_action
    decap_dscp: str


@dataclass(slots=True)
class Mlag:
    peer: str
    peerlink_members: list[str]
    mac_address: str  # the pair's shared system MAC
    priority: int  # lower is primary
    backup_ip: str  # the peer's management address
    backup_vrf: str | None
    peer_loopback: str = ""  # SONiC MCLAG: the peer's loopback (MCLAG_DOMAIN peer_ip)
    session: PeerSession | None = None  # the routed BGP session to the peer over the peerlink


@dataclass(frozen=True, slots=True)
class CageBreakout:
    parent: str  # "swp1"
    cage: int
    ways: int  # 2 for swp1s0/swp1s1
    lanes_per_port: int


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


@dataclass(slots=True)
class Route:
    to: str
    via: str | None
    table: int | None = None
    scope: str | None = None
    metric: int | None = None


@dataclass(slots=True)
class Rail:
    index: int
    nic: str
    rdma_device: str
    address: str  # "10.0.0.1/31"
    ip: str
    gateway: str
    subnet: str
    leaf: str
    leaf_port: str
    mtu: int
    table: int
    rule_priority: int
    routes: list[Route]
    pci: str | None = None  # "0000:18:00.0": a udev rule names the NIC by its PCI path (ID_PATH)
    mac: str | None = None  # per-server MAC: netplan matches it and sets the name
    kind: str = "connectx-7"  # NIC kind (netauto.platforms.nics)
    gpus: list[int] = field(default_factory=list)
    kernel_name: bool = False  # `nic` is the host's own predictable name (profile nic_names: kernel): never renamed
    cable_length_m: int = 0  # metres of this rail's link (model.cabling): the NIC's PFC headroom (mlnx_qos --cable_len)

    @property
    def match(self) -> str | None:
        """How the host finds this NIC: "kernel" (its own name), "mac" (netplan), "pci" (udev rule), None
        (unresolvable)."""
        return "kernel" if self.kernel_name else "mac" if self.mac else "pci" if self.pci else None


@dataclass(slots=True)
class FirmwareSetting:
    name: str  # mlxconfig parameter
    value: int
    power_cycle: bool = False  # takes a host power cycle to activate (platforms/data/nics.yaml power_cycle)


@dataclass(slots=True)
class Nccl:
    """/etc/nccl.conf, derived from the fabric (NCCL environment variables doc)."""

    ib_hca: str  # "=mlx5_0:1,mlx5_3:1": "=" makes NCCL match names exactly
    ib_tc: int
    roce_version: int
    addr_family: str  # AF_INET: GID chosen by address family (NCCL >= 2.21), no hard-coded GID index
    addr_range: str
    adaptive_routing: bool
    socket_ifname: str
    socket_from_profile: bool = False  # the profile names socket_ifname (else: the frontend bond, or the first rail)
    qps_per_connection: int | None = None  # long haul between sites
    buffsize: int | None = None
    sites: int = 1
    distance_km: float = 0


@dataclass(slots=True)
class HostBond:
    """The frontend bond of a server: LACP over its two NICs, to an MLAG pair of access switches."""

    name: str
    members: list[str]
    address: str
    gateway: str
    mtu: int
    routes: list[Route]


@dataclass(slots=True)
class Server:
    name: str
    su: int
    index: int
    mgmt_address: str
    mgmt_gateway: str
    ssh_user: str
    rails: list[Rail]
    qos: Qos
    profile: str = "default"
    model: str = "unspecified"
    absent_rails: list[int] = field(default_factory=list)
    nccl: Nccl | None = None
    firmware: dict[str, list[FirmwareSetting]] = field(default_factory=dict)  # NIC kind -> mlxconfig settings
    adaptive_routing: bool = False  # the switches' AR, which the host side must match
    bond: HostBond | None = None  # networks with `host_routing: bond`: the NICs (rails) are its members
    # who sets the rail NICs' cable length and global pause: "host" (netauto-roce-qos.sh) or
    # "nic-configuration-operator" (its NicConfigurationTemplate: cableLen, pauseFrames): kubernetes.nic_config
    port_buffer_owner: str = "host"


@dataclass(slots=True)
class Link:
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    speed: str
    kind: LinkKind
    enabled: bool = True
    network: str = "compute"  # "compute", a network name or "oob"
    length_m: int = 0  # cable metres (model.cabling); 0 before cabling ran
    length_from: str = ""  # where the length comes from: "cabling.links", "sites", "bom", "fabric"


@dataclass(slots=True)
class Tenant:
    """A customer of the fabric: whole servers, one VRF (its name) with one L3VNI and route target."""

    name: str
    vni: int
    route_target: str
    servers: list[str]
    vni_from: str  # "pinned" (inventory vni:) or "hashed" (its name hashed into the pool)


@dataclass(slots=True)
class FabricModel:
    name: str
    host_link_mode: str
    host_pool: str
    rail_supernets: list[str]
    switches: list[Switch]
    servers: list[Server]
    links: list[Link]
    oversubscription: float = 1.0  # topology.oversubscription: downlink:uplink bandwidth allowed per switch
    # cables to devices outside the cluster (kind "upstream": the frontend's exit, b end = the site router by its
    # inventory name and port). Cabled, counted and documented (cables()), but no lab veth, LLDP expectation
    # or fabric rule reads them: those walk `links`, whose both ends are devices of this model.
    exit_links: list[Link] = field(default_factory=list)
    tenants: list["Tenant"] = field(default_factory=list)  # inventory tenants: (model.tenants)
    _switch_index: dict[str, Switch] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._switch_index = {s.name: s for s in self.switches}

    def switch(self, name: str) -> Switch:
        return self._switch_index[name]

    def device_names(self) -> list[str]:
        return [s.name for s in self.switches] + [s.name for s in self.servers]

    def cables(self) -> list[Link]:
        """Every physical link of this network: the links inside it, then its exit links (cabling plan, bill of
        materials, docs and growth plan all read this)."""
        return self.links + self.exit_links

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_switch_index", None)
        return data
