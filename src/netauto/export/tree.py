"""The fabric as the schedulers see it: servers by scalable unit (the SU's rail group is the lowest switch every
server of the SU hangs off), SUs by pod (the pod's spines), pods under the super-spines (three-tier).

Every compute plane is built from the same topology (model.compute_planes), so plane 1's shape is every plane's.
"""

from __future__ import annotations

from dataclasses import dataclass

from netauto.model.cluster import ClusterModel


@dataclass(frozen=True, slots=True)
class Tree:
    nodes: dict[int, list[str]]  # SU -> its servers, in model order
    pods: dict[int, list[int]]  # pod -> its SUs
    three_tier: bool

    def pod_of(self, su: int) -> int:
        return next(p for p, sus in self.pods.items() if su in sus)


def tree(cluster: ClusterModel) -> Tree:
    fab = cluster.compute
    pod_of_su = {sw.su: sw.pod for sw in fab.switches if sw.role == "leaf" and sw.su is not None}
    nodes: dict[int, list[str]] = {}
    for srv in fab.servers:
        nodes.setdefault(srv.su, []).append(srv.name)
    pods: dict[int, list[int]] = {}
    for su in sorted(nodes):
        pods.setdefault(pod_of_su[su], []).append(su)
    return Tree(nodes={su: nodes[su] for su in sorted(nodes)}, pods=dict(sorted(pods.items())),
                three_tier=any(sw.role == "super_spine" for sw in fab.switches))
