"""Offline BGP route simulation over the parsed configs: best paths, ECMP sets, reachability.

Model (FRR eBGP, per prefix): a node advertises its best path to every session peer, prepending its
ASN; a receiver drops paths containing its own ASN (loop prevention). Paths carrying the GSHUT
community (added by a switch in `bgp graceful-shutdown`, and kept downstream) get local-pref 0 at the
receiver (FRR does this for eBGP natively; FABRIC-IN does it explicitly), and FABRIC-OUT prepends once
more when re-advertising them. Ranking is (local-pref, AS-path length), which never improves along a
path, so a Dijkstra over the session graph computes exact best paths. ECMP = equal-ranked paths (same
AS path unless multipath-relax), weighted by parallel sessions, capped by maximum-paths.

Sessions: one per enabled fabric link of the model whose two ends are up and configured, plus the routed
session of each MLAG pair over its peerlink (model `Mlag.session`, live when the peerlink LAG has a live member
at both ends). The peer session is an ordinary eBGP adjacency here: its routes are one AS longer than the
uplinks' and lose to them, until an access switch has no uplink left.

Speed: leaves differ only by prefix. Origins with identical sessions (same neighbours, same number of
links, unique ASN) propagate identically, so one Dijkstra serves a whole class of leaves: O(classes x
sessions) instead of O(leaves x sessions); a healthy fabric has one class per pod. The leaf-to-subnet pairs are
tallied per group of subnets that share tables, not one by one (`netauto.validate.reachability`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from ipaddress import IPv4Network

from netauto.netutil.ecmp import ecmp_width
from netauto.netutil.prefix_list import permits
from netauto.validate.upstream_sessions import DEFAULT, numbered_neighbors, port_towards
from netauto.validate.findings import Finding, Severity
from netauto.validate.reachability import Reach, cover
from netauto.validate.route_state import RouteState
from netauto.formats.frr import FrrConf
from netauto.netutil.ip import ipv4_network
from netauto.validate.state import ParsedFabric, SwitchState
from netauto.validate.propagation import originated, propagate
from netauto.validate.route_state import Node
from netauto.validate.vrf_reach import simulate_vrfs
from netauto.validate.files import BadInput

FABRIC_KINDS = ("leaf-spine", "spine-superspine")


@dataclass
class SimResult:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    leaf_width: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # leaf -> (min, max, expected)
    unreachable: int = 0
    pairs: int = 0
    sessions: int = 0
    drained: list[str] = field(default_factory=list)
    default_route: dict[str, tuple[int, tuple[int, ...]]] = field(default_factory=dict)  # leaf -> (width, AS path)

    def to_dict(self) -> dict[str, object]:
        return {"pairs": self.pairs, "unreachable": self.unreachable, "sessions": self.sessions,
                "drained": self.drained,
                "default_route": {k: {"width": w, "as_path": list(p)} for k, (w, p) in self.default_route.items()},
                "leaf_ecmp": {k: {"min": a, "max": b, "expected": c} for k, (a, b, c) in self.leaf_width.items()}}


# ---------------------------------------------------------------- graph from the parsed files
def _neighbor_ok(bgp: FrrConf, port: str, own_asn: int, peer_asn: int) -> bool:
    """One end's BGP side of a session: the neighbour exists, is up and activated, and its remote-as fits."""
    if not bgp.has_neighbor(port):
        return False
    nb = bgp.effective(port)
    if nb.shutdown or not nb.activated:
        return False
    ras = nb.remote_as
    if ras == "external":
        return own_asn != peer_asn
    return ras is not None and ras.isdigit() and int(ras) == peer_asn and int(ras) != own_asn


def _session_ok(view: ParsedFabric, a: str, pa: str, b: str, pb: str) -> bool:
    sa, sb = view.switches.get(a), view.switches.get(b)
    if not sa or not sb or not sa.bgp or not sb.bgp or sa.bgp.asn is None or sb.bgp.asn is None:
        return False
    for st, bgp, port, peer_asn in ((sa, sa.bgp, pa, sb.bgp.asn), (sb, sb.bgp, pb, sa.bgp.asn)):
        p = st.ports.get(port)
        if p is None or not p.up or p.bond or bgp.asn is None or not _neighbor_ok(bgp, port, bgp.asn, peer_asn):
            return False
    return True


def _lag_up(st: SwitchState, lag: str) -> bool:
    return any(m in st.ports and st.ports[m].up for m in st.bonds.get(lag, ()))


