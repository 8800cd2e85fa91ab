"""Cumulus NVUE startup.yaml -> `SwitchState` (source "nvue"), read with the release's spelling. The Linux-files
view (`readers.cumulus`) is what the rules check; this one must agree with it."""

from __future__ import annotations

from typing import Any

from netauto.formats.frr import FrrConf, Peer, VrfConf
from netauto.formats.nvue import dig, enabled, is_on
from netauto.formats.values import to_int as _int
from netauto.platforms.nos import QOS_ROCE_CABLE_M, nvue_spelling
from netauto.validate.readers.cumulus import CUMULUS_FILES
from netauto.validate.state import EvpnState, Port, SwitchState

SPEED_MBPS = {"1G": 1000, "10G": 10000, "25G": 25000, "40G": 40000, "50G": 50000, "100G": 100000,
              "200G": 200000, "400G": 400000, "800G": 800000}
# What `qos roce` (mode lossless) programs on Cumulus when NVUE has no explicit mapping.
# Classification is the default DSCP >> 3 map (24-31 -> SP3, 48-55 -> SP6) and SP3 -> TC3, SP6 -> TC6, the rest
# -> TC0 (CL RoCE page); SP3 is the only switch priority in the lossless (roce-lossless) traffic pool.
ROCE_DSCP: dict[int, int] = {d: d >> 3 for d in range(64)}
ROCE_PRIO_TO_TC: dict[int, int] = {p: p if p in (3, 6) else 0 for p in range(8)}
ROCE_LOSSLESS_POOL: frozenset[int] = frozenset({3})
ROCE_PFC: frozenset[int] = frozenset({3})
# `qos roce` trusts PCP and DSCP (CL RoCE page, default RoCE configuration; domain.md Corrections "Cumulus
# Linux-files lossless pool"), in the qos_features.conf spelling of the two markings
ROCE_TRUST: frozenset[str] = frozenset({"802.1p", "dscp"})
ROCE_ECN: dict[int, tuple[int, int, int]] = {0: (150000, 1500000, 100), 3: (150000, 1500000, 100)}
ROCE_ETS: dict[int, tuple[str, int]] = {0: ("dwrr", 50), 3: ("dwrr", 50), 6: ("strict", 0)}


def _must_int(value: Any) -> int:
    """A value that must be an integer: raises (TypeError, ValueError) for a missing or bad one, which the view
    reports as a finding."""
    return int(value)


