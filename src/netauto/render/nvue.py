"""Cumulus NVUE `startup.yaml`: the resolved switch -> a structured document -> block YAML.

pyavd style: every value is computed here in Python and spelled with the target release's table
(`netauto.platforms.nos.nvue_spelling`: `enable: on` vs `state: enabled`, `ip` vs `ipv4`, ECN `enable`), so
no template carries release conditionals. One function per top-level subtree (and per interface kind);
a new subtree is a new function added to `SUBTREES`. Key order follows NVUE's own `nv config save` output
loosely and is stable, which keeps golden diffs readable.

Every key and enum is checked against NVIDIA's NVUE schema of the release by `netauto validate`
(netauto.validate.nvue_schema; tests/test_nvue_schema.py runs it for every supported release).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from netauto.model.cluster import ClusterModel, OobSwitch
from netauto.model.types import (
    Bfd, BondPort, EthernetSegment, FabricModel, Interface, Mlag, PeerSession, PrefixRule, Route, Svi, Switch,
    TenantVrf, Upstream, pfc_profile_name,
)
from netauto.platforms.nos import (
    QOS_ROCE_CABLE_M, NvueSpelling, cumulus_feature_release, cumulus_path, nvue_spelling, release_tuple,
)
from netauto.render.yaml_block import dump_set

BRIDGE = "br_default"  # NVUE's default VLAN-aware bridge domain

Tree = dict[str, Any]
NVUE_PATH = cumulus_path("nvue")
MAX_PREFIX_WARNING = 90  # % of the inbound maximum-prefix at which FRR/NVUE log a warning (same in frr.conf)


def spelling_for(release: str) -> NvueSpelling:
    return nvue_spelling(release)


# ---------------------------------------------------------------- system
def system(sw: Switch, nv: NvueSpelling) -> Tree:
    out: Tree = {"hostname": sw.name}
    node = telemetry(sw, nv)
    if node is not None:
        out["telemetry"] = node
    return out


def port_histograms(sw: Switch, nv: NvueSpelling) -> Tree | None:
    """`interface <if> telemetry histogram`: buffer-occupancy histograms of the RoCE priority group (ingress) and
    the ECN traffic classes (egress) on every lossless port, sampled by the ASIC (nvueschema v5_10+: priority-group
    / traffic-class entries, bins and sample-interval left at the system defaults), exported by `system telemetry
    histogram export`: the burst visibility a 1 s counter poll cannot give."""
    if sw.telemetry is None or not sw.qos.lossless or not _since(nv, "telemetry"):
        return None
    return {"histogram": {
        "ingress-buffer": {"priority-group": {str(p): {} for p in sorted(sw.qos.pfc_priorities)}},
        "egress-buffer": {"traffic-class": {str(tc): {} for tc in sorted(sw.qos.ecn_traffic_classes)}},
    }}


def _since(nv: NvueSpelling, feature: str) -> bool:
    return release_tuple(nv.release) >= release_tuple(cumulus_feature_release(feature))


def telemetry(sw: Switch, nv: NvueSpelling) -> Tree | None:
    """`system telemetry`: OpenTelemetry (OTLP/gRPC) export of interface statistics (counters, PFC, ECN-marked
    and dropped packets), the RoCE priority groups' and ECN traffic classes' buffer statistics and the buffer
    histograms, to the inventory's collector (features.telemetry). Only for releases whose NVUE schema has it
    (platforms/data/nos_cumulus.yaml features.telemetry); None when not configured."""
    t = sw.telemetry
    if t is None or not _since(nv, "telemetry"):
        return None
    export: Tree = {"otlp": {"state": "enabled", "grpc": {"insecure": "enabled",
                                                          "destination": {t.otlp_host: {"port": t.otlp_port}}}}}
    if sw.mgmt_vrf:  # the collector sits on the management network
        export["vrf"] = "mgmt"
    stats: Tree = {"export": {"state": "enabled"}, "sample-interval": t.interval_s}
    if sw.qos.lossless:
        stats["ingress-buffer"] = {"priority-group": {str(p): {} for p in sorted(sw.qos.pfc_priorities)}}
        stats["egress-buffer"] = {"traffic-class": {str(tc): {} for tc in sorted(sw.qos.ecn_traffic_classes)}}
    out: Tree = {**nv.toggle(True), "export": export, "interface-stats": stats,
                 "histogram": {"export": {"state": "enabled"}}}
    if _since(nv, "telemetry_buffer_stats"):
        out["buffer-stats"] = {"export": {"state": "enabled"}, "sample-interval": t.interval_s}
    return out


# ---------------------------------------------------------------- interfaces
def _addresses(nv: NvueSpelling, address: str, gateway: str | None = None, vrf: str | None = None) -> Tree:
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
    return {"type": "loopback", **_addresses(nv, sw.loopback)}


def management(sw: Switch, nv: NvueSpelling) -> Tree:
    return {"type": "eth", **_addresses(nv, sw.mgmt_address, sw.mgmt_gateway, "mgmt" if sw.mgmt_vrf else None)}


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
        node.update(_addresses(nv, iface.address, vrf=iface.vrf))
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
    node: Tree = {"type": "svi", "vlan": s.vlan, **_addresses(nv, s.address)}
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


# ---------------------------------------------------------------- QoS
LOSSY_PFC_PROFILE = "lossy-long-haul"  # the PFC profile of long-haul ports run lossy with ECN only
def qos(sw: Switch, nv: NvueSpelling) -> Tree | None:
    q = sw.qos
    if not q.lossless:  # a lossy network: no `qos roce`, NVUE's default lossy QoS stays
        return None
    out: Tree = {"roce": {**nv.toggle(True), "mode": "lossless"}}
    if q.pfc_watchdog:
        out["pfc-watchdog"] = {"polling-interval": q.pfc_watchdog_polling_interval_ms,
                               "robustness": q.pfc_watchdog_robustness}
    # one PFC profile per other cable length, named by the ports on it (nvueschema 5.6-5.18: qos pfc <profile>
    # {switch-priority, tx, rx, cable-length 1-100000}; interface <if> qos pfc profile <profile>); Cumulus sizes the
    # port's headroom from cable-length (CL QoS page, "Priority Flow Control")
    profiles: Tree = {name: {"switch-priority": {str(p): {} for p in q.pfc_priorities}, "tx": "enable", "rx": "enable",
                             "cable-length": metres}
                      for name, metres, _ in sw.pfc_groups if name is not None}
    if any(i.enabled and not i.pfc for i in sw.interfaces):  # ECN only: neither sends nor honours pause frames
        profiles[LOSSY_PFC_PROFILE] = {"switch-priority": {str(p): {} for p in q.pfc_priorities},
                                       "tx": "disable", "rx": "disable"}
    if q.is_nvidia_default:
        if q.cable_length_m != QOS_ROCE_CABLE_M:  # most ports' cable, where qos roce would size for 100 m
            profiles = {"default-global": {"switch-priority": {str(p): {} for p in q.pfc_priorities},
                                           "cable-length": q.cable_length_m}, **profiles}
        if profiles:
            out["pfc"] = profiles
        return out
    if q.dscp_changes:  # only what differs from `qos roce`'s DSCP >> 3 map
        out["mapping"] = {"default-global": {"dscp": {
            str(d): {"switch-priority": p} for d, p in q.dscp_changes.items()}}}
    # CL RoCE page, "Change RoCE Configuration": a RoCE priority other than 3 needs its own egress queue and
    # the lossless traffic pool, or it lands in lossy TC0; spelled out for every switch priority
    out["egress-queue-mapping"] = {"default-global": {"switch-priority": {
        str(p): {"traffic-class": tc} for p, tc in q.priority_to_tc.items()}}}
    out["traffic-pool"] = {"roce-lossless": {"switch-priority": {str(p): {} for p in q.pfc_priorities}},
                           "default-lossy": {"switch-priority": {str(p): {} for p in q.lossy_priorities}}}
    out["pfc"] = {"default-global": {"switch-priority": {str(p): {} for p in q.pfc_priorities},
                                     "cable-length": q.cable_length_m}, **profiles}
    out["congestion-control"] = {"default-global": {"traffic-class": {
        str(tc): {"min-threshold": q.ecn_min_threshold, "max-threshold": q.ecn_max_threshold,
                  "probability": q.ecn_probability, "ecn": nv.ecn_on}
        for tc in q.ecn_traffic_classes
    }}}
    out["egress-scheduler"] = {"default-global": {"traffic-class": {
        str(e.traffic_class): ({"mode": "strict"} if e.mode == "strict" else {"mode": "dwrr", "bw-percent": e.weight})
        for e in q.ets
    }}}
    return out


# ---------------------------------------------------------------- routing policy
def _permit_rule(**extra: Any) -> Tree:
    return {"action": {"permit": {}}, **extra}


def _prefix_list(rules: list[PrefixRule]) -> Tree:
    """`router policy prefix-list <name> rule <seq> match <prefix> max-prefix-len <le>`; an exact match has no
    max-prefix-len (nvueschema RouterPolicyPrefixListEntryRuleEntryMatchEntry: max-prefix-len 0-128, optional)."""
    return {"rule": {
        str(i * 10): {"action": "permit", "match": {e.prefix: {} if e.le is None else {"max-prefix-len": e.le}}}
        for i, e in enumerate(rules, 1)
    }}


def policy(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    out: Tree = {}
    if b.gshut_honour or b.gshut_prepend:
        out["community-list"] = {"GSHUT": {"rule": {"5": {"action": "permit", "community": {"65535:0": {}}}}}}
    prefix_lists: Tree = {"LOOPBACK": {"rule": {"10": {"action": "permit", "match": {sw.loopback: {}}}}}}
    if b.connected_prefixes:
        prefix_lists["HOSTLINKS"] = {"rule": {
            str(i * 10): {"action": "permit", "match": {e.prefix: {"max-prefix-len": e.max_len}}}
            for i, e in enumerate(b.connected_prefixes, 1)
        }}
    # inbound filter of every fabric session: only the fabric's own prefixes (model Bgp.accept_prefixes)
    if b.accept_prefixes:
        prefix_lists["FABRIC-PREFIXES"] = _prefix_list(b.accept_prefixes)
    if b.upstream:  # the frontend's exit: what the site may send, what it may learn (model/border.py)
        prefix_lists["UPSTREAM-IN"] = _prefix_list(b.upstream.accept)
        prefix_lists["UPSTREAM-OUT"] = _prefix_list(b.upstream.advertise)
    out["prefix-list"] = prefix_lists
    connected: Tree = {"10": _permit_rule(match={"ip-prefix-list": "LOOPBACK"})}
    if b.connected_prefixes:
        connected["20"] = _permit_rule(match={"ip-prefix-list": "HOSTLINKS"})
    fabric_in: Tree = {}
    if b.gshut_honour:
        fabric_in["10"] = _permit_rule(match={"community-list": "GSHUT"}, set={"local-preference": 0})
    fabric_in["20"] = _permit_rule()
    fabric_out: Tree = {}
    if b.gshut_prepend:
        # `as-path-prepend as` is a string in the schema (a list of ASNs), so the ASN is quoted
        fabric_out["10"] = _permit_rule(match={"community-list": "GSHUT"}, set={"as-path-prepend": {"as": str(b.asn)}})
    fabric_out["20"] = _permit_rule()
    out["route-map"] = {"CONNECTED": {"rule": connected}, "FABRIC-IN": {"rule": fabric_in},
                        "FABRIC-OUT": {"rule": fabric_out}}
    return out


# ---------------------------------------------------------------- router (global)
def router(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    bgp: Tree = {"autonomous-system": b.asn, "router-id": b.router_id, **nv.toggle(True)}
    if b.graceful_shutdown:
        bgp["graceful-shutdown"] = nv.flag(True)
    bgp.update(startup_protection(sw, nv))
    ar: Tree = nv.toggle(sw.adaptive_routing)
    if sw.adaptive_routing:
        # the per-port link-utilization-threshold acts only with the global switch on, which is off by default
        # (nvueschema 5.6-5.18 RouterAdaptiveRouting.link-utilization-threshold: on/off, 5.15+ enabled/disabled,
        # "off by default"); the Linux files turn it on (link_utilization_threshold_disabled = FALSE)
        ar["link-utilization-threshold"] = nv.flag(True)
    out: Tree = {"adaptive-routing": ar, "bgp": bgp}
    bfd = router_bfd(sw, nv)
    if bfd:
        out["bfd"] = bfd
    out["policy"] = policy(sw, nv)
    if sw.evpn is not None and sw.evpn.vtep is not None:
        out["vrr"] = nv.toggle(True)  # `router vrr enable on`, as in the user guide's EVPN-MH leaves (SVI VRR gateway)
    return out


def startup_protection(sw: Switch, nv: NvueSpelling) -> Tree:
    """`wait-for-install` (FRR bgp suppress-fib-pending) and `convergence-wait` (FRR update-delay)."""
    b = sw.bgp
    out: Tree = {}
    if b.wait_for_install:
        out["wait-for-install"] = nv.flag(True)
    if b.update_delay:
        wait: Tree = {"time": b.update_delay}
        if b.establish_wait:
            wait["establish-wait-time"] = b.establish_wait
        out["convergence-wait"] = wait
    return out


# ---------------------------------------------------------------- VRF default BGP
def peer_group(sw: Switch, name: str, description: str, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    inbound: Tree = {"route-map": "FABRIC-IN"}
    if b.accept_prefixes:
        inbound["prefix-list"] = "FABRIC-PREFIXES"
    af: Tree = {**nv.toggle(True), "policy": {"inbound": inbound, "outbound": {"route-map": "FABRIC-OUT"}}}
    if b.maximum_prefix:
        af["prefix-limits"] = {"inbound": {"maximum": b.maximum_prefix, "warning-threshold": MAX_PREFIX_WARNING}}
    families: Tree = {"ipv4-unicast": af}
    if sw.evpn is not None:  # EVPN-MH network: l2vpn-evpn over the same unnumbered sessions (user guide example)
        families["l2vpn-evpn"] = nv.toggle(True)
    return {"remote-as": "external", "description": description, "address-family": families}


def upstream_group(up: Upstream, nv: NvueSpelling) -> Tree:
    """The UPSTREAM peer-group: prefix-lists both ways (no route-map: the sessions carry no fabric policy) and an
    inbound cap. The routers' ASN is set per neighbour (numbered, remote-as <asn>)."""
    af: Tree = {**nv.toggle(True),
                "policy": {"inbound": {"prefix-list": "UPSTREAM-IN"}, "outbound": {"prefix-list": "UPSTREAM-OUT"}},
                "prefix-limits": {"inbound": {"maximum": up.maximum_prefix, "warning-threshold": MAX_PREFIX_WARNING}}}
    return {"description": "upstream routers (site network)", "address-family": {"ipv4-unicast": af}}


