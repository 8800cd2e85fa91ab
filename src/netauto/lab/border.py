"""Stand-ins for the site routers of a frontend's exit (`networks.<name>.upstream`) in the lab.

One namespace per upstream router (the inventory's `peer`), running FRR with the router's ASN: an eBGP session
to every aggregation switch that names it, a default route originated to each (`default-originate`), BFD when
the inventory asks for it, and a loopback in TEST-NET-1 (RFC 5737: never a cluster address) that the frontend's
servers ping (every router answers for 192.0.2.1: the aggregation switches spread flows over all of them). `lab check` then sees the sessions Established from both ends, the
default route in every access switch's kernel with the ECMP width the model gives, the frontend's aggregate in
every router's, and the pings answered.
The switches run their rendered frr.conf untouched; only the routers' config is the lab's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from netauto.lab.plan import Node, Ping, Session, VethLink
from netauto.model.types import FabricModel, Server, Switch, UpstreamPeer
from netauto.netutil.ip import ip_of

TEST_NET = "192.0.2."  # RFC 5737 TEST-NET-1: the stand-ins' loopbacks
SITE = "192.0.2.1"  # the "site" address every stand-in answers for (anycast)
DEFAULT = "0.0.0.0/0"


@dataclass(slots=True)
class StandIns:
    nodes: dict[str, Node] = field(default_factory=dict)
    links: list[VethLink] = field(default_factory=list)
    sessions: list[Session] = field(default_factory=list)
    # access switch -> {0.0.0.0/0: width}; router -> {aggregate: sessions}
    ecmp: dict[str, dict[str, int]] = field(default_factory=dict)
    pings: list[Ping] = field(default_factory=list)


def router_conf(name: str, asn: int, loopback: str, peers: list[tuple[str, int, str, bool]]) -> str:
    """FRR for a stand-in: (address, asn, description, bfd) per session."""
    lines = ["frr defaults datacenter", f"hostname {name}", "service integrated-vtysh-config", "!",
             f"router bgp {asn}", f" bgp router-id {loopback}", " timers bgp 3 9"]
    for addr, peer_asn, desc, bfd in peers:
        lines += [f" neighbor {addr} remote-as {peer_asn}", f" neighbor {addr} description {desc}"]
        if bfd:
            lines.append(f" neighbor {addr} bfd")
    lines += [" !", " address-family ipv4 unicast"]
    lines += [f"  neighbor {addr} default-originate" for addr, *_ in peers]
    lines += [" exit-address-family", "exit", "!", ""]
    return "\n".join(lines)


def _daemons(bfd: bool) -> str:
    return (f"bgpd=yes\nbfdd={'yes' if bfd else 'no'}\nvtysh_enable=yes\nzebra_options=\"  -A 127.0.0.1 -s 90000000\"\n"
            "bgpd_options=\"   -A 127.0.0.1\"\nfrr_profile=\"datacenter\"\n")


def _own_end(sw: Switch, peer: UpstreamPeer) -> str:
    address = sw.interface(peer.interface).address
    assert address is not None
    return address


def stand_ins(fab: FabricModel, nodes: dict[str, Node], prefix: str, servers: list[Server]) -> StandIns:
    """Routers, cables, the sessions of both ends, the default route's ECMP per access switch, pings out."""
    out = StandIns()
    by_router: dict[str, list[tuple[Switch, UpstreamPeer]]] = {}
    for sw in fab.switches:
        for p in (sw.bgp.upstream.peers if sw.bgp.upstream else []):
            if sw.name in nodes:
                by_router.setdefault(p.router, []).append((sw, p))
    for n, (router, ends) in enumerate(sorted(by_router.items()), 1):
        loopback = f"{TEST_NET}{10 + n}"  # router-id; every router also answers for SITE (the aggregation
        # switches' default route spreads flows over all of them, as a site network would)
        batch = [f"addr add {loopback}/32 dev lo", f"addr add {SITE}/32 dev lo", "link set dev lo up"]
        peers = []
        for k, (sw, p) in enumerate(ends):
            port = f"up{k}"
            mine = _own_end(sw, p)
            batch += [f"addr add {p.address}/{mine.split('/')[1]} dev {port}", f"link set dev {port} up"]
            peers.append((ip_of(mine), sw.bgp.asn, f"{sw.name} {p.interface}", p.bfd is not None))
            out.links.append(VethLink(nodes[sw.name].ns, p.interface, prefix + router, port, sw.name, router))
            out.sessions.append(Session(sw.name, p.address, router, port))
            out.sessions.append(Session(router, ip_of(mine), sw.name, p.interface))
        asn = ends[0][1].asn
        # what the router must learn before the pings go out: each aggregate over every session (equal AS paths)
        for sw, _ in ends[:1]:
            out.ecmp[router] = {p: len(ends) for p in (sw.bgp.upstream.aggregates if sw.bgp.upstream else [])}
        node = Node(device=router, ns=prefix + router, kind="switch", nos="frr", frr_conf_path="etc/frr/frr.conf")
        node.files = {"etc/frr/frr.conf": router_conf(router, asn, loopback, peers),
                      "etc/frr/daemons": _daemons(any(b for *_, b in peers))}
        node.ip_batch = batch
        out.nodes[router] = node
    if not out.nodes:
        return out
    exits = {sw.name for sw in fab.switches if sw.bgp.upstream}
    for leaf in (s for s in fab.switches if s.role == "leaf" and s.name in nodes):
        if any(r.prefix == DEFAULT for r in leaf.bgp.accept_prefixes):
            width = sum(1 for i in leaf.fabric_ports if i.peer_device in exits)
            out.ecmp[leaf.name] = {DEFAULT: min(width, leaf.bgp.maximum_paths or width)}
    target = SITE
    first = sorted(by_router)[0]
    for srv in servers:  # each server's first NIC (or its bond) out through the default route
        if srv.bond is not None:
            out.pings.append(Ping(srv.name, srv.bond.name, ip_of(srv.bond.address), first, "lo", target, "upstream"))
        elif srv.rails and any(r.to == DEFAULT for r in srv.rails[0].routes):
            rail = srv.rails[0]
            out.pings.append(Ping(srv.name, rail.nic, rail.ip, first, "lo", target, "upstream"))
    return out
