"""The Kubernetes manifests of the pods' RDMA networks, written to `<fabric>/kubernetes/` (`kubectl apply -k`).

Built as data from netauto.model.kubernetes and dumped as YAML (no template: every field is a CRD field). Field by
field, the sources are the CRDs' OpenAPI schemas (netauto.validate.k8s_crds pins them) and the operators' docs:
  SriovNetworkNodePolicy  sriovnetwork.openshift.io/v1 (k8snetworkplumbingwg/sriov-network-operator,
      config/crd/bases; README "SriovNetworkNodePolicy"): nicSelector (vendor, deviceID, pfNames, rootDevices),
      numVfs, mtu, isRdma, linkType, deviceType netdevice (RDMA with mlx5 VFs needs the kernel driver), nodeSelector
  SriovNetwork  sriovnetwork.openshift.io/v1: resourceName, networkNamespace, ipam (a CNI IPAM JSON string),
      metaPlugins (chained CNI plugins: "rdma" moves the VF's RDMA device into the pod, "tuning" sets its MTU)
  SpiderMultusConfig / SpiderIPPool  spiderpool.spidernet.io/v2beta1 (spidernet-io/spiderpool charts/spiderpool/crds;
      docs/usage/rdma-roce.md: cniType sriov + rdmaIsolation; docs/usage/network-topology.md: several pools per
      network, each restricted to its nodes, the pod gets the pool of its node)
  NicConfigurationTemplate  configuration.net.nvidia.com/v1alpha1 (Mellanox/nic-configuration-operator):
      template.roceOptimized.qos {trust, pfc, ecn, tos, cableLen, pauseFrames}, numVfs, linkType
  NicClusterPolicy  mellanox.com/v1alpha1 (Mellanox/network-operator, config/crd/bases; docs "Host Device Network
      with RDMA"): sriovDevicePlugin {image, repository, version, config}, shipped as a merge patch (a partial
      object applied whole would drop the policy's other components)
  NetworkAttachmentDefinition  k8s.cni.cncf.io/v1 (k8snetworkplumbingwg/network-attachment-definition-client): the
      host-device config a HostDeviceNetwork generates plus `sbr`; Spiderpool IPAM `default_ipv4_ippool` (spiderpool
      docs, IPAM priorities: "CNI configuration file", the pool whose node affinity matches the pod's node is used)
  Pod routing: no SpiderIPPool `gateway` (docs/usage/route.md: a gateway becomes the pod's default route) and the
      CNI `sbr` plugin chained on every rail network (one rule and table per rail); the chains run for real in
      tests/test_cni_chain.py (Debian's containernetworking-plugins, network namespaces)
  whereabouts IPAM keys (k8snetworkplumbingwg/whereabouts README): range, range_start, range_end, gateway, routes
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import yaml

from netauto.model.kubernetes import FOLDER, NIC_LINK_TYPE, ROCE_MODE, SRIOV_LINK_TYPE, KubernetesModel, PodPool
from netauto.platforms.nics import VENDOR_ID
from netauto.render.artifact import Artifact
from netauto.render.kubernetes_planes import plane_headers, spectrum_x_template

POLICIES = "sriov-node-policies.yaml"
# a JSON merge patch (RFC 7386; `kubectl patch --type merge`, the only patch type a custom resource takes), never a
# kustomize resource: `kubectl apply` of a partial NicClusterPolicy drops every component it does not list
# (ofedDriver, secondaryNetwork, ...) from a live object the same apply created, a cluster-wide driver uninstall
DEVICE_PLUGIN = "nic-cluster-policy.patch.yaml"
PATCH_SCRIPT = "patch-nic-cluster-policy.sh"
PATCHES = (DEVICE_PLUGIN,)  # files of the folder that are not kustomize resources
NIC_CLUSTER_POLICY = "nic-cluster-policy"  # the only name the Network Operator reconciles (its CRD README)
# the Network Operator quick start ("Host Device Network with RDMA"): the device plugin's image and registry
DEVICE_PLUGIN_IMAGE = ("sriov-network-device-plugin", "nvcr.io/nvidia/mellanox")
NETWORKS = "rail-networks.yaml"
POOLS = "rail-ippools.yaml"
NIC_CONFIG = "nic-configuration.yaml"
NCCL = "nccl-configmap.yaml"
KUSTOMIZATION = "kustomization.yaml"
LABELS = "label-nodes.sh"
NCCL_CONFIGMAP = "netauto-nccl"
MANAGED_BY = {"app.kubernetes.io/managed-by": "netauto"}


def _meta(name: str, namespace: str | None, fabric: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    meta["labels"] = {**MANAGED_BY, "netauto.io/fabric": fabric}
    return meta


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (an embedded JSON config) as YAML literal blocks."""