def nvue_state(name: str, tree: dict[str, Any], release: str) -> SwitchState:
    """The NVUE view, read with the release's spelling (`ip: address` <= 5.14, `ipv4: address` >= 5.15)."""
    st = SwitchState(name, "nvue", files={"nvue": CUMULUS_FILES["nvue"]})
    nv = nvue_spelling(release)
    addr_key = nv.ipv4_container
    interfaces = dig(tree, "interface", default={}) or {}
    port_profiles: dict[str, str] = {}  # port -> its `qos pfc profile`
    for iname, node in interfaces.items():
        iname = str(iname)
        if not isinstance(node, dict):
            continue
        addrs = [str(a) for a in (dig(node, addr_key, "address", default={}) or {})]
        if node.get("type") == "loopback":
            st.loopbacks = [a for a in addrs if ":" not in a]
        elif node.get("type") == "swp" and isinstance(dig(node, "link", "breakout"), dict):
            modes = [str(m) for m in node["link"]["breakout"]]
            ways = _int(modes[0].rstrip("x").split("x")[0]) if modes else None
            if iname[3:].isdigit() and ways:
                st.breakouts[int(iname[3:])] = ways
        elif node.get("type") == "swp" and "link" in node:
            link = node.get("link") or {}
            state = link.get("state") or {}
            domains = dig(node, "bridge", "domain") or {}
            domain_name, domain = next(iter(domains.items()), (None, None)) if isinstance(domains, dict) else (None, None)
            stp = (domain or {}).get("stp") if isinstance(domain, dict) else None
            st.ports[iname] = Port(
                iname, mtu=_int(link.get("mtu")), speed_mbps=SPEED_MBPS.get(str(link.get("speed"))),
                fec=str(link["fec"]) if link.get("fec") is not None else None,
                up="down" not in state if isinstance(state, dict) else True, addresses=addrs,
                access_vlan=_int((domain or {}).get("access")) if isinstance(domain, dict) else None,
                stp_edge=is_on(stp.get("admin-edge")) if isinstance(stp, dict) else None,
                bpdu_guard=is_on(stp.get("bpdu-guard")) if isinstance(stp, dict) else None,
                vrf=_port_vrf(node, addr_key),
            )
            if domain_name is not None:
                st.bridges.setdefault(str(domain_name), []).append(iname)
            if dig(node, "qos", "pfc-watchdog", "state") == nv.pfc_watchdog_on:  # explicit: `{}` is not enough
                st.qos.pfcwd_ports.add(iname)
            profile = dig(node, "qos", "pfc", "profile")
            if profile is not None:
                port_profiles[iname] = str(profile)
            if enabled(dig(node, "router", "adaptive-routing")):
                st.ar_ports.add(iname)
        elif node.get("type") == "svi":
            st.svis[iname] = addrs
        elif node.get("type") in ("bond", "peerlink"):
            if node.get("type") == "peerlink" or dig(node, "bond", "mlag") is not None:
                st.mlag.add(iname)
            members = [str(m) for m in (dig(node, "bond", "member", default={}) or {})]
            st.bonds[iname] = members
            bstp = next(iter((dig(node, "bridge", "domain") or {}).values()), None)
            bstp = bstp.get("stp") if isinstance(bstp, dict) else None
            st.bond_edge[iname] = isinstance(bstp, dict) and bool(is_on(bstp.get("admin-edge")) and is_on(bstp.get("bpdu-guard")))
    for bond, members in st.bonds.items():
        for m in members:
            if m in st.ports:
                st.ports[m].bond = bond
    st.ar_global = enabled(dig(tree, "router", "adaptive-routing"))
    st.ar_link_util = bool(is_on(dig(tree, "router", "adaptive-routing", "link-utilization-threshold")))
    roce = dig(tree, "qos", "roce")
    if enabled(roce):
        st.qos.dscp_to_prio = dict(ROCE_DSCP)
        st.qos.pfc_prios = set(ROCE_PFC)
        st.qos.ecn = dict(ROCE_ECN)
        st.qos.ets = dict(ROCE_ETS)
        st.qos.pfc_ports = {p for p, port in st.ports.items() if port.up}  # qos roce: every live port
        st.qos.prio_to_tc = dict(ROCE_PRIO_TO_TC)
        st.qos.lossless_buffers = {p: set(ROCE_LOSSLESS_POOL) for p in st.ports}
        st.qos.trust = ROCE_TRUST
    wd = dig(tree, "qos", "pfc-watchdog")
    if isinstance(wd, dict) and ("polling-interval" in wd or "robustness" in wd):
        st.qos.pfcwd_timing = (_int(wd.get("polling-interval")) or 100, _int(wd.get("robustness")) or 3)
    dscp = dig(tree, "qos", "mapping", "default-global", "dscp")
    if isinstance(dscp, dict):  # entries change the default (DSCP >> 3) map
        st.qos.dscp_to_prio = {**(st.qos.dscp_to_prio or {d: d >> 3 for d in range(64)}),
                               **{int(d): _must_int(v.get("switch-priority")) for d, v in dscp.items() if isinstance(v, dict)}}
    eqm = dig(tree, "qos", "egress-queue-mapping", "default-global", "switch-priority")
    if isinstance(eqm, dict):
        st.qos.prio_to_tc = {**(st.qos.prio_to_tc or {p: p for p in range(8)}),
                             **{int(p): _must_int(v.get("traffic-class")) for p, v in eqm.items()
                                if isinstance(v, dict) and _int(v.get("traffic-class")) is not None}}
    pool = dig(tree, "qos", "traffic-pool", "roce-lossless", "switch-priority")
    if isinstance(pool, dict):
        st.qos.lossless_buffers = {p: {int(x) for x in pool} for p in st.ports}
    pfc = dig(tree, "qos", "pfc", "default-global")
    if isinstance(pfc, dict):
        st.qos.pfc_prios = {int(p) for p in (pfc.get("switch-priority") or {})}
        st.qos.cable_length = _int(pfc.get("cable-length"))
    _port_pfc(st, dig(tree, "qos", "pfc") or {}, port_profiles)
    cc = dig(tree, "qos", "congestion-control", "default-global", "traffic-class")
    if isinstance(cc, dict):
        st.qos.ecn = {int(tc): (_int(v.get("min-threshold")) or -1, _int(v.get("max-threshold")) or -1,
                                _int(v.get("probability")) or -1)
                      for tc, v in cc.items() if isinstance(v, dict) and v.get("ecn") == nv.ecn_on}
        # `red` takes the same enable/disable enum as `ecn` (nvueschema 5.6-5.18)
        st.qos.wred_drop = {int(tc) for tc, v in cc.items() if isinstance(v, dict) and v.get("red") == nv.ecn_on}
    ets = dig(tree, "qos", "egress-scheduler", "default-global", "traffic-class")
    if isinstance(ets, dict):
        st.qos.ets = {int(tc): ("strict", 0) if v.get("mode") == "strict" else ("dwrr", _int(v.get("bw-percent")) or 0)
                      for tc, v in ets.items() if isinstance(v, dict)}
    st.bgp = _nvue_bgp(tree)
    st.evpn = _nvue_evpn(tree, interfaces)
    if enabled(dig(tree, "mlag")):
        st.mlag.add("mlag")
    return st


