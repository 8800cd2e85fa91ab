"""One device's best route towards one origin in the route simulation: made by validate.routesim's propagation,
tallied by validate.reachability. A module of its own so neither imports the other for it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RouteState"]


@dataclass(slots=True)
class RouteState:
    key: tuple[int, int]  # (tainted by GSHUT, AS-path length)
    path: tuple[int, ...]
    tainted: bool
    width: int  # ECMP members (links)
    via: tuple[str, ...]  # next-hop devices