_Dumper.add_representer(str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|" if "\n" in v else None))


def _dump(header: str, docs: list[dict[str, Any]]) -> str:
    body = yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, explicit_start=True, default_flow_style=False,
                         width=200)
    return "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines()) + body


def policies(k8s: KubernetesModel, fabric: str) -> list[dict[str, Any]]:
    s = k8s.settings
    out = []
    for p in k8s.policies:
        selector: dict[str, Any] = {"vendor": VENDOR_ID, "deviceID": p.device_id, "pfNames": [p.pf_name]}
        if p.pci:
            selector["rootDevices"] = [p.pci]
        out.append({
            "apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
            "metadata": _meta(p.name, s.policy_namespace, fabric),
            "spec": {"resourceName": p.resource_name, "nodeSelector": {s.profile_label: p.profile},
                     "numVfs": p.num_vfs, "mtu": p.mtu, "nicSelector": selector, "deviceType": "netdevice",
                     "isRdma": True, "linkType": SRIOV_LINK_TYPE},
        })
    return out


def nic_cluster_policy(k8s: KubernetesModel, fabric: str) -> dict[str, Any]:
    """attach: pf: the SR-IOV network device plugin's resources, one per rail, each the rail NICs themselves
    (sriov-network-device-plugin README, "selectors": vendors, devices, pciAddresses / pfNames, isRdma)."""
    s = k8s.settings
    resources = []
    for res in sorted({p.resource_name for p in k8s.policies}):
        mine = [p for p in k8s.policies if p.resource_name == res]
        selectors: dict[str, Any] = {"vendors": [VENDOR_ID], "devices": sorted({p.device_id for p in mine})}
        pcis = sorted({p.pci for p in mine if p.pci})
        if len(pcis) == len(mine):
            selectors["pciAddresses"] = pcis
        else:
            selectors["pfNames"] = sorted({p.pf_name for p in mine})
        selectors["isRdma"] = True
        resources.append({"resourcePrefix": s.prefix, "resourceName": res, "selectors": selectors})
    image, repository = DEVICE_PLUGIN_IMAGE
    # metadata: the name only (a merge patch's labels would land on an object netauto does not own)
    return {"apiVersion": "mellanox.com/v1alpha1", "kind": "NicClusterPolicy", "metadata": {"name": NIC_CLUSTER_POLICY},
            "spec": {"sriovDevicePlugin": {"image": image, "repository": repository,
                                           "version": s.device_plugin_version,
                                           "config": json.dumps({"resourceList": resources}, indent=2) + "\n"}}}


def host_device_networks(k8s: KubernetesModel, fabric: str) -> list[dict[str, Any]]:
    """attach: pf: one NetworkAttachmentDefinition per rail, the config a HostDeviceNetwork would generate
    (network-operator's hostdevice template: host-device + IPAM, resourceName annotation; Multus adds the
    allocated PCI address as deviceID) plus `sbr` chained after it, which a HostDeviceNetwork cannot carry."""
    s = k8s.settings
    out = []
    for n in k8s.networks:
        main = {"type": "host-device", "ipam": {"type": "spiderpool", "default_ipv4_ippool": [p.name for p in n.pools]}}
        meta = _meta(n.name, s.namespace, fabric)
        meta["annotations"] = {RESOURCE_ANNOTATION: f"{s.prefix}/{n.resource_name}"}
        out.append({"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition", "metadata": meta,
                    "spec": {"config": json.dumps({"cniVersion": CNI_VERSION, "name": n.name,
                                                   "plugins": [main, *SOURCE_ROUTING]}, indent=2) + "\n"}})
    return out


# Source routing per rail inside the pod: the CNI `sbr` plugin (containernetworking/plugins plugins/meta/sbr)
# moves the interface's routes into a table of its own and adds `ip rule from <its address> lookup <table>`, so
# each rail's traffic leaves through its own NIC and the pod's main table (its default route on eth0) is untouched.
SOURCE_ROUTING: tuple[dict[str, Any], ...] = ({"type": "sbr"},)
CNI_VERSION = "0.4.0"  # sbr needs a prevResult (CNI spec 0.4.0 chaining)
# Multus: the device plugin resource a NetworkAttachmentDefinition's pods request (multus-cni docs/how-to-use.md)
RESOURCE_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"


