"""Kubernetes' view of the fabric: node labels as NVIDIA Topograph names them, from the source of truth.

Topograph v1.0.0 (github.com/NVIDIA/topograph, tag v1.0.0 of 2026-08-18: pkg/topology/topology.go
`KeyFabricTierPrefix = "fabric.topograph.run/tier-"`, docs/reference/node-labels.md) labels each node with its
place in the network tree, closest switch first: `fabric.topograph.run/tier-0` ("the switch closest to the node"),
`tier-1` the next switch tier outward, `tier-2` the one after. Its CHANGELOG marks this BREAKING: the labels of
v0.3-v0.5 (`network.topology.nvidia.com/{leaf,spine,core}`) and before (`.../{block,spine,datacenter}`) are gone, so
schedulers configured for Topograph 1.x (KAI Scheduler, Kueue TAS) look for these keys. The accelerator domain
(`accelerator.topograph.run/domain`, the NVLink domain) is not the network source of truth's to know and is not
written. Here tier 0 is the SU's rail group (`su<N>`), tier 1 the pod (`pod<P>`), tier 2 the super-spines
(`fabric`, three-tier only): the tree of `netauto export slurm-topology`. The output is a POSIX sh script of
`kubectl label node --overwrite` lines; node names and values are hostnames and `su<N>`/`pod<P>` (letters, digits,
'-': valid label values, no quoting needed, nothing the shell expands).

The script owns its keys (`OWNED`): each node's line also removes (`KEY-`, kubectl label's removal spec) every
owned key it does not set: a tier the fabric no longer has (tier-2 after a three-tier fabric became two-tier)
and the keys older netauto versions wrote, so a scheduler never reads a stale tier next to the current one.
kubectl (`kubectl label --help`: "removing a label named 'bar' if it exists: kubectl label pods foo bar-", no
--overwrite needed; kubernetes/kubectl pkg/cmd/label/label.go parseLabels / RunLabel) takes sets and removals in
one command, refuses a key both set and removed, and only reports ("label ... not found.") a removal the node
has no label for.
"""

from __future__ import annotations

from netauto.export.tree import tree
from netauto.model.cluster import ClusterModel

TIER = "fabric.topograph.run/tier-"  # NVIDIA Topograph v1.0.0 pkg/topology/topology.go KeyFabricTierPrefix
BLOCK, SPINE, DATACENTER = f"{TIER}0", f"{TIER}1", f"{TIER}2"  # closest switch tier first
# the keys netauto wrote before Topograph 1.0 (commit b27cd5f5: Topograph < 0.3's network.topology.nvidia.com/
# block, spine, datacenter)
PREVIOUS = tuple(f"network.topology.nvidia.com/{k}" for k in ("block", "spine", "datacenter"))
OWNED = (BLOCK, SPINE, DATACENTER, *PREVIOUS)  # every key the script sets or removes; no other label is touched


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
             "# It owns these keys (each line removes those it does not set; no other label is touched):",
             f"#   {' '.join(OWNED[:3])}", f"#   {' '.join(OWNED[3:])}",
             "set -eu"]
    for node, labels in node_labels(cluster).items():
        specs = [f"{k}={v}" for k, v in labels.items()] + [f"{k}-" for k in OWNED if k not in labels]
        lines.append(f"kubectl label node --overwrite {node} " + " ".join(specs))
    return "\n".join(lines) + "\n"
