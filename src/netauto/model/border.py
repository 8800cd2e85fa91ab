"""The frontend's exit (`networks.<name>.upstream`): numbered eBGP from the aggregation switches to upstream
(site/DC) routers.

What it adds to a resolved network:
  * an `upstream` port per link on its aggregation switch (the cage from the inventory, split as the switch
    model needs for the link speed), addressed with this switch's end of the /31;
  * a `Link` of kind "upstream" per link in `FabricModel.exit_links` (switch port -> the inventory's `peer` and
    `peer_port`): the one source of these cables for `show cabling`, `bom`, `docs` and `plan`;
  * `Bgp.upstream` on every aggregation switch with a link: the sessions, UPSTREAM-IN (0.0.0.0/0 exact and
    any site prefixes, exact), UPSTREAM-OUT (the network's own aggregates, exact: the upstream never learns a
    host subnet, a loopback or anything of another network), maximum-prefix, and an aggregate-address
    *without* summary-only (summary-only would also hide the access switches' subnets from each other) with
    a discard route for it (rendered as a static blackhole: see render/nvue/routing.py discard_routes);
  * 0.0.0.0/0 (exact) in the access switches' FABRIC-PREFIXES: the default route comes down the existing
    fabric sessions. The aggregation switches' own FABRIC-PREFIXES stay as they are, so a default route
    never travels up from an access switch (inward only).
Cross-network checks (address overlap, accepted prefixes that cover a network of the cluster) are in
model/networks.py `_check_cluster`, which knows every network's pools.
"""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Interface, IPv4Network
from typing import Any

from netauto.errors import InventoryError, NetautoError
from netauto.inventory.networks import Network
from netauto.inventory.upstream import UpstreamLink
from netauto.inventory.schema import SPEEDS_MBPS
from netauto.model.ports import PortSlot
from netauto.model.types import Bfd, FabricModel, Interface, Link, PrefixRule, Switch, Upstream, UpstreamPeer
from netauto.platforms import hardware

DEFAULT_ROUTE = "0.0.0.0/0"
Where = Callable[..., dict[str, Any]]


def peer_address(link: UpstreamLink) -> str:
    """The router's end: as written, else the other address of the /31 (of a /30: the other usable one)."""
    if link.peer_address:
        return link.peer_address
    mine = IPv4Interface(link.address)
    ends = [ip for ip in (mine.network if mine.network.prefixlen == 31 else mine.network.hosts()) if ip != mine.ip]
    return str(ends[0])


def _port(sw: Switch, link: UpstreamLink, speed: str, mtu: int, fec: str | None, at: dict[str, Any]) -> Interface:
    hw = hardware.load_hardware(sw.hardware)
    try:
        ways = hw.breakout_for(link.port, SPEEDS_MBPS[speed], where=f"{sw.name} cage {link.port}")
    except NetautoError as exc:
        raise InventoryError(str(exc), **at, hint="pick a cage of the aggregation switch that runs the link speed") from None
    slot = PortSlot(link.port, 0 if ways > 1 else None, ways)
    taken = {i.cage: i for i in sw.interfaces if i.cage is not None}
    if link.port in taken:
        raise InventoryError(f"cage {link.port} of {sw.name} is already used ({taken[link.port].description})", **at,
                             hint=f"use a free cage (cages {min(taken)}-{max(taken)} carry the fabric)")
    peer = f"{link.peer} {link.peer_port}".strip()
    return Interface(
        name=slot.name(sw.nos, sw.hardware), kind="upstream", speed=speed, speed_mbps=SPEEDS_MBPS[speed], mtu=mtu,
        fec=fec, enabled=True, peer_device=link.peer, peer_port=link.peer_port or None, description=f"to {peer}",
        address=link.address, pfc=False, pfc_watchdog=False, cage=link.port, subport=slot.sub, breakout=ways,
        breakout_parent=slot.parent(sw.nos), lanes=hw.lanes(link.port, slot.sub, ways))


def exit_link(sw: Switch, iface: Interface, link: UpstreamLink, network: str) -> Link:
    """The cable of one upstream link: this switch's port to the router named by the inventory (`peer`), at its
    `peer_port` when given ("" otherwise: the site has not said)."""
    return Link(sw.name, iface.name, link.peer, link.peer_port, iface.speed, "upstream", iface.enabled, network=network)


def _own_pools(network: Network) -> list[IPv4Network]:
    a = network.addressing
    return [IPv4Network(p) for p in (a.host_pool, a.leaf_loopbacks, a.spine_loopbacks)]