def _port_pfc(st: SwitchState, profiles: dict[str, Any], port_profiles: dict[str, str]) -> None:
    """Each PFC port's cable length (its `qos pfc` profile's, else default-global's, else `qos roce`'s 100 m);
    a port whose profile turns PFC off both ways is not a PFC port."""
    if not st.qos.pfc_ports:
        return
    base = st.qos.cable_length or QOS_ROCE_CABLE_M
    for port in sorted(st.qos.pfc_ports):
        prof = profiles.get(port_profiles.get(port, "default-global"))
        prof = prof if isinstance(prof, dict) else {}
        if port in port_profiles and prof.get("tx") == "disable" and prof.get("rx") == "disable":
            st.qos.pfc_ports.discard(port)
            st.qos.pfcwd_ports.discard(port)
            continue
        st.qos.port_cable[port] = _int(prof.get("cable-length")) or base


def _nvue_evpn(tree: dict[str, Any], interfaces: dict[str, Any]) -> EvpnState | None:
    """EVPN-MH in startup.yaml: `interface <bond> evpn multihoming segment` (NVUE sets the bond's LACP system MAC
    from the segment MAC), `interface <if> evpn multihoming uplink`, `bridge domain <br> vlan <v> vni <n>`,
    `nve vxlan source address`, `evpn enable` (FRR advertise-all-vni)."""
    ev = EvpnState()
    for iname, node in interfaces.items():
        if not isinstance(node, dict):
            continue
        seg = dig(node, "evpn", "multihoming", "segment")
        if isinstance(seg, dict) and enabled(seg):
            mac = seg.get("mac-address")
            ev.segments[str(iname)] = (_int(seg.get("local-id")), str(mac).lower() if mac is not None else None)
            if mac is not None:
                ev.lacp_macs[str(iname)] = str(mac).lower()
        if is_on(dig(node, "evpn", "multihoming", "uplink")):
            ev.uplinks.add(str(iname))
    for domain in (dig(tree, "bridge", "domain", default={}) or {}).values():
        for vlan, vnode in (dig(domain, "vlan", default={}) or {}).items() if isinstance(domain, dict) else ():
            for vni in (dig(vnode, "vni", default={}) or {}) if isinstance(vnode, dict) else ():
                if str(vlan).isdigit() and str(vni).isdigit():
                    ev.vni_map[int(vlan)] = int(vni)
    src = dig(tree, "nve", "vxlan", "source", "address") if enabled(dig(tree, "nve", "vxlan")) else None
    ev.vtep_source = str(src) if src is not None else None
    ev.advertise_all_vni = enabled(dig(tree, "evpn"))
    ev.dscp_actions = (_str_or_none(dig(tree, "nve", "vxlan", "encapsulation", "dscp", "action")),
                       _str_or_none(dig(tree, "nve", "vxlan", "decapsulation", "dscp", "action")))
    mtu = _int(dig(tree, "nve", "vxlan", "mtu"))
    if mtu is not None:
        ev.vxlan_mtu[None] = mtu
    empty = not (ev.segments or ev.lacp_macs or ev.uplinks or ev.vni_map or ev.vtep_source or ev.advertise_all_vni
                 or ev.vxlan_mtu)
    return None if empty else ev


def _port_vrf(node: dict[str, Any], addr_key: str) -> str | None:
    """`interface <if> vrf` (5.15+) or `interface <if> ip vrf` (<= 5.14)."""
    v = node.get("vrf") if "vrf" in node else dig(node, addr_key, "vrf")
    return str(v) if v is not None else None


