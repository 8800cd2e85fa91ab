"""Jinja2 environment and the per-platform artifact lists.

Templates are compiled once per process and shared by every device; they receive the resolved model
only. A `templates/` folder given by the user overrides the built-in templates file by file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import TypeVar

import jinja2
import jinja2.bccache
import jinja2.sandbox

from netauto.errors import NetautoError
from netauto.model.cluster import ClusterModel, NetworkModel
from netauto.model.types import FabricModel, Server, Switch
from netauto.platforms import host as host_files, telemetry
from netauto.platforms.hardware import load_hwsku
from netauto.platforms.nos import (
    cumulus_path,
    cumulus_qos_infra_pool,
    cumulus_switchd_pfc_watchdog,
    sonic_path,
    sonic_sku_path,
)
from netauto.render import bounded, pool
from netauto.render.artifact import Artifact  # re-exported: callers import it from here too
from netauto.render.nvue import BRIDGE, NVUE_PATH, oob_startup_yaml, startup_yaml
from netauto.sonic.config_db import config_db_json
from netauto.render.fingerprint import builtin_templates
from netauto.sonic.qos_reload import buffers_json_j2, qos_json_j2


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ArtifactSpec:
    template: str | None  # Jinja template, or None when `builder` makes the content in Python
    path: str
    mode: int = 0o644
    when: Callable[[Switch], bool] | None = None  # switch specs only: render the file when this holds
    builder: Callable[[Switch, FabricModel], str] | None = None  # switch specs only: JSON built as a dict
    owner: str | None = "root:root"

    def path_for(self, sw: Switch) -> str:
        """The path on this switch: a SONiC SKU file's {platform}/{hwsku} filled in."""
        if "{" not in self.path or not sw.hwsku:
            return self.path
        return sonic_sku_path(self.path, load_hwsku(sw.hwsku).platform, sw.hwsku)


# FRR's own files are frr:frr 0640 as Debian's frr package installs them (frr 8.4.4-1.1~deb12u2 `ls -l /etc/frr`:
# daemons, frr.conf, vtysh.conf all -rw-r----- frr frr); Cumulus Linux ships FRR the same way. Not world-readable:
# frr.conf may hold BGP passwords.
FRR_MODE = 0o640
FRR_OWNER = "frr:frr"

# Which file each role is and where it lives on the switch: netauto.platforms.nos (data/nos_cumulus.yaml).
# Every Cumulus switch gets all of them: in NVUE mode startup.yaml is pushed and the Linux files are the
# rendered view the lab runs; in linux-files mode the other way round (platforms.nos.cumulus_files).
CUMULUS: tuple[ArtifactSpec, ...] = (
    ArtifactSpec(None, cumulus_path("nvue"), builder=startup_yaml),
    ArtifactSpec("cumulus/interfaces.j2", cumulus_path("interfaces")),
    ArtifactSpec("cumulus/frr.conf.j2", cumulus_path("frr"), mode=FRR_MODE, owner=FRR_OWNER),
    ArtifactSpec("cumulus/daemons.j2", cumulus_path("daemons"), mode=FRR_MODE, owner=FRR_OWNER),
    ArtifactSpec("cumulus/adaptive_routing.conf.j2", cumulus_path("ar")),
    ArtifactSpec("cumulus/qos_features.conf.j2", cumulus_path("qos"), when=lambda sw: sw.qos.lossless),
    ArtifactSpec("cumulus/qos_infra.conf.j2", cumulus_path("qos_infra"), when=lambda sw: sw.qos.lossless),
    ArtifactSpec("cumulus/switchd.conf.j2", cumulus_path("switchd"), when=lambda sw: sw.qos.lossless and sw.qos.pfc_watchdog),
    ArtifactSpec("cumulus/ports.conf.j2", cumulus_path("ports"), when=lambda sw: bool(sw.breakout_cages)),
)