def apply_upstream(fabric: FabricModel, name: str, network: Network, where: Where, fec: str | None) -> None:
    up = network.upstream
    if up is None:
        return
    base = ("networks", name, "upstream")
    aggs = sorted((sw for sw in fabric.switches if sw.role == "spine"), key=lambda sw: sw.index)
    leaves = [sw for sw in fabric.switches if sw.role == "leaf"]
    own_asns = {sw.bgp.asn for sw in fabric.switches}
    advertise = list(up.advertise) or [network.addressing.host_pool]
    own = _own_pools(network)
    for i, prefix in enumerate(up.advertise):
        if not any(IPv4Network(prefix).subnet_of(p) for p in own):
            raise InventoryError(f"{prefix} is not inside the {name} network's pools ({', '.join(map(str, own))}): the "
                                 "upstream may only learn this network's own addresses", **where(*base, "advertise", i),
                                 hint=f"advertise {network.addressing.host_pool} (the default) or a part of it")
    accept = ([PrefixRule(DEFAULT_ROUTE, 0)] if up.accept_default else []) + \
        [PrefixRule(p, IPv4Network(p).prefixlen) for p in up.accept]
    bfd = Bfd(up.bfd.detect_multiplier, up.bfd.min_rx_interval, up.bfd.min_tx_interval) if up.bfd else None
    speed = up.speed or network.fabric_link_speed
    peers: dict[str, list[UpstreamPeer]] = {}
    for i, link in enumerate(up.links):
        at = base + ("links", i)
        if link.switch > len(aggs):
            raise InventoryError(f"the {name} network has {len(aggs)} aggregation switches, no switch {link.switch}",
                                 **where(*at, "switch"), hint=f"use 1-{len(aggs)} (naming.spine's {{index}})")
        asn = link.peer_asn or up.peer_asn
        if asn in own_asns:
            key = "peer_asn" if link.peer_asn else None
            raise InventoryError(f"peer ASN {asn} is an ASN of the {name} network itself: eBGP loop prevention would "
                                 "drop every route", **(where(*at, key) if key else where(*base, "peer_asn")),
                                 hint="use the upstream routers' own ASN")
        sw = aggs[link.switch - 1]
        iface = _port(sw, link, speed, up.mtu or sw.mtu, fec, where(*at, "port"))
        sw.interfaces.append(iface)
        fabric.exit_links.append(exit_link(sw, iface, link, name))
        peers.setdefault(sw.name, []).append(
            UpstreamPeer(peer_address(link), asn, iface.name, f"{link.peer} {link.peer_port}".strip(), bfd, link.peer))
    for sw in aggs:
        if sw.name in peers:
            sw.bgp.upstream = Upstream(
                peers=peers[sw.name], accept=list(accept),
                advertise=[PrefixRule(p, IPv4Network(p).prefixlen) for p in advertise],
                aggregates=list(advertise), maximum_prefix=up.maximum_prefix)
    for leaf in leaves:
        if up.accept_default:  # inward only: the access switches take the default route from the aggregation
            leaf.bgp.accept_prefixes = leaf.bgp.accept_prefixes + [PrefixRule(DEFAULT_ROUTE, 0)]
        if leaf.bgp.maximum_prefix:  # the default route and the aggregates come down the fabric sessions too
            leaf.bgp.maximum_prefix += int(up.accept_default) + len(advertise)


def upstream_subnets(network: Network) -> list[tuple[int, IPv4Network]]:
    """(link index, point-to-point subnet) of every upstream link."""
    if network.upstream is None:
        return []
    return [(i, IPv4Interface(link.address).network) for i, link in enumerate(network.upstream.links)]


def check_accept(network_name: str, network: Network, pools: dict[tuple[str | int, ...], IPv4Network], where: Where) -> None:
    """A site prefix accepted from the upstream never covers or sits inside a pool of any network of the cluster:
    traffic for the compute or storage network (or this network's own hosts) must never be drawn to the site."""
    if network.upstream is None:
        return
    for i, prefix in enumerate(network.upstream.accept):
        net = IPv4Network(prefix)
        for key, pool in pools.items():
            if net.overlaps(pool):
                raise InventoryError(f"{net} overlaps {'.'.join(map(str, key))} ({pool}): a route from the site must "
                                     "never cover an address of the cluster's networks",
                                     **where("networks", network_name, "upstream", "accept", i),
                                     hint="accept only the site's own prefixes (the default route is accept_default)")

