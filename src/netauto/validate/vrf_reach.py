"""The route simulation's per-VRF view (`routesim.simulate`): tenant VRFs over EVPN type-5 routes.

No second simulator: the underlay graph and its path-vector propagation are routesim's. A tenant's host link on
leaf A (a connected route in A's VRF V) reaches VRF W on leaf B when
- A's VRF V has an L3VNI, redistributes connected and exports to EVPN (`advertise ipv4 unicast`),
- B learns A's EVPN routes: routesim's propagation over the sessions with l2vpn-evpn activated at both ends,
- B routes to A's VTEP (its loopback) in the default VRF: routesim's propagation over the underlay,
- W has an L3VNI and imports one of the route targets V exports (symmetric routing, FRR doc "EVPN"),
or A is B and V is W (connected); W also holds what a VRF it leaks from on B holds (bgpd `import vrf`, one hop).
Which tenant a port belongs to is the model's intent (the inventory's `tenants:`); what each switch does is what
its parsed files say. SIM-04: a tenant's VRF misses one of its own host links; SIM-05: a tenant's VRF reaches
another tenant's host link (a leak).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from ipaddress import IPv4Network
from typing import TYPE_CHECKING

from netauto.formats.frr import VrfConf
from netauto.netutil.ip import ipv4_network
from netauto.validate.findings import Finding
from netauto.validate.propagation import originated, propagate
from netauto.validate.route_state import Node

if TYPE_CHECKING:
    from netauto.validate.state import ParsedFabric, SwitchState

FABRIC_KINDS = ("leaf-spine", "spine-superspine")


@dataclass
class TenantTally:
    inside: int = 0  # (leaf VRF, own host link) pairs
    inside_reached: int = 0
    cross: int = 0  # (leaf VRF, another tenant's host link) pairs
    cross_reached: int = 0
    prefix: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # tenant-owned prefixes: the same four counts


@dataclass
class VrfResult:
    tenants: dict[str, TenantTally] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def evpn_graph(view: ParsedFabric, nodes: dict[str, Node]) -> dict[str, Node]:
    """routesim's nodes with only the sessions whose both ends activate l2vpn-evpn."""
    graph = {k: Node(n.name, n.role, n.asn, n.conf, n.gshut, n.prepend, n.relax, n.max_paths, {}, n.connected)
             for k, n in nodes.items()}
    for link in view.model.links:
        a, b = link.a_device, link.b_device
        if link.kind not in FABRIC_KINDS or a not in nodes or b not in nodes or b not in nodes[a].adj:
            continue
        ca, cb = nodes[a].conf, nodes[b].conf
        if ca.has_neighbor(link.a_port) and cb.has_neighbor(link.b_port) \
                and ca.effective(link.a_port).evpn and cb.effective(link.b_port).evpn:
            graph[a].adj[b] = graph[a].adj.get(b, 0) + 1
            graph[b].adj[a] = graph[b].adj.get(a, 0) + 1
    return graph


def _host_links(view: ParsedFabric) -> list[tuple[str, str, str | None, IPv4Network, str]]:
    """(leaf, port, parsed VRF, subnet, intended tenant) of every tenant host port with an address."""
    owner = {srv: t.name for t in view.model.tenants for srv in t.servers}
    out = []
    for sw in view.model.switches:
        st = view.switches.get(sw.name)
        if st is None or sw.role != "leaf":
            continue
        for iface in sw.host_ports:
            tenant = owner.get(iface.peer_device or "")
            port = st.ports.get(iface.name)
            if tenant is None or port is None or not port.up:
                continue
            for a in port.addresses:
                net = ipv4_network(a)
                if net is not None:
                    out.append((sw.name, iface.name, port.vrf, net, tenant))
    return out


def _bound(st: SwitchState, vrfs: dict[str, VrfConf]) -> dict[str, VrfConf]:
    """A SONiC switch's VRF has its L3VNI only where config_db binds the same VNI (readers.sonic.l3vnis)."""
    if st.source != "config_db":
        return vrfs
    return {k: v if st.sonic_l3vnis.get(k) == v.vni else replace(v, vni=None) for k, v in vrfs.items()}


def _vteps(st: SwitchState) -> list[str]:
    """The VTEP address: the loopback (Cumulus: vxlan-local-tunnelip / nve source); SONiC: VXLAN_TUNNEL src_ip."""
    if st.source != "config_db":
        return st.loopbacks
    return [f"{st.sonic_vtep}/32"] if st.sonic_vtep else []


def _prefix_origins(view: ParsedFabric) -> list[tuple[str, str, str | None, IPv4Network, str]]:
    """(leaf, route, parsed VRF holding that static route, prefix, owning tenant) of every tenant-owned prefix the
    model puts on a leaf (model.tenant_prefixes): the same prefix of two tenants is two origins."""
    out = []
    for sw in view.model.switches:
        st = view.switches.get(sw.name)
        if st is None or sw.role != "leaf":
            continue
        parsed = st.bgp.vrfs if st.bgp is not None else {}
        for v in sw.vrfs:
            for prefix, via in v.routes:
                holder = next((name for name, c in parsed.items() if (prefix, via) in c.static_routes), None)
                out.append((sw.name, f"route {prefix} via {via}", holder, IPv4Network(prefix), v.tenant or v.name))
    return out


