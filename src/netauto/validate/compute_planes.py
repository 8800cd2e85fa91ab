"""Validation of compute planes 2.. (docs/compute-planes.md): each plane is a `FabricModel`, so the fabric rules
and the route simulation run on each plane by itself, as on plane 1; then the rules across the planes.

  PLANE-02 (validate.networks) no cable or BGP session joins two planes (each plane is a network of the cluster)
  CPLANE-01 QoS (DSCP map, PFC priorities, ECN, ETS) and adaptive routing identical on every plane's switches
  CPLANE-02 every server's NIC ports: each on exactly one plane, with routing tables and rule priorities of its own
            plane (read across the planes' netplan files), and NCCL_IB_HCA lists every plane port (swplb)
  CPLANE-03 the plane mode the same in the inventory, the NIC template, the netplan files and NCCL (validate.plane_mode)
Servers' plane-p files live at per-network paths (etc/netplan/61-compute-p<p>.yaml ...): the plane's view reads
them where the rules expect the compute files, and findings name the real path again.
"""

from __future__ import annotations

from dataclasses import replace

from netauto.model.cluster import ClusterModel
from netauto.model.compute_planes import NETWORK
from netauto.model.types import FabricModel
from netauto.platforms.host import HostFiles
from netauto.validate.files import FileSet
from netauto.validate.findings import CHECKS, Finding
from netauto.validate.networks import _adjacency, default_routes, network_paths
from netauto.validate.plane_mode import check_plane_mode
from netauto.validate.state import ParsedFabric, SwitchState
from netauto.validate.view import build_view
from netauto.validate.fabric_run import rules_and_simulation

CPLANE_CHECKS = {
    "CPLANE-01": "QoS or adaptive routing differs between compute planes (every plane carries the same RoCE traffic)",
    "CPLANE-02": "a server NIC port on two compute planes, a routing table or rule priority of two planes' ports, or "
                 "NCCL_IB_HCA missing a plane port",
}
CHECKS.update(CPLANE_CHECKS)


def _fileset(files: FileSet, net: str, fabric: FabricModel) -> FileSet:
    out: dict[str, dict[str, str]] = {sw.name: files.files[sw.name] for sw in fabric.switches if sw.name in files.files}
    for compute_path, path in network_paths(net).items():
        for srv in fabric.servers:
            text = files.get(srv.name, path)
            if text is not None:
                out.setdefault(srv.name, {})[compute_path] = text
    return FileSet(out, files.root)


def plane_views(cluster: ClusterModel, files: FileSet) -> dict[str, ParsedFabric]:
    views: dict[str, ParsedFabric] = {}
    for net, fab in cluster.fabrics()[1:1 + len(cluster.compute_planes)]:
        view = build_view(fab, _fileset(files, net, fab))
        view.provisioning = False  # NCCL and firmware are plane 1's files (they list every plane's ports)
        view.host_files = HostFiles(net)
        views[net] = view
    return views


def _qos_ar(st: SwitchState) -> tuple[object, ...]:
    q = st.qos
    return (sorted(q.dscp_to_prio.items()), sorted(q.pfc_prios), sorted(q.ecn.items()), sorted(q.ets.items()),
            st.ar_global)


def same_qos(views: dict[str, ParsedFabric]) -> list[Finding]:
    """CPLANE-01: every switch of every plane renders the QoS and AR of the same-role switch on plane 1."""
    found: list[Finding] = []
    first = views.get("compute")
    if first is None:
        return found
    want: dict[str, tuple[object, ...]] = {}
    for name, st in first.switches.items():
        want.setdefault(first.intent(name).role, _qos_ar(st))
    for net, view in views.items():
        for name, st in view.switches.items():
            role = view.intent(name).role
            if role in want and _qos_ar(st) != want[role]:
                found.append(Finding("CPLANE-01", "error", name,
                                     f"QoS or adaptive routing of this {role} ({net}) differs from plane 1's {role}s: "
                                     "every compute plane carries the same RoCE traffic", st.files.get("qos")))
    return found


