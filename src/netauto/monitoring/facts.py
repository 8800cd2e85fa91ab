"""The design facts the monitoring alerts on, read from the resolved cluster: every BGP session, every cabled
port, every leaf uplink and every RoCE rail NIC, each with the labels an operator needs (device, port, peer,
peer port, rail, SU, network; `plane` on a fabric of compute planes: every plane's switches and NIC ports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from netauto.model.cluster import ClusterModel
from netauto.model.compute_planes import plane_of
from netauto.model.types import Switch
from netauto.platforms import telemetry as t


@dataclass(frozen=True, slots=True)
class Fact:
    """One expected thing: `labels` become the labels of its `netauto:*_expected` series and of its alerts."""

    kind: str  # "bgp_session" | "port" | "rail_nic"
    labels: tuple[tuple[str, str], ...]

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)


_PAIRS: dict[tuple[str, str], tuple[str, str]] = {}  # during `collect`: one tuple per distinct (label, value)


def _labels(**kv: object) -> tuple[tuple[str, str], ...]:
    """The labels of one fact. Their (label, value) pairs repeat fact after fact (network, role, rail, su, the
    device): each is one shared tuple, a quarter of the facts' memory (~500 MB -> ~130 MB at 100,000 GPUs)."""
    out = []
    for k, v in kv.items():
        if v is not None and v != "":
            pair = (k, v if type(v) is str else str(v))
            out.append(_PAIRS.setdefault(pair, pair))
    return tuple(out)


@dataclass(slots=True)
class Facts:
    sessions: list[Fact] = field(default_factory=list)
    ports: list[Fact] = field(default_factory=list)  # enabled, cabled switch ports (lossless ones: `lossless`)
    rail_nics: list[Fact] = field(default_factory=list)  # server NICs of lossless networks (RDMA counters)
    leaves_with_uplinks: list[str] = field(default_factory=list)

    def all(self) -> list[Fact]:
        return [*self.sessions, *self.ports, *self.rail_nics]


def _switch_facts(sw: Switch, network: str, out: Facts, plane: int | None = None) -> None:
    where = {"rail": sw.rail, "su": sw.su, "network": network, "plane": plane, "role": sw.role}
    for nb in sw.bgp.neighbors:
        out.sessions.append(Fact("bgp_session", _labels(device=sw.name, port=nb.interface, peer=nb.peer_device,
                                                        peer_port=nb.peer_port, **where)))
    if sw.bgp.upstream is not None:
        for up in sw.bgp.upstream.peers:
            out.sessions.append(Fact("bgp_session", _labels(device=sw.name, port=up.address, peer=up.router or "upstream",
                                                            peer_port=up.interface, **where)))
    # the MLAG peer's session, unless it is one of the BGP neighbours already (a duplicate rule: promtool's lint)
    if sw.mlag is not None and sw.mlag.session is not None \
            and all(nb.interface != sw.mlag.session.interface for nb in sw.bgp.neighbors):
        out.sessions.append(Fact("bgp_session", _labels(device=sw.name, port=sw.mlag.session.interface,
                                                        peer=sw.mlag.peer, peer_port=sw.mlag.session.interface, **where)))
    uplinks = 0
    tenant_of = {v.name: v.tenant or v.name for v in sw.vrfs}  # a SONiC leaf's VRF is Vrf_<tenant>: label the tenant
    for i in sw.interfaces:
        if not i.enabled or not i.peer_device:
            continue
        uplink = sw.role == "leaf" and i.kind == "fabric"
        uplinks += uplink
        out.ports.append(Fact("port", _labels(device=sw.name, port=i.name, peer=i.peer_device, peer_port=i.peer_port,
                                              kind=i.kind, lossless="true" if sw.qos.lossless else "false",
                                              uplink="true" if uplink else "false",
                                              tenant=tenant_of.get(i.vrf or ""), **where)))
    if uplinks > 1:
        out.leaves_with_uplinks.append(sw.name)


_KEPT: list[Any] = []  # [cluster, its Facts or None]: see `keep`


def keep(cluster: ClusterModel) -> None:
    """From now on `collect(cluster)` is computed once for this cluster object: for a caller that no longer
    changes it (`netauto render` after resolving: the incremental keys and the monitoring folder both read the
    facts, and the pool's workers, forked later, inherit them). One cluster at a time: the next call forgets it."""
    _KEPT[:] = [cluster, None]


def forget() -> None:
    """Drop the facts `keep` held (the render's parent, once its pool's workers have them: ~500 MB at 100k GPUs)."""
    _KEPT.clear()


def collect(cluster: ClusterModel) -> Facts:
    """Every network's facts (compute fabric, then each network), in model order (computed once for a cluster
    given to `keep`)."""
    if _KEPT and _KEPT[0] is cluster:
        if _KEPT[1] is None:
            _KEPT[1] = _collect(cluster)
        return _KEPT[1]
    return _collect(cluster)


def _collect(cluster: ClusterModel) -> Facts:
    try:
        return _collect_all(cluster)
    finally:
        _PAIRS.clear()


def _collect_all(cluster: ClusterModel) -> Facts:
    out = Facts()
    planes = len(cluster.compute_fabrics()) > 1
    for network, fabric in cluster.fabrics():
        plane = plane_of(network) if planes else None  # the `plane` label: only where there is more than one
        for sw in fabric.switches:
            if sw.nos in t.SCRAPED_NOS:  # a switch nothing scrapes has no series to compare with its intent
                _switch_facts(sw, network, out, plane)
        # RoCE counters are expected of the NICs netauto-roce-counters.sh reads: every compute plane's ports (a
        # lossless network's NICs have no counters script yet: an expected series nothing collects would alert
        # forever)
        if plane_of(network) is None:
            continue
        tenant_of = {s: tn.name for tn in fabric.tenants for s in tn.servers}  # inventory tenants: (a label)
        for srv in fabric.servers:
            for r in srv.rails:
                out.rail_nics.append(Fact("rail_nic", _labels(
                    device=srv.name, port=r.nic, rdma_device=r.rdma_device, rail=r.index, su=srv.su, peer=r.leaf,
                    peer_port=r.leaf_port, network=network, plane=plane, tenant=tenant_of.get(srv.name))))
    return out
