"""The route simulation's two primitives, shared by the fabric's view (validate.routesim) and the tenants'
per-VRF view (validate.vrf_reach): what a switch originates (its connected routes through `network`,
`redistribute connected` with its route-map, and aggregates), and path-vector propagation from a set of
origins (eBGP best path by AS-path length, GSHUT-tainted routes last, multipath width)."""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable
from ipaddress import IPv4Network

from netauto.formats.frr import FrrConf
from netauto.netutil.ip import ipv4_network
from netauto.netutil.prefix_list import permits
from netauto.validate.route_state import Node, RouteState

__all__ = ["originated", "propagate"]


# ---------------------------------------------------------------- what each switch originates
def _rmap_permits(conf: FrrConf, name: str, net: IPv4Network) -> bool:
    for e in sorted(conf.route_maps.get(name, []), key=lambda e: e.seq):
        ok = True
        for m in e.match:
            if m[:3] == ("ip", "address", "prefix-list") and len(m) > 3:
                ok = ok and permits(conf.prefix_lists.get(m[3]), net)
            elif m[:1] == ("community",):
                ok = False  # connected routes carry no community
        if ok:
            return e.action == "permit"
    return False  # implicit deny (also for a route-map that does not exist)


def originated(node: Node) -> set[IPv4Network]:
    conf = node.conf
    rib = set(node.connected)
    out: set[IPv4Network] = set()
    for p in conf.networks:
        net = ipv4_network(p)
        if net is None:
            continue
        if net in rib:
            out.add(net)
    if conf.redistribute_connected is not None:
        for net in rib:
            if conf.redistribute_connected == "" or _rmap_permits(conf, conf.redistribute_connected, net):
                out.add(net)
    for p, summary in conf.aggregates:
        agg = ipv4_network(p)
        if agg is None:
            continue
        more = {n for n in out if n != agg and n.subnet_of(agg)}
        if more:
            out.add(agg)
            if summary:
                out -= more
    return out


# ---------------------------------------------------------------- path-vector propagation
def propagate(nodes: dict[str, Node], origins: frozenset[str],
              accepts: Callable[[str, str], bool] | None = None) -> dict[str, RouteState]:
    """Best paths from `origins` to every node; `accepts(receiver, sender)` False drops the route on that
    session (an inbound prefix-list that does not permit it). The fabric's own prefixes pass every
    FABRIC-PREFIXES, so only the default route needs it."""
    best: dict[str, RouteState] = {}
    cands: dict[str, dict[str, tuple[tuple[int, int], tuple[int, ...], bool]]] = defaultdict(dict)
    heap: list[tuple[int, int, str]] = []
    done: set[str] = set()
    for o in origins:
        best[o] = RouteState((0, 0), (), False, 0, ())
        heapq.heappush(heap, (0, 0, o))
    while heap:
        t, length, x = heapq.heappop(heap)
        if x in done:
            continue
        if x not in origins:
            c = cands[x]
            k = min(v[0] for v in c.values())
            if k != (t, length):
                continue
            ties = sorted((v[1], peer) for peer, v in c.items() if v[0] == k)
            path = ties[0][0]
            node = nodes[x]
            members = [peer for p, peer in ties if node.relax or p == path]
            width = min(sum(node.adj[m] for m in members), node.max_paths)
            best[x] = RouteState(k, path, bool(k[0]), width, tuple(members))
        done.add(x)
        nx, bx = nodes[x], best[x]
        tainted_in = bx.tainted or (nx.gshut and x not in origins)
        out_path = (nx.asn,) * (2 if tainted_in and nx.prepend else 1) + bx.path
        tainted_out = tainted_in or nx.gshut
        key = (int(tainted_out), len(out_path))
        for y in nx.adj:
            if y in done or y in origins or (accepts is not None and not accepts(y, x)):
                continue
            ny = nodes[y]
            if ny.asn in out_path:
                continue
            cands[y][x] = (key, out_path, tainted_out)
            heapq.heappush(heap, (key[0], key[1], y))
    return best
