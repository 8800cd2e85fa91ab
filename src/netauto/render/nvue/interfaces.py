"""`interface`: loopback, management, front-panel ports (links, breakouts, edge ports, per-port QoS and
adaptive routing), bonds, SVIs, the MLAG peerlink. Subtrees that repeat on every port are built once and shared."""

from __future__ import annotations

from functools import lru_cache

from netauto.model.types import BondPort, EthernetSegment, Interface, Mlag, PeerSession, Svi, Switch, pfc_profile_name
from netauto.platforms.nos import NvueSpelling
from netauto.render.nvue.qos import LOSSY_PFC_PROFILE
from netauto.render.nvue.system import port_histograms
from netauto.render.nvue.tree import BRIDGE, Tree


def addresses(nv: NvueSpelling, address: str, gateway: str | None = None, vrf: str | None = None) -> Tree:
    """`ip: {address, gateway, vrf}` (<= 5.14) or `ipv4: {address, gateway}` + `vrf` (>= 5.15)."""
    container: Tree = {"address": {address: {}}}
    if gateway:
        container["gateway"] = {gateway: {}}
    out: Tree = {nv.ipv4_container: container}
    if vrf:
        if nv.vrf_under_ip:
            container["vrf"] = vrf
        else:
            out["vrf"] = vrf
    return out


def loopback(sw: Switch, nv: NvueSpelling) -> Tree:
    return {"type": "loopback", **addresses(nv, sw.loopback)}


def management(sw: Switch, nv: NvueSpelling) -> Tree:
    return {"type": "eth", **addresses(nv, sw.mgmt_address, sw.mgmt_gateway, "mgmt" if sw.mgmt_vrf else None)}


@lru_cache(maxsize=64)
def breakout_cage(ways: int, lanes_per_port: int) -> Tree:
    """`link breakout <N>x` on the cage's parent port; `lanes-per-port` is a string enum "1"/"2"/"4"/"8"
    (nvueschema 5.6-5.18), e.g. 2x with 4 lanes each: two 400G ports of 4 x 100G on an 800G cage."""
    return {"type": "swp", "link": {"breakout": {f"{ways}x": {"lanes-per-port": str(lanes_per_port)}}}}


# Subtrees that repeat on every port of a switch are built once and shared (read-only: nothing edits a
# document after it is built); the YAML emitter writes a shared subtree once per document and copies it.
@lru_cache(maxsize=1024)
def _link(mtu: int, speed: str | None, fec: str | None, enabled: bool) -> Tree:
    link: Tree = {"mtu": mtu}
    if speed:
        link["speed"] = speed
    if fec:
        link["fec"] = fec
    link["state"] = {"up" if enabled else "down": {}}
    return link


@lru_cache(maxsize=256)
def _edge_port(bridge: str, vlan: int, nv: NvueSpelling) -> Tree:
    """A host-facing access port: STP edge (no listening/learning) with BPDU guard (a bridging server is shut)."""
    return {"domain": {bridge: {"access": vlan, "stp": {"admin-edge": nv.flag(True), "bpdu-guard": nv.flag(True)}}}}


@lru_cache(maxsize=64)
def _port_pfc_watchdog(nv: NvueSpelling) -> Tree:
    return {"pfc-watchdog": {"state": nv.pfc_watchdog_on}}


@lru_cache(maxsize=256)
def _port_adaptive_routing(threshold: int, nv: NvueSpelling) -> Tree:
    return {"adaptive-routing": {**nv.toggle(True), "link-utilization-threshold": threshold}}


def port(iface: Interface, nv: NvueSpelling, bridge: str | None = None, ar_threshold: int = 0,
         pfc_profile: str | None = None) -> Tree:
    """A front-panel port; `bridge`: the VLAN-aware bridge its `access_vlan` belongs to; `pfc_profile`: the
    `qos pfc` profile of its cable length (None: the global one)."""
    node: Tree = {"type": "swp", "description": iface.description,
                  "link": _link(iface.mtu, None if iface.autoneg_only else iface.speed, iface.fec, iface.enabled)}
    if iface.address:
        node.update(addresses(nv, iface.address, vrf=iface.vrf))
    if iface.access_vlan and bridge is not None:
        node["bridge"] = _edge_port(bridge, iface.access_vlan, nv)
    if iface.enabled and iface.pfc_watchdog:
        node["qos"] = _port_pfc_watchdog(nv)
    if iface.enabled and pfc_profile:  # headroom for this port's cable, or no PFC (qos pfc <profile>)
        node["qos"] = {**node.get("qos", {}), "pfc": {"profile": pfc_profile}}
    if iface.enabled and iface.adaptive_routing:
        node["router"] = _port_adaptive_routing(ar_threshold, nv)
    return node


def front_panel(sw: Switch, iface: Interface, nv: NvueSpelling) -> Tree:
    cable = sw.cable_of(iface)
    profile = None
    if sw.qos.lossless and not iface.pfc:  # long-haul run lossy (cabling.long_haul): PFC off on this port
        profile = LOSSY_PFC_PROFILE
    elif sw.qos.lossless and cable != sw.qos.cable_length_m:
        profile = pfc_profile_name(cable)
    return port(iface, nv, sw.svi.bridge if sw.svi is not None else None, sw.ar_link_util_threshold, profile)


