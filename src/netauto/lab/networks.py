"""The lab of a cluster with networks: every network's switches and every server in one lab.

Each server is one namespace holding its compute rails and its network NICs (all its netplan files applied with
`ip`); every network's cables become veths; BGP sessions, ECMP widths and pings are expected per network, as
for the compute fabric. Isolation is checked two ways: no switch's kernel routing table holds another
network's prefix, and a ping from a leaf of one network to a server address of another gets no reply.
"""

from __future__ import annotations

from netauto.errors import NetautoError
from netauto.formats.sysctl import parse_sysctl
from netauto.lab import adapt, border
from netauto.lab.plan import (
    VOID_NS, LabPlan, Node, Ping, Session, VethLink, _by_device, _switch_node, check_name, expected_ecmp, ns_prefix,
    plan_pings, select_servers,
)
from netauto.model.cluster import ClusterModel
from netauto.model.types import Server
from netauto.render.engine import Artifact
from netauto.netutil.ip import ip_of


def _server_node(name: str, files: dict[str, Artifact], ns: str, mgmt: str, notes: list[str]) -> Node:
    node = Node(device=name, ns=ns, kind="server", nos="linux", mgmt_address=mgmt)
    netplans = [a for p, a in sorted(files.items()) if p.startswith("etc/netplan/")]
    if not netplans:
        raise NetautoError(f"{name}: no rendered netplan file")
    nics = []
    for art in netplans:  # 60-rails.yaml, then 61-<network>.yaml: networkd merges them in this order too
        got, n = adapt.netplan_links(art.content)
        nics += got
        notes += [f"{name}: {x}" for x in n]
    node.ip_batch = adapt.netplan_ip_batch(nics)
    node.files = {p: a.content for p, a in files.items()}
    node.modes = {p: a.mode for p, a in files.items()}
    node.owners = {p: a.owner for p, a in files.items()}
    node.inert = sorted(p for p in files if not p.startswith("etc/sysctl.d/"))
    for p, art in sorted(files.items()):
        if p.startswith("etc/sysctl.d/"):
            node.sysctls += parse_sysctl(art.content)
    return node


def _networks_note(cluster: ClusterModel) -> str:
    """What of the rendered cluster the lab leaves out: bonds (the servers' NICs are plain routed ports here) and
    the OOB network (its switches get no namespace); both are rendered and validated."""
    left = [f"the {p.name} network's server bonds (LACP)" for p in cluster.networks if p.bond]
    if cluster.oob is not None:
        left.append("the OOB network")
    note = "networks: one namespace per server holds its compute rails and its network NICs"
    if left:
        note += f"; {' and '.join(left)} are rendered and validated but not in the lab"
    return note


def _pools(cluster: ClusterModel) -> dict[str, list[str]]:
    """network -> the pools its switches and hosts use (compute: host links and loopbacks)."""
    out = {"compute": [v for k, v in cluster.compute_pools.items() if not k.startswith("management.")]}
    if cluster.compute_planes:  # each compute plane its own rail supernets and loopbacks (model.compute_planes)
        out = {net: fab.rail_supernets + [sw.loopback if "/" in sw.loopback else f"{sw.loopback}/32" for sw in fab.switches]
               for net, fab in cluster.fabrics()[:1 + len(cluster.compute_planes)]}
    for p in cluster.networks:
        out[p.name] = [v for k, v in p.pools.items() if k != "switch_mgmt_pool"]
    return out


def _isolation_probes(cluster: ClusterModel, chosen: set[str]) -> list[Ping]:
    """From the first leaf of every network: a ping to one server address of every other network."""
    probes = []
    nets = cluster.fabrics()
    for net, fab in nets:
        leaf = next((s for s in fab.switches if s.role == "leaf"), None)
        if leaf is None:
            continue
        src = ip_of(leaf.loopback)
        for other, ofab in nets:
            if other == net:
                continue
            srv = next((s for s in ofab.servers if s.name in chosen and s.rails), None)
            if srv is not None:
                rail = srv.rails[0]
                probes.append(Ping(leaf.name, "lo", src, srv.name, rail.nic, rail.ip, "isolated", expect=False))
    return probes


