"""Docs of a cluster with networks: every network gets the fabric document of its own (same generator as the
compute fabric, in <out>/<network>/), plus networks.md (what runs beside what, pools, QoS, the OOB network
and BMC addresses) and cabling-cluster.csv (every cable of every network, with a `network` column)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from netauto.docs.markdown import _table
from netauto.docs.writer import DocsResult, _write, write_docs
from netauto.model.cluster import ClusterModel
from netauto.racks import to_csv as racks_csv, to_svg as racks_svg


def cluster_cabling_csv(cluster: ClusterModel) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(("a_device", "a_port", "b_device", "b_port", "speed", "kind", "state", "network"))
    for l in cluster.all_links():
        writer.writerow((l.a_device, l.a_port, l.b_device, l.b_port, l.speed, l.kind,
                         "enabled" if l.enabled else "disabled", l.network))
    return buf.getvalue()


def networks_markdown(cluster: ClusterModel) -> str:
    rows: list[list[object]] = [["compute", "compute", "lossless", str(len(cluster.compute.switches)), str(len(cluster.compute.servers)),
             str(len(cluster.compute.cables())), ", ".join(f"{k} {v}" for k, v in cluster.compute_pools.items())]]
    for p in cluster.networks:
        rows.append([p.name, p.role, p.qos, str(len(p.fabric.switches)), str(len(p.fabric.servers)),
                     str(len(p.fabric.cables())), ", ".join(f"{k} {v}" for k, v in p.pools.items())])
    lines = [f"# {cluster.name}: networks", "",
             "Physically separate networks; netauto refuses shared addresses, cables or routes between them "
             "(`netauto validate`, rules PLANE-01..07).", "",
             *_table(["network", "role", "QoS", "switches", "servers", "links", "pools"], rows)]
    if cluster.groups:
        lines += ["## Server groups", "", *_table(["server", "group", "management"],
                                                   [[g.name, g.group, g.mgmt_address] for g in cluster.groups])]
    if cluster.oob:
        o = cluster.oob
        lines += ["## Out-of-band network", "",
                  f"BMC pool {o.bmc_pool}, OOB switch pool {o.switch_pool}. Every OOB switch gets an NVUE "
                  "startup.yaml: access ports untagged in the VLAN of their device's management pool, an LACP "
                  "uplink to the aggregation, which answers every pool's gateway (VRR on the MLAG pair) and routes "
                  "nothing into the compute, storage or frontend networks (`netauto validate`: OOB-01..04).", "",
                  *_table(["VLAN", "carries", "pool", "gateway"],
                          [[str(v.vlan), v.network, v.pool, v.gateway] for v in o.vlans]),
                  *_table(["switch", "role", "management"], [[s.name, s.role, s.mgmt_address] for s in o.switches]),
                  *_table(["server", "BMC address", "gateway"], [[b.device, b.address, b.gateway] for b in o.bmcs])]
    return "\n".join(lines)


def write_cluster_docs(cluster: ClusterModel, out: Path, *, svg: bool = True) -> DocsResult:
    result = DocsResult(svg=svg)
    out.mkdir(parents=True, exist_ok=True)
    for net, fab in cluster.fabrics()[1:1 + len(cluster.compute_planes)]:  # compute planes 2.. in OUTPUT/compute-p<p>/
        result.files += write_docs(fab, out / net, svg=svg).files
    for p in cluster.networks:
        sub = write_docs(p.fabric, out / p.name, svg=svg)
        result.files += sub.files
    _write(out / "networks.md", networks_markdown(cluster), result)
    _write(out / "cabling-cluster.csv", cluster_cabling_csv(cluster), result)
    return result


def write_hall_docs(cluster: ClusterModel, out: Path) -> DocsResult:
    """The data hall (inventory `hall:`): racks.svg (floor plan and rack elevations, drawn here: no Graphviz)
    and racks.csv (one row per device), as `netauto plan racks` prints them."""
    result = DocsResult(svg=True)
    if cluster.hall is not None:
        out.mkdir(parents=True, exist_ok=True)
        _write(out / "racks.svg", racks_svg(cluster.hall), result)
        _write(out / "racks.csv", racks_csv(cluster.hall), result)
    return result