BFD_PROFILE = "UPSTREAM"


def _bfd_timers(bfd: Bfd) -> Tree:
    return {"detect-multiplier": bfd.detect_multiplier, "min-rx-interval": bfd.min_rx_interval,
            "min-tx-interval": bfd.min_tx_interval}


def upstream_neighbors(up: Upstream, nv: NvueSpelling) -> Tree:
    """`neighbor <ip> type numbered remote-as <asn>`. BFD up to 5.14 with the timers on the neighbour (nvueschema
    v5_14 VrfEntryRouterBgpNeighborEntryBfd: enable, detect-multiplier, min-rx/tx-interval); from 5.15 the
    neighbour names the profile `router bfd` defines (v5_15: neighbor bfd has only `profile`)."""
    out: Tree = {}
    for p in up.peers:
        node: Tree = {"type": "numbered", "remote-as": p.asn, "peer-group": "UPSTREAM", "description": p.description}
        if p.bfd:
            node["bfd"] = {"profile": BFD_PROFILE} if nv.bfd_profiles else {**nv.toggle(True), **_bfd_timers(p.bfd)}
        out[p.address] = node
    return out


def router_bfd(sw: Switch, nv: NvueSpelling) -> Tree | None:
    """5.15+: `router bfd state enabled` and the upstream sessions' profile (nvueschema v5_15 RouterBfd,
    RouterBfdProfileEntry)."""
    up = sw.bgp.upstream
    bfd = next((p.bfd for p in up.peers if p.bfd), None) if up else None
    if bfd is None or not nv.bfd_profiles:
        return None
    return {**nv.toggle(True), "profile": {BFD_PROFILE: _bfd_timers(bfd)}}


