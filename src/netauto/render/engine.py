"""Render the model into files: a fabric or a whole cluster as parts the pool can run side by side, each part a
chunk of one network's devices whose files `netauto.render.device.device_files` renders (the one per-device
function) through the shared Jinja2 environment (netauto.render.jinja_env), then the cluster-wide folders
(kubernetes/, monitoring/: the one list in netauto.render.cluster_wide).

Templates are compiled once per process and shared by every device; they receive the resolved model
only. A `templates/` folder given by the user overrides the built-in templates file by file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TypeVar

from netauto.model.cluster import ClusterModel
from netauto.model.types import FabricModel
from netauto.render import bounded, cluster_wide, pool
from netauto.render.artifact import Artifact  # re-exported: callers import it from here too
from netauto.render.device import Device, Network, OobNetwork, compute_network, device_files, device_groups, networks
from netauto.render.jinja_env import environment

T = TypeVar("T")


def render_fabric(model: FabricModel, templates: Path | None = None) -> Iterator[Artifact]:
    """Every file of every device, in model order (with overrides: rendered under bounds, netauto.render.bounded)."""
    if templates:
        return iter(bounded.run_bounded(lambda: list(_fabric(model, templates))))
    return _fabric(model, None)


def _fabric(model: FabricModel, templates: Path | None) -> Iterator[Artifact]:
    for part in _fabric_parts(model, templates, None):
        yield from part()


def _chunks(items: Sequence[T], size: int | None) -> list[Sequence[T]]:
    if size is None or len(items) <= size:
        return [items] if items else []
    return [items[i:i + size] for i in range(0, len(items), size)]


def _fabric_parts(model: FabricModel, templates: Path | None, chunk: int | None) -> list[pool.Part]:
    """The compute fabric's files as parts: its switches, then its servers, `chunk` devices per part."""
    return _network_parts(compute_network(model), str(templates) if templates else None, chunk)


def _network_parts(network: Network | OobNetwork, t: str | None, chunk: int | None) -> list[pool.Part]:
    """A network's files as parts: `chunk` of its switches per part, then `chunk` of its servers (OOB: BMCs)."""
    return [partial(_devices, network, t, c) for group in device_groups(network) for c in _chunks(group, chunk)]


def _devices(network: Network | OobNetwork, t: str | None, devices: Sequence[Device]) -> Iterator[Artifact]:
    """One part: the files of `devices` of `network` (render.device), with one environment for all of them."""
    env = environment(t)
    for device in devices:
        yield from device_files(env, network, device)


def render_cluster(cluster: ClusterModel, templates: Path | None = None) -> Iterator[Artifact]:
    """The compute fabric's files (exactly `render_fabric`), then every network's switches and server NIC
    files, then the out-of-band network: its switches' NVUE startup.yaml and the BMC addresses, then the
    Kubernetes manifests of the pods' RDMA networks (`<fabric>/kubernetes/`, netauto.render.kubernetes), and the
    `monitoring/` folder (Prometheus rules and their unit tests, prometheus.yml, Grafana dashboard). With template
    overrides the whole render runs under bounds (netauto.render.bounded); a large fabric without them is rendered
    by a process pool on every core (netauto.render.pool), in the same order."""
    if templates:
        return iter(bounded.run_bounded(lambda: list(_cluster(cluster, templates))))
    if _pooled(cluster):
        return (Artifact(*fields) for fields in _pool(cluster, _fields))
    return _cluster(cluster, None)


def write_cluster(cluster: ClusterModel, templates: Path | None, write: Callable[[Artifact], T]) -> Iterator[T]:
    """`write(artifact)` of every file `render_cluster` renders, in its order, called where the file is rendered:
    in the pool's workers on a large fabric, so this process receives only what `write` returns (the output
    writer's manifest rows), never the fabric's text."""
    if not templates and _pooled(cluster):
        return _pool(cluster, write)
    return map(write, render_cluster(cluster, templates))


def _pooled(cluster: ClusterModel) -> bool:
    return pool.workers() > 1 and len(cluster.all_switches()) + len(cluster.server_names()) >= pool.MIN_DEVICES


def _pool(cluster: ClusterModel, each: Callable[[Artifact], T]) -> Iterator[T]:
    from netauto.monitoring import facts  # lazy: monitoring/ is 28 ms of imports a drain never needs

    parts, first = _cluster_parts(cluster, None, pool.CHUNK)
    _warm_templates()
    return pool.run(parts, pool.workers(), first, each, facts.forget)  # the workers have the facts `keep` held


def _fields(art: Artifact) -> tuple[str, str, str, int, str | None]:
    return art.device, art.path, art.content, art.mode, art.owner


def _cluster(cluster: ClusterModel, templates: Path | None) -> Iterator[Artifact]:
    for part in _cluster_parts(cluster, templates, None)[0]:
        yield from part()


def _cluster_parts(cluster: ClusterModel, templates: Path | None,
                   chunk: int | None) -> tuple[list[pool.Part], list[int]]:
    """Every file of the cluster as parts in model order, then the cluster-wide folders (render.cluster_wide),
    and the indexes of the long ones (monitoring)."""
    t = str(templates) if templates else None
    parts = [part for network in networks(cluster) for part in _network_parts(network, t, chunk)]
    first: list[int] = []
    for group in cluster_wide.GROUPS:
        group_parts = [partial(_listed, part) for part in group.parts(cluster)]
        if group.long:
            first += range(len(parts), len(parts) + len(group_parts))
        parts += group_parts
    return parts, first


def _listed(part: Callable[[], Iterable[Artifact]]) -> Iterator[Artifact]:
    yield from part()


def _warm_templates() -> None:
    """Compile the built-in templates once before the pool forks, so the workers share them."""
    env = environment(None)
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)
