"""Bonded access pairs of a network (`host_routing: bond`): the MLAG and EVPN multihoming group facts.

Each leaf group's two switches share one subnet (VLAN `networks.<name>.vlan`, VRR gateway .1), every server port a
one-member bond, and are either an MLAG pair (peerlink, clagd, the routed session over peerlink.4094) or two VTEPs
sharing every bond as an EVPN Ethernet Segment. The MAC and priority constants are also the OOB aggregation
pair's (netauto.model.oob).
"""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import TYPE_CHECKING

from netauto.errors import InventoryError
from netauto.model import ipam
from netauto.model.ports import PortSlot
from netauto.model.types import (
    BgpNeighbor, BondPort, EthernetSegment, Evpn, FabricModel, HostBond, Interface, Link, Mlag, PeerGroup, PeerSession,
    PrefixRule, Route, Svi, Switch, Vtep,
)
from netauto.netutil.ip import DEFAULT_ROUTE, ip_of
from netauto.platforms import hardware

if TYPE_CHECKING:  # SONIC_PEERLINK_LAG (sonic.config_db) loads without the inventory schema: render.local_edit
    from netauto.inventory.loader import LoadedInventory
    from netauto.inventory.networks import Network

VRR_MAC = "00:00:5e:00:01:01"  # the VRRP virtual router MAC for VRID 1 (RFC 5798 s7.3), as in NVIDIA's VRR examples
MLAG_MAC_BASE = 0x44_38_39_FF_00_00  # Cumulus reserves 44:38:39:ff:00:00-44:38:39:ff:ff:ff for MLAG system MACs
BOND_FIRST_HOST = 10  # .1 VRR gateway, .2/.3 the pair's SVIs; servers from .10
MLAG_PRIORITY = (1000, 2000)  # NIC 0's switch is the primary
# The routed session over the peerlink rides VLAN 4094 of the peerlink LAG: on Cumulus the clagd control
# sub-interface peerlink.4094 itself (Cumulus MLAG page, "MLAG and Peer Link Peering": a BGP unnumbered session on
# peerlink.4094; NVIDIA DGX BasePOD switch configs: `interface peerlink.4094 type sub, base-interface peerlink,
# vlan 4094`); on SONiC a VLAN interface Vlan4094 whose only member is the peer-link PortChannel (sonic-vlan.yang
# allows VLAN 4094; the schema keeps networks.<name>.vlan at 2..4093, so the group VLAN never takes it).
PEER_SESSION_VLAN = 4094
PEER_SESSION_GROUP = "PEERLINK"
SONIC_PEERLINK_LAG = "PortChannel999"
# EVPN-MH designated forwarder preference (higher wins; NVUE default 32767, 1..65535): NIC 0's switch 50000 (the
# value of NVIDIA's EVPN-MH examples), NIC 1's switch the default, so the DF is predictable (CL user guide "EVPN
# Multihoming": "Specify a preference ... as this leads to predictable failure scenarios").
ES_DF_PREFERENCE = (50000, 32767)
MAX_EVPN_GROUPS = 999  # l2_vni(): vlan * 1000 + group
VXLAN_OVERHEAD = 50  # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 (RFC 7348 s5): a bridged host frame grows by this


def mac_str(value: int) -> str:
    """A 48-bit MAC address as text: 0x4438_39ff_0001 -> "44:38:39:ff:00:01"."""
    return ":".join(f"{(value >> s) & 0xFF:02x}" for s in range(40, -1, -8))