def _whereabouts(pool: PodPool) -> str:
    return json.dumps({"type": "whereabouts", "range": pool.subnet, "range_start": pool.first,
                       "range_end": pool.last, "gateway": pool.gateway,
                       "routes": [{"dst": dst, "gw": gw} for dst, gw in pool.routes]}, separators=(",", ":"))


def sriov_networks(k8s: KubernetesModel, fabric: str) -> list[dict[str, Any]]:
    s = k8s.settings
    out = []
    for n in k8s.networks:
        # the operator splices metaPlugins raw into the NAD's plugin list after the sriov plugin
        # (sriov-network-operator RenderNetAttDef, bindata cni-config template): objects, comma-separated, no brackets
        meta = ",".join(json.dumps(p, separators=(",", ":"))
                        for p in ({"type": "rdma"}, {"type": "tuning", "mtu": n.mtu}, *SOURCE_ROUTING))
        out.append({
            "apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetwork",
            "metadata": _meta(n.name, s.policy_namespace, fabric),
            "spec": {"resourceName": n.resource_name, "networkNamespace": s.namespace,
                     "ipam": _whereabouts(n.pools[0]), "metaPlugins": meta},
        })
    return out


def spider_networks(k8s: KubernetesModel, fabric: str) -> list[dict[str, Any]]:
    s = k8s.settings
    return [{
        "apiVersion": "spiderpool.spidernet.io/v2beta1", "kind": "SpiderMultusConfig",
        "metadata": _meta(n.name, s.namespace, fabric),
        # the coordinator (on by default) is off: sbr is the one owner of the pod's rail routes
        "spec": {"cniType": "sriov", "enableCoordinator": False,
                 "sriov": {"resourceName": f"{s.prefix}/{n.resource_name}", "rdmaIsolation": True, "mtu": n.mtu,
                           "ippools": {"ipv4": [p.name for p in n.pools]}},
                 "chainCNIJsonData": [json.dumps(p, separators=(",", ":")) for p in SOURCE_ROUTING]},
    } for n in k8s.networks]


def spider_pools(k8s: KubernetesModel, fabric: str) -> list[dict[str, Any]]:
    s = k8s.settings
    return [{
        "apiVersion": "spiderpool.spidernet.io/v2beta1", "kind": "SpiderIPPool",
        "metadata": _meta(p.name, None, fabric),
        # no `gateway`: Spiderpool makes a pool's gateway the pod's default route (docs/usage/route.md), one per
        # rail ahead of eth0's; the rail's own routes (the fabric via the leaf) are all a rail needs
        "spec": {"ipVersion": 4, "subnet": p.subnet, "ips": [p.first if p.first == p.last else f"{p.first}-{p.last}"],
                 "routes": [{"dst": dst, "gw": gw} for dst, gw in p.routes], "nodeName": p.nodes,
                 "multusName": [f"{s.namespace}/{m.name}" for m in k8s.networks
                                if m.rail == p.rail and m.plane == n.plane]},
    } for n in k8s.networks for p in n.pools]


# GPUDirect RDMA on bare metal (nic-configuration-operator configvalidation.go): gpuDirectOptimized sets ATS_ENABLED
# false (NIC-GPU peer-to-peer reads without the IOMMU's address translation), needs pciPerformanceOptimized (PCI
# read tuning: MAX_ACC_OUT_READ auto, max read request 4096) and accepts only env "Baremetal"
GPU_DIRECT = {"enabled": True, "env": "Baremetal"}


def nic_templates(k8s: KubernetesModel, fabric: str) -> list[dict[str, Any]]:
    s = k8s.settings
    out = []
    for t in k8s.templates:
        qos = {"trust": t.trust, "pfc": t.pfc, "ecn": {"enabled": True, "priority": t.ecn_priority}, "tos": t.tos,
               "cableLen": t.cable_len, "pauseFrames": {"enabled": False}}
        template: dict[str, Any] = {"numVfs": t.num_vfs, "linkType": NIC_LINK_TYPE,
                                    "pciPerformanceOptimized": {"enabled": True}, "gpuDirectOptimized": GPU_DIRECT,
                                    "roceOptimized": {"enabled": True, "roceMode": ROCE_MODE, "qos": qos}}
        if t.raw_nv_config:  # the operator owns the firmware: the fabric's values where its own differ
            template["rawNvConfig"] = [{"name": n, "value": str(v)} for n, v in t.raw_nv_config]
        if t.spectrum_x is not None:  # compute planes: the Spectrum-X block instead (render.kubernetes_planes)
            template = spectrum_x_template(t)
        out.append({
            "apiVersion": "configuration.net.nvidia.com/v1alpha1", "kind": "NicConfigurationTemplate",
            "metadata": _meta(t.name, s.nic_operator_namespace, fabric),
            "spec": {"nodeSelector": {s.profile_label: t.profile},
                     "nicSelector": {"nicType": t.device_id, "pciAddresses": t.pci_addresses},
                     "template": template},
        })
    return out


