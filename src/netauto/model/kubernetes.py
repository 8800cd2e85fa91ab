"""The pods' side of the RoCE chain: per rail, the SR-IOV VFs, the network pods attach to and its addresses.

Everything here comes from the resolved compute fabric, never typed again: the PF of each rail (name and PCI address
of the server profile's NIC), the MTU (the host's), the rail's leaf subnets and the routes the host uses, the QoS
the switches and host units set (trust DSCP, PFC on the RoCE priority, ECN, ToS) and adaptive routing.

Address plans (docs/kubernetes.md):
  leaf-subnet  a pod's VF sits on the leaf's rail subnet beside its host: each leaf subnet gives pods the top
               `pool_size` addresses below its broadcast (default: vfs_per_nic x the leaf's server slots; at least
               vfs_per_nic x its servers, so every VF can hold a pod), above every address the plan gives a server
               of that leaf (the whole `servers_per_su` block, absent servers included). Spiderpool: one SpiderIPPool
               per leaf, restricted to that leaf's nodes (`nodeName`); whereabouts has one range per network, so it
               works only while a rail has a single leaf.
  p2p          a VF is refused: the host's /31 holds exactly the host and the leaf, so a VF has no address on the
               rail. `attach: pf` works instead: host-device moves the rail NIC itself into the pod (NVIDIA Network
               Operator, HostDeviceNetwork), which takes the host's own /31 address from a one-address SpiderIPPool
               per node and rail (`nodeName`); the host has no rail address while the pod runs (one pod per node).
               The same per-node plan serves leaf-subnet fabrics with `attach: pf`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from ipaddress import IPv4Address, IPv4Interface

from netauto.errors import InventoryError
from netauto.model import folders
from netauto.model.k8s_tenants import K8sTenant, resolve_k8s_tenants
from netauto.model.types import FabricModel, Rail, Server, Switch
from netauto.platforms import nics
from netauto.inventory.names import dns_label_ok, label_value_ok

if TYPE_CHECKING:  # the model's types load without the inventory schema (pydantic): netauto.render.local_edit
    from netauto.inventory.kubernetes import Kubernetes
    from netauto.inventory.loader import LoadedInventory

FOLDER = folders.KUBERNETES  # <fabric>/kubernetes/: the manifests, beside the devices' folders (no device's name)
SRIOV_LINK_TYPE = "eth"  # SriovNetworkNodePolicy spec.linkType enum (eth, ETH, ib, IB): RoCE runs on Ethernet
NIC_LINK_TYPE = "Ethernet"  # NicConfigurationTemplate spec.template.linkType enum (Ethernet, Infiniband)
TRUST = "dscp"  # the hosts' `mlnx_qos --trust dscp` (netauto-roce-qos.sh) and the switches' DSCP classification
ROCE_MODE = 2  # NicConfigurationTemplate roceMode: 2 = RoCE v2 (= NCCL_IB_ROCE_VERSION_NUM)


@dataclass(frozen=True, slots=True)
class PlaneMode:
    """A NicConfigurationTemplate's spectrumXOptimized block."""

    mode: str  # multiplaneMode: swplb (hwplb refused before Kubernetes is resolved)
    planes: int  # numberOfPlanes
    version: str
    platform_type: str
    overlay: str


@dataclass(slots=True)
class NodePolicy:
    """One SriovNetworkNodePolicy: rail `rail`'s PF on the nodes of server profile `profile`."""

    name: str
    rail: int
    profile: str
    device_id: str  # PCI device id of the PF (platforms/data/nics.yaml)
    pf_name: str  # the rail NIC's name (netauto names it by PCI path: udev rule / netplan set-name)
    pci: str | None
    resource_name: str  # without the device plugin's prefix
    num_vfs: int
    mtu: int  # the PF's MTU the operator sets: the host's rail MTU


@dataclass(slots=True)
class PodPool:
    """Pod addresses on one leaf's subnet of a rail."""

    name: str
    rail: int
    leaf: str
    subnet: str  # the leaf's rail subnet (the host's on-link prefix)
    first: str
    last: str
    gateway: str  # the leaf's address on the subnet (the host's gateway)
    routes: list[tuple[str, str]]  # (destination, gateway): the host's main-table routes of this rail
    nodes: list[str]  # servers on this leaf (SpiderIPPool nodeName)

    @property
    def addresses(self) -> list[IPv4Address]:
        first, last = int(IPv4Address(self.first)), int(IPv4Address(self.last))
        return [IPv4Address(a) for a in range(first, last + 1)]


@dataclass(slots=True)
class RailNetwork:
    name: str
    rail: int
    resource_name: str
    mtu: int  # the VF's MTU in the pod
    pools: list[PodPool]
    plane: int = 1  # the compute plane (model.kubernetes_planes: one network per rail per plane, swplb)


