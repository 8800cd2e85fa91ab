"""The cluster-wide folders render writes beside the devices' folders (named in `netauto.model.folders`): for
each, how it is rendered (in parts the pool can run side by side) and what its files read of the cluster. The
one list: `render.engine` renders every group in it, `render.incremental` keys each by its inputs and re-renders
it when they change, `render.session` maps each folder of the tree back to its group.

Imports nothing heavy at module level: the drain fast path imports render.incremental, and so this module,
without render.monitoring (yaml, Grafana's SDK), render.kubernetes or monitoring/.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from netauto.model import folders
from netauto.model.cluster import ClusterModel

if TYPE_CHECKING:
    from netauto.render.artifact import Artifact

PartFn = Callable[[], Iterable["Artifact"]]


@dataclass(frozen=True)
class Group:
    """One folder no device owns."""

    folder: str  # its name beside the devices' folders (model.folders)
    parts: Callable[[ClusterModel], list[PartFn]]  # its files, in render order (none: the folder is not rendered)
    inputs: Callable[[ClusterModel], tuple[object, ...]]  # everything its files read (incremental hashes each)
    long: bool = False  # its parts are linear in the fabric: the pool starts them first

    @property
    def key(self) -> str:
        """Its key among the device keys (render.incremental): no device is named with angle brackets."""
        return f"<{self.folder}>"


def _kubernetes_parts(cluster: ClusterModel) -> list[PartFn]:
    return [partial(_kubernetes, cluster)] if cluster.kubernetes else []


def _kubernetes(cluster: ClusterModel) -> Iterable[Artifact]:
    from netauto.render.kubernetes import render_kubernetes  # lazy: only a cluster with `kubernetes:` needs it

    assert cluster.kubernetes is not None
    yield from render_kubernetes(cluster.kubernetes, cluster.name)


def _kubernetes_inputs(cluster: ClusterModel) -> tuple[object, ...]:
    return ((cluster.kubernetes, cluster.name),)  # render_kubernetes's 2 arguments


def _monitoring_parts(cluster: ClusterModel) -> list[PartFn]:
    from netauto.render.monitoring import monitoring_parts  # lazy: 28 ms of imports (yaml) a drain never needs

    return list(monitoring_parts(cluster))


def _monitoring_inputs(cluster: ClusterModel) -> tuple[object, ...]:
    """What `monitoring_parts` reads of the cluster, computed by its own helpers: the design facts (every BGP
    session, cabled port and rail NIC with its labels), thresholds, RoCE priorities, scrape targets, the fabric's
    and the devices' names. A change that reaches monitoring some other way would be missed: the
    management-address edits of tests/test_output_incremental.py (scrape targets) must equal a cold render."""
    from netauto.monitoring import facts  # lazy: the drain fast path imports this module without monitoring/
    from netauto.monitoring.scrape import targets  # lazy: the drain fast path imports this module without monitoring/
    from netauto.render.monitoring import roce_priorities  # lazy: the drain fast path imports this module without render.monitoring (yaml, Grafana's SDK)

    names = [sw.name for sw in cluster.all_switches()] + cluster.server_names()
    return facts.collect(cluster), (cluster.thresholds, roce_priorities(cluster), targets(cluster), cluster.name,
                                    names)


# in render order: the pods' networks (<fabric>/kubernetes/), then the monitoring/ folder
GROUPS: tuple[Group, ...] = (
    Group(folders.KUBERNETES, _kubernetes_parts, _kubernetes_inputs),
    Group(folders.MONITORING, _monitoring_parts, _monitoring_inputs, long=True),
)


def group_of(folder: str) -> Group | None:
    """The group that renders the top-level folder `folder`, or None (a device's folder, or one no longer
    rendered: a removed device's)."""
    return next((g for g in GROUPS if g.folder == folder), None)
