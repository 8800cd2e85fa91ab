"""The pods' rail networks split by tenant (netauto.model.k8s_tenants; docs/tenants.md, "Kubernetes").

The same documents as netauto.render.kubernetes (attach: pf: a NetworkAttachmentDefinition per rail, a SpiderIPPool
per node and rail, the NCCL ConfigMap), built once per tenant over the tenant's nodes only and in its namespace,
plus per tenant: its Namespace, `namespaceName` on its pools (SpiderIPPool spec.namespaceName: the namespaces whose
pods may take an address from the pool; spiderpool charts/spiderpool/crds, docs/usage/ippool-affinity-namespace.md)
and a tenant label on its nodes and objects.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from netauto.model.k8s_tenants import TENANT_LABEL, K8sTenant
from netauto.model.kubernetes import KubernetesModel

NAMESPACES = "tenant-namespaces.yaml"
Doc = dict[str, Any]
Build = Callable[[KubernetesModel, str], list[Doc]]  # render.kubernetes's document builders (passed in: no circle)


def headers(networks: str, pools: str, nccl: str) -> dict[str, str]:
    return {
        NAMESPACES: "one namespace per tenant: its pods, its rail networks and its NCCL settings",
        networks: "per tenant, in its namespace: one network per rail, the pod gets the rail NIC itself (host-device), "
                  "from its tenant's nodes' pools only",
        pools: "pod addresses per rail and node: the node's own rail address, only for pods of the node's tenant "
               "(namespaceName) on that node (nodeName)",
        nccl: "NCCL settings for pods (envFrom this ConfigMap), one per tenant namespace: the hosts' /etc/nccl.conf",
    }


def _sub(k8s: KubernetesModel, t: K8sTenant) -> KubernetesModel:
    """The model of one tenant: its nodes' pools only, its namespace."""
    mine = set(t.servers)
    networks = [replace(n, pools=[p for p in n.pools if set(p.nodes) <= mine]) for n in k8s.networks]
    return replace(k8s, networks=networks, settings=k8s.settings.model_copy(update={"namespace": t.namespace}))


def _labelled(doc: Doc, t: K8sTenant) -> Doc:
    doc["metadata"].setdefault("labels", {})[TENANT_LABEL] = t.name
    return doc


def namespaces(k8s: KubernetesModel, fabric: str, meta: Callable[[str, str | None, str], Doc]) -> list[Doc]:
    return [_labelled({"apiVersion": "v1", "kind": "Namespace", "metadata": meta(t.namespace, None, fabric)}, t)
            for t in k8s.tenants]


def per_tenant(k8s: KubernetesModel, fabric: str, networks: Build, pools: Build,
               nccl: Callable[[KubernetesModel, str], Doc]) -> tuple[list[Doc], list[Doc], list[Doc]]:
    """(networks, pools, NCCL ConfigMaps): the builders' documents once per tenant, over its nodes, in its
    namespace; each pool open to that namespace only."""
    nets: list[Doc] = []
    pls: list[Doc] = []
    cms: list[Doc] = []
    for t in k8s.tenants:
        sub = _sub(k8s, t)
        nets += [_labelled(d, t) for d in networks(sub, fabric)]
        for d in pools(sub, fabric):
            d["spec"]["namespaceName"] = [t.namespace]
            pls.append(_labelled(d, t))
        cms.append(_labelled(nccl(sub, fabric), t))
    return nets, pls, cms


def label_lines(k8s: KubernetesModel) -> str:
    """label-nodes.sh's tenant labels: the pods' nodeSelector `netauto.io/tenant: <tenant>`."""
    lines = [f"# the tenant of each node ({TENANT_LABEL}): a tenant's pods select its nodes by it"] if k8s.tenants else []
    lines += [f"kubectl label node --overwrite {shlex.quote(srv)} {shlex.quote(f'{TENANT_LABEL}={t.name}')}"
              for t in k8s.tenants for srv in t.servers]
    return "".join(f"{line}\n" for line in lines)
