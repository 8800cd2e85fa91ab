"""The pods' RDMA networks of a cluster with compute planes (docs/compute-planes.md, "Kubernetes").

swplb: every (rail, plane) is a network of its own, with its own device-plugin resource, network and IP pools,
each resolved by model.kubernetes on that plane's fabric (the plane's ports, addresses and leaves) and named
`rail<r>p<p>`. Sources: Network Operator 26.4 "Software Multiplane Spectrum-X Quick Start" ("each plane requires
its own CIDRPool. Create one pool per (rail, plane) combination"; railTopology "one entry per (rail, plane)
combination", named rail0p0, rail0p1, ...) and k8s-launch-kit profiles/spectrum-x-ra2.4/80-spectrumxrailpoolconfig.yaml
(swplb: `rail<r>p<p>`, one PF each). netauto's planes count from 1 (p1-/p2- switches, network compute-p<p>), NVIDIA's
%plane_id% from 0: netauto's `rail0p2` is the quick start's `rail0p1`.

The NIC side is one NicConfigurationTemplate per profile and NIC kind over every plane port's PF, with
`spectrumXOptimized` {multiplaneMode, numberOfPlanes, version, platformType, overlay} and numVfs 1 (the CRD's CEL
rule: "spectrumXOptimized can be enabled only when linkType=='Ethernet' ... and numVfs==1", and "includes RoCE
optimizations, so separate roceOptimized section must not be enabled"); rawNvConfig carries every firmware value
of the fabric (platforms/data/nics.yaml), merged over the Spectrum-X profile's ("RawNvConfig parameters, if
provided, are merged as overrides on top of Spectrum-X calculated params", the CRD's description).

hwplb (one address and one pool per rail over all planes, "Hardware Multiplane Spectrum-X Quick Start") is refused
before this runs (model.compute_planes): its hosts are not rendered.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from netauto.errors import InventoryError
from netauto.inventory.names import dns_label_ok
from netauto.model.kubernetes import KubernetesModel, NicTemplate, NodePolicy, PlaneMode, RailNetwork, resolve_kubernetes
from netauto.model.types import FabricModel
from netauto.platforms import nics

if TYPE_CHECKING:
    from netauto.inventory.kubernetes import Kubernetes
    from netauto.inventory.loader import LoadedInventory

__all__ = ["PlaneMode", "parse_resource", "resolve_planes", "resource"]

_RESOURCE = re.compile(r"rail(\d{1,3})(?:p(\d))?")


def resource(rail: int, plane: int) -> str:
    """The device-plugin resource (and network) of rail `rail` on compute plane `plane` (1-based)."""
    return f"rail{rail}p{plane}"


def parse_resource(name: str) -> tuple[int, int] | None:
    """(rail, plane) of a resource name `rail<r>` (plane 1) or `rail<r>p<p>`; None for any other name."""
    m = _RESOURCE.fullmatch(name)
    return None if m is None else (int(m.group(1)), int(m.group(2) or 1))


def _refuse(loaded: LoadedInventory, key: str, message: str, hint: str) -> InventoryError:
    return InventoryError(message, hint=hint, **loaded.where("kubernetes", key))


def _check(loaded: LoadedInventory, spec: Kubernetes) -> None:
    if spec.nic_config != "nic-configuration-operator":
        return
    if spec.spectrum_x is None:
        raise _refuse(loaded, "nic_config", "compute planes with nic_config: nic-configuration-operator need "
                      "kubernetes.spectrum_x (the NicConfigurationTemplate's spectrumXOptimized sets the plane mode)",
                      "add kubernetes.spectrum_x: {version: RA2.4, platform_type: <your Spectrum-X profile's "
                      "platform>} (docs/compute-planes.md), or nic_config: netauto")
    if spec.attach == "vf" and spec.vfs_per_nic != 1:
        raise _refuse(loaded, "vfs_per_nic", f"spectrumXOptimized runs with numVfs 1 (its CRD's rule); "
                      f"vfs_per_nic is {spec.vfs_per_nic}", "set kubernetes.vfs_per_nic: 1")


def _named(loaded: LoadedInventory, name: str, what: str) -> str:
    if not dns_label_ok(name):
        raise _refuse(loaded, "attach", f"{what} name {name!r} (rail, plane, ...) is not an RFC 1123 label",
                      "use shorter server profile / server names of letters, digits and '-'")
    return name


def _policy_on(loaded: LoadedInventory, p: NodePolicy, plane: int) -> NodePolicy:
    res = resource(p.rail, plane)
    return replace(p, name=_named(loaded, res + p.name.removeprefix(f"rail{p.rail}"), "SR-IOV policy"),
                   resource_name=res)


def _network_on(loaded: LoadedInventory, spec: Kubernetes, n: RailNetwork, plane: int) -> RailNetwork:
    res = resource(n.rail, plane)
    pools = n.pools
    if spec.attach == "pf":  # node pools are named by rail and server: the plane joins them (leaf pools are apart)
        pools = [replace(p, name=_named(loaded, res + p.name.removeprefix(f"rail{n.rail}"), "pool")) for p in pools]
    return replace(n, name=res, resource_name=res, pools=pools, plane=plane)


def _template(loaded: LoadedInventory, spec: Kubernetes, compute: FabricModel, per_plane: list[NicTemplate],
              count: int) -> NicTemplate:
    """One template over every plane's PFs of a profile's NICs of one kind, with the Spectrum-X block."""
    first = per_plane[0]
    sx = spec.spectrum_x
    assert sx is not None  # _check
    server = next(s for s in compute.servers if s.profile == first.profile)
    kind = next(r.kind for r in server.rails if nics.pci_device_id(r.kind) == first.device_id)
    params = nics.firmware(kind, roce_priority=server.qos.roce_priority, cnp_dscp=server.qos.cnp_dscp,
                           cnp_priority=server.qos.cnp_priority, ar=server.adaptive_routing)
    raw = [(p.name, p.value) for p in params if p.name not in nics.operator_template_params()]
    pcis = [pci for rail in zip(*(t.pci_addresses for t in per_plane), strict=True) for pci in rail]
    mode = PlaneMode(loaded.inventory.topology.compute_planes.balancing, count, sx.version, sx.platform_type,
                     sx.overlay)
    return replace(first, pci_addresses=pcis, num_vfs=1, raw_nv_config=raw, spectrum_x=mode)


def resolve_planes(loaded: LoadedInventory, compute: FabricModel, planes: list[FabricModel]) -> KubernetesModel | None:
    """model.kubernetes for one plane; with planes, its networks per (rail, plane) merged rail by rail."""
    spec = loaded.inventory.kubernetes
    if spec is not None and spec.spectrum_x is not None and not planes:
        raise _refuse(loaded, "spectrum_x", "kubernetes.spectrum_x sets the NICs' plane mode, but the fabric has one "
                      "compute plane (its NIC template is roceOptimized)",
                      "remove kubernetes.spectrum_x or set topology.compute_planes (docs/compute-planes.md)")
    if spec is None or not planes:
        return resolve_kubernetes(loaded, compute)
    _check(loaded, spec)
    fabrics = [compute, *planes]
    models = [resolve_kubernetes(loaded, fab) for fab in fabrics]
    assert all(m is not None for m in models)
    per = [m for m in models if m is not None]
    networks = sorted((_network_on(loaded, spec, n, p) for p, m in enumerate(per, start=1) for n in m.networks),
                      key=lambda n: (n.rail, n.plane))
    policies = sorted((_policy_on(loaded, pol, p) for p, m in enumerate(per, start=1) for pol in m.policies),
                      key=lambda pol: (pol.profile, pol.rail, pol.resource_name))
    templates = [_template(loaded, spec, compute, list(ts), len(fabrics)) for ts in zip(*(m.templates for m in per),
                                                                                      strict=True)]
    nccl = dict(per[0].nccl)
    nccl["NETAUTO_RDMA_RESOURCES"] = ",".join(f"{spec.prefix}/{n.resource_name}" for n in networks)
    return replace(per[0], policies=policies, networks=networks, templates=templates, nccl=nccl,
                   adaptive_routing=any(m.adaptive_routing for m in per))
