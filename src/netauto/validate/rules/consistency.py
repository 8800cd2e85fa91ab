"""Cumulus: the NVUE view (startup.yaml) and the Linux-files view agree (CONS-01; the tenant VRFs: CONS-02); NVUE
spelling matches the release."""

from __future__ import annotations

from typing import Any

from netauto.formats.frr import VrfConf
from netauto.platforms.nos import cumulus_path, schema_spelled_subtrees
from netauto.platforms.nos import nvue_spelling as spelling_table
from netauto.netutil.interface import port_sort_key
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric, QosState, SwitchState

NVUE = cumulus_path("nvue")
PORT_FIELDS = ("mtu", "speed_mbps", "fec", "up", "addresses", "access_vlan", "bond")


def _evpn_diffs(lin: SwitchState, nv: SwitchState) -> list[str]:
    """EVPN-MH: segments, uplinks, VNIs, VTEP source and advertise-all-vni the same in both views."""
    el, en = lin.evpn, nv.evpn
    if el is None and en is None:
        return []
    if el is None or en is None:
        return [f"EVPN-MH only in {'NVUE' if el is None else 'the Linux files'}"]
    out = []
    for f in ("segments", "lacp_macs", "uplinks", "vni_map", "vtep_source", "advertise_all_vni"):
        if getattr(el, f) != getattr(en, f):
            out.append(f"EVPN-MH {f}: Linux files {getattr(el, f)}, NVUE {getattr(en, f)}")
    bl, bn = lin.bgp, nv.bgp
    if bl is not None and bn is not None:
        al = sorted(n for n in bl.neighbors if bl.effective(n).evpn)
        an = sorted(n for n in bn.neighbors if bn.effective(n).evpn)
        if al != an:
            out.append(f"BGP l2vpn-evpn neighbours: frr.conf {al}, NVUE {an}")
    return out


def _lossless_diffs(ql: QosState, qn: QosState) -> list[str]:
    """What `qos roce` does beyond qos_features.conf's maps: trust, the PFC ports and the cable each is sized
    for, the switch priority -> egress queue map and the lossless pool (qos_infra.conf in the Linux files)."""
    out: list[str] = []
    if qn.trust is not None and ql.trust != qn.trust:
        out.append(f"QoS trust: qos_features.conf {sorted(ql.trust or [])}, NVUE {sorted(qn.trust)}")
    if ql.pfc_ports != qn.pfc_ports:
        out.append(f"PFC ports differ: {sorted(ql.pfc_ports ^ qn.pfc_ports, key=port_sort_key)[:6]}")
    cable = sorted((p for p in ql.pfc_ports & qn.pfc_ports if ql.port_cable.get(p) != qn.port_cable.get(p)),
                   key=port_sort_key)
    if cable:
        p = cable[0]
        out.append(f"PFC cable length on {len(cable)} port(s), e.g. {p}: qos_features.conf {ql.port_cable.get(p)} m, "
                   f"NVUE {qn.port_cable.get(p)} m")
    if qn.prio_to_tc is not None and ql.prio_to_tc != qn.prio_to_tc:
        out.append(f"switch priority -> egress queue: qos_infra.conf {ql.prio_to_tc or 'missing'}, NVUE {qn.prio_to_tc}")
    if qn.lossless_buffers is not None:
        lin = {p: ql.lossless_buffers.get(p, set()) if ql.lossless_buffers is not None else set() for p in qn.pfc_ports}
        nvb = {p: qn.lossless_buffers.get(p, set()) for p in qn.pfc_ports}
        bad = sorted((p for p in nvb if lin[p] != nvb[p]), key=port_sort_key)
        if bad:
            out.append(f"lossless pool for PFC priorities {sorted(nvb[bad[0]])}: NVUE has it, qos_infra.conf "
                       f"{'has ' + str(sorted(lin[bad[0]])) if lin[bad[0]] else 'has none (no flow_control service pool)'} "
                       f"on {len(bad)} PFC port(s)")
    return out


