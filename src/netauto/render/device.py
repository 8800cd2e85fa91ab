"""One device's files, by the one function every render path calls: `device_files(env, network, device)`.

pyavd's `get_device_structured_config(hostname, inputs, facts)` is the model: a device's files are a function of
its own resolved object (a `Switch`, `Server`, `OobSwitch` or `Bmc`), of the network it is rendered in (a row of
`networks(cluster)`: the network's settings, which files its servers get, what else their templates read) and of
the templates (`env`), of nothing else: no global state, no other device (netauto.render.incremental renders
against a view of the network whose device and link lists are withheld, and so proves it).

`networks(cluster)` is the one table of the cluster's networks as render sees them, in render order: the compute
fabric (plane 1), the compute planes 2.., every storage/frontend network, the out-of-band network. The whole-tree
render (render.engine: serially, or as chunks of devices in the fork pool's workers), the incremental render
(render.incremental) and the drain fast path (render.local_edit through render.incremental.render_switches) all
go through this table and this function; none of them chooses a device's files itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Union

import jinja2

from netauto.errors import NetautoError
from netauto.model.cluster import Bmc, ClusterModel, OobSwitch
from netauto.model.types import FabricModel, Rail, Server, Switch
from netauto.platforms import host as host_files, telemetry
from netauto.platforms.nos import cumulus_qos_infra_pool, cumulus_switchd_pfc_watchdog
from netauto.render import bounded
from netauto.render.artifact import Artifact
from netauto.render.file_tables import BMC, HOST, OOB_INTERFACES, OOB_ROUTES, PLATFORMS, ArtifactSpec, network_host_specs
from netauto.render.nvue import BRIDGE, NVUE_PATH, oob_startup_yaml

__all__ = ["Device", "Network", "OobNetwork", "compute_network", "device_files", "device_groups", "device_name",
           "device_specs", "networks"]

Device = Union[Switch, Server, OobSwitch, Bmc]


@dataclass(frozen=True, slots=True)
class Network:
    """A switched network as render sees it: its switches get their NOS's files (file_tables.PLATFORMS), its
    servers `host_specs` at `host_files`' paths, with `server_context` added to their templates' context."""

    label: str  # "compute", "compute-p<p>", "network:<name>": the device keys and the kept state name it so
    fabric: FabricModel
    host_specs: tuple[ArtifactSpec, ...]
    host_files: host_files.HostFiles
    server_context: Mapping[str, object]
    key: str = ""  # what else its devices' keys hash (render.incremental): a network's QoS and bond
    # the compute fabric of a multi-plane cluster: each server's ports on planes 2.. (its RoCE counters script
    # reads them too); they are that server's own objects in the planes' rows, so its key covers them
    plane_rails: Mapping[str, Sequence[Rail]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OobNetwork:
    """The out-of-band network: its switches' NVUE startup.yaml and Linux files, the BMCs' address script; their
    templates read the cluster (its OOB network and settings)."""

    cluster: ClusterModel
    label: str = "oob"


_COMPUTE_CONTEXT: Mapping[str, object] = MappingProxyType({"telemetry": telemetry})  # host/roce-counters.sh.j2
_NONE: Mapping[str, object] = MappingProxyType({})


def plane_rails(planes: Sequence[FabricModel]) -> dict[str, list[Rail]]:
    """Server name -> its NIC ports on compute planes 2.. (`planes`: `ClusterModel.compute_planes`), plane by
    plane: what a server's plane-1 files that cover every plane (the RoCE counters script) add to its rails."""
    out: dict[str, list[Rail]] = {}
    for fab in planes:
        for srv in fab.servers:
            out.setdefault(srv.name, []).extend(srv.rails)
    return out


def compute_network(fabric: FabricModel, planes: Sequence[FabricModel] = ()) -> Network:
    """The compute fabric (plane 1): its servers get the rails' files, firmware, NCCL and RoCE counter files
    (`planes`: compute planes 2.., whose ports the counters script reads too)."""
    return Network("compute", fabric, HOST, host_files.COMPUTE, _COMPUTE_CONTEXT,
                   plane_rails=plane_rails(planes))


def networks(cluster: ClusterModel) -> list[Network | OobNetwork]:
    """Every network of the cluster in render order: compute, compute planes 2.. (their ports: lossless, at the
    plane's paths; docs/compute-planes.md), each storage/frontend network (`network:<name>`), the OOB network."""
    rows: list[Network | OobNetwork] = [compute_network(cluster.compute, cluster.compute_planes)]
    for plane, fabric in cluster.fabrics()[1:1 + len(cluster.compute_planes)]:
        rows.append(Network(plane, fabric, network_host_specs(plane, True), host_files.HostFiles(plane), _NONE))
    for net in cluster.networks:
        rows.append(Network(f"network:{net.name}", net.fabric,
                            network_host_specs(net.name, net.qos == "lossless", net.bond),
                            host_files.HostFiles(net.name), _NONE, f"{net.qos}\0{net.bond}"))
    if cluster.oob:
        rows.append(OobNetwork(cluster))
    return rows