def nccl_configmap(k8s: KubernetesModel, fabric: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta(NCCL_CONFIGMAP, k8s.settings.namespace, fabric),
            "data": dict(k8s.nccl)}


def label_script(k8s: KubernetesModel, fabric: str) -> str:
    key = k8s.settings.profile_label
    lines = ["#!/bin/sh", f"# {fabric}: label every GPU server's node with its server profile ({key}); the SR-IOV",
             "# policies and NIC templates select nodes by it. Node names are the inventory's server names.",
             "set -eu"]
    lines += [f"kubectl label node --overwrite {shlex.quote(node)} {shlex.quote(f'{key}={profile}')}"
              for node, profile in k8s.nodes]
    return "\n".join(lines) + "\n"


PF_HEADERS = {  # attach: pf
    NETWORKS: "one network per rail: the pod gets the rail NIC itself (host-device), one pod per node",
    POOLS: "pod addresses per rail and node: the node's own rail address (the NIC moves into the pod with it)",
    NCCL: "NCCL settings for pods (envFrom this ConfigMap): the hosts' /etc/nccl.conf (the pod holds the host's NICs)",
}
HEADERS = {
    POLICIES: "SR-IOV VFs per rail NIC (sriov-network-operator): PF by name and PCI address from the server profile",
    NETWORKS: "one network per rail: pods attach one VF per rail, addressed on that rail",
    POOLS: "pod addresses per rail and leaf: the top of each leaf subnet, above every server slot",
    DEVICE_PLUGIN: f"attach: pf: a merge patch of your NicClusterPolicy ({PATCH_SCRIPT}; NOT in the kustomization:"
                   "\napplied whole it would drop the policy's other components): the device plugin's per-rail "
                   "resources (the rail NICs themselves)",
    NIC_CONFIG: "NIC QoS/firmware per server profile (NIC Configuration Operator): the switches' and hosts' RoCE QoS",
    NCCL: "NCCL settings for pods (envFrom this ConfigMap): the hosts' /etc/nccl.conf minus host device names",
}


def render_kubernetes(k8s: KubernetesModel, fabric: str) -> list[Artifact]:
    files: dict[str, list[dict[str, Any]]] = {}
    if k8s.settings.attach == "pf":
        files[DEVICE_PLUGIN] = [nic_cluster_policy(k8s, fabric)]
        files[NETWORKS] = host_device_networks(k8s, fabric)
        files[POOLS] = spider_pools(k8s, fabric)
    elif k8s.settings.ipam == "spiderpool":
        files[POLICIES] = policies(k8s, fabric)
        files[NETWORKS] = spider_networks(k8s, fabric)
        files[POOLS] = spider_pools(k8s, fabric)
    else:
        files[POLICIES] = policies(k8s, fabric)
        files[NETWORKS] = sriov_networks(k8s, fabric)
    if k8s.templates:
        files[NIC_CONFIG] = nic_templates(k8s, fabric)
    files[NCCL] = [nccl_configmap(k8s, fabric)]
    headers = {**HEADERS, **(PF_HEADERS if k8s.settings.attach == "pf" else {}),
               **plane_headers(k8s, {"networks": NETWORKS, "pools": POOLS, "nic_config": NIC_CONFIG,
                                     "policies": POLICIES, "device_plugin": DEVICE_PLUGIN})}
    out = [Artifact(FOLDER, path, _dump(f"{fabric}: {headers[path]}\nrendered by netauto from the inventory", docs))
           for path, docs in files.items()]
    kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                     "resources": [f for f in files if f not in PATCHES]}
    out.append(Artifact(FOLDER, KUSTOMIZATION, _dump(f"{fabric}: kubectl apply -k <this folder>", [kustomization])))
    out.append(Artifact(FOLDER, LABELS, label_script(k8s, fabric), 0o755))
    if DEVICE_PLUGIN in files:
        out.append(Artifact(FOLDER, PATCH_SCRIPT, patch_script(fabric), 0o755))
    return out


def patch_script(fabric: str) -> str:
    return "\n".join([
        "#!/bin/sh", f"# {fabric}: merge the rail resources into the live NicClusterPolicy (its other components stay).",
        "set -eu", 'cd "$(dirname "$0")"',
        f"kubectl patch nicclusterpolicy {NIC_CLUSTER_POLICY} --type merge --patch-file {DEVICE_PLUGIN}"]) + "\n"