def _peer_session_ok(view: ParsedFabric, a: str, b: str) -> bool:
    """The MLAG pair's session over the peerlink (model `Mlag.session`): both ends configured in BGP and the
    peerlink LAG it rides on has a live member at both ends."""
    ma, mb = view.intent(a).mlag, view.intent(b).mlag
    sa, sb = view.switches.get(a), view.switches.get(b)
    if ma is None or mb is None or ma.session is None or mb.session is None or not sa or not sb:
        return False
    if not sa.bgp or not sb.bgp or sa.bgp.asn is None or sb.bgp.asn is None:
        return False
    return (_lag_up(sa, ma.session.lag) and _lag_up(sb, mb.session.lag)
            and _neighbor_ok(sa.bgp, ma.session.interface, sa.bgp.asn, sb.bgp.asn)
            and _neighbor_ok(sb.bgp, mb.session.interface, sb.bgp.asn, sa.bgp.asn))


def _prepends(conf: FrrConf) -> bool:
    for entries in conf.route_maps.values():
        for e in entries:
            if any(s[:2] == ("as-path", "prepend") for s in e.set) and any(m[:1] == ("community",) for m in e.match):
                return True
    return False


def build_graph(view: ParsedFabric, drain: list[str]) -> dict[str, Node]:
    nodes: dict[str, Node] = {}
    for sw in view.model.switches:
        st = view.switches.get(sw.name)
        if st is None or st.bgp is None or st.bgp.asn is None:
            continue
        conn = []
        # the default VRF's connected routes: a port in a tenant VRF is the per-VRF view's (validate.vrf_reach)
        for addrs in [p.addresses for p in st.ports.values() if p.up and p.vrf is None] + list(st.svis.values()) \
                + [st.loopbacks]:
            for a in addrs:
                net = ipv4_network(a)
                if net is not None:
                    conn.append(net)
        nodes[sw.name] = Node(sw.name, sw.role, st.bgp.asn, st.bgp, st.bgp.graceful_shutdown or sw.name in drain,
                              _prepends(st.bgp), st.bgp.multipath_relax, max(1, st.bgp.maximum_paths), connected=conn)
    for link in view.model.links:
        if link.kind in FABRIC_KINDS and link.a_device in nodes and link.b_device in nodes \
                and _session_ok(view, link.a_device, link.a_port, link.b_device, link.b_port):
            nodes[link.a_device].adj[link.b_device] = nodes[link.a_device].adj.get(link.b_device, 0) + 1
            nodes[link.b_device].adj[link.a_device] = nodes[link.b_device].adj.get(link.a_device, 0) + 1
    for sw in view.model.switches:  # MLAG pairs: the routed session over the peerlink, once per pair
        m = sw.mlag
        if m is not None and m.session is not None and sw.name < m.peer and sw.name in nodes and m.peer in nodes \
                and _peer_session_ok(view, sw.name, m.peer):
            nodes[sw.name].adj[m.peer] = nodes[sw.name].adj.get(m.peer, 0) + 1
            nodes[m.peer].adj[sw.name] = nodes[m.peer].adj.get(sw.name, 0) + 1
    return nodes


def _class_key(nodes: dict[str, Node], o: str, asn_count: Counter) -> tuple | None:
    n = nodes[o]
    if asn_count[n.asn] > 1:
        return None
    return (tuple(sorted(n.adj.items())), n.gshut, n.prepend, n.relax, n.max_paths, n.role)