def build_cluster_plan(cluster: ClusterModel, artifacts: list[Artifact], name: str,
                       servers_per_su: int | None = None) -> LabPlan:
    check_name(name)
    prefix = ns_prefix(name)
    files = _by_device(artifacts)
    notes: list[str] = []
    nodes: dict[str, Node] = {}
    for _, fab in cluster.fabrics():
        for sw in fab.switches:
            nodes[sw.name] = _switch_node(sw, files.get(sw.name, {}), prefix + sw.name, notes)
    chosen_compute = select_servers(cluster.compute, servers_per_su)
    chosen = {s.name for s in chosen_compute} | {g.name for g in cluster.groups}
    mgmt = {s.name: s.mgmt_address for s in cluster.compute.servers} | {g.name: g.mgmt_address for g in cluster.groups}
    for srv in sorted(chosen, key=lambda n: cluster.server_names().index(n)):
        nodes[srv] = _server_node(srv, files.get(srv, {}), prefix + srv, mgmt[srv], notes)
    links: list[VethLink] = []
    stubs: list[VethLink] = []
    sessions: list[Session] = []
    ecmp: dict[str, dict[str, int]] = {}
    pings: list[Ping] = []
    uplinks: dict[str, list[str]] = {}
    pools = _pools(cluster)
    foreign: dict[str, list[str]] = {}
    for net, fab in cluster.fabrics():
        for l in fab.links:
            a_in, b_in = l.a_device in nodes, l.b_device in nodes
            if a_in and b_in:
                links.append(VethLink(nodes[l.a_device].ns, l.a_port, nodes[l.b_device].ns, l.b_port,
                                      l.a_device, l.b_device, l.enabled))
            elif a_in or b_in:
                dev, port = (l.a_device, l.a_port) if a_in else (l.b_device, l.b_port)
                stubs.append(VethLink(nodes[dev].ns, port, prefix + VOID_NS, f"v{len(stubs)}", dev, "", l.enabled))
        enabled = {(l.a_device, l.a_port) for l in fab.links if l.enabled} | {(l.b_device, l.b_port) for l in fab.links if l.enabled}
        sessions += [Session(sw.name, n.interface, n.peer_device, n.peer_port)
                     for sw in fab.switches for n in sw.bgp.neighbors if (sw.name, n.interface) in enabled]
        for leaf, widths in expected_ecmp(fab).items():
            ecmp.setdefault(leaf, {}).update(widths)
        servers: list[Server] = [s for s in fab.servers if s.name in chosen]
        pings += plan_pings(fab, servers)
        exit_ = border.stand_ins(fab, nodes, prefix, servers)  # the frontend's site routers, if it has an exit
        nodes.update(exit_.nodes)
        links += exit_.links
        sessions += exit_.sessions
        pings += exit_.pings
        for leaf, widths in exit_.ecmp.items():
            ecmp.setdefault(leaf, {}).update(widths)
        uplinks.update({s.name: [i.peer_device for i in s.fabric_ports if i.peer_device]
                        for s in fab.switches if s.role == "leaf"})
        others = [p for o, ps in pools.items() if o != net for p in ps]
        foreign.update({sw.name: others for sw in fab.switches})
    pings += _isolation_probes(cluster, chosen)
    notes.append(_networks_note(cluster))
    gws = sorted({sw.mgmt_gateway for sw in cluster.all_switches()} | {mgmt_gw for mgmt_gw in
                 [s.mgmt_gateway for s in cluster.compute.servers] + [g.mgmt_gateway for g in cluster.groups]})
    return LabPlan(name=name, fabric=cluster.name, nodes=nodes, links=links, stub_links=stubs, sessions=sessions,
                   ecmp=ecmp, pings=pings, notes=notes, mgmt_gateways=gws, uplinks=uplinks, foreign_pools=foreign)