def svi_node(s: Svi, nv: NvueSpelling) -> Tree:
    node: Tree = {"type": "svi", "vlan": s.vlan, **addresses(nv, s.address)}
    if s.vrr_address:  # MLAG pair: the shared gateway (VRR) both switches answer for
        node[nv.ipv4_container]["vrr"] = {**nv.toggle(True), "address": {s.vrr_address: {}},
                                          "mac-address": s.vrr_mac, nv.vrr_link_state_key: {"up": {}}}
    return node


def svi(sw: Switch, nv: NvueSpelling) -> Tree:
    assert sw.svi is not None
    return svi_node(sw.svi, nv)


def peerlink_node(m: Mlag) -> Tree:
    return {"type": "peerlink", "bond": {"member": {member: {} for member in m.peerlink_members}}}


def peerlink(sw: Switch, nv: NvueSpelling) -> Tree:
    assert sw.mlag is not None
    return peerlink_node(sw.mlag)


def bond_node(b: BondPort, bridge: str, nv: NvueSpelling) -> Tree:
    """An LACP bond: a server's bond on an MLAG access pair (frontend network, `host_routing: bond`), an STP edge
    port with BPDU guard as single host ports are (EDGE-01); or a switch-to-switch trunk of the OOB network,
    tagged in `trunk_vlans` (`bridge domain <br> vlan <id>`: the bond's allowed VLANs, NVUE reference
    "nv set interface <if> bridge domain <domain> vlan"), an MLAG bond when it has an MLAG id."""
    lag: Tree = {"member": {m: {} for m in b.members}, "mode": "lacp", "lacp-rate": "fast"}
    if b.mlag_id:
        lag["mlag"] = {"id": b.mlag_id}
    node: Tree = {"type": "bond", "description": b.description, "link": {"mtu": b.mtu}, "bond": lag}
    if b.trunk_vlans:
        node["bridge"] = {"domain": {bridge: {"vlan": {str(v): {} for v in b.trunk_vlans}}}}
    else:
        node["bridge"] = _edge_port(bridge, b.access_vlan, nv)
    if b.segment is not None:
        node["evpn"] = {"multihoming": {"segment": segment_node(b.segment, nv)}}
    return node


def segment_node(es: EthernetSegment, nv: NvueSpelling) -> Tree:
    """`interface <bond> evpn multihoming segment`: local-id + mac-address make the type-3 ESI, df-preference
    elects the designated forwarder (CL 5.x user guide "EVPN Multihoming", NVUE example and startup.yaml;
    nvueschema 5.6-5.18: `enable`/`state`, `local-id` 1..16777215, `mac-address`, `df-preference` 1..65535)."""
    return {**nv.toggle(True), "local-id": es.local_id, "mac-address": es.mac, "df-preference": es.df_preference}


def peer_session(session: PeerSession, nv: NvueSpelling) -> Tree:
    """peerlink.4094: the MLAG control sub-interface, named in the document because the BGP session to the peer
    runs on it (NVIDIA DGX BasePOD switch configs: `type sub`, `base-interface peerlink`, `vlan 4094`; all three
    keys are in the nvueschema interface model of every supported release, 5.6-5.18)."""
    return {"type": "sub", "base-interface": session.lag, "vlan": session.vlan}


def bond(sw: Switch, b: BondPort, nv: NvueSpelling) -> Tree:
    return bond_node(b, sw.svi.bridge if sw.svi else BRIDGE, nv)


def interfaces(sw: Switch, nv: NvueSpelling) -> Tree:
    out: Tree = {"lo": loopback(sw, nv), "eth0": management(sw, nv)}
    for cage in sw.cage_breakouts:
        out[cage.parent] = breakout_cage(cage.ways, cage.lanes_per_port)
    for iface in sw.interfaces:
        out[iface.name] = front_panel(sw, iface, nv)
    histogram = port_histograms(sw, nv)
    if histogram is not None:
        for iface in sw.pfc_interfaces:  # a fresh node per port: adding a key shares nothing
            out[iface.name] = {**out[iface.name], "telemetry": histogram}
    if sw.evpn is not None and sw.evpn.vtep is not None:
        for name in sw.evpn.vtep.uplinks:  # a fresh node per port: adding a key shares nothing
            out[name]["evpn"] = _mh_uplink(nv)
    if sw.mlag:
        out["peerlink"] = peerlink(sw, nv)
        if sw.mlag.session:
            out[sw.mlag.session.interface] = peer_session(sw.mlag.session, nv)
    for b in sw.bonds:
        out[b.name] = bond(sw, b, nv)
    if sw.svi:
        out[sw.svi.name] = svi(sw, nv)
    return out


@lru_cache(maxsize=64)
def _mh_uplink(nv: NvueSpelling) -> Tree:
    """`interface <uplink> evpn multihoming uplink on` (5.15+: `enabled`, nvueschema): the switch tracks its
    uplinks and takes its segment bonds down (protodown) when all are down; split-horizon and DF filters apply
    only to MH uplinks (CL 5.x user guide "EVPN Multihoming", "Enable uplink Tracking")."""
    return {"multihoming": {"uplink": nv.flag(True)}}
