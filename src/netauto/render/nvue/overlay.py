"""`bridge`, `mlag`, `evpn` and `nve`: the layer-2 domain, the MLAG pair and the EVPN/VXLAN overlay."""

from __future__ import annotations

from netauto.model.types import Mlag, Switch
from netauto.platforms.nos import NvueSpelling
from netauto.render.nvue.tree import Tree


def bridge(sw: Switch, nv: NvueSpelling) -> Tree | None:
    if not sw.svi:
        return None
    vtep = sw.evpn.vtep if sw.evpn is not None else None
    vlan: Tree = {"vni": {str(vtep.vlan_vni[sw.svi.vlan]): {}}} if vtep is not None else {}
    return {"domain": {sw.svi.bridge: {"vlan": {str(sw.svi.vlan): vlan}}}}


def evpn(sw: Switch, nv: NvueSpelling) -> Tree | None:
    """A VTEP of an EVPN-MH network: `evpn enable` (NVUE then renders FRR's `advertise-all-vni` in l2vpn evpn) and
    `evpn multihoming enable` (CL 5.x user guide "EVPN Multihoming", NVUE startup.yaml example). The aggregation
    switches carry the address family only (`vrf default router bgp ... l2vpn-evpn`), as the guide's spines do."""
    if sw.vrfs:  # a tenant leaf: `evpn enable` only (FRR advertise-all-vni: the L3VNIs are known to bgpd)
        return nv.toggle(True)
    if sw.evpn is None or sw.evpn.vtep is None:
        return None
    return {**nv.toggle(True), "multihoming": {**nv.toggle(True)}}


def nve(sw: Switch, nv: NvueSpelling) -> Tree | None:
    """`nve vxlan`: the single VXLAN device, sourced from the loopback; ARP/ND suppression is required with
    EVPN-MH (user guide, "Required Features"). nvueschema 5.6-5.18: `enable`/`state`, `source address`,
    `arp-nd-suppress` (on/off, 5.15+ enabled/disabled)."""
    if sw.vxlan_source is not None and sw.vxlan_qos is not None:
        node = tenant_vxlan(sw.vxlan_source, sw.vxlan_qos.encap_dscp, sw.vxlan_qos.decap_dscp, nv)
        if sw.vxlan_mtu:  # nvueschema NveVxlan.mtu 552..9216
            node["mtu"] = sw.vxlan_mtu
        return {"vxlan": node}
    if sw.evpn is None or sw.evpn.vtep is None:
        return None
    return {"vxlan": {**nv.toggle(True), "source": {"address": sw.evpn.vtep.source}, "arp-nd-suppress": nv.flag(True)}}


def tenant_vxlan(source: str, encap: str, decap: str, nv: NvueSpelling) -> Tree:
    """A tenant leaf's VXLAN: sourced from the loopback; the inner DSCP copied to the outer header on
    encapsulation and kept on decapsulation, so RoCE and CNPs keep their class in the underlay
    (netauto.platforms.vxlan; nvueschema NveVxlanEncapsulationDscp / NveVxlanDecapsulationDscp)."""
    return {**nv.toggle(True), "source": {"address": source},
            "encapsulation": {"dscp": {"action": encap}}, "decapsulation": {"dscp": {"action": decap}}}


def mlag(sw: Switch, nv: NvueSpelling) -> Tree | None:
    return mlag_node(sw.mlag, nv) if sw.mlag is not None else None


def mlag_node(m: Mlag, nv: NvueSpelling) -> Tree:
    backup: Tree = {"vrf": m.backup_vrf} if m.backup_vrf else {}
    return {**nv.toggle(True), "mac-address": m.mac_address, "peer-ip": "linklocal", "priority": m.priority,
            "backup": {m.backup_ip: backup}}
