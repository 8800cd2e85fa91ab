"""Expand the source of truth into the resolved model, once, deterministically: the one resolver entry.

`resolve_cluster` builds the compute fabric (model.compute: checks, portplan, profiles, naming, topology,
numbering, addressing, switches, wiring, servers, hosts, qos), the networks, server groups and OOB network beside
it (model.networks), applies `cabling:` once to every link of every network (model.cabling), and resolves the
pods' RDMA networks (model.kubernetes). `resolve` is its compute fabric. Every number a device gets is a
function of its identity (`numbering`), so the model does not depend on the order devices are built in. Order
of everything in the output (devices, ports, neighbours, links) follows the numbering of the topology, never
dict or set iteration of unordered data, so the same inventory always yields byte-identical output.
"""

from __future__ import annotations

from netauto.inventory.loader import LoadedInventory
from netauto.model import cabling, consistency
from netauto.model.cluster import ClusterModel
from netauto.model.compute import build, checked
from netauto.model.compute_planes import build_planes
from netauto.model.kubernetes_planes import resolve_planes
from netauto.model.numbering import MGMT_FIRST_HOST
from netauto.model.networks import resolve_cluster as resolve_networks
from netauto.model.tenants import apply_tenants
from netauto.model.topology import Counts
from netauto.model.types import FabricModel
from netauto.model.unique import check_unique

__all__ = ["MGMT_FIRST_HOST", "build", "checked", "resolve", "resolve_cluster"]


def resolve_cluster(loaded: LoadedInventory, *, allow_huge: bool | None = None) -> ClusterModel:
    """The compute fabric and every network, OOB network and server group beside it, every link with its length
    and every lossless port with headroom for it, and the pods' RDMA networks. Refuses fabrics beyond `limits`
    unless `allow_huge` (default: NETAUTO_ALLOW_HUGE)."""
    n = Counts.of(loaded.inventory)
    count = loaded.inventory.topology.compute_planes.count
    consistency.check_size(count * (n.leaves + n.spines + n.super_spines), n.servers, loaded.where("topology"),
                           allow_huge, "this topology")  # again after every expansion (server groups, networks, OOB)
    fabrics = build_planes(loaded)  # one fabric per compute plane, each by model.compute (docs/compute-planes.md)
    cluster = resolve_networks(loaded, fabrics[0], fabrics[1:])
    cluster.plane_balancing = loaded.inventory.topology.compute_planes.balancing
    apply_tenants(loaded, cluster.compute)  # tenant VRFs on the compute leaves, EVPN on its sessions
    check_unique(loaded, cluster)  # one holder per address across every network (overrides can collide)
    cabling.apply(loaded, cluster)  # once, to the whole cluster: a network's link or device may be named
    cluster.kubernetes = resolve_planes(loaded, cluster.compute, cluster.compute_planes)  # per plane: swplb
    return cluster


def resolve(loaded: LoadedInventory, *, allow_huge: bool | None = None) -> FabricModel:
    """The compute fabric of `resolve_cluster` (the same model, the same cable lengths)."""
    return resolve_cluster(loaded, allow_huge=allow_huge).compute
