"""FRR `frr.conf` (Cumulus `/etc/frr/frr.conf` and SONiC `/etc/sonic/frr/frr.conf` alike).

Only what the rules and the route simulation need: the BGP instance, peer-groups, neighbours,
originated prefixes, prefix-lists, route-maps and community-lists. Unknown lines are ignored
(syntax is `vtysh --dryrun`'s job).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Peer:
    """A peer-group or a neighbour; neighbours inherit unset fields from their peer-group."""

    name: str
    line: int
    is_group: bool = False
    interface: bool = False  # `neighbor swp1 interface ...`: unnumbered
    peer_group: str | None = None
    remote_as: str | None = None  # "external", "internal" or a number
    description: str = ""
    activated: bool = False
    route_map_in: str | None = None
    route_map_out: str | None = None
    shutdown: bool = False
    prefix_list_in: str | None = None
    prefix_list_out: str | None = None
    maximum_prefix: int | None = None
    evpn: bool = False  # activated in address-family l2vpn evpn


@dataclass(slots=True)
class RouteMapEntry:
    action: str
    seq: int
    match: list[tuple[str, ...]] = field(default_factory=list)
    set: list[tuple[str, ...]] = field(default_factory=list)


@dataclass(slots=True)
class PrefixListEntry:
    seq: int
    action: str
    prefix: str
    ge: int | None = None
    le: int | None = None


@dataclass(slots=True)
class VrfConf:
    """A tenant VRF as frr.conf (or NVUE's `vrf <name>`) configures it: zebra's `vrf <name> / vni`, bgpd's
    `router bgp <asn> vrf <name>`."""

    vni: int | None = None
    bgp: bool = False  # a `router bgp <asn> vrf <name>` instance exists
    redistribute_connected: bool = False
    advertise_ipv4: bool = False  # l2vpn evpn `advertise ipv4 unicast`: the VRF's routes become type-5 routes
    rt_import: set[str] = field(default_factory=set)
    rt_export: set[str] = field(default_factory=set)
    static_routes: list[tuple[str, str]] = field(default_factory=list)  # zebra `ip route <prefix> <next hop>`
    redistribute_static: bool = False
    # bgpd ipv4 unicast `import vrf <name>`: VRF-to-VRF route leaking, this VRF takes <name>'s BGP routes on the same
    # router (FRR doc "VRF Route Leaking")
    import_vrfs: set[str] = field(default_factory=set)


@dataclass(slots=True)
class FrrConf:
    hostname: str | None = None
    asn: int | None = None
    router_id: str | None = None
    multipath_relax: bool = False
    graceful_shutdown: bool = False
    maximum_paths: int = 1  # FRR default without `maximum-paths` is 1 for... "datacenter" profile: 64
    maximum_paths_set: bool = False
    profile: str | None = None
    peers: dict[str, Peer] = field(default_factory=dict)
    networks: list[str] = field(default_factory=list)
    aggregates: list[tuple[str, bool]] = field(default_factory=list)  # (prefix, summary-only)
    redistribute_connected: str | None = None  # route-map name, "" when no route-map
    prefix_lists: dict[str, list[PrefixListEntry]] = field(default_factory=dict)
    route_maps: dict[str, list[RouteMapEntry]] = field(default_factory=dict)
    community_lists: dict[str, list[str]] = field(default_factory=dict)
    suppress_fib_pending: bool = False
    update_delay: int | None = None
    discard_routes: list[str] = field(default_factory=list)  # `ip route <prefix> blackhole|Null0|reject` (staticd)
    advertise_all_vni: bool = False  # l2vpn evpn: originate routes for every local VNI
    # EVPN multihoming (zebra interface commands): interface -> {"es-id": .., "es-sys-mac": .., "es-df-pref": ..}
    evpn_mh: dict[str, dict[str, str]] = field(default_factory=dict)
    mh_uplinks: set[str] = field(default_factory=set)  # interfaces with `evpn mh uplink`
    vrfs: dict[str, VrfConf] = field(default_factory=dict)  # tenant VRFs (not the default VRF)

    @property
    def neighbors(self) -> dict[str, Peer]:
        return {n: p for n, p in self.peers.items() if not p.is_group}

    def has_neighbor(self, name: str) -> bool:
        """`name in self.neighbors`, without building the mapping (rules ask it once per fabric link)."""
        peer = self.peers.get(name)
        return peer is not None and not peer.is_group

    def effective(self, name: str) -> Peer:
        """The neighbour with its peer-group's settings filled in."""
        nb = self.peers[name]
        pg = self.peers.get(nb.peer_group or "")
        if pg is None or not pg.is_group:
            return nb
        return Peer(
            name=nb.name, line=nb.line, interface=nb.interface, peer_group=nb.peer_group,
            remote_as=nb.remote_as or pg.remote_as, description=nb.description or pg.description,
            activated=nb.activated or pg.activated, route_map_in=nb.route_map_in or pg.route_map_in,
            route_map_out=nb.route_map_out or pg.route_map_out, shutdown=nb.shutdown or pg.shutdown,
            prefix_list_in=nb.prefix_list_in or pg.prefix_list_in, maximum_prefix=nb.maximum_prefix or pg.maximum_prefix,
            prefix_list_out=nb.prefix_list_out or pg.prefix_list_out,
            evpn=nb.evpn or pg.evpn,
        )


def _peer(conf: FrrConf, name: str, line: int) -> Peer:
    if name not in conf.peers:
        conf.peers[name] = Peer(name, line)
    return conf.peers[name]


def _neighbor(conf: FrrConf, words: list[str], n: int, in_af: bool, in_evpn: bool = False) -> None:
    if len(words) < 3:
        return
    name, rest = words[1], words[2:]
    if in_evpn:
        if rest == ["activate"]:
            _peer(conf, name, n).evpn = True
        return
    if rest == ["peer-group"]:
        _peer(conf, name, n).is_group = True
        return
    peer = _peer(conf, name, n)
    if rest[0] == "interface":
        peer.interface = True
        rest = rest[1:]
    if not rest:
        return
    key = rest[0]
    if key == "peer-group" and len(rest) > 1:
        peer.peer_group = rest[1]
    elif key == "remote-as" and len(rest) > 1:
        peer.remote_as = rest[1]
    elif key == "description":
        peer.description = " ".join(rest[1:])
    elif key == "activate" and in_af:
        peer.activated = True
    elif key == "route-map" and len(rest) > 2 and in_af:
        if rest[2] == "in":
            peer.route_map_in = rest[1]
        elif rest[2] == "out":
            peer.route_map_out = rest[1]
    elif key == "shutdown":
        peer.shutdown = True
    elif key == "prefix-list" and len(rest) > 2 and rest[2] == "in" and in_af:
        peer.prefix_list_in = rest[1]
    elif key == "prefix-list" and len(rest) > 2 and rest[2] == "out" and in_af:
        peer.prefix_list_out = rest[1]
    elif key == "maximum-prefix" and len(rest) > 1 and rest[1].isdigit() and in_af:
        peer.maximum_prefix = int(rest[1])


def parse_frr(text: str) -> FrrConf:
    conf = FrrConf()
    section: str | None = None  # "bgp", "af", "route-map"
    rmap: RouteMapEntry | None = None
    iface: str | None = None  # the open `interface <name>` block
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        words = line.split()
        head = words[0]
        if head in ("exit", "end"):
            section = "bgp" if section == "af" else None
            rmap = None
            continue
        if head == "exit-address-family":
            section = "bgp"
            continue
        if section == "interface" and words[:2] == ["evpn", "mh"] and iface is not None:
            if words[2:3] == ["uplink"]:
                conf.mh_uplinks.add(iface)
            elif len(words) > 3:
                conf.evpn_mh.setdefault(iface, {})[words[2]] = words[3]
            continue
        if not raw[0].isspace():  # a top-level command closes any open block
            section, rmap, iface = None, None, None
            if head == "interface" and len(words) > 1:
                section, iface = "interface", words[1]
            elif head == "hostname" and len(words) > 1:
                conf.hostname = words[1]
            elif words[:2] == ["frr", "defaults"] and len(words) > 2:
                conf.profile = words[2]
            elif head == "router" and words[1:2] == ["bgp"] and len(words) > 2 and "vrf" not in words:
                section = "bgp"
                try:
                    conf.asn = int(words[2])
                except ValueError:
                    conf.asn = None
            elif head == "route-map" and len(words) >= 4:
                rmap = RouteMapEntry(words[2], int(words[3]) if words[3].isdigit() else 0)
                conf.route_maps.setdefault(words[1], []).append(rmap)
                section = "route-map"
            elif words[:2] == ["ip", "prefix-list"] and len(words) >= 5:
                _prefix_list(conf, words)
            elif words[:2] == ["ip", "route"] and len(words) >= 4 and words[3] in ("blackhole", "Null0", "reject"):
                conf.discard_routes.append(words[2])
            elif words[:2] == ["bgp", "community-list"] and len(words) >= 4:
                name_at = 3 if words[2] in ("standard", "expanded") else 2
                conf.community_lists.setdefault(words[name_at], []).append(" ".join(words[name_at + 1:]))
            continue
        if section == "route-map" and rmap is not None:
            if head == "match":
                rmap.match.append(tuple(words[1:]))
            elif head == "set":
                rmap.set.append(tuple(words[1:]))
            continue
        if section in ("bgp", "af"):
            if head == "address-family":
                section = ("af" if words[1:3] == ["ipv4", "unicast"] or words[1:] == ["ipv4"]
                           else "evpn-af" if words[1:3] == ["l2vpn", "evpn"] else "other-af")
                continue
            in_af = section == "af"
            if head == "neighbor":
                _neighbor(conf, words, n, in_af)
            elif words[:2] == ["bgp", "router-id"] and len(words) > 2:
                conf.router_id = words[2]
            elif words[:4] == ["bgp", "bestpath", "as-path", "multipath-relax"]:
                conf.multipath_relax = True
            elif words[:2] == ["bgp", "graceful-shutdown"]:
                conf.graceful_shutdown = True
            elif words[:2] == ["bgp", "suppress-fib-pending"]:
                conf.suppress_fib_pending = True
            elif head == "update-delay" and len(words) > 1 and words[1].isdigit():
                conf.update_delay = int(words[1])
            elif in_af and head == "network" and len(words) > 1:
                conf.networks.append(words[1])
            elif in_af and head == "aggregate-address" and len(words) > 1:
                conf.aggregates.append((words[1], "summary-only" in words))
            elif in_af and words[:2] == ["redistribute", "connected"]:
                conf.redistribute_connected = words[3] if len(words) > 3 and words[2] == "route-map" else ""
            elif in_af and head == "maximum-paths" and len(words) > 1 and words[1].isdigit():
                conf.maximum_paths = int(words[1])
                conf.maximum_paths_set = True
        elif section == "evpn-af":
            if head == "neighbor":
                _neighbor(conf, words, n, False, in_evpn=True)
            elif head == "advertise-all-vni":
                conf.advertise_all_vni = True
        elif section == "other-af" and head == "exit-address-family":
            section = "bgp"
    if not conf.maximum_paths_set and conf.profile == "datacenter":
        conf.maximum_paths = 64  # FRR datacenter profile default
    conf.vrfs = _vrfs(text)
    return conf


def _vrfs(text: str) -> dict[str, VrfConf]:
    """The non-default VRFs: `vrf <name>` blocks (their `vni`) and `router bgp <asn> vrf <name>` instances
    (redistribute connected/static and `import vrf` in ipv4 unicast; advertise ipv4 unicast and route-targets in l2vpn evpn)."""
    out: dict[str, VrfConf] = {}
    cur: VrfConf | None = None
    kind, af = "", ""
    for raw in text.splitlines():
        words = raw.split()
        if not words or words[0].startswith("!"):
            continue
        if not raw[0].isspace():
            cur, kind, af = None, "", ""
            if words[0] == "vrf" and len(words) == 2:
                cur, kind = out.setdefault(words[1], VrfConf()), "zebra"
            elif words[:2] == ["router", "bgp"] and len(words) == 5 and words[3] == "vrf":
                cur, kind = out.setdefault(words[4], VrfConf()), "bgp"
                cur.bgp = True
            continue
        if cur is None:
            continue
        if kind == "zebra" and words[0] == "vni" and len(words) > 1 and words[1].isdigit():
            cur.vni = int(words[1])
        elif kind == "zebra" and words[:2] == ["ip", "route"] and len(words) > 3:
            cur.static_routes.append((words[2], words[3]))
        elif kind == "bgp" and words[0] == "address-family":
            af = " ".join(words[1:3])
        elif kind == "bgp" and words[0] == "exit-address-family":
            af = ""
        elif af == "ipv4 unicast" and words[:2] == ["redistribute", "connected"]:
            cur.redistribute_connected = True
        elif af == "ipv4 unicast" and words[:2] == ["redistribute", "static"]:
            cur.redistribute_static = True
        elif af == "ipv4 unicast" and words[:2] == ["import", "vrf"] and len(words) == 3 and words[2] != "route-map":
            cur.import_vrfs.add(words[2])
        elif af == "l2vpn evpn" and words[:3] == ["advertise", "ipv4", "unicast"]:
            cur.advertise_ipv4 = True
        elif af == "l2vpn evpn" and words[0] == "route-target" and len(words) > 2:
            if words[1] in ("import", "both"):
                cur.rt_import.add(words[2])
            if words[1] in ("export", "both"):
                cur.rt_export.add(words[2])
    return out


def _prefix_list(conf: FrrConf, words: list[str]) -> None:
    name, rest = words[2], words[3:]
    seq = 0
    if rest and rest[0] == "seq" and len(rest) > 1:
        seq = int(rest[1]) if rest[1].isdigit() else 0
        rest = rest[2:]
    if len(rest) < 2:
        return
    entry = PrefixListEntry(seq, rest[0], rest[1])
    for i in range(2, len(rest) - 1):
        if rest[i] == "ge":
            entry.ge = int(rest[i + 1])
        elif rest[i] == "le":
            entry.le = int(rest[i + 1])
    conf.prefix_lists.setdefault(name, []).append(entry)