def bond_access(loaded: LoadedInventory, fabric: FabricModel, name: str, network: Network) -> None:
    """`host_routing: bond`: the two leaves of a group share one subnet per group (VLAN `network.vlan`, VRR gateway
    .1), each server port a one-member bond; the server's two NICs form one LACP bond with the default route via
    the VRR address. The leaves announce the group subnet over BGP. The pair is an MLAG pair (`bond_redundancy:
    mlag`, the default) or two VTEPs sharing every bond as an EVPN Ethernet Segment (`evpn-mh`)."""
    a = network.addressing
    base_net = ipam.nth_subnet(ipam.net(a.host_pool), a.nic_prefix_len, 0)
    per = network.servers_per_leaf
    leaves: dict[int, list[Switch]] = {}
    for sw in fabric.switches:
        if sw.role == "leaf" and sw.su is not None:
            leaves.setdefault(sw.su, []).append(sw)
    index_of = {srv.name: srv.index for srv in fabric.servers}
    subnets: dict[int, tuple[int, int]] = {}
    for g, pair in sorted(leaves.items()):
        pair.sort(key=lambda sw: sw.rail or 0)
        try:
            subnet = ipam.nth_subnet(base_net, a.leaf_prefix_len, g - 1)
        except IndexError:
            raise InventoryError(f"{base_net} has no /{a.leaf_prefix_len} for leaf group {g}",
                                 **loaded.where("networks", name, "addressing", "leaf_prefix_len"),
                                 hint="use a longer leaf_prefix_len or a larger host_pool") from None
        if BOND_FIRST_HOST + per > subnet.num_addresses - 1:
            raise InventoryError(f"a /{a.leaf_prefix_len} holds {subnet.num_addresses} addresses, a bonded group of "
                                 f"{per} servers needs {BOND_FIRST_HOST + per + 1}",
                                 **loaded.where("networks", name, "addressing", "leaf_prefix_len"), hint="use a shorter prefix")
        subnets[g] = (int(subnet.network_address), subnet.prefixlen)
        if network.bond_redundancy == "evpn-mh":
            _evpn_mh_group(loaded, name, network, g, pair, subnet, index_of)
        else:
            _mlag_group(loaded, fabric, name, network, g, pair, subnet, index_of)
    if network.bond_redundancy == "evpn-mh":
        for sw in fabric.switches:
            if sw.role != "leaf":  # the aggregation switches: l2vpn-evpn between the VTEPs, no VTEP themselves
                sw.evpn = Evpn()
    for srv in fabric.servers:
        start, plen = subnets[srv.su]
        gw = ipam.ip_str(start + 1)
        routes = [Route(to=DEFAULT_ROUTE, via=gw)] if network.default_route else []
        srv.bond = HostBond("bond0", [r.nic for r in srv.rails], f"{ipam.ip_str(start + BOND_FIRST_HOST + srv.index - 1)}/{plen}",
                            gw, network.mtu, routes)
        for rail in srv.rails:  # the NICs are bond members now: no address, no per-NIC table
            rail.address = rail.ip = rail.gateway = rail.subnet = ""
            rail.routes = []


def _access_pair(network: Network, pair: list[Switch], subnet: IPv4Network, index_of: dict[str, int]) -> None:
    """What both redundancy modes share: the group subnet announced over BGP, one bond per server port (bond<k>,
    k the server's slot in its group), the group's SVI (.2/.3) with the VRR gateway .1."""
    start, plen = int(subnet.network_address), subnet.prefixlen
    for n, sw in enumerate(pair):
        sw.bgp.aggregates = []
        sw.bgp.connected_prefixes = [PrefixRule(str(subnet), 32)]
        sw.bonds = []
        for iface in sw.host_ports:
            iface.address = None  # a bond member: the address lives on the group's SVI
            if iface.peer_device is not None:
                k = index_of[iface.peer_device]
                lag = f"PortChannel{k}" if sw.nos == "sonic" else f"bond{k}"
                sw.bonds.append(BondPort(lag, [iface.name], k, network.vlan, f"{iface.peer_device} bond0", iface.mtu))
        sw.svi = Svi(name=f"{'Vlan' if sw.nos == 'sonic' else 'vlan'}{network.vlan}", vlan=network.vlan,
                     address=f"{ipam.ip_str(start + 2 + n)}/{plen}", members=[b.name for b in sw.bonds],
                     vrr_address=f"{ipam.ip_str(start + 1)}/{plen}", vrr_mac=VRR_MAC)