@dataclass(slots=True)
class NicTemplate:
    """One NicConfigurationTemplate: the QoS/firmware of one profile's rail NICs of one kind."""

    name: str
    profile: str
    device_id: str
    pci_addresses: list[str]
    num_vfs: int
    trust: str
    pfc: str  # "0,0,0,1,0,0,0,0"
    ecn_priority: int
    tos: int
    cable_len: int
    raw_nv_config: list[tuple[str, int]] = field(default_factory=list)  # the fabric's values the operator lacks
    spectrum_x: PlaneMode | None = None  # compute planes: spectrumXOptimized instead of roceOptimized


@dataclass(slots=True)
class KubernetesModel:
    settings: Kubernetes
    policies: list[NodePolicy]
    networks: list[RailNetwork]
    templates: list[NicTemplate]
    nccl: dict[str, str]  # the pods' NCCL environment (ConfigMap data)
    nodes: list[tuple[str, str]]  # (server, profile): the node labels pods are scheduled by
    host_mtu: dict[int, int] = field(default_factory=dict)  # rail -> the hosts' MTU
    adaptive_routing: bool = False
    tenants: list[K8sTenant] = field(default_factory=list)  # per-tenant networks and pools (model.k8s_tenants)


def _refuse(loaded: LoadedInventory, key: tuple[str | int, ...], message: str, hint: str) -> InventoryError:
    return InventoryError(message, hint=hint, **loaded.where("kubernetes", *key))


def rails_by_profile(fabric: FabricModel) -> dict[str, dict[int, Rail]]:
    """profile -> rail -> that rail's NIC on the profile's first present server."""
    out: dict[str, dict[int, Rail]] = {}
    for server in fabric.servers:
        out.setdefault(server.profile, {r.index: r for r in server.rails})
    return out


def _policies(loaded: LoadedInventory, spec: Kubernetes, fabric: FabricModel) -> list[NodePolicy]:
    out = []
    for profile, rails in rails_by_profile(fabric).items():
        if not label_value_ok(profile):
            raise _refuse(loaded, ("profile_label",), f"server profile {profile!r} is not a valid Kubernetes label "
                          "value (nodes are selected by it)", "rename the profile: letters, digits, '-', '_', '.'")
        for r, rail in sorted(rails.items()):
            name = f"rail{r}-{profile.lower().replace('_', '-').replace('.', '-')}"
            if not dns_label_ok(name):
                raise _refuse(loaded, (), f"SR-IOV policy name {name!r} (rail, profile) is not an RFC 1123 label",
                              "shorten the server profile name (63 characters at most with the rail prefix)")
            out.append(NodePolicy(name, r, profile, nics.pci_device_id(rail.kind), rail.nic, rail.pci,
                                  f"rail{r}", spec.vfs_per_nic, rail.mtu))
    return out


def _leaf_pool(loaded: LoadedInventory, spec: Kubernetes, leaf: Switch, servers: list[Server], rail: int,
               per_leaf: int) -> PodPool:
    assert leaf.svi is not None
    gw = IPv4Interface(leaf.svi.address)
    net = gw.network
    host_top = int(gw.ip) + per_leaf  # numbering.shared_host: the leaf's last server slot
    last = int(net.broadcast_address) - 1
    on_leaf = [s for s in servers if any(r.index == rail and r.leaf == leaf.name for r in s.rails)]
    need = spec.vfs_per_nic * len(on_leaf)  # every VF of every server of the leaf may hold a pod
    # default: every slot's VFs (growth fills slots without moving the pool)
    size = spec.pool_size if spec.pool_size is not None else spec.vfs_per_nic * per_leaf
    what = "pool_size" if spec.pool_size is not None else f"{per_leaf} server slots x {spec.vfs_per_nic} VFs"
    first = last - size + 1
    if first <= host_top:
        room = max(0, last - host_top)
        raise _refuse(loaded, ("pool_size",), f"{size} pod addresses per rail ({what}) do not fit leaf {leaf.name}'s "
                      f"rail subnet {net}: {room} addresses are left above its {per_leaf} server slots",
                      f"set kubernetes.vfs_per_nic to at most {room // max(1, per_leaf)}, pool_size to at most {room}, "
                      "or use a larger addressing.host_links.leaf_prefix_len")
    if size < need:
        raise _refuse(loaded, ("pool_size",), f"pool_size {size} gives leaf {leaf.name}'s {len(on_leaf)} servers x "
                      f"{spec.vfs_per_nic} VFs ({need}) too few pod addresses on rail {rail}: pods beyond {size} never "
                      "start", f"set kubernetes.vfs_per_nic to at most {size // max(1, len(on_leaf))} or pool_size to "
                      f"at least {need}")
    sample = next((r for s in on_leaf for r in s.rails if r.index == rail), None)
    routes = [(rt.to, rt.via) for rt in (sample.routes if sample else []) if rt.table is None and rt.via]
    name = f"rail{rail}-{leaf.name.lower()}"
    if not dns_label_ok(name):
        raise _refuse(loaded, (), f"pool name {name!r} (rail, leaf) is not an RFC 1123 label",
                      "use leaf names of letters, digits and '-' (naming.leaf)")
    return PodPool(name, rail, leaf.name, str(net), str(IPv4Address(first)), str(IPv4Address(last)), str(gw.ip),
                   routes, [s.name for s in on_leaf])


