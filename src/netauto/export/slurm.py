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

from netauto.export.tree import tree
from netauto.model.cluster import ClusterModel

HEADER = ("# topology.conf for Slurm topology/tree, written by `netauto export slurm-topology` from fabric {name}\n"
          "# ({planes} compute plane(s), each with this shape); do not edit: re-export after a topology change.\n")


def topology_conf(cluster: ClusterModel) -> str:
    """topology.conf text: one line per SU rail group, per pod, and the fabric line of a three-tier fabric."""
    t = tree(cluster)
    lines = [HEADER.format(name=cluster.compute.name, planes=1 + len(cluster.compute_planes))]
    lines += [f"SwitchName=su{su} Nodes={','.join(names)}\n" for su, names in t.nodes.items()]
    lines += [f"SwitchName=pod{pod} Switches={','.join(f'su{s}' for s in sus)}\n" for pod, sus in t.pods.items()]
    if t.three_tier:
        lines.append(f"SwitchName=fabric Switches={','.join(f'pod{p}' for p in t.pods)}\n")
    return "".join(lines)
