"""The pods' rail networks split by tenant (netauto.model.k8s_tenants; docs/tenants.md, "Kubernetes").

The same documents as netauto.render.kubernetes (attach: pf: a NetworkAttachmentDefinition per rail, a SpiderIPPool
per node and rail, the NCCL ConfigMap), built once per tenant over the tenant's nodes only and in its namespace,
plus per tenant: its Namespace, `namespaceName` on its pools (SpiderIPPool spec.namespaceName: the namespaces whose
pods may take an address from the pool; spiderpool charts/spiderpool/crds, docs/usage/ippool-affinity-namespace.md)
and a tenant label on its nodes and objects.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

from netauto.model.k8s_tenants import TENANT_LABEL, K8sTenant
from netauto.model.kubernetes import KubernetesModel

NAMESPACES = "tenant-namespaces.yaml"
HEADERS = {
    NAMESPACES: "one namespace per tenant: its pods, its rail networks and its NCCL settings",
    "rail-networks.yaml": "per tenant, in its namespace: one network per rail, the pod gets the rail NIC itself "
                          "(host-device), from its tenant's nodes' pools only",
    "rail-ippools.yaml": "pod addresses per rail and node: the node's own rail address, only for pods of the node's "
                         "tenant (namespaceName) on that node (nodeName)",
    "nccl-configmap.yaml": "NCCL settings for pods (envFrom this ConfigMap), one per tenant namespace: the hosts' "
                           "/etc/nccl.conf",
}


def _sub(k8s: KubernetesModel, t: K8sTenant) -> KubernetesModel:
    """The model of one tenant: its nodes' pools only, its namespace."""
    mine = set(t.servers)
    networks = [replace(n, pools=[p for p in n.pools if set(p.nodes) <= mine]) for n in k8s.networks]
    return replace(k8s, networks=networks, settings=k8s.settings.model_copy(update={"namespace": t.namespace}))


def _labelled(doc: dict[str, Any], t: K8sTenant) -> dict[str, Any]:
    doc["metadata"].setdefault("labels", {})[TENANT_LABEL] = t.name
    return doc


def split(k8s: KubernetesModel, fabric: str, files: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """`files` with the networks, pools and NCCL ConfigMap replaced by one set per tenant, its namespaces first."""
    from netauto.render import kubernetes as kr  # the document builders (which import this module)

    namespaces, networks, pools, nccl = [], [], [], []
    for t in k8s.tenants:
        sub = _sub(k8s, t)
        namespaces.append(_labelled({"apiVersion": "v1", "kind": "Namespace",
                                     "metadata": kr._meta(t.namespace, None, fabric)}, t))
        networks += [_labelled(d, t) for d in kr.host_device_networks(sub, fabric)]
        for d in kr.spider_pools(sub, fabric):
            d["spec"]["namespaceName"] = [t.namespace]
            pools.append(_labelled(d, t))
        nccl.append(_labelled(kr.nccl_configmap(sub, fabric), t))
    out = {NAMESPACES: namespaces, **files}
    out[kr.NETWORKS], out[kr.POOLS], out[kr.NCCL] = networks, pools, nccl
    return out


def label_lines(k8s: KubernetesModel) -> str:
    """label-nodes.sh's tenant labels: the pods' nodeSelector `netauto.io/tenant: <tenant>`."""
    lines = [f"# the tenant of each node ({TENANT_LABEL}): a tenant's pods select its nodes by it"] if k8s.tenants else []
    lines += [f"kubectl label node --overwrite {shlex.quote(srv)} {shlex.quote(f'{TENANT_LABEL}={t.name}')}"
              for t in k8s.tenants for srv in t.servers]
    return "".join(f"{line}\n" for line in lines)