def _node_pools(loaded: LoadedInventory, fabric: FabricModel, rail: int) -> list[PodPool]:
    """attach: pf: the pod takes its node's own rail address (the host-device CNI moved the NIC into the pod)."""
    out = []
    for s in fabric.servers:
        r = next((x for x in s.rails if x.index == rail), None)
        if r is None:
            continue
        if not dns_label_ok(f"rail{rail}-{s.name.lower()}"):
            raise _refuse(loaded, ("attach",), f"pool name rail{rail}-{s.name.lower()} (rail, server) is not an "
                          "RFC 1123 label", "use server names of letters, digits and '-' (naming.server)")
        routes = [(rt.to, rt.via) for rt in r.routes if rt.table is None and rt.via]
        out.append(PodPool(f"rail{rail}-{s.name.lower()}", rail, r.leaf, str(IPv4Interface(r.address).network), r.ip,
                           r.ip, r.gateway, routes, [s.name]))
    return out


def _networks(loaded: LoadedInventory, spec: Kubernetes, fabric: FabricModel, per_leaf: int) -> list[RailNetwork]:
    if spec.attach == "pf":
        rails = sorted({r.index for s in fabric.servers for r in s.rails})
        mtus = {i: min(r.mtu for s in fabric.servers for r in s.rails if r.index == i) for i in rails}
        return [RailNetwork(f"rail{i}", i, f"rail{i}", mtus[i], _node_pools(loaded, fabric, i)) for i in rails]
    leaves: dict[int, list[Switch]] = {}
    for sw in fabric.switches:
        if sw.role == "leaf" and sw.rail is not None and sw.svi is not None:
            leaves.setdefault(sw.rail, []).append(sw)
    out = []
    for rail in sorted(leaves):
        pools = [_leaf_pool(loaded, spec, leaf, fabric.servers, rail, per_leaf) for leaf in leaves[rail]]
        if spec.ipam == "whereabouts" and len(pools) > 1:
            raise _refuse(loaded, ("ipam",), f"whereabouts hands one range per network, but rail {rail} has "
                          f"{len(pools)} leaves with separate subnets", "use ipam: spiderpool (one pool per leaf)")
        host_mtu = min((r.mtu for s in fabric.servers for r in s.rails if r.index == rail), default=0)
        out.append(RailNetwork(f"rail{rail}", rail, f"rail{rail}", spec.vf_mtu or host_mtu, pools))
    return out


def _cable_len(loaded: LoadedInventory, fabric: FabricModel, profile: str, kind: str) -> int:
    """The cable length one template gives the NICs of a kind on a profile's servers: the longest of their links
    (each rail's one length, model.cabling), whose PFC headroom covers the shorter ones."""
    return max((r.cable_length_m for s in fabric.servers if s.profile == profile for r in s.rails if r.kind == kind),
               default=loaded.inventory.fabric.cable_length_m)


def _templates(loaded: LoadedInventory, spec: Kubernetes, fabric: FabricModel) -> list[NicTemplate]:
    if spec.nic_config != "nic-configuration-operator":
        return []
    out = []
    for profile, rails in rails_by_profile(fabric).items():
        first = next(s for s in fabric.servers if s.profile == profile)
        qos = first.qos
        kinds = sorted({r.kind for r in rails.values()})
        bare = next((r for _, r in sorted(rails.items()) if not r.pci), None)
        if bare is not None:
            raise _refuse(loaded, ("nic_config",), f"nic_config: nic-configuration-operator selects NICs by PCI "
                          f"address, profile {profile}'s rail {bare.index} NIC {bare.nic} has none, so nobody would "
                          "own its firmware", f"give profile {profile}'s NICs their pci (servers.profiles.{profile}.nics[].pci "
                          "or servers.pci), or set kubernetes.nic_config: netauto")
        for kind in kinds:
            params = nics.firmware(kind, roce_priority=qos.roce_priority, cnp_dscp=qos.cnp_dscp,
                                   cnp_priority=qos.cnp_priority, ar=first.adaptive_routing)
            raw = [(p.name, p.value) for p in nics.operator_raw_nv_config(params)]
            pcis = [r.pci for _, r in sorted(rails.items()) if r.kind == kind and r.pci]
            name = f"{profile.lower().replace('_', '-').replace('.', '-')}-{kind}"
            vfs = spec.vfs_per_nic if spec.attach == "vf" else 0
            out.append(NicTemplate(name[:63].rstrip("-"), profile, nics.pci_device_id(kind), pcis, vfs,
                                   TRUST, qos.pfc_bitmap, qos.roce_priority, qos.host_tos,
                                   _cable_len(loaded, fabric, profile, kind), raw))
    return out


