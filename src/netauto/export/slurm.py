"""Slurm's view of the fabric: topology.conf for the topology/tree plugin (slurm.conf TopologyPlugin=topology/tree).

Slurm's tree wants every node under exactly one lowest-level switch and each switch under one parent
(topology.conf(5): "SwitchName", "Nodes", "Switches"; a node under two leaf switches is an error). A GPU server of a
rail-optimized fabric is cabled to every rail leaf of its scalable unit, so the lowest level is the SU's rail
group (`su<N>`: every server of SU N, over all its rail leaves), the pod's spines above it (`pod<P>`), the
super-spines on top (`fabric`, three-tier only). Every compute plane is built from the same topology by the same
builder (model.compute_planes), so the planes have the same tree and one file describes all of them. Names are
logical groups, never device names: Slurm places jobs by the tree's shape, it never reaches a switch.
"""

from __future__ import annotations

from netauto.model.cluster import ClusterModel

HEADER = ("# topology.conf for Slurm topology/tree, written by `netauto export slurm-topology` from fabric {name}\n"
          "# ({planes} compute plane(s), each with this shape); do not edit: re-export after a topology change.\n")


def topology_conf(cluster: ClusterModel) -> str:
    """topology.conf text: one line per SU rail group, per pod, and the fabric line of a three-tier fabric."""
    fab = cluster.compute
    pod_of_su = {sw.su: sw.pod for sw in fab.switches if sw.role == "leaf" and sw.su is not None}
    nodes: dict[int, list[str]] = {}
    for srv in fab.servers:
        nodes.setdefault(srv.su, []).append(srv.name)
    lines = [HEADER.format(name=fab.name, planes=1 + len(cluster.compute_planes))]
    for su in sorted(nodes):
        lines.append(f"SwitchName=su{su} Nodes={','.join(nodes[su])}\n")
    pods: dict[int, list[int]] = {}
    for su in sorted(nodes):
        pods.setdefault(pod_of_su[su], []).append(su)
    for pod, sus in sorted(pods.items()):
        lines.append(f"SwitchName=pod{pod} Switches={','.join(f'su{s}' for s in sus)}\n")
    if any(sw.role == "super_spine" for sw in fab.switches):
        lines.append(f"SwitchName=fabric Switches={','.join(f'pod{p}' for p in sorted(pods))}\n")
    return "".join(lines)