def linux_vs_nvue(lin: SwitchState, nv: SwitchState) -> list[str]:
    out: list[str] = []
    for name in sorted(set(lin.ports) | set(nv.ports), key=port_sort_key):
        a, b = lin.ports.get(name), nv.ports.get(name)
        if a is None or b is None:
            out.append(f"port {name} only in {'NVUE' if a is None else 'the Linux files'}")
            continue
        for f in PORT_FIELDS:
            va, vb = getattr(a, f), getattr(b, f)
            if f == "addresses":
                va, vb = sorted(va), sorted(vb)
            if va != vb:
                out.append(f"{name} {f}: Linux files {va}, NVUE {vb}")
    if sorted(lin.loopbacks) != sorted(nv.loopbacks):
        out.append(f"loopback: Linux files {lin.loopbacks}, NVUE {nv.loopbacks}")
    if {k: sorted(v) for k, v in lin.svis.items()} != {k: sorted(v) for k, v in nv.svis.items()}:
        out.append(f"SVIs: Linux files {lin.svis}, NVUE {nv.svis}")
    if lin.ar_global != nv.ar_global:
        out.append(f"adaptive routing: Linux files {lin.ar_global}, NVUE {nv.ar_global}")
    if (lin.ar_global or nv.ar_global) and lin.ar_link_util != nv.ar_link_util:
        out.append(f"adaptive routing link-utilization threshold: Linux files {'on' if lin.ar_link_util else 'off'}, "
                   f"NVUE {'on' if nv.ar_link_util else 'off'} (per-port thresholds act only when it is on)")
    if lin.ar_ports != nv.ar_ports:
        out.append(f"adaptive-routing ports differ: {sorted(lin.ar_ports ^ nv.ar_ports)[:6]}")
    ql, qn = lin.qos, nv.qos
    for f in ("dscp_to_prio", "pfc_prios", "ecn", "ets"):
        if getattr(ql, f) != getattr(qn, f):
            out.append(f"QoS {f}: qos_features.conf {getattr(ql, f)}, NVUE {getattr(qn, f)}")
    if ql.pfcwd_ports != qn.pfcwd_ports:
        out.append(f"PFC watchdog ports differ: {sorted(ql.pfcwd_ports ^ qn.pfcwd_ports)[:6]}")
    if ql.pfcwd_timing != qn.pfcwd_timing:
        out.append(f"PFC watchdog (polling interval ms, robustness): switchd.conf {ql.pfcwd_timing or 'not set'}, "
                   f"NVUE {qn.pfcwd_timing or 'not set'}")
    out += _lossless_diffs(ql, qn)
    out += _evpn_diffs(lin, nv)
    bl, bn = lin.bgp, nv.bgp
    if bl is not None and bn is not None:
        for f in ("asn", "router_id", "multipath_relax", "graceful_shutdown", "suppress_fib_pending", "update_delay"):
            if getattr(bl, f) != getattr(bn, f):
                out.append(f"BGP {f}: frr.conf {getattr(bl, f)}, NVUE {getattr(bn, f)}")
        # numbered (upstream) sessions also by remote-as: it is theirs, not the fabric's `external`
        nl = {n: (p.interface, p.peer_group, None if p.interface else p.remote_as) for n, p in bl.neighbors.items()}
        nn = {n: (p.interface, p.peer_group, None if p.interface else p.remote_as) for n, p in bn.neighbors.items()}
        for pg in sorted(set(bl.peers) & set(bn.peers)):
            pa, pb = bl.peers[pg], bn.peers[pg]
            mine, theirs = ((p.prefix_list_in, p.prefix_list_out, p.maximum_prefix) for p in (pa, pb))
            if pa.is_group and mine != theirs:
                out.append(f"BGP peer-group {pg} prefix-list in/out, maximum-prefix: frr.conf "
                           f"{'/'.join(map(str, mine))}, NVUE {'/'.join(map(str, theirs))}")
        if nl != nn:
            diff = sorted({n for n, _ in set(nl.items()) ^ set(nn.items())})
            out.append(f"BGP neighbours differ: {', '.join(diff[:6])}")
        if sorted(bl.networks) != sorted(bn.networks) or sorted(bl.aggregates) != sorted(bn.aggregates):
            out.append(f"BGP networks/aggregates: frr.conf {bl.networks + [a for a, _ in bl.aggregates]}, "
                       f"NVUE {bn.networks + [a for a, _ in bn.aggregates]}")
    return out


@rule(id="CONS-01", severity="error", description="Cumulus: the NVUE startup.yaml and the Linux files describe the same switch")
def nvue_matches_linux(view: ParsedFabric) -> RuleOutput:
    for dev, nv in view.nvue.items():
        lin = view.switches.get(dev)
        if lin is None:
            continue
        for msg in linux_vs_nvue(lin, nv):
            yield dev, msg, NVUE


# What a tenant VRF is, field by field as both readers fill VrfConf (formats.frr._vrfs, readers.nvue._nvue_vrfs):
# the finding's words for each
VRF_FIELDS = (("vni", "L3VNI"), ("rt_import", "route targets imported"), ("rt_export", "route targets exported"),
              ("import_vrfs", "VRFs imported"), ("bgp", "BGP instance"),
              ("advertise_ipv4", "type-5 export (advertise ipv4 unicast)"),
              ("redistribute_connected", "redistribute connected"), ("redistribute_static", "redistribute static"),
              ("static_routes", "static routes"))


def _shown(value: object) -> object:
    return sorted(value) if isinstance(value, (set, list)) else value  # type: ignore[arg-type]


