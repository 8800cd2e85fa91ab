"""Ports, cables and routes: a switch's interfaces, its split cages, the links between devices and the routes
a host or switch installs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Role = Literal["leaf", "spine", "super_spine"]
IfKind = Literal["fabric", "host", "peerlink", "upstream"]
# "upstream": a frontend aggregation switch to a site router (networks.<name>.upstream.links); the far end is no
# device of the cluster, so these links live in FabricModel.exit_links, not in FabricModel.links
LinkKind = Literal["leaf-spine", "spine-superspine", "server-leaf", "oob-access", "oob-uplink", "mlag-peerlink",
                   "upstream", "mlag-backup"]


@dataclass(slots=True)
class Interface:
    name: str
    kind: IfKind
    speed: str
    speed_mbps: int
    mtu: int
    fec: str | None
    enabled: bool
    peer_device: str | None
    peer_port: str | None
    description: str
    address: str | None = None  # "10.0.0.0/31" (p2p host link); None on unnumbered fabric ports
    access_vlan: int | None = None  # leaf-subnet mode: host ports are access ports of the rail VLAN
    adaptive_routing: bool = False
    pfc: bool = True
    pfc_watchdog: bool = False
    breakout_parent: str | None = None  # "swp1" for "swp1s0"
    cage: int | None = None  # 1-based front-panel cage (SONiC: HWSKU lanes and alias)
    subport: int | None = None  # breakout sub-port, 0-based; None when the cage is not split
    breakout: int = 1  # how many ways the cage is split
    lanes: list[int] = field(default_factory=list)  # the SerDes lanes of this port (platforms.hardware)
    # 1000BASE-T (an RJ45 port): the speed comes from auto-negotiation, which the standard requires (IEEE 802.3
    # clause 40); never forced (CL <= 5.13 turns auto-negotiation off when `link speed` is set)
    autoneg_only: bool = False
    # metres of the cable on this port (its link's length: model.cabling.link_length); sizes its PFC headroom.
    # 0 before cabling ran (then the fabric's cable_length_m applies)
    cable_length_m: int = 0
    vrf: str | None = None  # a tenant's server-facing port: the tenant's VRF (model.tenants); None: the default VRF


@dataclass(frozen=True, slots=True)
class CageBreakout:
    parent: str  # "swp1"
    cage: int
    ways: int  # 2 for swp1s0/swp1s1
    lanes_per_port: int


@dataclass(slots=True)
class Route:
    to: str
    via: str | None
    table: int | None = None
    scope: str | None = None
    metric: int | None = None


@dataclass(slots=True)
class Link:
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    speed: str
    kind: LinkKind
    enabled: bool = True
    network: str = "compute"  # "compute", a network name or "oob"
    length_m: int = 0  # cable metres (model.cabling.link_length): the one length headroom and bill read
    length_from: str = ""  # where the length comes from: "cabling.links", "sites", "hall", "bom", "fabric"
    length_key: tuple[str, ...] = ()  # the inventory key that gives it (errors name it)
