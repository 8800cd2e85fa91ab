"""The route simulation's records: a device of the simulated graph (`Node`, built by validate.routesim, read by
validate.vrf_reach) and one device's best route towards one origin (`RouteState`: made by routesim's
propagation, tallied by validate.reachability). A module of their own so none of those imports another for them."""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Network

from netauto.formats.frr import FrrConf

__all__ = ["Node", "RouteState"]


@dataclass(slots=True)
class Node:
    name: str
    role: str
    asn: int
    conf: FrrConf
    gshut: bool
    prepend: bool  # FABRIC-OUT prepends on GSHUT-tagged routes
    relax: bool
    max_paths: int
    adj: dict[str, int] = field(default_factory=dict)  # peer -> parallel sessions
    connected: list[IPv4Network] = field(default_factory=list)


@dataclass(slots=True)
class RouteState:
    key: tuple[int, int]  # (tainted by GSHUT, AS-path length)
    path: tuple[int, ...]
    tainted: bool
    width: int  # ECMP members (links)
    via: tuple[str, ...]  # next-hop devices