def vrf_diffs(lin: dict[str, VrfConf], nv: dict[str, VrfConf]) -> list[str]:
    """Every tenant VRF the same in frr.conf and startup.yaml: its L3VNI, route targets, VRF imports, BGP instance,
    type-5 export, redistribution and static routes."""
    out: list[str] = []
    for name in sorted(set(lin) | set(nv)):
        a, b = lin.get(name), nv.get(name)
        if a is None or b is None:
            out.append(f"VRF {name} only in {'NVUE' if a is None else 'frr.conf'}")
            continue
        for f, words in VRF_FIELDS:
            va, vb = _shown(getattr(a, f)), _shown(getattr(b, f))
            if va != vb:
                out.append(f"VRF {name} {words}: frr.conf {va}, NVUE {vb}")
    return out


@rule(id="CONS-02", severity="error", description="Cumulus: every tenant VRF's L3VNI, route targets, VRF imports, "
                                                   "type-5 export, redistribution and static routes are the same in "
                                                   "startup.yaml and frr.conf")
def nvue_vrfs_match_frr(view: ParsedFabric) -> RuleOutput:
    """NVUE owns frr.conf (`nv config apply` regenerates it), while the route simulation (SIM-04/05) reads frr.conf
    only: a route target, VRF import or L3VNI that one file alone says would route what the simulation never saw.
    TEN-02 reads both files for another tenant's route target; this holds the two files to one another."""
    for dev, nv in view.nvue.items():
        lin = view.switches.get(dev)
        if lin is None:
            continue
        for msg in vrf_diffs(lin.bgp.vrfs if lin.bgp is not None else {}, nv.bgp.vrfs if nv.bgp is not None else {}):
            yield dev, msg, NVUE


# (subtree, path) -> (the subtree, held so that its id stays its own; its problems)
SpellMemo = dict[tuple[int, str], tuple[Any, list[str]]]


def _spelling(tree: Any, modern: bool, memo: SpellMemo | None = None) -> list[str]:
    bad: list[str] = []
    _spell(tree, modern, "", frozenset(schema_spelled_subtrees()), bad, memo)
    return bad


def _spell(tree: Any, modern: bool, path: str, spelled: frozenset[str], bad: list[str],
           memo: SpellMemo | None = None) -> None:
    """The spelling problems of `tree` at `path`. With `memo` (one per release spelling), a subtree object seen
    before at the same path is not walked again (the switches' trees share unchanged subtrees: view.Readers)."""
    if memo is not None and tree.__class__ is dict and tree:
        key = (id(tree), path)
        got = memo.get(key)
        if got is None:
            mine: list[str] = []
            _spell_node(tree, modern, path, spelled, mine, memo)
            memo[key] = (tree, mine)
        else:
            mine = got[1]
        bad += mine
        return
    _spell_node(tree, modern, path, spelled, bad, memo)


def _spell_node(tree: Any, modern: bool, path: str, spelled: frozenset[str], bad: list[str],
                memo: SpellMemo | None) -> None:
    if isinstance(tree, dict):
        skip = path in spelled  # spelled by the release's schema (NVUE-01 checks it), not by the release-wide toggle
        for key, value in tree.items():
            if skip and key not in ("enable", "state"):
                continue
            if value.__class__ is dict and key != "enable" and key != "state":  # the common case: a subtree
                _spell(value, modern, _here(path, key), spelled, bad, memo)
            elif modern and key == "enable":
                bad.append(f"{_here(path, key)}: `enable` is `state` from CL 5.15")
            elif not modern and key == "state" and value in ("enabled", "disabled"):
                bad.append(f"{_here(path, key)}: `state: {value}` needs CL 5.15 (use `enable: {'on' if value == 'enabled' else 'off'}`)")
            elif modern and (isinstance(value, bool) or (isinstance(value, str) and value in ("on", "off"))):
                on = value in ("on", True)
                bad.append(f"{_here(path, key)}: `{'on' if on else 'off'}` is `{'enabled' if on else 'disabled'}` from CL 5.15")
            elif not modern and value in ("enabled", "disabled"):
                bad.append(f"{_here(path, key)}: `{value}` needs CL 5.15 (use `{'on' if value == 'enabled' else 'off'}`)")
            elif value.__class__ is dict:
                _spell(value, modern, _here(path, key), spelled, bad, memo)


def _here(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


@rule(id="AR-05", severity="error", description="NVUE spelling matches the target Cumulus release (`enable: on` <= 5.14, `state: enabled` >= 5.15)")
def nvue_spelling(view: ParsedFabric) -> RuleOutput:
    memos: dict[bool, SpellMemo] = {True: {}, False: {}}  # per spelling: the trees share subtrees (view.Readers)
    for dev, tree in view.nvue_raw.items():
        release = view.intent(dev).cumulus_release
        modern = spelling_table(release).toggle_key == "state"
        bad = _spelling(tree, modern, memos[modern])
        for msg in bad[:5]:
            yield dev, f"target CL {release}: {msg}", NVUE
        if len(bad) > 5:
            yield dev, f"target CL {release}: {len(bad) - 5} more spelling problems", NVUE
