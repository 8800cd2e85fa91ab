"""The multi-plane parts of the Kubernetes manifests (render.kubernetes calls these; model.kubernetes_planes).

NicConfigurationTemplate `spec.template` with `spectrumXOptimized` (configuration.net.nvidia.com/v1alpha1, the CRD of
Mellanox/nic-configuration-operator 8bfbeb34 that netauto checks against; Network Operator 26.4 "Software Multiplane
Spectrum-X Quick Start" step "NicConfigurationTemplate" and k8s-launch-kit profiles/spectrum-x-ra2.4/
30-nicconfigurationtemplate.yaml): numVfs 1, linkType Ethernet, spectrumXOptimized {enabled, version, platformType,
multiplaneMode, numberOfPlanes, overlay}, pciPerformanceOptimized {enabled, maxReadRequest 4096}; no roceOptimized
(CEL: "spectrumXOptimized includes RoCE optimizations, so separate roceOptimized section must not be enabled").
"""

from __future__ import annotations

from typing import Any

from netauto.model.kubernetes import NIC_LINK_TYPE, KubernetesModel, NicTemplate

MAX_READ_REQUEST = 4096  # the quick starts' pciPerformanceOptimized.maxReadRequest (CRD enum 128..4096)


def spectrum_x_template(t: NicTemplate) -> dict[str, Any]:
    sx = t.spectrum_x
    assert sx is not None
    template: dict[str, Any] = {
        "numVfs": t.num_vfs, "linkType": NIC_LINK_TYPE,
        "spectrumXOptimized": {"enabled": True, "version": sx.version, "platformType": sx.platform_type,
                               "multiplaneMode": sx.mode, "numberOfPlanes": sx.planes, "overlay": sx.overlay},
        "pciPerformanceOptimized": {"enabled": True, "maxReadRequest": MAX_READ_REQUEST},
    }
    if t.raw_nv_config:  # the fabric's firmware values, over the Spectrum-X profile's
        template["rawNvConfig"] = [{"name": n, "value": str(v)} for n, v in t.raw_nv_config]
    return template


def plane_headers(k8s: KubernetesModel, files: dict[str, str]) -> dict[str, str]:
    """File headers where the cluster has compute planes (none otherwise); `files`: role -> the file's name."""
    planes = max((n.plane for n in k8s.networks), default=1)
    if planes == 1:
        return {}
    networks, pools, nic_config = files["networks"], files["pools"], files["nic_config"]
    return {files["policies"]: "SR-IOV VFs per rail NIC port and compute plane (sriov-network-operator): each plane "
                               "port's PF by name and PCI address",
            files["device_plugin"]: "attach: pf: a merge patch of your NicClusterPolicy (patch-nic-cluster-policy.sh; "
                                    "NOT in the kustomization:\napplied whole it would drop the policy's other "
                                    "components): the device plugin's resources per rail and compute plane (the "
                                    "plane ports themselves)",
            networks: f"one network per rail and compute plane ({planes} planes, swplb): rail<r>p<p> is rail r's "
                      "port on plane p, with its own resource",
            pools: "pod addresses per rail, compute plane and node (or leaf): each plane port's own plane addresses",
            nic_config: "NIC firmware per server profile (NIC Configuration Operator): Spectrum-X multiplane mode over "
                        "every plane port's PF, the fabric's firmware values as rawNvConfig"}
