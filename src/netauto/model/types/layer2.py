"""Bridging and overlays on a switch: SVIs, LACP bonds, MLAG and its peer session, EVPN multihoming (segments,
VTEPs) and the tenants' VRFs with their L3VNIs."""

from __future__ import annotations

from dataclasses import dataclass, field


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