def ipv4_unicast(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    af: Tree = {**nv.toggle(True), "network": {p: {} for p in b.networks}}
    aggregates: Tree = {p: {"summary-only": nv.flag(True)} for p in b.aggregates}
    if b.upstream:  # without summary-only: the access switches keep each other's subnets
        aggregates.update({p: {"summary-only": nv.flag(False)} for p in b.upstream.aggregates})
    if aggregates:
        af["aggregate-route"] = aggregates
    af["redistribute"] = {"connected": {**nv.toggle(True), "route-map": "CONNECTED"}}
    af["multipaths"] = {"ebgp": b.maximum_paths}
    return af


def vrf_default_bgp(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    out: Tree = {**nv.toggle(True)}
    if b.multipath_relax:
        out["path-selection"] = {"multipath": {"aspath-ignore": nv.flag(True)}}
    out["timers"] = {"keepalive": b.keepalive, "hold": b.holdtime, "connection-retry": b.connect_retry}
    out["peer-group"] = {pg.name: peer_group(sw, pg.name, pg.description, nv) for pg in b.peer_groups}
    out["neighbor"] = {nb.interface: {"type": "unnumbered", "peer-group": nb.peer_group,
                                      "description": f"{nb.peer_device} {nb.peer_port}"} for nb in b.neighbors}
    if b.upstream:
        out["peer-group"]["UPSTREAM"] = upstream_group(b.upstream, nv)
        out["neighbor"].update(upstream_neighbors(b.upstream, nv))
    out["address-family"] = {"ipv4-unicast": ipv4_unicast(sw, nv)}
    if sw.evpn is not None:
        out["address-family"]["l2vpn-evpn"] = nv.toggle(True)
    return out


def discard_routes(up: Upstream) -> Tree:
    """`vrf default router static <aggregate> via blackhole` (nvueschema VrfEntryRouterStaticEntry: via type
    blackhole): FRR 8.4 puts an aggregate without summary-only in no kernel table (seen in the lab), so without
    this a packet for an unused part of the pool would bounce between the site and the aggregation switch (its
    default route) until its TTL ran out."""
    return {p: {"address-family": "ipv4-unicast", "via": {"blackhole": {"type": "blackhole"}}} for p in up.aggregates}


def vrf(sw: Switch, nv: NvueSpelling) -> Tree:
    router: Tree = {"bgp": vrf_default_bgp(sw, nv)}
    if sw.bgp.upstream:
        router["static"] = discard_routes(sw.bgp.upstream)
    out: Tree = {"default": {"router": router}}
    for v in sw.vrfs:
        out[v.name] = tenant_vrf(sw, v, nv)
    return out


def tenant_vrf(sw: Switch, v: TenantVrf, nv: NvueSpelling) -> Tree:
    """`vrf <tenant>`: its L3VNI (`evpn vni`), BGP in the VRF redistributing its host links into EVPN type-5
    routes (`address-family ipv4-unicast route-export to-evpn`) with the tenant's route target, importing that
    route target only (nvueschema v5_x VrfEntryEvpn, VrfEntryRouterBgpRouteImport/Export; CL user guide "Inter-
    subnet Routing", symmetric routing with an L3VNI)."""
    rt: Tree = {"route-target": {v.route_target: {}}}
    af: Tree = {**nv.toggle(True), "redistribute": {"connected": nv.toggle(True),
                                                    **({"static": nv.toggle(True)} if v.routes else {})},
                "route-export": {"to-evpn": nv.toggle(True)}, "multipaths": {"ebgp": sw.bgp.maximum_paths}}
    bgp: Tree = {**nv.toggle(True), "autonomous-system": sw.bgp.asn, "router-id": sw.bgp.router_id,
                 "address-family": {"ipv4-unicast": af},
                 "route-import": {"from-evpn": rt}, "route-export": {"to-evpn": rt}}
    router: Tree = {"bgp": bgp}
    if v.routes:  # tenant-owned prefixes (model.tenant_prefixes): `vrf <tenant> router static <prefix> via <ip>`
        router["static"] = {p: {"address-family": "ipv4-unicast", "via": {via: {}}} for p, via in v.routes}
    return {"evpn": {**nv.toggle(True), "vni": {str(v.vni): {}}}, "router": router}


# ---------------------------------------------------------------- the document
Subtree = Callable[[Switch, NvueSpelling], "Tree | None"]
SUBTREES: tuple[tuple[str, Subtree], ...] = (
    ("system", system),
    ("interface", interfaces),
    ("bridge", bridge),
    ("mlag", mlag),
    ("evpn", evpn),
    ("nve", nve),
    ("qos", qos),
    ("router", router),
    ("vrf", vrf),
)


def nvue_document(sw: Switch, nv: NvueSpelling | None = None) -> Tree:
    """The `set:` document of a switch, spelled for its release."""
    nv = nv or nvue_spelling(sw.cumulus_release)
    doc: Tree = {}
    for key, build in SUBTREES:
        node = build(sw, nv)
        if node is not None:
            doc[key] = node
    return doc


def _header(device: str, source: str, nv: NvueSpelling, release: str) -> str:
    return (f"# {device}: /{NVUE_PATH} rendered by netauto from {source}\n"
            f"# Target Cumulus Linux {release} (NVUE spelling \"{nv.toggle_key}: {nv.on}\").\n")


def startup_yaml(sw: Switch, fabric: FabricModel) -> str:
    nv = nvue_spelling(sw.cumulus_release)
    return _header(sw.name, f"fabric {fabric.name}", nv, sw.cumulus_release) + dump_set(nvue_document(sw, nv))


# ---------------------------------------------------------------- the OOB network's own switches
def static_routes(routes: list[Route]) -> Tree:
    """`vrf default router static <prefix> via <address>` (NVUE reference, Static Routes)."""
    return {"default": {"router": {"static": {r.to: {"via": {r.via: {}}} for r in routes if r.via}}}}


def oob_document(sw: OobSwitch, nv: NvueSpelling | None = None) -> Tree:
    """An OOB access or aggregation switch (netauto.model.oob): plain bridging, SVIs, MLAG on the aggregation
    pair, static routes only; the same port, bond, SVI and MLAG subtrees as the frontend's MLAG pairs."""
    nv = nv or nvue_spelling(sw.cumulus_release)
    ifaces: Tree = {}
    for iface in sw.interfaces:
        ifaces[iface.name] = port(iface, nv, BRIDGE)
    if sw.mlag is not None:
        ifaces["peerlink"] = peerlink_node(sw.mlag)
    for b in sw.bonds:
        ifaces[b.name] = bond_node(b, BRIDGE, nv)
    for s in sw.svis:
        ifaces[s.name] = svi_node(s, nv)
    if sw.backup_address:  # the MLAG backup cable, off the peerlink
        ifaces["eth0"] = {"type": "eth", **_addresses(nv, sw.backup_address, None, sw.mlag.backup_vrf if sw.mlag else None)}
    domain: Tree = {"vlan": {str(v): {} for v in sw.vlans}}
    if sw.stp_priority:  # the aggregation pair is the spanning tree's root (same priority on both MLAG peers)
        domain = {"stp": {"priority": sw.stp_priority}, **domain}
    doc: Tree = {"system": {"hostname": sw.name}, "interface": ifaces, "bridge": {"domain": {BRIDGE: domain}}}
    if sw.mlag is not None:
        doc["mlag"] = mlag_node(sw.mlag, nv)
    if sw.routes:
        doc["vrf"] = static_routes(sw.routes)
    return doc


def oob_startup_yaml(sw: OobSwitch, cluster: ClusterModel) -> str:
    nv = nvue_spelling(sw.cumulus_release)
    return _header(sw.name, f"fabric {cluster.name} (OOB network, {sw.role})", nv, sw.cumulus_release) \
        + dump_set(oob_document(sw, nv))