def _mlag_group(loaded: LoadedInventory, fabric: FabricModel, name: str, network: Network, g: int, pair: list[Switch],
                subnet: IPv4Network, index_of: dict[str, int]) -> None:
    """`bond_redundancy: mlag`: the pair's peerlink (two cages from ports.leaf.peerlink_first), clagd, MLAG ids on
    the bonds, the eBGP session over peerlink.4094."""
    from netauto.inventory.schema import SPEEDS_MBPS  # lazy: the drain fast path unpickles switches without the inventory schema

    peer_ports = network.ports["leaf"]
    taken = {i.cage for sw in pair for i in sw.interfaces}
    assert peer_ports.peerlink_first is not None  # the schema requires it for MLAG bond networks
    # two cables on two cages; a cage wider than the link speed is split as the hardware says (an 8-lane
    # SN5600 cage at 400G: sub-port 0 of a 2x breakout, never one port on all 8 lanes)
    leaf_hw = hardware.load_hardware(pair[0].hardware)
    ways = leaf_hw.breakout_for(peer_ports.peerlink_first, SPEEDS_MBPS[network.fabric_link_speed],
                                where=f"networks.{name}.ports.leaf.peerlink_first")
    ports = [PortSlot(peer_ports.peerlink_first + i, 0 if ways > 1 else None, ways) for i in range(2)]
    if {p.cage for p in ports} & taken:
        raise InventoryError(f"peerlink cages {ports[0].cage}-{ports[1].cage} are already used by {pair[0].name}",
                             **loaded.where("networks", name, "ports", "leaf", "peerlink_first"),
                             hint="move the peerlink to free cages")
    _access_pair(network, pair, subnet, index_of)
    for n, sw in enumerate(pair):
        peer = pair[1 - n]
        assert sw.svi is not None
        sw.svi.members.append(_peerlink_lag(sw.nos))
        for p in ports:
            sw.interfaces.append(Interface(
                name=p.name(sw.nos, sw.hardware), kind="peerlink", speed=network.fabric_link_speed,
                speed_mbps=SPEEDS_MBPS[network.fabric_link_speed], mtu=sw.mtu,
                fec=None if loaded.inventory.fabric.fec == "default" else loaded.inventory.fabric.fec, enabled=True,
                peer_device=peer.name, peer_port=p.name(peer.nos, peer.hardware), description=f"peerlink to {peer.name}",
                pfc=False, pfc_watchdog=False, cage=p.cage, subport=p.sub, breakout=p.breakout,
                breakout_parent=p.parent(sw.nos), lanes=leaf_hw.lanes(p.cage, p.sub, p.breakout)))
        sw.mlag = Mlag(peer=peer.name, peerlink_members=[p.name(sw.nos, sw.hardware) for p in ports],
                       mac_address=mac_str(MLAG_MAC_BASE + g), priority=MLAG_PRIORITY[n],
                       backup_ip=ip_of(peer.mgmt_address), backup_vrf="mgmt" if sw.mgmt_vrf else None,
                       peer_loopback=ip_of(peer.loopback), session=_peer_session(sw.nos))
    for n, sw in enumerate(pair):
        _peer_bgp(sw, pair[1 - n])
    fabric.links += [Link(pair[0].name, p.name(pair[0].nos, pair[0].hardware), pair[1].name, p.name(pair[1].nos, pair[1].hardware),
                          network.fabric_link_speed, "mlag-peerlink", network=name) for p in ports]


def l2_vni(vlan: int, group: int) -> int:
    """The L2 VNI of leaf group `group`'s VLAN: vlan * 1000 + group (VLAN 10 of group 1 -> 10001). Every group has
    its own subnet behind the same VLAN id, so the VNI must differ per group: one VNI stretches one group's VLAN
    between its two access switches only (the aggregation switches are no VTEPs). At most 999 groups; the largest
    value, 4093 * 1000 + 999, is far below the 24-bit VNI limit (16777215)."""
    return vlan * 1000 + group


