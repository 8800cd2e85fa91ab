"""K8S-02 with tenants (docs/tenants.md, "Kubernetes"), read back from the rendered manifests: each tenant's
namespace has one network per rail, every network names only pools of its tenant's nodes, every pool serves only
its node's tenant (namespaceName = that tenant's namespace, multusName in it), and every tenant namespace has the
pods' NCCL ConfigMap. A pool usable from another namespace, or a network reaching another tenant's node, would put
a pod on the rails of a VRF that is not its tenant's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from netauto.formats import cni_networks
from netauto.model.kubernetes import KubernetesModel

Err = Callable[[str, str, str], None]  # (rule, path, message)
Docs = Callable[[str], Iterator[tuple[str, dict[str, Any]]]]  # kind -> (path, document)


def _ns(doc: dict[str, Any]) -> str | None:
    ns = (doc.get("metadata") or {}).get("namespace")
    return str(ns) if ns is not None else None


def label(doc: dict[str, Any]) -> str:
    """`Kind/name` of a manifest, as findings name it."""
    return f"{doc.get('kind')}/{(doc.get('metadata') or {}).get('name')}"


def _items(value: Any) -> list[Any]:
    """A manifest's list field as a list: a scalar is one item (and names itself in the finding), null none."""
    return value if isinstance(value, list) else [] if value is None else [value]


def _pool_names(doc: dict[str, Any]) -> list[str]:
    try:
        chain = cni_networks.plugins(doc)
    except cni_networks.NetworkFormatError:
        return []  # K8S-09 reports an unreadable chain
    ipam: dict[str, Any] = next((p["ipam"] for p in chain if isinstance(p, dict) and isinstance(p.get("ipam"), dict)),
                                {})
    return [str(x) for x in ipam.get("default_ipv4_ippool") or []]


def check_tenants(k8s: KubernetesModel, kind: Docs, err: Err) -> None:
    if not k8s.tenants:
        return
    ns_of = {srv: t.namespace for t in k8s.tenants for srv in t.servers}
    tenant_of_ns = {t.namespace: t.name for t in k8s.tenants}
    rails = sorted({n.rail for n in k8s.networks})
    pools = {str((d.get("metadata") or {}).get("name")): (path, d) for path, d in kind("SpiderIPPool")}
    pool_ns: dict[str, str | None] = {}
    for name, (path, d) in pools.items():
        spec = d.get("spec") or {}
        spaces = {ns_of.get(str(node)) for node in _items(spec.get("nodeName"))}
        want = spaces.pop() if len(spaces) == 1 else None
        pool_ns[name] = want
        if want is None:
            err("K8S-02", path, f"{label(d)}: nodes {spec.get('nodeName')} are not all one tenant's")
            continue
        if [str(x) for x in _items(spec.get("namespaceName"))] != [want]:
            err("K8S-02", path, f"{label(d)}: namespaceName {spec.get('namespaceName')}: pods of other tenants "
                f"could take its address (want [{want}], tenant {tenant_of_ns[want]})")
        stray = [m for m in _items(spec.get("multusName")) if not str(m).startswith(f"{want}/")]
        if stray:
            err("K8S-02", path, f"{label(d)}: multusName {stray} outside tenant {tenant_of_ns[want]}'s namespace")
    networks = list(kind("NetworkAttachmentDefinition"))
    for path, d in networks:
        ns = _ns(d)
        if ns not in tenant_of_ns:
            err("K8S-02", path, f"{label(d)} in namespace {ns}, no tenant's: pods there reach every tenant's nodes")
            continue
        for pool in _pool_names(d):
            owner = pool_ns.get(pool)
            if owner != ns:
                err("K8S-02", path, f"{label(d)} of tenant {tenant_of_ns[ns]} names pool {pool} of "
                    f"{'tenant ' + tenant_of_ns[owner] if owner else 'no tenant'}")
    for t in k8s.tenants:
        for r in rails:
            mine = [d for _, d in networks if _ns(d) == t.namespace and label(d).endswith(f"/rail{r}")]
            if len(mine) != 1:
                err("K8S-02", "rail-networks.yaml", f"tenant {t.name}: {len(mine)} networks for rail {r} in "
                    f"namespace {t.namespace}; want exactly one")
        if not any(_ns(d) == t.namespace for _, d in kind("ConfigMap")):
            err("K8S-08", "nccl-configmap.yaml", f"tenant {t.name}: no NCCL ConfigMap in namespace {t.namespace} "
                "(its pods' envFrom)")
