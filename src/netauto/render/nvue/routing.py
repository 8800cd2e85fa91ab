"""`router` and `vrf`: routing policy (prefix-lists, route-maps), global BGP, BFD, the default VRF's BGP
(peer groups, unnumbered fabric sessions, upstream routers) and the tenants' VRFs."""

from __future__ import annotations

from typing import Any

from netauto.model.types import Bfd, PrefixRule, Switch, TenantVrf, Upstream
from netauto.platforms.nos import NvueSpelling
from netauto.render.nvue.tree import Tree

MAX_PREFIX_WARNING = 90  # % of the inbound maximum-prefix at which FRR/NVUE log a warning (same in frr.conf)


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
