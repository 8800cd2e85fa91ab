"""Schema of the `kubernetes:` section: the RDMA networks the cluster's pods get, one per rail.

Optional: an inventory without it renders exactly as before. With it, `netauto render` writes the manifests into
`<fabric>/kubernetes/` (netauto.render.kubernetes) from the same model the switches and hosts come from.

Every value that lands in a manifest is typed for its destination here: Kubernetes object names and namespaces are
RFC 1123 labels (what the API server accepts, k8s.io/apimachinery validation IsDNS1123Label), label keys and values
follow the label syntax (IsQualifiedName / IsValidLabelValue), so no inventory text reaches a manifest unchecked.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from netauto.inventory.base import Strict
from netauto.inventory.spectrum_x import SpectrumX
from netauto.platforms.kubernetes import DEFAULT_NAMESPACE, NIC_OPERATOR_NAMESPACE

# RFC 1123 label (k8s.io/apimachinery/pkg/util/validation: DNS1123LabelMaxLength 63): namespaces, object names
DnsLabel = Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)]
# label key: an optional DNS-subdomain prefix and a name (IsQualifiedName), e.g. netauto.io/profile
LabelKey = Annotated[str, Field(pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                                        r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$", max_length=316)]
# a device-plugin resource prefix (sriov-network-device-plugin "resourcePrefix"; default openshift.io)
ResourcePrefix = Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$",
                                      max_length=253)]

# an OCI image tag (distribution spec: [A-Za-z0-9_][A-Za-z0-9._-]{0,127})
ImageTag = Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")]

# Which operator owns the SR-IOV objects. The NVIDIA Network Operator deploys the SR-IOV Network Operator as a
# component (Network Operator docs, "SR-IOV Network Operator deployment"), so both read the same
# SriovNetworkNodePolicy objects; they differ in the namespace those must live in (the operator's own).
Stack = Literal["sriov-network-operator", "nvidia-network-operator"]
DEFAULT_PREFIX: dict[str, str] = {"sriov-network-operator": "openshift.io", "nvidia-network-operator": "nvidia.com"}


class Kubernetes(Strict):
    """`kubernetes:` the pods' side of the RoCE chain (docs/kubernetes.md)."""

    stack: Stack = "sriov-network-operator"
    # who sets the NIC's QoS/firmware: the NIC Configuration Operator (a NicConfigurationTemplate is rendered) or
    # netauto's host units (netauto-roce-qos.sh, netauto-nic-firmware.sh; nothing more is rendered)
    nic_config: Literal["nic-configuration-operator", "netauto"] = "netauto"
    ipam: Literal["whereabouts", "spiderpool", "nvidia-ipam"] = "spiderpool"
    # what a pod gets per rail: an SR-IOV VF with its own address ("vf"), or the NIC itself with the host's rail
    # address ("pf": host-device CNI moves the PF into the pod, one pod per node; NVIDIA Network Operator docs,
    # "Host Device Network with RDMA"); p2p /31 host links leave a VF no address, so they need "pf"
    attach: Literal["vf", "pf"] = "vf"
    # attach: pf: the SR-IOV network device plugin the Network Operator deploys from the NicClusterPolicy (image
    # sriov-network-device-plugin in nvcr.io/nvidia/mellanox, the Network Operator quick start's tag by default)
    device_plugin_version: ImageTag = "network-operator-v25.7.0"
    vfs_per_nic: int = Field(8, ge=1, le=127)  # SR-IOV VFs per rail NIC (numVfs); ConnectX-7 allows up to 127
    vf_mtu: int | None = Field(None, ge=1280, le=9216)  # the pods' interface MTU; default the host MTU
    # pod addresses per rail per leaf subnet; default vfs_per_nic x the leaf's server slots, at least x its servers
    pool_size: int | None = Field(None, ge=1, le=65534)
    operator_namespace: DnsLabel | None = None  # default: the stack's namespace
    namespace: DnsLabel = "default"  # where the pods run (SriovNetwork networkNamespace, the ConfigMap)
    # the device plugin's resource prefix; default: the stack's (the SR-IOV Network Operator's device plugin uses
    # openshift.io, the Network Operator's docs and Helm values nvidia.com)
    resource_prefix: ResourcePrefix | None = None
    profile_label: LabelKey = "netauto.io/server-profile"  # node label: which server profile a node is
    # where NicConfigurationTemplates go: the NIC Configuration Operator's namespace (its Helm chart's default)
    nic_operator_namespace: DnsLabel = NIC_OPERATOR_NAMESPACE
    # compute planes with nic_config: nic-configuration-operator: the Spectrum-X profile (inventory.spectrum_x)
    spectrum_x: SpectrumX | None = None

    @property
    def policy_namespace(self) -> str:
        return self.operator_namespace or DEFAULT_NAMESPACE[self.stack]

    @property
    def prefix(self) -> str:
        return self.resource_prefix or DEFAULT_PREFIX[self.stack]


