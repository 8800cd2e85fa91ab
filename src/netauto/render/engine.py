"""Render the model into files: a device's specs (netauto.render.file_tables) through the shared Jinja2 environment
(netauto.render.jinja_env), a fabric or a whole cluster as parts the pool can run side by side.

Templates are compiled once per process and shared by every device; they receive the resolved model
only. A `templates/` folder given by the user overrides the built-in templates file by file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TypeVar

import jinja2
import jinja2.bccache
import jinja2.sandbox

from netauto.errors import NetautoError
from netauto.model.cluster import ClusterModel, NetworkModel
from netauto.model.compute_planes import plane_rails
from netauto.model.types import FabricModel, Server, Switch
from netauto.platforms import host as host_files, telemetry
from netauto.platforms.nos import (
    cumulus_qos_infra_pool,
    cumulus_switchd_pfc_watchdog,
)
from netauto.render import bounded, pool
from netauto.render.artifact import Artifact  # re-exported: callers import it from here too
from netauto.render.file_tables import BMC, HOST, OOB_INTERFACES, OOB_ROUTES, PLATFORMS, ArtifactSpec, network_host_specs
from netauto.render.jinja_env import environment
from netauto.render.nvue import BRIDGE, NVUE_PATH, oob_startup_yaml


T = TypeVar("T")


def _render(env: jinja2.Environment, spec: ArtifactSpec, device: str, **context: object) -> Artifact:
    if spec.template is None:
        raise TypeError(f"{spec.path}: a spec without a template is built by its builder (switch specs only)")
    bounded.started(spec.template)
    try:
        text = env.get_template(spec.template).render(artifact_path=spec.path, **context)
    except jinja2.TemplateSyntaxError as exc:
        where = f"{exc.filename or spec.template}:{exc.lineno}"
        raise _error(env)(f"template {where} failed for {device}: {exc.message}") from None
    except jinja2.TemplateError as exc:
        frame = bounded._template_frame(exc.__traceback__)
        where = f"{frame[0]}:{frame[1]}" if frame else spec.template
        raise _error(env)(f"template {where} failed for {device}: {' '.join(str(exc).split())}") from None
    return Artifact(device, spec.path, text, spec.mode, spec.owner)


def _switch_artifacts(env: jinja2.Environment, model: FabricModel,
                      switches: Sequence[Switch] | None = None) -> Iterator[Artifact]:
    for sw in model.switches if switches is None else switches:
        specs = PLATFORMS.get(sw.nos)
        if specs is None:
            raise NetautoError(f"{sw.name}: no renderer for NOS {sw.nos!r} yet (supported: {', '.join(PLATFORMS)})")
        for spec in specs:
            if spec.when is not None and not spec.when(sw):
                continue
            if spec.builder is not None:
                yield Artifact(sw.name, spec.path_for(sw), spec.builder(sw, model), spec.mode, spec.owner)
            else:
                # qos_infra.conf's lossless pool lines, switchd.conf's PFC watchdog keys: NOS facts
                # (platforms/data/nos_cumulus.yaml)
                yield _render(env, spec, sw.name, sw=sw, fabric=model, qos_infra_pool=cumulus_qos_infra_pool(),
                              switchd_pfc_watchdog=cumulus_switchd_pfc_watchdog())


def _error(env: jinja2.Environment) -> type[NetautoError]:
    """Override templates are input (exit 2); a failing built-in template is netauto's bug (exit 1)."""
    return bounded.TemplateLimitError if isinstance(env, bounded.BoundedSandbox) else NetautoError


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


