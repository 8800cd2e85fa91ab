"""What the fabric model expects of BGP multipath: per leaf, each other leaf's prefix and the ECMP width it
should be installed with (`lab check` and `verify` compare the routing tables against it)."""

from __future__ import annotations

from netauto.model.types import FabricModel
from netauto.netutil.ecmp import ecmp_width
from netauto.netutil.ip import overlaps

__all__ = ["expected_ecmp"]


def expected_ecmp(model: FabricModel, drained: set[str] | None = None) -> dict[str, dict[str, int]]:
    """leaf -> {prefix announced by another leaf: expected nexthop count}.

    A leaf reaches every other leaf's networks/aggregates over each enabled uplink to a spine that is not
    drained (graceful-shutdown makes its paths lose on local-pref, so they leave the multipath set).
    """
    drained = set(drained or ()) | {s.name for s in model.switches if s.bgp.graceful_shutdown}
    leaves = [s for s in model.switches if s.role == "leaf"]
    out: dict[str, dict[str, int]] = {}
    for leaf in leaves:
        width = ecmp_width((i.peer_device for i in leaf.fabric_ports if i.peer_device), leaf.bgp.maximum_paths,
                           drained)
        prefixes: dict[str, int] = {}
        for other in leaves:
            if other.name == leaf.name or other.bgp.graceful_shutdown:
                continue
            for p in [*other.bgp.networks, *other.bgp.aggregates]:
                if any(overlaps(own, p) for own in [*leaf.bgp.networks, *leaf.bgp.aggregates]):
                    continue
                prefixes[p] = width
        out[leaf.name] = prefixes
    return out
