"""Kubernetes' view of the fabric: node labels as NVIDIA Topograph names them, from the source of truth.

Topograph (github.com/NVIDIA/topograph, docs/k8s.md) labels each node with its place in the network tree:
`network.topology.nvidia.com/block` (the switches directly connected to compute nodes), `.../spine` (the tier
above), `.../datacenter` (the tier above that); `.../accelerator` is the NVLink domain, which the network source
of truth does not know, so it is not written. Here the block is the SU's rail group (`su<N>`), the spine level
the pod (`pod<P>`), the datacenter level the super-spines (`fabric`, three-tier only): the tree of
`netauto export slurm-topology`. The output is a POSIX sh script of `kubectl label node --overwrite` lines;
node names and values are hostnames and `su<N>`/`pod<P>` (letters, digits, '-': valid label values, no quoting
needed, nothing the shell expands).
"""

from __future__ import annotations

from netauto.export.tree import tree
from netauto.model.cluster import ClusterModel

PREFIX = "network.topology.nvidia.com"  # NVIDIA Topograph docs/k8s.md
BLOCK, SPINE, DATACENTER = f"{PREFIX}/block", f"{PREFIX}/spine", f"{PREFIX}/datacenter"


def node_labels(cluster: ClusterModel) -> dict[str, dict[str, str]]:
    """node -> its Topograph labels."""
    t = tree(cluster)
    out: dict[str, dict[str, str]] = {}
    for su, names in t.nodes.items():
        labels = {BLOCK: f"su{su}", SPINE: f"pod{t.pod_of(su)}"} | ({DATACENTER: "fabric"} if t.three_tier else {})
        out.update({name: dict(labels) for name in names})
    return out


def label_script(cluster: ClusterModel) -> str:
    lines = ["#!/bin/sh",
             f"# Node labels of fabric {cluster.compute.name} as NVIDIA Topograph names them (docs/compute-planes.md),",
             "# written by `netauto export k8s-topology`; run with a kubeconfig that may label nodes.",
             "set -eu"]
    for node, labels in node_labels(cluster).items():
        lines.append(f"kubectl label node --overwrite {node} " + " ".join(f"{k}={v}" for k, v in labels.items()))
    return "\n".join(lines) + "\n"