def device_groups(network: Network | OobNetwork) -> tuple[Sequence[Device], Sequence[Device]]:
    """The network's devices in render order, in two groups: (switches, servers) or (OOB switches, BMCs)."""
    if isinstance(network, OobNetwork):
        oob = network.cluster.oob
        return (oob.switches, oob.bmcs) if oob else ((), ())
    return network.fabric.switches, network.fabric.servers


def device_name(device: Device) -> str:
    return device.device if isinstance(device, Bmc) else device.name


# the OOB switch's NVUE startup.yaml: built from the cluster (`oob_startup_yaml`), not from a template
OOB_NVUE = ArtifactSpec(None, NVUE_PATH)


def device_specs(network: Network | OobNetwork, device: Device) -> tuple[ArtifactSpec, ...]:
    """Which files `device` gets in `network`, in the order `device_files` renders them, unrendered (a switch's
    path: `spec.path_for(sw)`); what the Ansible export lists."""
    if isinstance(network, OobNetwork):
        if isinstance(device, OobSwitch):
            return (OOB_NVUE, OOB_INTERFACES, *(OOB_ROUTES if device.routes else ()))
        if isinstance(device, Bmc):
            return (BMC,)
    elif isinstance(device, Switch):
        specs = PLATFORMS.get(device.nos)
        if specs is None:
            raise NetautoError(f"{device.name}: no renderer for NOS {device.nos!r} yet (supported: {', '.join(PLATFORMS)})")
        return tuple(spec for spec in specs if spec.when is None or spec.when(device))
    elif isinstance(device, Server):
        return network.host_specs
    raise TypeError(f"{type(device).__name__} {device_name(device)} is no device of network {network.label}")


def device_files(env: jinja2.Environment, network: Network | OobNetwork, device: Device) -> Iterator[Artifact]:
    """Every file of `device` in `network`, in order, rendered with `env`'s templates (render.jinja_env)."""
    specs = device_specs(network, device)
    if isinstance(network, OobNetwork):
        if isinstance(device, OobSwitch):
            return _oob_switch(env, network.cluster, device, specs)
        assert isinstance(device, Bmc)
        return (_render(env, spec, device.device, bmc=device, cluster=network.cluster) for spec in specs)
    if isinstance(device, Switch):
        return _switch(env, network.fabric, device, specs)
    assert isinstance(device, Server)
    return _server(env, network, device, specs)


def _switch(env: jinja2.Environment, fabric: FabricModel, sw: Switch, specs: tuple[ArtifactSpec, ...],
            ) -> Iterator[Artifact]:
    for spec in specs:
        if spec.builder is not None:
            yield Artifact(sw.name, spec.path_for(sw), spec.builder(sw, fabric), spec.mode, spec.owner)
        else:
            # qos_infra.conf's lossless pool lines, switchd.conf's PFC watchdog keys: NOS facts
            # (platforms/data/nos_cumulus.yaml)
            yield _render(env, spec, sw.name, sw=sw, fabric=fabric, qos_infra_pool=cumulus_qos_infra_pool(),
                          switchd_pfc_watchdog=cumulus_switchd_pfc_watchdog())


def _server(env: jinja2.Environment, network: Network, server: Server, specs: tuple[ArtifactSpec, ...],
            ) -> Iterator[Artifact]:
    for spec in specs:
        yield _render(env, spec, server.name, server=server, fabric=network.fabric, host_files=network.host_files,
                      plane_rails=network.plane_rails.get(server.name, []), **network.server_context)


def _oob_switch(env: jinja2.Environment, cluster: ClusterModel, sw: OobSwitch, specs: tuple[ArtifactSpec, ...],
                ) -> Iterator[Artifact]:
    for spec in specs:
        if spec is OOB_NVUE:  # both views, like every Cumulus switch
            yield Artifact(sw.name, NVUE_PATH, oob_startup_yaml(sw, cluster))
        else:
            yield _render(env, spec, sw.name, sw=sw, cluster=cluster, bridge=BRIDGE)


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


def _error(env: jinja2.Environment) -> type[NetautoError]:
    """Override templates are input (exit 2); a failing built-in template is netauto's bug (exit 1)."""
    return bounded.TemplateLimitError if isinstance(env, bounded.BoundedSandbox) else NetautoError
