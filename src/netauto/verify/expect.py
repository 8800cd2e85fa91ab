"""What the running network must look like, derived from the resolved model (no device access)."""

from __future__ import annotations

from dataclasses import dataclass, field

from netauto.model.ecmp import expected_ecmp
from netauto.model.types import FabricModel


@dataclass(slots=True)
class PortPeer:
    device: str
    port: str


@dataclass(slots=True)
class Intent:
    """Per-device expectations of one network (the compute fabric or a network, each its own FabricModel);
    `present` are the devices that exist where we verify (all, or a lab's)."""

    model: FabricModel
    present: set[str]
    network: str = "compute"
    # device -> its ports cabled in the cluster's other networks (a server's network NICs seen from the compute
    # fabric, its rails seen from a network): LLDP there is that network's business, not "not in the plan" here
    elsewhere: dict[str, set[str]] = field(default_factory=dict)
    cabling: dict[str, dict[str, PortPeer | None]] = field(default_factory=dict)  # device -> port -> peer (None: disabled)
    sessions: dict[str, dict[str, PortPeer]] = field(default_factory=dict)  # switch -> interface -> peer
    ecmp: dict[str, dict[str, int]] = field(default_factory=dict)  # leaf -> prefix -> kernel next hops
    drained: set[str] = field(default_factory=set)  # drained by intent (bgp graceful-shutdown in the inventory)


def build_intent(model: FabricModel, present: set[str] | None = None, network: str = "compute",
                 elsewhere: dict[str, set[str]] | None = None) -> Intent:
    present = set(model.device_names()) if present is None else present
    it = Intent(model=model, present=present, network=network, elsewhere=dict(elsewhere or {}))
    for link in model.links:
        for a, ap, b, bp in ((link.a_device, link.a_port, link.b_device, link.b_port),
                             (link.b_device, link.b_port, link.a_device, link.a_port)):
            it.cabling.setdefault(a, {})[ap] = PortPeer(b, bp) if link.enabled else None
    enabled = {(d, p) for d, ports in it.cabling.items() for p, peer in ports.items() if peer is not None}
    for sw in model.switches:
        live = set(enabled)
        m = sw.mlag
        if m is not None and m.session is not None and any((sw.name, p) in enabled for p in m.peerlink_members):
            live.add((sw.name, m.session.interface))  # the MLAG pair's session rides the peerlink LAG, not a cable
        it.sessions[sw.name] = {n.interface: PortPeer(n.peer_device, n.peer_port) for n in sw.bgp.neighbors
                                if (sw.name, n.interface) in live or not model.links}
    it.drained = {s.name for s in model.switches if s.bgp.graceful_shutdown}
    it.ecmp = expected_ecmp(model)
    return it


def cabled_ports(model: FabricModel) -> dict[str, set[str]]:
    """device -> its ports on a cable of `model` (both ends of every link, enabled or not)."""
    out: dict[str, set[str]] = {}
    for link in model.links:
        out.setdefault(link.a_device, set()).add(link.a_port)
        out.setdefault(link.b_device, set()).add(link.b_port)
    return out


def build_intents(networks: list[tuple[str, FabricModel]], present: set[str] | None = None) -> list[Intent]:
    """One intent per network of a cluster (`ClusterModel.fabrics()`), each knowing which ports of its devices
    the other networks cable."""
    cabled = {net: cabled_ports(fab) for net, fab in networks}
    out = []
    for net, fab in networks:
        elsewhere: dict[str, set[str]] = {}
        for other, ports in cabled.items():
            if other != net:
                for dev in fab.device_names():
                    elsewhere.setdefault(dev, set()).update(ports.get(dev, ()))
        out.append(build_intent(fab, present, net, {d: p for d, p in elsewhere.items() if p}))
    return out