def _exports(vrf: VrfConf | None, static: bool = False) -> set[str]:
    redistributed = vrf is not None and (vrf.redistribute_static if static else vrf.redistribute_connected)
    ok = vrf is not None and vrf.vni is not None and vrf.bgp and redistributed and vrf.advertise_ipv4
    return set(vrf.rt_export) if ok and vrf is not None else set()


def simulate_vrfs(view: ParsedFabric, nodes: dict[str, Node]) -> VrfResult:
    res = VrfResult()
    if not view.model.tenants:
        return res
    evpn = evpn_graph(view, nodes)
    vrfs = {n: _bound(st, conf.vrfs) for n, st in view.switches.items() if (conf := st.bgp) is not None}
    loopback_of = {n: _vteps(view.switches[n]) for n in nodes if n in view.switches}
    learns: dict[str, set[str]] = {}  # origin leaf -> leaves with its type-5 routes and a route to its VTEP
    for leaf in {h[0] for h in _host_links(view)} | {p[0] for p in _prefix_origins(view)}:
        if leaf not in nodes:
            learns[leaf] = set()
            continue
        vtep = {ipv4_network(a) for a in loopback_of.get(leaf, [])} & originated(nodes[leaf])
        under = propagate(nodes, frozenset([leaf])) if vtep else {}
        over = propagate(evpn, frozenset([leaf]))
        learns[leaf] = {b for b in over if b in under and b != leaf}
    links = _host_links(view)
    prefixes = _prefix_origins(view)
    # (leaf, VRF as the leaf names it, tenant): a SONiC leaf's VRF is Vrf_<tenant> (netauto.sonic.tenants)
    sources = [(sw.name, v.name, v.tenant or v.name) for sw in view.model.switches for v in sw.vrfs]
    for t in view.model.tenants:
        res.tenants[t.name] = TenantTally()
    misses: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)

    def direct(b: str, w: str, a: str, v: str | None, kind: str) -> bool:
        """VRF w of leaf b holds the route of VRF v on leaf a: connected, or a type-5 route it imports."""
        if a == b:
            return v is not None and v == w
        wconf = vrfs.get(b, {}).get(w)
        imports = wconf.rt_import if wconf is not None and wconf.vni is not None else set()
        exports = _exports(vrfs.get(a, {}).get(v or ""), kind == "prefix") if v else set()
        return b in learns.get(a, set()) and bool(imports & exports)

    for b, w, wt in sources:
        wconf = vrfs.get(b, {}).get(w)
        leaked = sorted(wconf.import_vrfs) if wconf is not None and wconf.bgp else []  # `import vrf`: one hop
        for kind, origins in (("host link", links), ("prefix", prefixes)):
            for a, port, v, net, owner in origins:
                reached = any(direct(b, x, a, v, kind) for x in [w, *leaked])
                _count(res.tenants[wt], kind, owner == wt, reached)
                if owner == wt and not reached:
                    misses[(b, w, wt, kind)].append(f"{a} {port} ({net})")
                elif owner != wt and reached:
                    res.findings.append(Finding("SIM-05", "error", b, f"tenant leak: VRF {w} reaches {net} of tenant "
                                                                      f"{owner} ({a} {port})"))
    for (b, w, wt, kind), lost in sorted(misses.items()):
        noun = "prefix(es)" if kind == "prefix" else "host link(s)"
        res.findings.append(Finding("SIM-04", "error", b, f"tenant {wt}: VRF {w} does not reach {len(lost)} of its "
                                                          f"own {noun}: {', '.join(lost[:4])}"
                                                          f"{' ...' if len(lost) > 4 else ''}"))
    for name, tl in res.tenants.items():
        res.notes.append(f"tenant {name}: {_pct(tl.inside_reached, tl.inside)} of {tl.inside} leaf-VRF-to-host-link "
                         f"pairs inside the tenant reachable, {_pct(tl.cross_reached, tl.cross)} of {tl.cross} to "
                         "other tenants")
        own, own_ok, other, other_ok = tl.prefix
        if own or other:
            res.notes.append(f"tenant {name}: {_pct(own_ok, own)} of {own} leaf-VRF-to-own-prefix pairs reachable, "
                             f"{_pct(other_ok, other)} of {other} to other tenants' prefixes (overlapping ones too)")
    return res


def _count(tally: TenantTally, kind: str, inside: bool, reached: bool) -> None:
    if kind == "prefix":
        tally.prefix[0 if inside else 2] += 1
        tally.prefix[1 if inside else 3] += reached
    elif inside:
        tally.inside += 1
        tally.inside_reached += reached
    else:
        tally.cross += 1
        tally.cross_reached += reached


def _pct(n: int, total: int) -> str:
    """A share that reads 100% only when all, 0% only when none."""
    if not total:
        return "n/a"
    return "100%" if n == total else "0%" if n == 0 else f"{100 * n / total:.1f}%"
