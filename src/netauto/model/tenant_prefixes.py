"""Tenant-owned prefixes (inventory `tenants.members.<t>.prefixes`; docs/tenants.md, "Tenant-owned prefixes").

A tenant may own prefixes of its own (its storage or service subnets), each held by one of its servers: on every
leaf of that server, a static route in the tenant's VRF to the server's rail address on that leaf, redistributed
into the VRF's BGP and so exported as a type-5 route with the tenant's route target (validate: the per-VRF route
simulation counts them as the tenant's origins, SIM-04/05). Two tenants may own the same or overlapping prefixes:
each lives in its own VRF's table. Refused, in one line naming both: two prefixes of one tenant that overlap (one
VRF table, two owners), and a prefix overlapping one of the cluster's own pools (the compute fabric's loopbacks
and VTEP addresses, host links and management; the storage and frontend networks' pools and upstream links; the
OOB pools): a tenant's route there would shadow the cluster's own addresses in that VRF or on its servers.
"""

from __future__ import annotations

from ipaddress import IPv4Network

from netauto.errors import InventoryError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.tenants import Tenants
from netauto.model.border import upstream_subnets
from netauto.model.types import FabricModel


def fabric_pools(loaded: LoadedInventory) -> list[tuple[str, IPv4Network]]:
    """(key, prefix) of the address pools a tenant prefix may not overlap: the compute fabric's, then every other
    network's of the cluster (storage, frontend and their upstream links, OOB): the tenant's servers sit on those
    networks too, and model.networks keeps them apart from the compute fabric's."""
    inv = loaded.inventory
    a = inv.addressing
    pools = [(f"addressing.{k}", IPv4Network(v)) for k, v in (
        ("loopbacks.leaf", a.loopbacks.leaf), ("loopbacks.spine", a.loopbacks.spine),
        ("loopbacks.super_spine", a.loopbacks.super_spine), ("host_links.pool", a.host_links.pool),
        ("management.switch_pool", a.management.switch_pool), ("management.server_pool", a.management.server_pool))]
    for name, network in (inv.networks or {}).items():
        n = network.addressing
        pools += [(f"networks.{name}.addressing.{k}", IPv4Network(v)) for k, v in (
            ("leaf_loopbacks", n.leaf_loopbacks), ("spine_loopbacks", n.spine_loopbacks), ("host_pool", n.host_pool),
            ("switch_mgmt_pool", n.switch_mgmt_pool))]
        pools += [(f"networks.{name}.upstream.links[{i}].address", net) for i, net in upstream_subnets(network)]
    if inv.oob is not None:
        pools += [("oob.bmc_pool", IPv4Network(inv.oob.bmc_pool)), ("oob.switch_pool", IPv4Network(inv.oob.switch_pool))]
    return pools


def check_prefixes(loaded: LoadedInventory, spec: Tenants) -> None:
    pools = fabric_pools(loaded)
    for name, t in spec.members.items():
        seen: list[tuple[IPv4Network, int]] = []
        for i, p in enumerate(t.prefixes):
            net = IPv4Network(p.prefix)
            where = loaded.where("tenants", "members", name, "prefixes", i, "prefix")
            for key, pool in pools:
                if net.overlaps(pool):
                    whose = "fabric" if key.startswith("addressing.") else "cluster"
                    raise InventoryError(f"tenant {name}: prefix {net} overlaps the {whose}'s {key} {pool}",
                                         hint="give the tenant a prefix outside the cluster's pools", **where)
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
