"""The ECMP width BGP installs: one pure function (the lab's and verify's expectation per leaf and the route
simulation's intended width all ask it).

FRR bgpd (bgp_mpath.c, docs "maximum-paths"): of equal-cost paths, at most `maximum-paths` enter the
multipath set. A path over a switch in graceful shutdown (GSHUT community -> local-pref 0) loses the
best-path comparison, so it leaves the set.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

__all__ = ["ecmp_width"]


def ecmp_width(next_hops: Iterable[str], maximum_paths: int, drained: Collection[str] = ()) -> int:
    """How many of the equal paths (one per link, named by the device at its far end) BGP installs: those not
    through a drained device, at most `maximum_paths`."""
    return min(sum(1 for hop in next_hops if hop not in drained), maximum_paths)