def ports_apart(cluster: ClusterModel, compute_view: ParsedFabric) -> list[Finding]:
    """CPLANE-02: no NIC port or RDMA device of a server on two planes."""
    found: list[Finding] = []
    seen: dict[tuple[str, str], str] = {}
    for net, fab in cluster.fabrics()[:1 + len(cluster.compute_planes)]:
        for srv in fab.servers:
            for rail in srv.rails:
                for value in (rail.nic, rail.rdma_device):
                    other = seen.setdefault((srv.name, value), net)
                    if other != net:
                        found.append(Finding("CPLANE-02", "error", srv.name,
                                             f"{value} is on {other} and {net}: each NIC port is on exactly one plane"))
    return found


def tables_apart(views: dict[str, ParsedFabric]) -> list[Finding]:
    """CPLANE-02: no routing table or rule priority of a server shared by two planes' ports (HOST-02 reads one
    plane's netplan file: a plane-2 port in a plane-1 table puts its routes into that plane-1 port's lookups)."""
    found: list[Finding] = []
    seen: dict[tuple[str, str, object], tuple[str, str]] = {}  # (server, what, value) -> (port, network)
    for net, view in views.items():
        path = HostFiles(None if net == NETWORK else net).netplan
        for dev, srv in view.servers.items():
            for nic in srv.nics.values():
                used = {("routing table", r.get("table")) for r in nic.routes + nic.policies}
                used |= {("rule priority", p.get("priority")) for p in nic.policies}
                for what, value in sorted((w, v) for w, v in used if v is not None and isinstance(v, int)):
                    port, other = seen.setdefault((dev, what, value), (nic.name, net))
                    if other != net:
                        found.append(Finding("CPLANE-02", "error", dev, f"{what} {value} of {nic.name} ({net}) is "
                                             f"also {port}'s ({other}): each plane's ports route by their own", path))
    return found


def check_compute_planes(cluster: ClusterModel, compute_view: ParsedFabric, files: FileSet, *, simulate: bool = True,
                         drain: list[str] | None = None) -> tuple[list[Finding], list[str]]:
    """Fabric rules and route simulation per compute plane, then CPLANE-01/02 and PLANE-02 across them."""
    findings: list[Finding] = []
    notes: list[str] = []
    views = plane_views(cluster, files)
    for net, view in views.items():
        names = {s.name for s in view.model.switches}
        checked = rules_and_simulation(view, simulate=simulate, drain=[d for d in (drain or []) if d in names])
        found = view.problems + checked.findings + (checked.sim.findings if checked.sim else [])
        notes += [f"{net}: {n}" for n in (checked.sim.notes if checked.sim else [])]
        back = {k: v for k, v in network_paths(net).items()}
        findings += [replace(f, file=back.get(f.file, f.file)) if f.file in back else f for f in found]
    every = {"compute": compute_view, **views}
    network_of = {sw.name: net for net, v in every.items() for sw in v.model.switches}
    findings += _adjacency(cluster, every, network_of) + same_qos(every) + ports_apart(cluster, compute_view)
    findings += tables_apart(every)
    if cluster.networks or cluster.oob:  # PLANE-05's host half, as validate.networks runs it on plane 1
        findings += default_routes(cluster, views)
    findings += check_plane_mode(cluster, files)  # CPLANE-03: NIC template, netplan and NCCL show one mode
    notes.append(f"ran: fabric rules{' and route simulation' if simulate else ''} on compute planes "
                 f"{', '.join(views)}; PLANE-02, CPLANE-01..03 across the {len(every)} planes")
    return findings, notes


def plane_hca(cluster: ClusterModel) -> dict[str, list[str]]:
    """server -> the RDMA devices of its ports on compute planes 2.. (NCCL-01 expects them in NCCL_IB_HCA)."""
    out: dict[str, list[str]] = {}
    for fab in cluster.compute_planes:
        for srv in fab.servers:
            out.setdefault(srv.name, []).extend(r.rdma_device for r in srv.rails)
    return out
