"""EVPN multihoming (`bond_redundancy: evpn-mh`): what the two access switches of a leaf group must agree on, and
what must reach the aggregation switches. Source: CL 5.x user guide "EVPN Multihoming" (Ethernet segments,
"Enable uplink Tracking", the warning to remove every MLAG setting, the leaf/spine example configurations).

The rules read the rendered files (the Linux-files view, or NVUE's for a switch without them) and compare them
with the model's intent (`Switch.evpn`): a switch of an EVPN-MH network is any switch whose intent has `evpn`.
"""

from __future__ import annotations

from collections.abc import Iterator

from netauto.model.types import Switch
from netauto.validate.rules import rule
from netauto.validate.rules._util import FRR, IFACES, fabric_links, file_of
from netauto.validate.state import ParsedFabric

_Finding = tuple[str, str, str]


def _vteps(view: ParsedFabric) -> Iterator[Switch]:
    for sw in view.model.switches:
        if sw.evpn is not None and sw.evpn.vtep is not None and sw.name in view.switches:
            yield sw


@rule(id="EVPN-01", severity="error",
      description="EVPN-MH: every server bond is the same Ethernet Segment (local id and MAC) on both access switches")
def segments_pair(view: ParsedFabric) -> Iterator[_Finding]:
    """The type-3 ESI is 03:<segment MAC>:<local id>: a bond whose id or MAC differs between the two switches is two
    segments, so each switch is the DF of its own half and the server sees two LACP partners (the segment MAC is
    also the LACP system id: ifupdown2 es-sys-mac must equal FRR's es-sys-mac)."""
    for sw in _vteps(view):
        st = view.switches[sw.name]
        assert sw.evpn is not None and sw.evpn.vtep is not None
        peer = view.switches.get(sw.evpn.vtep.peer)
        ev, pev = st.evpn, peer.evpn if peer is not None else None
        f = file_of(st, "frr", FRR)
        for b in sw.bonds:
            if b.segment is None:
                continue
            got = ev.segments.get(b.name) if ev is not None else None
            if got is None:
                yield sw.name, f"{b.name} ({b.description}) is no Ethernet Segment: no `evpn mh es-id/es-sys-mac`", f
                continue
            if got != (b.segment.local_id, b.segment.mac):
                yield sw.name, (f"{b.name}: segment {got}, expected local id {b.segment.local_id} MAC "
                                f"{b.segment.mac}"), f
            lacp = ev.lacp_macs.get(b.name) if ev is not None else None
            if lacp != got[1]:
                yield sw.name, (f"{b.name}: LACP system MAC (es-sys-mac) {lacp} differs from the segment MAC "
                                f"{got[1]}: the server bonds with two partners"), file_of(st, "interfaces", IFACES)
            theirs = pev.segments.get(b.name) if pev is not None else None
            if peer is not None and theirs != got:
                yield sw.name, (f"{b.name}: segment {got} here, {theirs} on {sw.evpn.vtep.peer}: the bond is not one "
                                "Ethernet Segment on both switches"), f


@rule(id="EVPN-02", severity="error",
      description="EVPN-MH: every uplink of an access switch is an MH uplink (uplink tracking, split-horizon/DF filters)")
def uplinks_flagged(view: ParsedFabric) -> Iterator[_Finding]:
    """Split-horizon and DF filters apply only to MH uplinks; a switch that loses every tracked uplink takes its
    segment bonds down (protodown) so the servers send everything to the other switch."""
    for sw in _vteps(view):
        st = view.switches[sw.name]
        flagged = st.evpn.uplinks if st.evpn is not None else set()
        f = file_of(st, "frr", FRR)
        ups = [i.name for i in sw.fabric_ports]
        if not flagged:
            yield sw.name, ("no EVPN-MH uplink: BUM traffic loops back to the segments and the bonds stay up with "
                            "every uplink down"), f
            continue
        for name in ups:
            if name not in flagged:
                yield sw.name, f"uplink {name} is not an EVPN-MH uplink (`evpn mh uplink`)", f


@rule(id="EVPN-03", severity="error",
      description="EVPN-MH: l2vpn-evpn active on both ends of every access-aggregation session; VTEPs advertise their VNIs")
def evpn_sessions(view: ParsedFabric) -> Iterator[_Finding]:
    """Type-1/2/4 routes between the two switches of a group travel through the aggregation switches: every
    fabric session of an EVPN-MH network carries the l2vpn evpn address family at both ends."""
    evpn = {sw.name for sw in view.model.switches if sw.evpn is not None}
    for link in fabric_links(view):
        for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            st = view.switches.get(dev)
            if dev not in evpn or st is None or st.bgp is None or not st.bgp.has_neighbor(port):
                continue  # a missing session is BGP-03's
            if not st.bgp.effective(port).evpn:
                yield dev, f"neighbour {port} is not activated in address-family l2vpn evpn", file_of(st, "frr", FRR)
    for sw in _vteps(view):
        st = view.switches[sw.name]
        if st.evpn is None or not st.evpn.advertise_all_vni:
            yield sw.name, "VTEP without `advertise-all-vni` (NVUE `evpn enable`): its VNIs are never announced", \
                file_of(st, "frr", FRR)


@rule(id="EVPN-04", severity="error",
      description="EVPN-MH: the pair's VXLAN (VNI, tunnel source) matches, and no MLAG setting is left")
def vxlan_and_no_mlag(view: ParsedFabric) -> Iterator[_Finding]:
    """The user guide: "To use EVPN-MH, you must remove any MLAG configuration" (clag-id, peerlink). The group
    VLAN maps to the same VNI on both switches, sourced from the loopback the underlay announces."""
    for sw in _vteps(view):
        assert sw.evpn is not None and sw.evpn.vtep is not None
        vtep = sw.evpn.vtep
        st = view.switches[sw.name]
        f = file_of(st, "interfaces", IFACES)
        vni_map = st.evpn.vni_map if st.evpn is not None else {}
        if vni_map != vtep.vlan_vni:
            yield sw.name, f"VLAN-to-VNI map {vni_map}, expected {vtep.vlan_vni}", f
        peer = view.switches.get(vtep.peer)
        if peer is not None and peer.evpn is not None and peer.evpn.vni_map != vni_map:
            yield sw.name, f"VLAN-to-VNI map {vni_map} here, {peer.evpn.vni_map} on {vtep.peer}: the VLAN is not stretched", f
        source = st.evpn.vtep_source if st.evpn is not None else None
        if source != vtep.source:
            yield sw.name, f"VXLAN tunnel source {source}, expected the loopback {vtep.source}", f
        left = sorted(st.mlag | ({"peerlink"} & set(st.bonds)))
        if st.bgp is not None:
            left += sorted(n for n in st.bgp.neighbors if n.startswith("peerlink"))
        if left:
            yield sw.name, (f"MLAG settings on an EVPN-MH switch ({', '.join(left)}): remove clag-id, clagd-* and the "
                            "peerlink (CL user guide, EVPN Multihoming)"), f