# ---------------------------------------------------------------- the fabric-wide check
def simulate(view: ParsedFabric, drain: list[str] | None = None) -> SimResult:
    drain = list(drain or [])
    res = SimResult(drained=drain)
    names = {s.name for s in view.model.switches}
    for d in drain:
        if d not in names:
            raise BadInput(f"--drain {d}: no such switch in fabric {view.model.name}")
    nodes = build_graph(view, drain)
    res.sessions = sum(sum(n.adj.values()) for n in nodes.values()) // 2
    gshut = sorted(n.name for n in nodes.values() if n.gshut)
    # who originates what
    origin_of: dict[IPv4Network, set[str]] = defaultdict(set)
    for n in nodes.values():
        for net in originated(n):
            origin_of[net].add(n.name)
    leaves = [s for s in view.model.switches if s.role == "leaf"]
    targets: dict[str, list[IPv4Network]] = {}
    for leaf in leaves:
        targets[leaf.name] = [IPv4Network(p.prefix) for p in leaf.bgp.connected_prefixes]
    asn_count = Counter(n.asn for n in nodes.values())
    template: dict[tuple, tuple[str, dict[str, RouteState]]] = {}
    memo: dict[frozenset[str], tuple[str | None, dict[str, RouteState]]] = {}

    def routes(origins: frozenset[str]) -> tuple[str | None, dict[str, RouteState]]:
        if origins in memo:
            return memo[origins]
        rep, table = None, None
        if len(origins) == 1:
            (o,) = origins
            key = _class_key(nodes, o, asn_count) if o in nodes else None
            if key is not None and key in template:
                rep, table = template[key]
            else:
                table = propagate(nodes, origins) if o in nodes else {}
                if key is not None:
                    template[key] = (o, table)
                    rep = o
        else:
            table = propagate(nodes, frozenset(x for x in origins if x in nodes))
        memo[origins] = (rep, table)
        return rep, table

    ups: dict[str, list[str]] = defaultdict(list)
    for link in view.model.links:  # intended uplinks: enabled fabric links (a port disabled on purpose is no loss)
        if link.kind == "leaf-spine" and link.enabled:
            ups[link.a_device].append(link.b_device)
    expected = {leaf.name: ecmp_width(ups[leaf.name], leaf.bgp.maximum_paths) for leaf in leaves}
    peer_of = {sw.name: sw.mlag.peer for sw in view.model.switches if sw.mlag is not None and sw.mlag.session}
    reach = Reach(leaves, expected, peer_of)
    for dst in leaves:
        for block in targets[dst.name]:
            reach.block(dst.name, block, frozenset(origin_of.get(block, ())),
                        [(origins, *routes(origins)) for origins in cover(origin_of, block)])
    reach.finish()
    res.pairs = reach.pairs
    res.unreachable = reach.unreachable
    pairs_from, unreachable_from = reach.pairs_from, reach.unreachable_from
    unreachable_to = reach.unreachable_to()
    reduced = reach.reduced
    total_dst = len(leaves) - 1
    dead_src = {s for s, cnt in unreachable_from.items() if total_dst and cnt >= pairs_from[s]}
    for s in sorted(dead_src):
        why = "no BGP session up" if not nodes.get(s) or not nodes[s].adj else "no route learned"
        res.findings.append(Finding("SIM-01", "error", s, f"blackhole: reaches none of the other {total_dst} leaves' rail subnets ({why})"))
    adv_of: dict[str, list[str]] = defaultdict(list)  # the prefixes (not /32) each switch advertises
    for p, o in origin_of.items() if unreachable_to else ():
        for d in o:
            if p.prefixlen < 32:
                adv_of[d].append(str(p))
    for d, srcs in sorted(unreachable_to.items()):
        srcs = [s for s in srcs if s not in dead_src]
        if not srcs:
            continue
        subnets = ", ".join(str(b) for b in targets[d])
        adv_by_d = sorted(adv_of[d])
        res.findings.append(Finding(
            "SIM-01", "error", d,
            f"blackhole: rail subnet {subnets} of {d} unreachable from {len(srcs)} leaf(s) ({', '.join(srcs[:4])}"
            f"{' ...' if len(srcs) > 4 else ''}); {d} advertises {', '.join(adv_by_d) or 'no rail prefix'}"))
    sev: Severity = "info" if gshut else "warning"
    for s, counter in sorted(reduced.items()):
        for (w, over_peer), cnt in sorted(counter.items()):
            res.findings.append(Finding(
                "SIM-02", sev, s, f"reduced ECMP: width {w} of {expected[s]} uplinks towards {cnt} rail subnet(s)"
                + (f", through its MLAG peer {peer_of[s]} over the peerlink" if over_peer else "")
                + (f" (graceful shutdown on {', '.join(gshut)})" if gshut else "")))
    for leaf in leaves:
        lo, hi = reach.widths.get(leaf.name, (0, 0))
        res.leaf_width[leaf.name] = (lo, hi, expected[leaf.name])
    if any(sw.bgp.upstream for sw in view.model.switches):
        _default_route(view, nodes, res, sev)
    per_vrf = simulate_vrfs(view, nodes)  # tenants: the same graph, per VRF over EVPN type-5 routes
    res.findings += per_vrf.findings
    full = res.unreachable == 0
    res.notes.append(
        f"route simulation: {res.sessions} BGP sessions up, {res.pairs} leaf-to-rail-subnet pairs, "
        f"{'full reachability' if full else f'{res.unreachable} unreachable'}; "
        f"{sum(1 for _, table in template.values() if id(table) in reach.consulted)} origin class(es) computed")
    res.notes += per_vrf.notes
    if drain:
        per_leaf = ", ".join(f"{k} {a}/{c}" if a == b else f"{k} {a}-{b}/{c}" for k, (a, b, c) in res.leaf_width.items())
        res.notes.append(f"drain {', '.join(drain)} (graceful shutdown): {'still full reachability' if full else 'REACHABILITY LOST'}; "
                         f"ECMP width per leaf (min-max/uplinks): {per_leaf}")
    return res