def _fabric_parts(model: FabricModel, templates: Path | None, chunk: int | None,
                  planes: Sequence[FabricModel] = ()) -> list[pool.Part]:
    """The compute fabric's files as parts: its switches, then its servers, `chunk` devices per part (`planes`:
    compute planes 2.., whose ports the RoCE counters script covers too)."""
    t = str(templates) if templates else None
    more = plane_rails(planes)

    def servers(group: Sequence[Server]) -> Iterator[Artifact]:
        env = environment(t)
        for server in group:
            for spec in HOST:
                yield _render(env, spec, server.name, server=server, fabric=model, host_files=host_files.COMPUTE,
                              telemetry=telemetry, plane_rails=more.get(server.name, []))

    parts: list[pool.Part] = [partial(_switches, model, t, c) for c in _chunks(model.switches, chunk)]
    return parts + [partial(servers, c) for c in _chunks(model.servers, chunk)]




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
    """Every file of the cluster as parts in model order, and the indexes of the long ones (monitoring)."""
    t = str(templates) if templates else None
    parts = _fabric_parts(cluster.compute, templates, chunk, cluster.compute_planes)
    for net, fab in cluster.fabrics()[1:1 + len(cluster.compute_planes)]:  # compute planes 2.. (docs/compute-planes.md)
        parts += [partial(_switches, fab, t, c) for c in _chunks(fab.switches, chunk)]
        parts += [partial(_compute_plane_servers, net, fab, t, c) for c in _chunks(fab.servers, chunk)]
    for network in cluster.networks:
        parts += [partial(_switches, network.fabric, t, c) for c in _chunks(network.fabric.switches, chunk)]
        parts += [partial(_network_servers, network, t, c) for c in _chunks(network.fabric.servers, chunk)]
    if cluster.oob:
        parts.append(partial(_oob, cluster, t))
    if cluster.kubernetes:
        parts.append(partial(_kubernetes, cluster))
    from netauto.monitoring.render import monitoring_parts  # lazy: 28 ms of imports (yaml) a drain never needs

    monitoring = [partial(_listed, part) for part in monitoring_parts(cluster)]
    parts += monitoring
    return parts, list(range(len(parts) - len(monitoring), len(parts)))


def _switches(fabric: FabricModel, t: str | None, sws: Sequence[Switch]) -> Iterator[Artifact]:
    return _switch_artifacts(environment(t), fabric, sws)


def _network_servers(network: NetworkModel, t: str | None, servers: Sequence[Server]) -> Iterator[Artifact]:
    env = environment(t)
    specs = network_host_specs(network.name, network.qos == "lossless", network.bond)
    files = host_files.HostFiles(network.name)
    for server in servers:
        for spec in specs:
            yield _render(env, spec, server.name, server=server, fabric=network.fabric, host_files=files)


def _compute_plane_servers(network: str, fabric: FabricModel, t: str | None,
                           servers: Sequence[Server]) -> Iterator[Artifact]:
    """A server's NIC files for compute plane p > 1: its plane-p ports, lossless, at the network's paths."""
    env = environment(t)
    files = host_files.HostFiles(network)
    for server in servers:
        for spec in network_host_specs(network, True):
            yield _render(env, spec, server.name, server=server, fabric=fabric, host_files=files)


def _oob(cluster: ClusterModel, t: str | None) -> Iterator[Artifact]:
    env = environment(t)
    assert cluster.oob is not None
    for sw in cluster.oob.switches:  # both views, like every Cumulus switch (deploy picks per mode)
        yield Artifact(sw.name, NVUE_PATH, oob_startup_yaml(sw, cluster))
        for spec in (OOB_INTERFACES, *(OOB_ROUTES if sw.routes else ())):
            yield _render(env, spec, sw.name, sw=sw, cluster=cluster, bridge=BRIDGE)
    for bmc in cluster.oob.bmcs:
        yield _render(env, BMC, bmc.device, bmc=bmc, cluster=cluster)


def _kubernetes(cluster: ClusterModel) -> Iterator[Artifact]:
    from netauto.render.kubernetes import render_kubernetes  # lazy: only a cluster with `kubernetes:` needs it

    assert cluster.kubernetes is not None
    yield from render_kubernetes(cluster.kubernetes, cluster.name)


def _listed(part: Callable[[], list[Artifact]]) -> Iterator[Artifact]:
    yield from part()


def _warm_templates() -> None:
    """Compile the built-in templates once before the pool forks, so the workers share them."""
    env = environment(None)
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)
