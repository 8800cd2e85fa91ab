"""Switch ports and the fabric links between tiers: which port of which switch meets which, and the BGP
session each live link carries. A port comes from the identities at both ends (`numbering.port_offset`)."""

from __future__ import annotations

from typing import Literal

from netauto.inventory.schema import SPEEDS_MBPS
from netauto.model import numbering
from netauto.model.context import Context
from netauto.model.naming import Names
from netauto.model.portplan import breakout
from netauto.model.ports import PortSlot, slot
from netauto.model.switches import PEER_GROUP
from netauto.model.types import BgpNeighbor, IfKind, Interface, Link, Switch
from netauto.platforms import nics


def interface(ctx: Context, sw: Switch, ps: PortSlot, kind: IfKind, peer: str | None, peer_port: str | None,
              speed: str, description: str, disabled: set[tuple[str, str]], name: str | None = None) -> Interface:
    """Add port `ps` to switch `sw` (enabled unless the overrides disable it) and return it. `name`: the
    port's name on the switch's NOS, when the caller has it already."""
    name = name or ps.name(sw.nos, sw.hardware)
    fec = port_fec(ctx.inv.fabric.fec, ctx.inv.fabric.host_fec, kind, speed)
    iface = Interface(
        name=name, kind=kind, speed=speed, speed_mbps=SPEEDS_MBPS[speed], mtu=sw.mtu, fec=fec,
        enabled=(sw.name, name) not in disabled, peer_device=peer, peer_port=peer_port,
        description=description, adaptive_routing=sw.adaptive_routing and kind == "fabric",
        pfc_watchdog=sw.qos.pfc_watchdog, breakout_parent=ps.parent(sw.nos),
        cage=ps.cage, subport=ps.sub, breakout=ps.breakout,
        lanes=ctx.lanes(sw.role, ps.cage, ps.sub, ps.breakout),
    )
    sw.interfaces.append(iface)
    return iface


def port_fec(fabric_fec: str, host_fec: str | None, kind: IfKind, speed: str) -> str | None:
    """A switch port's FEC (None: the platform default): a server-facing port runs what the NIC runs (the
    network's host_fec, else the NIC's FEC at that speed: platforms.nics.host_fec), every other the fabric's."""
    chosen = (host_fec or nics.host_fec(speed) or fabric_fec) if kind == "host" else fabric_fec
    return None if chosen == "default" else chosen


def fabric_link(ctx: Context, lower: Switch, lps: PortSlot, upper: Switch, ups: PortSlot,
                kind: Literal["leaf-spine", "spine-superspine"],
                disabled: set[tuple[str, str]]) -> Link:
    """Cable `lower` port `lps` to `upper` port `ups`; a live link gets a BGP session at both ends."""
    speed = ctx.inv.fabric.fabric_link_speed
    lname, uname = lps.name(lower.nos, lower.hardware), ups.name(upper.nos, upper.hardware)
    li = interface(ctx, lower, lps, "fabric", upper.name, uname, speed, f"to {upper.name} {uname}", disabled, lname)
    ui = interface(ctx, upper, ups, "fabric", lower.name, lname, speed, f"to {lower.name} {lname}", disabled, uname)
    enabled = li.enabled and ui.enabled
    # A link is disabled as a whole: a lone live end would keep AR/PFC-WD on a dark port.
    li.enabled = ui.enabled = enabled
    if enabled:
        lower.bgp.neighbors.append(BgpNeighbor(lname, PEER_GROUP[upper.role], upper.name, uname, upper.bgp.asn))
        upper.bgp.neighbors.append(BgpNeighbor(uname, PEER_GROUP[lower.role], lower.name, lname, lower.bgp.asn))
    return Link(lower.name, lname, upper.name, uname, speed, kind, enabled)


def wire_leaf_spine(ctx: Context, names: Names, switches: dict[str, Switch],
                    disabled: set[tuple[str, str]]) -> list[Link]:
    """Every leaf to every spine of its pod, `leaf_spine_links` cables each: the leaf's uplinks by spine,
    the spine's downlinks by the leaf's place in the pod."""
    t, ports, n = ctx.inv.topology, ctx.inv.ports, ctx.counts
    up_ways, down_ways = breakout(ctx, "leaf", "uplinks"), breakout(ctx, "spine", "downlinks")
    links = []
    for (s, r), leaf_name in names.leaves.items():
        leaf = switches[leaf_name]
        pod_leaf = numbering.pod_leaf_offset(s, r, n.sus_per_pod, n.rails)
        for i in range(1, t.spines_per_pod + 1):
            spine = switches[names.spines[(leaf.pod, i)]]
            for link in range(t.leaf_spine_links):
                lps = slot(ports.leaf.uplinks.first, up_ways, numbering.port_offset(i - 1, link, t.leaf_spine_links))
                sps = slot(ports.spine.downlinks.first, down_ways,
                           numbering.port_offset(pod_leaf, link, t.leaf_spine_links))
                links.append(fabric_link(ctx, leaf, lps, spine, sps, "leaf-spine", disabled))
    return links


def wire_spine_super(ctx: Context, names: Names, switches: dict[str, Switch],
                     disabled: set[tuple[str, str]]) -> list[Link]:
    """Spine `i` of every pod to every super-spine of group `i`: the spine's uplinks by super-spine, the
    super-spine's downlinks by pod."""
    t, ports = ctx.inv.topology, ctx.inv.ports
    up_ways, down_ways = breakout(ctx, "spine", "uplinks"), breakout(ctx, "super_spine", "downlinks")
    links = []
    for (p, i), spine_name in names.spines.items():
        spine = switches[spine_name]
        for j in range(1, t.super_spines_per_group + 1):
            sup = switches[names.super_spines[(i, j)]]
            for link in range(t.spine_super_spine_links):
                sps = slot(ports.spine.uplinks.first, up_ways,
                           numbering.port_offset(j - 1, link, t.spine_super_spine_links))
                ups = slot(ports.super_spine.downlinks.first, down_ways,
                           numbering.port_offset(p - 1, link, t.spine_super_spine_links))
                links.append(fabric_link(ctx, spine, sps, sup, ups, "spine-superspine", disabled))
    return links