def _nccl(spec: Kubernetes, fabric: FabricModel) -> dict[str, str]:
    """The hosts' nccl.conf minus what names host devices: inside a pod the VFs' RDMA devices have other names,
    and with RDMA isolation (exclusive netns mode) the pod sees only its own, which NCCL then uses. With attach: pf
    the pod holds the host's own NICs, so the hosts' NCCL_IB_HCA (exact names) is kept when every profile agrees."""
    nccl = next(s.nccl for s in fabric.servers if s.nccl is not None)
    resources = ",".join(f"{spec.prefix}/rail{r.index}" for r in fabric.servers[0].rails)
    data = {
        "NCCL_IB_TC": str(nccl.ib_tc),
        "NCCL_IB_ROCE_VERSION_NUM": str(nccl.roce_version),
        "NCCL_IB_ADDR_FAMILY": nccl.addr_family,
        "NCCL_IB_ADDR_RANGE": nccl.addr_range,
        "NCCL_IB_ADAPTIVE_ROUTING": "1" if nccl.adaptive_routing else "0",
        "NETAUTO_RDMA_RESOURCES": resources,
    }
    hcas = {s.nccl.ib_hca for s in fabric.servers if s.nccl is not None}
    if spec.attach == "pf" and len(hcas) == 1:  # the pod holds the host's own NICs: their RDMA names hold too
        data["NCCL_IB_HCA"] = hcas.pop()
    if nccl.qps_per_connection:
        data["NCCL_IB_QPS_PER_CONNECTION"] = str(nccl.qps_per_connection)
        data["NCCL_BUFFSIZE"] = str(nccl.buffsize)
    return data


def resolve_kubernetes(loaded: LoadedInventory, fabric: FabricModel) -> KubernetesModel | None:
    spec = loaded.inventory.kubernetes
    if spec is None:
        return None
    inv = loaded.inventory
    if inv.addressing.host_links.mode != "leaf-subnet" and spec.attach == "vf":
        raise _refuse(loaded, ("attach",), "p2p host links give each rail NIC a /31 that holds only the host and "
                      "its leaf, so an SR-IOV VF has no address on the rail",
                      "set kubernetes.attach: pf (the NIC moves into the pod with the host's address) or use "
                      "addressing.host_links.mode: leaf-subnet")
    if spec.attach == "pf" and (spec.stack != "nvidia-network-operator" or spec.ipam != "spiderpool"):
        raise _refuse(loaded, ("attach",), "attach: pf needs stack nvidia-network-operator (HostDeviceNetwork) and "
                      "ipam spiderpool (one pool per node)", "set kubernetes.stack: nvidia-network-operator and "
                      "kubernetes.ipam: spiderpool, or attach: vf")
    if spec.ipam == "nvidia-ipam":
        raise _refuse(loaded, ("ipam",), "nvidia-ipam is not rendered yet (netauto checks every "
                      "manifest against its CRD and the nv-ipam IPPool CRD is not in the checked set)",
                      "use ipam: spiderpool or whereabouts")
    if not fabric.servers:
        raise _refuse(loaded, (), "the fabric has no GPU servers to attach pods to", "add servers")
    if spec.vf_mtu is not None and spec.vf_mtu > inv.fabric.mtu.host:
        raise _refuse(loaded, ("vf_mtu",), f"vf_mtu {spec.vf_mtu} is above the hosts' MTU {inv.fabric.mtu.host}",
                      f"set kubernetes.vf_mtu to at most {inv.fabric.mtu.host} or remove it")
    networks = _networks(loaded, spec, fabric, inv.topology.servers_per_su)
    host_mtu = {n.rail: min(r.mtu for s in fabric.servers for r in s.rails if r.index == n.rail) for n in networks}
    return KubernetesModel(
        settings=spec,
        policies=_policies(loaded, spec, fabric),  # attach: pf renders the device plugin's resources from them
        networks=networks,
        templates=_templates(loaded, spec, fabric),
        nccl=_nccl(spec, fabric),
        nodes=[(s.name, s.profile) for s in fabric.servers],
        host_mtu=host_mtu,
        adaptive_routing=any(sw.adaptive_routing for sw in fabric.switches),
        tenants=resolve_k8s_tenants(loaded, fabric),
    )