def _evpn_mh_group(loaded: LoadedInventory, name: str, network: Network, g: int, pair: list[Switch],
                   subnet: IPv4Network, index_of: dict[str, int]) -> None:
    """`bond_redundancy: evpn-mh`: no peerlink; each bond an Ethernet Segment on both switches (local-id = the
    bond's number, the group's segment MAC, NIC 0's switch the preferred designated forwarder), the group VLAN a
    VNI on the single VXLAN device sourced from the loopback, every fabric port an EVPN-MH uplink."""
    if g > MAX_EVPN_GROUPS:
        raise InventoryError(f"leaf group {g}: the VNI formula vlan * 1000 + group holds {MAX_EVPN_GROUPS} groups",
                             **loaded.where("networks", name, "servers_per_leaf"),
                             hint="put more servers in a leaf group, or split the network")
    if network.mtu + VXLAN_OVERHEAD > pair[0].mtu:
        raise InventoryError(f"a host MTU of {network.mtu} plus {VXLAN_OVERHEAD} bytes of VXLAN exceeds the switches' "
                             f"MTU {pair[0].mtu}", **loaded.where("networks", name, "mtu"),
                             hint=f"use mtu: {pair[0].mtu - VXLAN_OVERHEAD} or less")
    _access_pair(network, pair, subnet, index_of)
    mac = mac_str(MLAG_MAC_BASE + g)  # one segment MAC per leaf group, from Cumulus' reserved range
    for n, sw in enumerate(pair):
        for b in sw.bonds:  # bond<k>: segment local-id k, the same on both switches of the group
            b.segment = EthernetSegment(local_id=b.mlag_id, mac=mac, df_preference=ES_DF_PREFERENCE[n])
            b.mlag_id = 0
        vtep = Vtep(source=ip_of(sw.loopback), vlan_vni={network.vlan: l2_vni(network.vlan, g)},
                    uplinks=[i.name for i in sw.fabric_ports], peer=pair[1 - n].name)
        sw.evpn = Evpn(vtep)
        assert sw.svi is not None
        sw.svi.members.append(vtep.device)  # the VXLAN device is a bridge port, where MLAG has its peerlink


def _peerlink_lag(nos: str) -> str:
    return SONIC_PEERLINK_LAG if nos == "sonic" else "peerlink"


def _peer_session(nos: str) -> PeerSession:
    name = f"Vlan{PEER_SESSION_VLAN}" if nos == "sonic" else f"peerlink.{PEER_SESSION_VLAN}"
    return PeerSession(name, PEER_SESSION_VLAN, _peerlink_lag(nos))


def _peer_bgp(sw: Switch, peer: Switch) -> None:
    """The eBGP unnumbered session to the MLAG peer over the peerlink, in peer-group PEERLINK with the uplinks'
    policy (FABRIC-IN/OUT, the FABRIC-PREFIXES inbound filter and maximum-prefix). The pair has two ASNs, so a
    route learned from the peer carries one AS more than the same route learned from an aggregation switch: the
    peer's path never ties with the uplinks' (multipath-relax ignores the AS numbers, not the path length), so it
    is used only once every uplink is gone, and loop prevention keeps the pair from becoming transit between the
    aggregation switches (they share one ASN). What the peer originates itself (its loopback) is one AS away
    and goes over the peerlink, as it would over any direct link."""
    assert sw.mlag is not None and sw.mlag.session is not None and peer.mlag is not None and peer.mlag.session is not None
    sw.bgp.peer_groups.append(PeerGroup(PEER_SESSION_GROUP, f"MLAG peer over {sw.mlag.session.interface}"))
    sw.bgp.neighbors.append(BgpNeighbor(sw.mlag.session.interface, PEER_SESSION_GROUP, peer.name,
                                        peer.mlag.session.interface, peer.bgp.asn))
