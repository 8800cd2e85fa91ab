"""The resolved fabric model: everything a template or a validator needs, already computed.

Addresses are stored as strings ("10.0.0.0/31") so templates never do IP arithmetic and the model
serialises straight to JSON/YAML for `netauto show model`.

One module per concern (links, routing, qos, layer2, switch, hosts); the fabric itself is here, and every type
is importable from `netauto.model.types`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from netauto.model.types.hosts import FirmwareSetting, HostBond, Nccl, Rail, Server
from netauto.model.types.layer2 import BondPort, EthernetSegment, Evpn, Mlag, PeerSession, Svi, TenantVrf, Vtep
from netauto.model.types.links import CageBreakout, IfKind, Interface, Link, LinkKind, Role, Route
from netauto.model.types.qos import EtsClass, Qos, VxlanQos, pfc_profile_name
from netauto.model.types.routing import Bfd, Bgp, BgpNeighbor, PeerGroup, PrefixRule, Upstream, UpstreamPeer
from netauto.model.types.switch import Switch, SwitchTelemetry

__all__ = [
    "Bfd", "Bgp", "BgpNeighbor", "BondPort", "CageBreakout", "EthernetSegment", "EtsClass", "Evpn",
    "FabricModel", "FirmwareSetting", "HostBond", "IfKind", "Interface", "Link", "LinkKind", "Mlag", "Nccl",
    "PeerGroup", "PeerSession", "PrefixRule", "Qos", "Rail", "Role", "Route", "Server", "Svi", "Switch",
    "SwitchTelemetry", "Tenant", "TenantVrf", "Upstream", "UpstreamPeer", "Vtep", "VxlanQos", "pfc_profile_name",
]


@dataclass(slots=True)
class Tenant:
    """A customer of the fabric: whole servers, one VRF (its name) with one L3VNI and route target."""

    name: str
    vni: int
    route_target: str
    servers: list[str]
    vni_from: str  # "pinned" (inventory vni:) or "hashed" (its name hashed into the pool)


@dataclass(slots=True)
class FabricModel:
    name: str
    host_link_mode: str
    host_pool: str
    rail_supernets: list[str]
    switches: list[Switch]
    servers: list[Server]
    links: list[Link]
    oversubscription: float = 1.0  # topology.oversubscription: downlink:uplink bandwidth allowed per switch
    # cables to devices outside the cluster (kind "upstream": the frontend's exit, b end = the site router by its
    # inventory name and port). Cabled, counted and documented (cables()), but no lab veth, LLDP expectation
    # or fabric rule reads them: those walk `links`, whose both ends are devices of this model.
    exit_links: list[Link] = field(default_factory=list)
    tenants: list["Tenant"] = field(default_factory=list)  # inventory tenants: (model.tenants)
    _switch_index: dict[str, Switch] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._switch_index = {s.name: s for s in self.switches}

    def switch(self, name: str) -> Switch:
        return self._switch_index[name]

    def device_names(self) -> list[str]:
        return [s.name for s in self.switches] + [s.name for s in self.servers]

    def cables(self) -> list[Link]:
        """Every physical link of this network: the links inside it, then its exit links (cabling plan, bill of
        materials, docs and growth plan all read this)."""
        return self.links + self.exit_links

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_switch_index", None)
        return data
