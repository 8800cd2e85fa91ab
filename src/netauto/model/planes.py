"""Resolve the planes beside the compute fabric (storage, frontend), the server groups and the OOB network.

A plane is resolved by the compute resolver itself, on a derived inventory: NIC k of every attached server
is "rail k", a leaf group of `servers_per_leaf` servers is a scalable unit, the plane's spines are the pod's
spines. So a plane gets exactly the compute fabric's numbering, port plan, eBGP unnumbered underlay, p2p
host /31s, per-NIC routing tables and QoS, and is rendered by the same templates. What differs is patched
here: real server names in the slots, per-group NIC names, the lossy QoS mode, the frontend default route.
Errors point at `planes.<name>...` keys of the operator's inventory, never at the derived one.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

from netauto.errors import InventoryError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.planes import COMPUTE_GROUP, Plane
from netauto.inventory.schema import (
    KERNEL_NIC_PREFIXES,
    RoleHardware,
    Addressing, Asns, DeviceOverride, Features, Gshut, HostLinks, Inventory, LoopbackPools, Management, Mtu,
    Naming, NosPlan, Overrides, PortRange, Ports, RolePorts, Servers, Topology,
)
from netauto.model import border, ipam, numbering
from netauto.model.cluster import Bmc, ClusterModel, GroupServer, OobModel, OobSwitch, PlaneModel
from netauto.model.context import Where
from netauto.model.naming import Namer, hostname
from netauto.model.numbering import MGMT_FIRST_HOST
from netauto.model.resolve import build, checked
from netauto.model.ports import PortSlot
from netauto.platforms import hardware
from netauto.model.types import (
    BgpNeighbor, BondPort, EthernetSegment, Evpn, FabricModel, HostBond, Interface, Link, Mlag, PeerGroup, PeerSession,
    PrefixRule, Route, Svi, Switch, Vtep,
)
from netauto.netutil.ip import ip_of

# The derived inventory needs a server management pool; plane-side server records never use it (a server's
# management address is the compute fabric's or its group's). 240.0.0.0/4 is reserved (RFC 1112 s4) so it
# can never clash with an operator's pool.
UNUSED_SERVER_POOL = "240.0.0.0/4"
DEFAULT_ROUTE = "0.0.0.0/0"
DEFAULT_METRIC = 100  # NIC k's default route has metric 100 + k: NIC 0 carries it, NIC 1 takes over

# derived-inventory key path -> the plane's own key (for error messages)
_KEY_MAP: dict[tuple[str, ...], tuple[str, ...]] = {
    ("topology",): ("servers_per_leaf",),
    ("servers",): ("attach",),
    ("ports", "leaf"): ("ports", "leaf"),
    ("ports", "spine"): ("ports", "spine"),
    ("addressing", "loopbacks", "leaf"): ("addressing", "leaf_loopbacks"),
    ("addressing", "loopbacks", "spine"): ("addressing", "spine_loopbacks"),
    ("addressing", "host_links", "pool"): ("addressing", "host_pool"),
    ("addressing", "host_links", "rail_prefix_len"): ("addressing", "nic_prefix_len"),
    ("addressing", "host_links", "leaf_prefix_len"): ("addressing", "leaf_prefix_len"),
    ("addressing", "management", "switch_pool"): ("addressing", "switch_mgmt_pool"),
    ("asns", "leaf_base"): ("asns", "leaf_base"),
    ("asns", "spine_base"): ("asns", "spine"),
    ("naming",): ("naming",),
    ("fabric", "sonic_hwsku"): ("sonic_hwsku",),
}


_hostname = hostname


@dataclass(frozen=True)
class _PlaneLoaded:
    """Quacks like LoadedInventory for the compute resolver: derived inventory, errors at planes.<name>."""

    inventory: Inventory
    outer: LoadedInventory
    plane: str

    @property
    def root(self) -> Path:
        return self.outer.root

    def where(self, *path: str | int) -> dict[str, Any]:
        keys = tuple(str(p) for p in path)
        for n in range(len(keys), 0, -1):
            if keys[:n] in _KEY_MAP:
                return self.outer.where("planes", self.plane, *_KEY_MAP[keys[:n]])
        return self.outer.where("planes", self.plane)


def _plane_namer(spec: Plane, slots: dict[tuple[int, int], str], where: Where) -> Namer:
    """A plane's device names: its own leaf and spine patterns (fields group, rail, index), and the attached
    servers in their slots."""

    def name(role: str, *, su: int, rail: int, pod: int, plane: int, index: int) -> str:
        if role == "server":
            return slots[(su, index)]
        pattern = getattr(spec.naming, role)
        try:
            name = pattern.format(group=su, rail=rail, index=index)
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
            problem = f"unknown field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise InventoryError(f"cannot format {pattern!r}: {problem}", **where("naming", role),
                                 hint="leaf names use group, rail, index; spine names use index") from None
        return _hostname(str(name), pattern, where("naming", role))

    return name


def _ports(plane: Plane, role: str) -> RolePorts:
    p = plane.ports.get(role)  # type: ignore[call-overload]
    if p is None:
        return RolePorts()
    return RolePorts(cages=p.cages, downlinks=PortRange(first=p.downlinks_first, breakout=p.downlinks_breakout),
                     uplinks=PortRange(first=p.uplinks_first, breakout=p.uplinks_breakout))


def _plane_hardware(inv: Inventory, name: str, plane: Plane) -> RoleHardware | str:
    """A plane's switch models per tier (`planes.<name>.switch_hardware`), else the compute fabric's."""
    roles: dict[str, str] = {str(k): v for k, v in (plane.switch_hardware or {}).items()}
    if not roles:
        return inv.fabric.switch_hardware
    return RoleHardware.model_construct(leaf=roles.get("leaf", "SN5600"), spine=roles.get("spine", "SN5600"),
                                        super_spine=roles.get("super_spine", "SN5600"))


def _derived(inv: Inventory, name: str, plane: Plane, members: int, free: list[str]) -> Inventory:
    groups = -(-members // plane.servers_per_leaf)
    rails = len(plane.attach[0].nics)
    first = plane.attach[0]
    a = plane.addressing
    mg = inv.addressing.management
    fabric = inv.fabric.model_copy(update={
        "name": f"{inv.fabric.name}-{name}", "nos": NosPlan(default=plane.nos),
        # a plane with its own switch models takes their default HWSKUs unless it names one
        "sonic_hwsku": plane.sonic_hwsku or (inv.fabric.sonic_hwsku if plane.switch_hardware is None else None),
        "mtu": Mtu(switch=inv.fabric.mtu.switch, host=plane.mtu),
        "host_link_speed": plane.host_link_speed, "fabric_link_speed": plane.fabric_link_speed,
        "switch_hardware": _plane_hardware(inv, name, plane),
    })
    return Inventory.model_construct(
        fabric=fabric,
        topology=Topology.model_construct(
            rails=rails, servers_per_su=plane.servers_per_leaf, sus_per_pod=groups, pods=1,
            spines_per_pod=plane.spines, leaf_spine_links=plane.leaf_spine_links, super_spines_per_plane=0,
            spine_super_spine_links=1, oversubscription=plane.oversubscription),
        ports=Ports(leaf=_ports(plane, "leaf"), spine=_ports(plane, "spine")),
        naming=Naming(),
        addressing=Addressing(
            loopbacks=LoopbackPools(leaf=a.leaf_loopbacks, spine=a.spine_loopbacks),
            host_links=HostLinks(mode="p2p", pool=a.host_pool, rail_prefix_len=a.nic_prefix_len,
                                 leaf_prefix_len=a.leaf_prefix_len),
            management=Management(switch_pool=a.switch_mgmt_pool, server_pool=UNUSED_SERVER_POOL,
                                  switch_user=mg.switch_user, server_user=mg.server_user, vrf=mg.vrf),
        ),
        asns=Asns.model_construct(leaf_base=plane.asns.leaf_base, spine_base=plane.asns.spine,
                                  super_spine=plane.asns.spine),
        features=Features(adaptive_routing=False, gshut=Gshut(honour=inv.features.gshut.honour,
                                                              prepend=inv.features.gshut.prepend, drain=[]),
                          telemetry=inv.features.telemetry),
        qos=inv.qos,
        servers=Servers.model_construct(
            nics=list(first.nics), rdma_devices=list(first.rdma_devices or first.nics),
            table_base=plane.table_base, rule_priority_base=plane.rule_priority_base,
            # an attach entry names no PCI address or MAC: nothing renames these NICs, so names in the kernel's
            # namespace (ens1f0np0, eno1) are the host's own; other names stay unresolved (HOST-06 says so)
            nic_names="kernel" if all(n.startswith(KERNEL_NIC_PREFIXES) for n in first.nics) else "renamed"),
        overrides=Overrides(devices={slot: DeviceOverride(absent=True) for slot in free}),
        server_groups={}, planes={}, oob=None, bom=None,
    )


def _resolve_plane(loaded: LoadedInventory, name: str, plane: Plane, members: dict[str, list[str]]) -> PlaneModel:
    inv = loaded.inventory
    order: list[tuple[str, int]] = []  # (server, attach entry index)
    for i, att in enumerate(plane.attach):
        if att.servers not in members:
            close = difflib.get_close_matches(att.servers, list(members), n=1)
            raise InventoryError(f"no server group {att.servers!r}", **loaded.where("planes", name, "attach", i, "servers"),
                                 hint=f"did you mean {close[0]!r}?" if close else
                                 f"use {COMPUTE_GROUP!r} or a name from server_groups")
        order += [(srv, i) for srv in members[att.servers]]
    per = plane.servers_per_leaf
    slots: dict[tuple[int, int], str] = {}
    free: list[str] = []
    attach_of: dict[str, int] = {}
    groups = -(-len(order) // per)
    for n in range(groups * per):
        key = numbering.group_slot(n, per)
        if n < len(order):
            srv, i = order[n]
            slots[key] = srv
            attach_of[srv] = i
        else:
            slots[key] = f"{name}-free-g{key[0]}-{key[1]}"
            free.append(slots[key])
    derived = _derived(inv, name, plane, len(order), free)
    source = _PlaneLoaded(derived, loaded, name)
    fabric = build(checked(source), _plane_namer(plane, slots, source.where))
    _patch(fabric, name, plane, attach_of)
    if plane.host_routing == "bond":
        _bond_access(loaded, fabric, name, plane)
    fec = None if inv.fabric.fec == "default" else inv.fabric.fec
    border.apply_upstream(fabric, name, plane, loaded.where, fec)
    a = plane.addressing
    pools = {"leaf_loopbacks": a.leaf_loopbacks, "spine_loopbacks": a.spine_loopbacks, "host_pool": a.host_pool,
             "switch_mgmt_pool": a.switch_mgmt_pool}
    return PlaneModel(name=name, role=plane.role, qos=plane.qos, default_route=plane.default_route, pools=pools,
                      fabric=fabric, oversubscription=plane.oversubscription, bond=plane.host_routing == "bond")


def _patch(fabric: FabricModel, name: str, plane: Plane, attach_of: dict[str, int]) -> None:
    lossy = plane.qos == "lossy"
    for sw in fabric.switches:
        sw.network = name
        if lossy:
            sw.qos.mode = "lossy"
            sw.qos.pfc_watchdog = False
            for iface in sw.interfaces:
                iface.pfc = iface.pfc_watchdog = False
    links_by_end = {(link.b_device, link.b_port): link for link in fabric.links if link.kind == "server-leaf"}
    for link in fabric.links:
        link.network = name
    for srv in fabric.servers:
        if lossy:
            srv.qos.mode = "lossy"
        att = plane.attach[attach_of[srv.name]]
        for rail in srv.rails:
            old = rail.nic
            rail.nic = att.nics[rail.index]
            # nothing renames a plane NIC (no PCI/MAC in attach): a name in the kernel's namespace is the host's own
            rail.kernel_name = rail.nic.startswith(KERNEL_NIC_PREFIXES)
            rail.rdma_device = (att.rdma_devices or att.nics)[rail.index]
            link = links_by_end.pop((srv.name, old))
            link.b_port = rail.nic
            port = fabric.switch(rail.leaf).interface(rail.leaf_port)
            port.peer_port = rail.nic
            port.description = f"{srv.name} {rail.nic}"
            if plane.default_route:
                rail.routes.append(Route(to=DEFAULT_ROUTE, via=rail.gateway, metric=DEFAULT_METRIC + rail.index))
                rail.routes.append(Route(to=DEFAULT_ROUTE, via=rail.gateway, table=rail.table))


VRR_MAC = "00:00:5e:00:01:01"  # the VRRP virtual router MAC for VRID 1 (RFC 5798 s7.3), as in NVIDIA's VRR examples
MLAG_MAC_BASE = 0x44_38_39_FF_00_00  # Cumulus reserves 44:38:39:ff:00:00-44:38:39:ff:ff:ff for MLAG system MACs
BOND_FIRST_HOST = 10  # .1 VRR gateway, .2/.3 the pair's SVIs; servers from .10
MLAG_PRIORITY = (1000, 2000)  # NIC 0's switch is the primary
# The routed session over the peerlink rides VLAN 4094 of the peerlink LAG: on Cumulus the clagd control
# sub-interface peerlink.4094 itself (Cumulus MLAG page, "MLAG and Peer Link Peering": a BGP unnumbered session on
# peerlink.4094; NVIDIA DGX BasePOD switch configs: `interface peerlink.4094 type sub, base-interface peerlink,
# vlan 4094`); on SONiC a VLAN interface Vlan4094 whose only member is the peer-link PortChannel (sonic-vlan.yang
# allows VLAN 4094; the schema keeps planes.<name>.vlan at 2..4093, so the group VLAN never takes it).
PEER_SESSION_VLAN = 4094
PEER_SESSION_GROUP = "PEERLINK"
SONIC_PEERLINK_LAG = "PortChannel999"
# EVPN-MH designated forwarder preference (higher wins; NVUE default 32767, 1..65535): NIC 0's switch 50000 (the
# value of NVIDIA's EVPN-MH examples), NIC 1's switch the default, so the DF is predictable (CL user guide "EVPN
# Multihoming": "Specify a preference ... as this leads to predictable failure scenarios").
ES_DF_PREFERENCE = (50000, 32767)
MAX_EVPN_GROUPS = 999  # l2_vni(): vlan * 1000 + group
VXLAN_OVERHEAD = 50  # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 (RFC 7348 s5): a bridged host frame grows by this


def _mac(value: int) -> str:
    return ":".join(f"{(value >> s) & 0xFF:02x}" for s in range(40, -1, -8))


def _bond_access(loaded: LoadedInventory, fabric: FabricModel, name: str, plane: Plane) -> None:
    """`host_routing: bond`: the two leaves of a group share one subnet per group (VLAN `plane.vlan`, VRR gateway
    .1), each server port a one-member bond; the server's two NICs form one LACP bond with the default route via
    the VRR address. The leaves announce the group subnet over BGP. The pair is an MLAG pair (`bond_redundancy:
    mlag`, the default) or two VTEPs sharing every bond as an EVPN Ethernet Segment (`evpn-mh`)."""
    a = plane.addressing
    base_net = ipam.nth_subnet(ipam.net(a.host_pool), a.nic_prefix_len, 0)
    per = plane.servers_per_leaf
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
                                 **loaded.where("planes", name, "addressing", "leaf_prefix_len"),
                                 hint="use a longer leaf_prefix_len or a larger host_pool") from None
        if BOND_FIRST_HOST + per > subnet.num_addresses - 1:
            raise InventoryError(f"a /{a.leaf_prefix_len} holds {subnet.num_addresses} addresses, a bonded group of "
                                 f"{per} servers needs {BOND_FIRST_HOST + per + 1}",
                                 **loaded.where("planes", name, "addressing", "leaf_prefix_len"), hint="use a shorter prefix")
        subnets[g] = (int(subnet.network_address), subnet.prefixlen)
        if plane.bond_redundancy == "evpn-mh":
            _evpn_mh_group(loaded, name, plane, g, pair, subnet, index_of)
        else:
            _mlag_group(loaded, fabric, name, plane, g, pair, subnet, index_of)
    if plane.bond_redundancy == "evpn-mh":
        for sw in fabric.switches:
            if sw.role != "leaf":  # the aggregation switches: l2vpn-evpn between the VTEPs, no VTEP themselves
                sw.evpn = Evpn()
    for srv in fabric.servers:
        start, plen = subnets[srv.su]
        gw = ipam.ip_str(start + 1)
        routes = [Route(to=DEFAULT_ROUTE, via=gw)] if plane.default_route else []
        srv.bond = HostBond("bond0", [r.nic for r in srv.rails], f"{ipam.ip_str(start + BOND_FIRST_HOST + srv.index - 1)}/{plen}",
                            gw, plane.mtu, routes)
        for rail in srv.rails:  # the NICs are bond members now: no address, no per-NIC table
            rail.address = rail.ip = rail.gateway = rail.subnet = ""
            rail.routes = []


def _access_pair(plane: Plane, pair: list[Switch], subnet: IPv4Network, index_of: dict[str, int]) -> None:
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
                sw.bonds.append(BondPort(lag, [iface.name], k, plane.vlan, f"{iface.peer_device} bond0", iface.mtu))
        sw.svi = Svi(name=f"{'Vlan' if sw.nos == 'sonic' else 'vlan'}{plane.vlan}", vlan=plane.vlan,
                     address=f"{ipam.ip_str(start + 2 + n)}/{plen}", members=[b.name for b in sw.bonds],
                     vrr_address=f"{ipam.ip_str(start + 1)}/{plen}", vrr_mac=VRR_MAC)


def _mlag_group(loaded: LoadedInventory, fabric: FabricModel, name: str, plane: Plane, g: int, pair: list[Switch],
                subnet: IPv4Network, index_of: dict[str, int]) -> None:
    """`bond_redundancy: mlag`: the pair's peerlink (two cages from ports.leaf.peerlink_first), clagd, MLAG ids on
    the bonds, the eBGP session over peerlink.4094."""
    peer_ports = plane.ports["leaf"]
    taken = {i.cage for sw in pair for i in sw.interfaces}
    assert peer_ports.peerlink_first is not None  # the schema requires it for MLAG bond planes
    # two cables on two cages; a cage wider than the link speed is split as the hardware says (an 8-lane
    # SN5600 cage at 400G: sub-port 0 of a 2x breakout, never one port on all 8 lanes)
    leaf_hw = hardware.load_hardware(pair[0].hardware)
    ways = leaf_hw.breakout_for(peer_ports.peerlink_first, _speed(plane.fabric_link_speed),
                                where=f"planes.{name}.ports.leaf.peerlink_first")
    ports = [PortSlot(peer_ports.peerlink_first + i, 0 if ways > 1 else None, ways) for i in range(2)]
    if {p.cage for p in ports} & taken:
        raise InventoryError(f"peerlink cages {ports[0].cage}-{ports[1].cage} are already used by {pair[0].name}",
                             **loaded.where("planes", name, "ports", "leaf", "peerlink_first"),
                             hint="move the peerlink to free cages")
    _access_pair(plane, pair, subnet, index_of)
    for n, sw in enumerate(pair):
        peer = pair[1 - n]
        assert sw.svi is not None
        sw.svi.members.append(_peerlink_lag(sw.nos))
        for p in ports:
            sw.interfaces.append(Interface(
                name=p.name(sw.nos, sw.hardware), kind="peerlink", speed=plane.fabric_link_speed,
                speed_mbps=_speed(plane.fabric_link_speed), mtu=sw.mtu,
                fec=None if loaded.inventory.fabric.fec == "default" else loaded.inventory.fabric.fec, enabled=True,
                peer_device=peer.name, peer_port=p.name(peer.nos, peer.hardware), description=f"peerlink to {peer.name}",
                pfc=False, pfc_watchdog=False, cage=p.cage, subport=p.sub, breakout=p.breakout,
                breakout_parent=p.parent(sw.nos), lanes=leaf_hw.lanes(p.cage, p.sub, p.breakout)))
        sw.mlag = Mlag(peer=peer.name, peerlink_members=[p.name(sw.nos, sw.hardware) for p in ports],
                       mac_address=_mac(MLAG_MAC_BASE + g), priority=MLAG_PRIORITY[n],
                       backup_ip=ip_of(peer.mgmt_address), backup_vrf="mgmt" if sw.mgmt_vrf else None,
                       peer_loopback=ip_of(peer.loopback), session=_peer_session(sw.nos))
    for n, sw in enumerate(pair):
        _peer_bgp(sw, pair[1 - n])
    fabric.links += [Link(pair[0].name, p.name(pair[0].nos, pair[0].hardware), pair[1].name, p.name(pair[1].nos, pair[1].hardware),
                          plane.fabric_link_speed, "mlag-peerlink", network=name) for p in ports]


def l2_vni(vlan: int, group: int) -> int:
    """The L2 VNI of leaf group `group`'s VLAN: vlan * 1000 + group (VLAN 10 of group 1 -> 10001). Every group has
    its own subnet behind the same VLAN id, so the VNI must differ per group: one VNI stretches one group's VLAN
    between its two access switches only (the aggregation switches are no VTEPs). At most 999 groups; the largest
    value, 4093 * 1000 + 999, is far below the 24-bit VNI limit (16777215)."""
    return vlan * 1000 + group


def _evpn_mh_group(loaded: LoadedInventory, name: str, plane: Plane, g: int, pair: list[Switch],
                   subnet: IPv4Network, index_of: dict[str, int]) -> None:
    """`bond_redundancy: evpn-mh`: no peerlink; each bond an Ethernet Segment on both switches (local-id = the
    bond's number, the group's segment MAC, NIC 0's switch the preferred designated forwarder), the group VLAN a
    VNI on the single VXLAN device sourced from the loopback, every fabric port an EVPN-MH uplink."""
    if g > MAX_EVPN_GROUPS:
        raise InventoryError(f"leaf group {g}: the VNI formula vlan * 1000 + group holds {MAX_EVPN_GROUPS} groups",
                             **loaded.where("planes", name, "servers_per_leaf"),
                             hint="put more servers in a leaf group, or split the plane")
    if plane.mtu + VXLAN_OVERHEAD > pair[0].mtu:
        raise InventoryError(f"a host MTU of {plane.mtu} plus {VXLAN_OVERHEAD} bytes of VXLAN exceeds the switches' "
                             f"MTU {pair[0].mtu}", **loaded.where("planes", name, "mtu"),
                             hint=f"use mtu: {pair[0].mtu - VXLAN_OVERHEAD} or less")
    _access_pair(plane, pair, subnet, index_of)
    mac = _mac(MLAG_MAC_BASE + g)  # one segment MAC per leaf group, from Cumulus' reserved range
    for n, sw in enumerate(pair):
        for b in sw.bonds:  # bond<k>: segment local-id k, the same on both switches of the group
            b.segment = EthernetSegment(local_id=b.mlag_id, mac=mac, df_preference=ES_DF_PREFERENCE[n])
            b.mlag_id = 0
        vtep = Vtep(source=ip_of(sw.loopback), vlan_vni={plane.vlan: l2_vni(plane.vlan, g)},
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


def _speed(speed: str) -> int:
    from netauto.inventory.schema import SPEEDS_MBPS

    return SPEEDS_MBPS[speed]


def _groups(loaded: LoadedInventory, compute: FabricModel) -> list[GroupServer]:
    inv = loaded.inventory
    out: list[GroupServer] = []
    taken = set(compute.device_names())
    mg = inv.addressing.management
    pool = ipam.net(mg.server_pool)
    gw = mg.gateway_server or ipam.ip_str(int(pool.network_address) + 1)
    # numbered down from the top of the pool: the GPU servers count up from the bottom, so growing either
    # side never renumbers the other (a growth plan changes no existing address). A group's members follow
    # the members of the groups listed before it.
    firsts = numbering.firsts([spec.count for spec in inv.server_groups.values()])
    for (group, spec), first in zip(inv.server_groups.items(), firsts):
        if group == COMPUTE_GROUP:
            raise InventoryError(f"{COMPUTE_GROUP!r} names the GPU servers of the compute fabric",
                                 **loaded.where("server_groups", group), hint="rename the group")
        for i in range(1, spec.count + 1):
            try:
                name = spec.naming.format(index=i)
            except (KeyError, IndexError, ValueError) as exc:
                raise InventoryError(f"cannot format {spec.naming!r}: {exc}", **loaded.where("server_groups", group, "naming"),
                                     hint="use the field index, e.g. stor{index:02d}") from None
            _hostname(name, spec.naming, loaded.where("server_groups", group, "naming"))
            if name in taken:
                raise InventoryError(f"produces the duplicate device name {name!r}",
                                     **loaded.where("server_groups", group, "naming"), hint="make every name unique")
            taken.add(name)
            host = numbering.top_host(int(pool.network_address), pool.num_addresses, first + i - 1)
            if host < numbering.mgmt_host(int(pool.network_address), len(compute.servers)):
                raise InventoryError(f"pool {pool} is too small for the GPU servers and the server groups",
                                     **loaded.where("addressing", "management", "server_pool"), hint="use a shorter prefix")
            out.append(GroupServer(name, group, i, f"{ipam.ip_str(host)}/{pool.prefixlen}", gw))
    return out


def _oob_blocks(cluster: ClusterModel, layout: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(block, OOB ends) in cabling order. `blocks`: each network's switch ports and each server group's BMCs
    on access switches of their own, so growing one block never moves a cable of another."""
    blocks: list[tuple[str, list[tuple[str, str]]]] = [
        (f"sw-{net}", [(sw.name, "eth0") for sw in fab.switches]) for net, fab in cluster.networks()]
    blocks.append(("bmc-compute", [(s.name, "bmc") for s in cluster.compute.servers]))
    for group in dict.fromkeys(g.group for g in cluster.groups):
        blocks.append((f"bmc-{group}", [(g.name, "bmc") for g in cluster.groups if g.group == group]))
    if layout == "packed":
        return [("all", [end for _, ends in blocks for end in ends])]
    return [(b, ends) for b, ends in blocks if ends]


def _oob(loaded: LoadedInventory, cluster: ClusterModel) -> OobModel:
    from netauto.model import oob as oob_model  # it reuses this module's MLAG/VRR constants

    o = loaded.inventory.oob
    assert o is not None
    blocks = _oob_blocks(cluster, o.layout)
    for block in o.reserve:
        if block not in {b for b, _ in blocks}:
            raise InventoryError(f"no OOB block {block!r} (blocks: {', '.join(b for b, _ in blocks)})",
                                 **loaded.where("oob", "reserve", block), hint="reserve access switches for a listed block")
    plan: list[tuple[str, list[tuple[str, str]], int, int]] = []  # block, ends, switches needed, slots reserved
    for block, ends in blocks:
        need = -(-len(ends) // o.access_ports)
        reserved = o.reserve.get(block, need)
        if reserved < need:
            raise InventoryError(f"block {block} needs {need} access switches, {reserved} are reserved",
                                 **loaded.where("oob", "reserve", block), hint=f"reserve at least {need}")
        plan.append((block, ends, need, reserved))
    slots = sum(r for *_, r in plan)
    bmc_pool, sw_pool = ipam.net(o.bmc_pool), ipam.net(o.switch_pool)
    if MGMT_FIRST_HOST + len(cluster.server_names()) > bmc_pool.num_addresses - 2:
        raise InventoryError(f"pool {bmc_pool} is too small for {len(cluster.server_names())} BMCs",
                             **loaded.where("oob", "bmc_pool"), hint="use a shorter prefix")
    if MGMT_FIRST_HOST + slots + o.aggregation > sw_pool.num_addresses - 2:
        raise InventoryError(f"pool {sw_pool} is too small for the OOB switches", **loaded.where("oob", "switch_pool"),
                             hint="use a shorter prefix")

    def fmt(role: str, **fields: object) -> str:
        pattern = getattr(o.naming, role)
        try:
            name = pattern.format(**fields)
        except (KeyError, IndexError, ValueError) as exc:
            raise InventoryError(f"cannot format {pattern!r}: {exc}", **loaded.where("oob", "naming", role),
                                 hint="use the fields index and (access) block") from None
        return _hostname(name, pattern, loaded.where("oob", "naming", role))

    def mgmt(n: int) -> str:
        return f"{ipam.ip_str(numbering.mgmt_host(int(sw_pool.network_address), n))}/{sw_pool.prefixlen}"

    # the aggregation switches are managed at their own SVI address in the OOB switches' VLAN (.2/.3, below
    # MGMT_FIRST_HOST: no device's address); the access switches keep their places from .10 + aggregation
    aggs = [OobSwitch(fmt("aggregation", index=j, block="aggregation"), "oob-aggregation", j,
                      f"{ipam.ip_str(int(sw_pool.network_address) + oob_model.PAIR_HOSTS[j - 1])}/{sw_pool.prefixlen}",
                      slots, hardware=o.hardware.aggregation)
            for j in range(1, o.aggregation + 1)]
    links: list[Link] = []
    access: list[OobSwitch] = []
    # the access switch's place in the aggregation port plan: the slots reserved by the blocks before its
    # block, plus its index in the block
    for (block, ends, need, _reserved), first in zip(plan, numbering.firsts([r for *_, r in plan])):
        for i in range(1, need + 1):
            slot = first + i - 1
            acc = OobSwitch(fmt("access", index=i, block=block), "oob-access", i, mgmt(o.aggregation + slot),
                            o.access_ports + o.aggregation, hardware=o.hardware.access)
            access.append(acc)
            for k, (dev, port) in enumerate(ends[(i - 1) * o.access_ports: i * o.access_ports]):
                links.append(Link(acc.name, f"swp{k + 1}", dev, port, o.access_speed, "oob-access", network="oob"))
            for j, agg in enumerate(aggs):
                links.append(Link(acc.name, f"swp{o.access_ports + j + 1}", agg.name,
                                  f"swp{o.aggregation_first_port + slot}", o.uplink_speed, "oob-uplink", network="oob"))
    switches = aggs + access
    names = {s.name for s in switches}
    clash = names & ({sw.name for sw in cluster.all_switches()} | set(cluster.server_names()))
    if len(names) != len(switches) or clash:
        raise InventoryError(f"OOB switch names clash: {sorted(clash) or 'duplicates'}", **loaded.where("oob", "naming"),
                             hint="give the OOB switches their own names (layout blocks: put {block} in naming.access)")
    gw = ipam.ip_str(numbering.default_gateway(int(bmc_pool.network_address)))
    bmcs = []
    base = int(bmc_pool.network_address)
    hosts = [numbering.mgmt_host(base, i) for i in range(len(cluster.compute.servers))]  # GPU servers from the bottom,
    hosts += [numbering.top_host(base, bmc_pool.num_addresses, i) for i in range(len(cluster.groups))]  # groups from the top
    for s, host in zip(cluster.server_names(), hosts):
        ip = ipam.ip_str(host)
        bmcs.append(Bmc(s, f"{ip}/{bmc_pool.prefixlen}", ip, str(bmc_pool.netmask), gw))
    oob = OobModel(switches=switches, links=links, bmcs=bmcs, bmc_pool=str(bmc_pool), switch_pool=str(sw_pool),
                   bmc_gateway=gw, switch_gateway=ipam.ip_str(numbering.default_gateway(int(sw_pool.network_address))))
    oob_model.configure(loaded, cluster, oob)
    return oob


def _check_cluster(loaded: LoadedInventory, cluster: ClusterModel) -> None:
    """Across networks: names unique, pools apart, routing tables apart."""
    seen: dict[str, str] = {n: "compute" for n in cluster.compute.device_names()}
    seen.update({g.name: "server_groups" for g in cluster.groups})
    for p in cluster.planes:
        for sw in p.fabric.switches:
            if sw.name in seen:
                raise InventoryError(f"switch name {sw.name!r} is already used in {seen[sw.name]}",
                                     **loaded.where("planes", p.name, "naming"), hint="give the plane's switches their own names")
            seen[sw.name] = p.name
    inv = loaded.inventory
    a = inv.addressing
    pools: dict[tuple[str | int, ...], IPv4Network] = {
        ("addressing", "loopbacks", "leaf"): ipam.net(a.loopbacks.leaf),
        ("addressing", "loopbacks", "spine"): ipam.net(a.loopbacks.spine),
        ("addressing", "host_links", "pool"): ipam.net(a.host_links.pool),
        ("addressing", "management", "switch_pool"): ipam.net(a.management.switch_pool),
        ("addressing", "management", "server_pool"): ipam.net(a.management.server_pool),
    }
    if any(sw.role == "super_spine" for sw in cluster.compute.switches):
        pools[("addressing", "loopbacks", "super_spine")] = ipam.net(a.loopbacks.super_spine)
    cluster.compute_pools = {".".join(map(str, k[1:])): str(v) for k, v in pools.items()}
    for p in cluster.planes:
        for key, prefix in p.pools.items():
            pools[("planes", p.name, "addressing", key)] = ipam.net(prefix)
    if inv.oob:
        pools[("oob", "bmc_pool")] = ipam.net(inv.oob.bmc_pool)
        pools[("oob", "switch_pool")] = ipam.net(inv.oob.switch_pool)
    for p in cluster.planes:  # the frontend's exit: its point-to-point links are addresses of the cluster too
        spec = inv.planes[p.name]
        border.check_accept(p.name, spec, dict(pools), loaded.where)
        for i, subnet in border.upstream_subnets(spec):
            pools[("planes", p.name, "upstream", "links", i, "address")] = subnet
    keys = list(pools)
    for i, k1 in enumerate(keys):
        for k2 in keys[i + 1:]:
            if pools[k1].overlaps(pools[k2]):
                first = ".".join(map(str, k1))
                raise InventoryError(f"overlaps {first} ({pools[k1]}): the networks of a cluster never share addresses",
                                     **loaded.where(*k2), hint="give every network its own address range")
    tables: dict[int, str] = {}
    t = cluster.compute
    for srv in t.servers[:1]:
        for r in srv.rails:
            tables[r.table] = "servers.table_base"
    for p in cluster.planes:
        for srv in p.fabric.servers[:1]:
            for r in srv.rails:
                if r.table in tables:
                    raise InventoryError(f"routing table {r.table} is also used by {tables[r.table]}",
                                         **loaded.where("planes", p.name, "table_base"), hint="give every network its own tables")
                tables[r.table] = f"planes.{p.name}.table_base"


def resolve_cluster(loaded: LoadedInventory, compute: FabricModel) -> ClusterModel:
    inv = loaded.inventory
    cluster = ClusterModel(compute=compute, thresholds=dict(inv.features.verify.thresholds))
    if not (inv.planes or inv.server_groups or inv.oob):
        return cluster
    cluster.groups = _groups(loaded, compute)
    members: dict[str, list[str]] = {COMPUTE_GROUP: [s.name for s in compute.servers]}
    for g in cluster.groups:
        members.setdefault(g.group, []).append(g.name)
    for group in inv.server_groups:
        members.setdefault(group, [])
    for name, plane in inv.planes.items():
        cluster.planes.append(_resolve_plane(loaded, name, plane, members))
    _check_cluster(loaded, cluster)
    if inv.oob:
        cluster.oob = _oob(loaded, cluster)
    return cluster