# ---------------------------------------------------------------- the default route from the upstream
def _upstreams(view: ParsedFabric, nodes: dict[str, Node]) -> dict[str, Node]:
    """A stand-in node per numbered session whose default route the switch accepts: an up port on the
    link, activated, a numeric remote-as, an inbound prefix-list (if any) that permits 0.0.0.0/0."""
    out: dict[str, Node] = {}
    for n in nodes.values():
        st = view.switches[n.name]
        for name in numbered_neighbors(n.conf):
            nb = n.conf.effective(name)
            ras = nb.remote_as or ""
            if nb.shutdown or not nb.activated or not ras.isdigit() or int(ras) == n.asn \
                    or port_towards(st, name) is None:
                continue
            if nb.prefix_list_in and not permits(n.conf.prefix_lists.get(nb.prefix_list_in), DEFAULT):
                continue
            key = f"upstream {name}"
            out[key] = Node(key, "upstream", int(ras), FrrConf(), False, False, False, 1, adj={n.name: 1})
    return out


def _fabric_ports(view: ParsedFabric) -> dict[tuple[str, str], list[str]]:
    """(receiver, sender) -> the receiver's BGP neighbours towards the sender: the ports of the enabled fabric
    links between them, and an MLAG pair's session over the peerlink (its interface, e.g. peerlink.4094)."""
    ports: dict[tuple[str, str], list[str]] = defaultdict(list)
    for link in view.model.links:
        if link.kind in FABRIC_KINDS:
            ports[(link.a_device, link.b_device)].append(link.a_port)
            ports[(link.b_device, link.a_device)].append(link.b_port)
    for sw in view.model.switches:
        if sw.mlag is not None and sw.mlag.session is not None:
            ports[(sw.name, sw.mlag.peer)].append(sw.mlag.session.interface)
    return ports


def _default_width(view: ParsedFabric) -> dict[str, int]:
    """leaf -> intended ECMP width of its default route: its enabled uplinks to switches with an upstream."""
    exits = {sw.name for sw in view.model.switches if sw.bgp.upstream}
    ups: dict[str, list[str]] = defaultdict(list)
    for link in view.model.links:
        if link.kind == "leaf-spine" and link.enabled and link.b_device in exits:
            ups[link.a_device].append(link.b_device)
    return {sw.name: ecmp_width(ups[sw.name], sw.bgp.maximum_paths) for sw in view.model.switches if sw.role == "leaf"}


def _default_route(view: ParsedFabric, nodes: dict[str, Node], res: SimResult, sev: Severity) -> None:
    """The frontend's default route enters at the aggregation switches' upstream sessions and reaches every
    access switch over the fabric sessions, through each receiver's inbound prefix-list (FABRIC-PREFIXES
    permits 0.0.0.0/0 on the access switches only). SIM-03: an access switch without it; SIM-02: one that
    has it over fewer uplinks than the model gives (`sev`: info while a switch is drained)."""
    ups = _upstreams(view, nodes)
    graph = {k: Node(n.name, n.role, n.asn, n.conf, n.gshut, n.prepend, n.relax, n.max_paths, dict(n.adj), n.connected)
             for k, n in nodes.items()}
    for key, up in ups.items():
        (border,) = up.adj
        graph[key] = up
        graph[border].adj[key] = 1
    ports = _fabric_ports(view)

    def accepts(receiver: str, sender: str) -> bool:
        if sender in ups:
            return True  # checked in _upstreams
        conf = graph[receiver].conf
        for port in ports.get((receiver, sender), ()):
            if conf.has_neighbor(port):
                plist = conf.effective(port).prefix_list_in
                if not plist or permits(conf.prefix_lists.get(plist), DEFAULT):
                    return True
        return False

    table = propagate(graph, frozenset(ups), accepts) if ups else {}
    leaves = [s.name for s in view.model.switches if s.role == "leaf"]
    want = _default_width(view)
    missing = []
    for leaf in leaves:
        state = table.get(leaf)
        if state is None:
            missing.append(leaf)
            continue
        res.default_route[leaf] = (state.width, state.path)
        if state.width < want[leaf]:
            res.findings.append(Finding("SIM-02", sev, leaf, f"reduced ECMP: default route over {state.width} of "
                                                             f"{want[leaf]} uplinks to the aggregation switches"))
    why = ("no upstream session is up with a default route accepted" if not ups else
           "the access switches' inbound prefix-lists (FABRIC-PREFIXES) do not permit 0.0.0.0/0, or no session carries it")
    for leaf in missing:
        res.findings.append(Finding("SIM-03", "error", leaf, f"no default route: the frontend's exit is modelled, but {why}"))
    widths = [w for w, _ in res.default_route.values()]
    span = "" if not widths else f", ECMP width {min(widths)}" + (f"-{max(widths)}" if max(widths) != min(widths) else "")
    res.notes.append(f"default route: {len(res.default_route)} of {len(leaves)} access switches learn 0.0.0.0/0 from "
                     f"{len(ups)} upstream session(s){span}")