def _nvue_vrfs(tree: dict[str, Any]) -> dict[str, VrfConf]:
    """`vrf <tenant>`: its L3VNI, BGP redistribution and type-5 export, route targets (render.nvue.tenant_vrf)."""
    out: dict[str, VrfConf] = {}
    for name, node in (dig(tree, "vrf", default={}) or {}).items():
        if str(name) == "default" or not isinstance(node, dict):
            continue
        vnis = [_int(v) for v in (dig(node, "evpn", "vni", default={}) or {})] if enabled(dig(node, "evpn")) else []
        bgp = dig(node, "router", "bgp", default={}) or {}
        af = dig(bgp, "address-family", "ipv4-unicast", default={}) or {}
        out[str(name)] = VrfConf(
            vni=vnis[0] if vnis else None, bgp=enabled(bgp),
            redistribute_connected=enabled(af) and enabled(dig(af, "redistribute", "connected")),
            redistribute_static=enabled(af) and enabled(dig(af, "redistribute", "static")),
            static_routes=[(str(p), str(via)) for p, r in (dig(node, "router", "static", default={}) or {}).items()
                           if isinstance(r, dict) for via in (r.get("via") or {})],
            advertise_ipv4=enabled(af) and enabled(dig(af, "route-export", "to-evpn")),
            rt_import={str(r) for r in (dig(bgp, "route-import", "from-evpn", "route-target", default={}) or {})},
            rt_export={str(r) for r in (dig(bgp, "route-export", "to-evpn", "route-target", default={}) or {})},
            import_vrfs=_from_vrfs(af))
    return out


def _str_or_none(value: Any) -> str | None:
    return str(value) if value is not None else None


def _from_vrfs(af: dict[str, Any]) -> set[str]:
    """VRF route leaking: `route-import from-vrf` (`state enabled` / `enable on`) `list <vrf>` of ipv4-unicast (nvueschema
    VrfEntryRouterBgpAddressFamilyIpv4UnicastRouteImportFromVrf)."""
    node = dig(af, "route-import", "from-vrf", default={}) or {}
    return {str(v) for v in (node.get("list") or {})} if enabled(node) and isinstance(node, dict) else set()


def _nvue_bgp(tree: dict[str, Any]) -> FrrConf:
    conf = FrrConf()
    conf.asn = _int(dig(tree, "router", "bgp", "autonomous-system"))
    rid = dig(tree, "router", "bgp", "router-id")
    conf.router_id = str(rid) if rid is not None else None
    conf.graceful_shutdown = is_on(dig(tree, "router", "bgp", "graceful-shutdown"))
    conf.suppress_fib_pending = is_on(dig(tree, "router", "bgp", "wait-for-install"))
    conf.update_delay = _int(dig(tree, "router", "bgp", "convergence-wait", "time"))
    vbgp = dig(tree, "vrf", "default", "router", "bgp", default={}) or {}
    conf.multipath_relax = is_on(dig(vbgp, "path-selection", "multipath", "aspath-ignore"))
    # l2vpn-evpn is on for a peer when the VRF's address family and the peer's (or its group's) are both enabled
    evpn_af = enabled(dig(vbgp, "address-family", "l2vpn-evpn"))
    for pg, node in (vbgp.get("peer-group") or {}).items():
        af4 = dig(node, "address-family", "ipv4-unicast", default={}) or {}
        conf.peers[str(pg)] = Peer(str(pg), 0, is_group=True, remote_as=str(dig(node, "remote-as")),
                                   activated=enabled(af4), prefix_list_in=dig(af4, "policy", "inbound", "prefix-list"),
                                   prefix_list_out=dig(af4, "policy", "outbound", "prefix-list"),
                                   maximum_prefix=_int(dig(af4, "prefix-limits", "inbound", "maximum")),
                                   evpn=evpn_af and enabled(dig(node, "address-family", "l2vpn-evpn")))
    for nb, node in (vbgp.get("neighbor") or {}).items():
        node = node or {}
        conf.peers[str(nb)] = Peer(str(nb), 0, interface=node.get("type") == "unnumbered",
                                   peer_group=node.get("peer-group"),
                                   remote_as=str(node["remote-as"]) if node.get("remote-as") is not None else None,
                                   evpn=evpn_af and enabled(dig(node, "address-family", "l2vpn-evpn")))
    af = dig(vbgp, "address-family", "ipv4-unicast", default={}) or {}
    conf.networks = [str(p) for p in (af.get("network") or {})]
    conf.aggregates = [(str(p), is_on(dig(v, "summary-only"))) for p, v in (af.get("aggregate-route") or {}).items()]
    conf.maximum_paths = _int(dig(af, "multipaths", "ebgp")) or 64
    conf.vrfs = _nvue_vrfs(tree)
    return conf