# The OOB switches' Linux files (linux-files mode): ifupdown2 from the same stanza macros as CUMULUS's
# interfaces.j2; frr.conf + daemons only for their static routes (no routing protocol: OOB-04).
OOB_INTERFACES = ArtifactSpec("cumulus/oob_interfaces.j2", cumulus_path("interfaces"))
OOB_ROUTES: tuple[ArtifactSpec, ...] = (
    ArtifactSpec("cumulus/oob_frr.conf.j2", cumulus_path("frr"), mode=FRR_MODE, owner=FRR_OWNER),
    ArtifactSpec("cumulus/daemons.j2", cumulus_path("daemons"), mode=FRR_MODE, owner=FRR_OWNER),
)


def _nic_specs(files: host_files.HostFiles, lossless: bool, bond: bool = False) -> list[ArtifactSpec]:
    """One network's NIC files on a server (paths: netauto.platforms.host): netplan, sysctls and, where the network
    is lossless, the RoCE QoS script with what re-applies it at boot and on every NIC add (units, udev rules)."""
    netplan = "host/netplan-bond.yaml.j2" if bond else "host/netplan-rails.yaml.j2"
    specs = [ArtifactSpec(netplan, files.netplan, mode=0o600), ArtifactSpec("host/sysctl-rails.conf.j2", files.sysctl)]
    if lossless:
        specs += [
            ArtifactSpec("host/roce-qos.sh.j2", files.qos_script, mode=0o755),
            ArtifactSpec("host/roce-qos.service.j2", files.unit),
            ArtifactSpec("host/roce-qos@.service.j2", files.nic_unit),
        ]
    specs.append(ArtifactSpec("host/rails.rules.j2", files.udev))  # NIC names by PCI path; QoS on NIC add if lossless
    return specs


HOST: tuple[ArtifactSpec, ...] = (
    *_nic_specs(host_files.COMPUTE, lossless=True),
    ArtifactSpec("host/nic-firmware.sh.j2", host_files.FIRMWARE, mode=0o755),
    ArtifactSpec("host/nccl.conf.j2", host_files.NCCL),
    # RoCE counters for node-exporter's textfile collector (netauto.monitoring alerts on them)
    ArtifactSpec("host/roce-counters.sh.j2", host_files.ROCE_COUNTERS, mode=0o755),
    ArtifactSpec("host/roce-counters.service.j2", host_files.ROCE_COUNTERS_SERVICE),
    ArtifactSpec("host/roce-counters.timer.j2", host_files.ROCE_COUNTERS_TIMER),
)

SONIC: tuple[ArtifactSpec, ...] = (
    ArtifactSpec(None, sonic_path("config_db"), builder=config_db_json),
    # the bgp container's FRR reads it through a bind mount of /etc/sonic/frr; which host user owns it is not
    # documented anywhere netauto can cite, so the owner a switch has is kept
    ArtifactSpec("sonic/frr.conf.j2", sonic_path("frr"), owner=None),
    # the SKU's QoS/buffer templates in its device folder, so that `config qos reload` regenerates netauto's tables
    # (netauto.sonic.qos_reload); a lossy network's switch keeps SONiC's own
    ArtifactSpec(None, sonic_path("qos_template"), builder=qos_json_j2, when=lambda sw: sw.qos.lossless),
    ArtifactSpec(None, sonic_path("buffers_template"), builder=buffers_json_j2, when=lambda sw: sw.qos.lossless),
)

PLATFORMS: dict[str, tuple[ArtifactSpec, ...]] = {"cumulus": CUMULUS, "sonic": SONIC}


