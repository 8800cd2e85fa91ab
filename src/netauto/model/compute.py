"""Build the compute fabric of a checked inventory: the steps run in order (checks, portplan, profiles,
naming, topology, numbering, addressing, switches, wiring, servers, hosts, qos). The compute fabric is also
how each network is built (model.networks, on a derived inventory). The one resolver entry is model.resolve.
"""

from __future__ import annotations

from netauto.model import addressing, consistency, portplan
from netauto.model.context import Context, Source
from netauto.model.naming import Namer, device_roles, inventory_namer, name_devices
from netauto.model.profiles import server_profiles
from netauto.model.qos import qos
from netauto.model.servers import servers as build_servers
from netauto.model.switches import fabric_session_limits
from netauto.model.switches import switch as build_switch
from netauto.model.topology import Counts, switch_ids
from netauto.model.types import FabricModel, Link, Switch
from netauto.model.wiring import wire_leaf_spine, wire_spine_super
from netauto.netutil.interface import port_sort_key

__all__ = ["build", "checked"]


def checked(source: Source) -> Context:
    """The inventory checked as a whole (hardware, server profiles, routing tables, pools, ASNs, port ranges,
    features, in that order: the first problem is the one reported) and the context the build reads."""
    inv, where = source.inventory, source.where
    n = Counts.of(inv)
    hardware = portplan.switch_hardware(inv, where)
    profiles = server_profiles(inv, n, where)
    consistency.check_tables(inv, n, where)
    ctx = Context(inv=inv, where=where, counts=n, hardware=hardware, profiles=profiles)
    consistency.check_pools(inv, n, where)
    consistency.check_asns(inv, n, where)
    portplan.check_port_ranges(ctx)
    consistency.check_features(inv, where)
    return ctx


def build(ctx: Context, namer: Namer | None = None) -> FabricModel:
    """The fabric model of a checked inventory; `namer` names the devices (default: the inventory's naming)."""
    inv, n, where = ctx.inv, ctx.counts, ctx.where
    names = name_devices(n, namer or inventory_namer(inv, where))
    roles = device_roles(names, inv, where)
    consistency.check_hosts(inv, roles, where)
    disabled = consistency.disabled_ports(inv, roles, where)
    drained = consistency.drained(inv, roles, where)
    switches: dict[str, Switch] = {}
    for ident in switch_ids(n):
        name = names.switch(ident)
        switches[name] = build_switch(ctx, ident, name, name in drained)
    consistency.check_ar_platforms(inv, switches, where)
    links: list[Link] = wire_leaf_spine(ctx, names, switches, disabled)
    if n.three_tier:
        links += wire_spine_super(ctx, names, switches, disabled)
    servers, host_links = build_servers(ctx, names, switches, qos(inv), disabled)
    links += host_links
    consistency.check_port_overrides(inv, switches, where)
    for sw in switches.values():
        sw.bgp.neighbors.sort(key=lambda nb: port_sort_key(nb.interface))
        sw.interfaces.sort(key=lambda i: port_sort_key(i.name))
        sw.bgp.peer_groups = [pg for pg in sw.bgp.peer_groups if any(nb.peer_group == pg.name for nb in sw.bgp.neighbors)]
    hl = inv.addressing.host_links
    host_pool = addressing.pool(hl.pool)
    fabric_session_limits(inv, switches, host_pool)
    return FabricModel(
        name=inv.fabric.name,
        host_link_mode=hl.mode,
        host_pool=str(host_pool),
        rail_supernets=[str(addressing.rail_supernet(inv, r)) for r in range(n.rails)],
        switches=list(switches.values()),
        servers=servers,
        links=links,
        oversubscription=float(inv.topology.oversubscription),
    )
