"""Tenant-owned prefixes (inventory `tenants.members.<t>.prefixes`; docs/tenants.md, "Tenant-owned prefixes").

A tenant may own prefixes of its own (its storage or service subnets), each held by one of its servers: on every
leaf of that server, a static route in the tenant's VRF to the server's rail address on that leaf, redistributed
into the VRF's BGP and so exported as a type-5 route with the tenant's route target (validate: the per-VRF route
simulation counts them as the tenant's origins, SIM-04/05). Two tenants may own the same or overlapping prefixes:
each lives in its own VRF's table. Refused, in one line naming both: two prefixes of one tenant that overlap (one
VRF table, two owners), and a prefix overlapping one of the fabric's own pools (loopbacks and VTEP addresses,
host links, management): a tenant's route there would shadow the fabric's own addresses in that VRF or on its
servers.
"""

from __future__ import annotations

from ipaddress import IPv4Network

from netauto.errors import InventoryError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.tenants import Tenants
from netauto.model.types import FabricModel


def fabric_pools(loaded: LoadedInventory) -> list[tuple[str, IPv4Network]]:
    """(key, prefix) of the fabric's own address pools a tenant prefix may not overlap."""
    a = loaded.inventory.addressing
    return [(f"addressing.{k}", IPv4Network(v)) for k, v in (
        ("loopbacks.leaf", a.loopbacks.leaf), ("loopbacks.spine", a.loopbacks.spine),
        ("loopbacks.super_spine", a.loopbacks.super_spine), ("host_links.pool", a.host_links.pool),
        ("management.switch_pool", a.management.switch_pool), ("management.server_pool", a.management.server_pool))]


def check_prefixes(loaded: LoadedInventory, spec: Tenants) -> None:
    pools = fabric_pools(loaded)
    for name, t in spec.members.items():
        seen: list[tuple[IPv4Network, int]] = []
        for i, p in enumerate(t.prefixes):
            net = IPv4Network(p.prefix)
            where = loaded.where("tenants", "members", name, "prefixes", i, "prefix")
            for key, pool in pools:
                if net.overlaps(pool):
                    raise InventoryError(f"tenant {name}: prefix {net} overlaps the fabric's {key} {pool}",
                                         hint="give the tenant a prefix outside the fabric's pools", **where)
            for other, j in seen:
                if net.overlaps(other):
                    raise InventoryError(f"tenant {name}: prefix {net} overlaps its prefixes[{j}] {other} (one VRF "
                                         "table, two owners)", hint="merge them or give them disjoint prefixes",
                                         **where)
            seen.append((net, i))
            if p.via not in t.servers:
                raise InventoryError(f"tenant {name}: prefix {net} via {p.via}, which is not one of its servers",
                                     hint=f"name a server of tenant {name}",
                                     **loaded.where("tenants", "members", name, "prefixes", i, "via"))


def leaf_routes(spec: Tenants, fabric: FabricModel) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(leaf, tenant) -> [(prefix, next hop)]: each prefix on every leaf of its server, to the server's rail
    address on that leaf (the server end of the leaf port's link)."""
    rails = {(s.name, r.leaf): r.ip for s in fabric.servers for r in s.rails}
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name, t in spec.members.items():
        for p in t.prefixes:
            for (srv, leaf), ip in rails.items():
                if srv == p.via:
                    out.setdefault((leaf, name), []).append((p.prefix, ip))
    return out