class _ContainedLoader(jinja2.FileSystemLoader):
    """FileSystemLoader that never reads through a symlink out of its folders: a template override folder
    comes with the repository (a pull request), and a link to /etc/shadow would land in a rendered file and
    in the `netauto diff` output of CI."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        if len(source) > bounded.MAX_TEMPLATE_BYTES:
            raise bounded.TemplateLimitError(f"template {filename}: {len(source):,} characters, at most "
                                             f"{bounded.MAX_TEMPLATE_BYTES:,} (fix: split it into macros)")
        real = os.path.realpath(filename)
        if not any(real.startswith(os.path.realpath(root) + os.sep) for root in self.searchpath):
            raise NetautoError(f"template {template}: {filename} leads outside the template folders "
                               f"(to {real}); netauto does not follow it (fix: copy the file instead of linking)")
        return source, filename, uptodate


def comment_text(value: object) -> str:
    """Inventory text inside a comment line of any rendered format (shell, udev, netplan, nccl.conf): control
    characters (a newline would end the comment and start a command) become spaces. The inventory's types
    already refuse them (inventory/strings.py); this is the renderer's own line of defence."""
    return _CONTROL.sub(" ", str(value))


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


@lru_cache(maxsize=8)
def environment(override: str | None = None) -> jinja2.Environment:
    """The built-in templates, under a user's override folder if given. With an override the environment is
    Jinja2's sandbox: override templates may come from a pull request (the pre-commit hooks render them), and
    the sandbox refuses `{{ ''.__class__.__mro__ }}`-style escapes to Python; built-in templates alone keep the
    faster plain environment, which also skips Jinja2's per-render stat of the template file (auto_reload: 13,000
    stats per 10k render; the built-in templates do not change while netauto runs, an override folder may)."""
    paths = ([override] if override else []) + [str(builtin_templates())]
    cls = bounded.BoundedSandbox if override else jinja2.Environment
    env = cls(
        loader=_ContainedLoader(paths),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=bool(override),
        bytecode_cache=_bytecode_cache(),
    )
    env.filters["comment"] = comment_text
    return env


class _OwnBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja2 unpickles a cached template's code: only an entry that is this user's own is loaded
    (`netauto.cache.trusted`; anything else compiles again and is replaced)."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        from netauto.cache import open_trusted

        handle = open_trusted(Path(self._get_cache_filename(bucket)))
        if handle is not None:
            with handle:
                bucket.load_bytecode(handle)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in `netauto.cache.cache_dir("jinja")` (0700; Jinja2 keys each by the template's
    name and checks its source's hash, so an edited template compiles again): a process rendering a few devices
    (`netauto render` after a drain) skips compiling their templates. None when the folder cannot be made or
    is not this user's own (`netauto.cache.own_dir`)."""
    from netauto.cache import own_dir

    folder = own_dir("jinja")
    return None if folder is None else _OwnBytecodeCache(str(folder))


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


def _fabric_parts(model: FabricModel, templates: Path | None, chunk: int | None) -> list[pool.Part]:
    """The compute fabric's files as parts: its switches, then its servers, `chunk` devices per part."""
    t = str(templates) if templates else None

    def servers(group: Sequence[Server]) -> Iterator[Artifact]:
        env = environment(t)
        for server in group:
            for spec in HOST:
                yield _render(env, spec, server.name, server=server, fabric=model, host_files=host_files.COMPUTE,
                              telemetry=telemetry)

    parts: list[pool.Part] = [partial(_switches, model, t, c) for c in _chunks(model.switches, chunk)]
    return parts + [partial(servers, c) for c in _chunks(model.servers, chunk)]


def network_host_specs(network: str, lossless: bool, bond: bool = False) -> tuple[ArtifactSpec, ...]:
    """A server's files for one network: the same templates as the compute rails, at the network's paths (a bonded
    network: one LACP bond over the NICs instead)."""
    return tuple(_nic_specs(host_files.HostFiles(network), lossless, bond))


BMC = ArtifactSpec("host/bmc-lan.sh.j2", "usr/local/sbin/netauto-bmc-lan.sh", mode=0o755)


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
    parts = _fabric_parts(cluster.compute, templates, chunk)
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
