"""Kubernetes follows the tenant (docs/tenants.md, "Kubernetes"): each tenant's pods get rail networks and address
pools of their own, in the tenant's namespace, over the tenant's servers only.

With tenants the host links are p2p, so the pods attach the rail NIC itself (`attach: pf`, one pool per node and
rail: model.kubernetes). Per tenant: the NetworkAttachmentDefinitions in its namespace name only its nodes' pools,
each pool is restricted to the tenant's namespace (SpiderIPPool `namespaceName`) and to its node (`nodeName`), and
its nodes carry a tenant label for the pods' nodeSelector. A pod of tenant A scheduled on a node of tenant B, or
referring to A's network from B's namespace, gets no address (Spiderpool matches the pool's node and namespace
affinity before allocating: spiderpool docs/usage/ippool-affinity-*.md), so it never starts on the wrong VRF.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from netauto.errors import InventoryError
from netauto.platforms.kubernetes import DEFAULT_NAMESPACE, NIC_OPERATOR_NAMESPACE, SYSTEM_NAMESPACES
from netauto.inventory.names import dns_label_ok, label_value_ok
from netauto.model.types import FabricModel

if TYPE_CHECKING:
    from netauto.inventory.kubernetes import Kubernetes
    from netauto.inventory.loader import LoadedInventory

TENANT_LABEL = "netauto.io/tenant"  # node label: the tenant a node (a whole server) belongs to


@dataclass(frozen=True, slots=True)
class K8sTenant:
    name: str
    namespace: str
    servers: tuple[str, ...]


def reserved_namespaces(k8s: Kubernetes | None) -> dict[str, str]:
    """Namespace -> whose it is, for the namespaces no tenant may take: Kubernetes' own and the operators' that
    netauto renders objects for (each stack's default, the NIC Configuration Operator's, and the ones set here)."""
    out = {ns: f"Kubernetes' own ({', '.join(SYSTEM_NAMESPACES)})" for ns in SYSTEM_NAMESPACES}
    out.update({ns: f"the {stack} stack's" for stack, ns in DEFAULT_NAMESPACE.items()})
    out[NIC_OPERATOR_NAMESPACE] = "the NIC Configuration Operator's"
    if k8s is not None:
        for key, ns in (("operator_namespace", k8s.operator_namespace),
                        ("nic_operator_namespace", k8s.nic_operator_namespace)):
            if ns is not None:
                out.setdefault(ns, f"the operators' (kubernetes.{key})")
    return out


def resolve_k8s_tenants(loaded: LoadedInventory, fabric: FabricModel) -> list[K8sTenant]:
    """The tenants' namespaces and nodes; a namespace is one tenant's (two tenants in one namespace would share
    its networks)."""
    spec = loaded.inventory.tenants
    if spec is None or not fabric.tenants:
        return []
    out: list[K8sTenant] = []
    holder: dict[str, str] = {}
    reserved = reserved_namespaces(loaded.inventory.kubernetes)
    for t in fabric.tenants:
        ns = spec.members[t.name].namespace or t.name
        where = loaded.where("tenants", "members", t.name, *(("namespace",) if spec.members[t.name].namespace else ()))
        if not dns_label_ok(ns):
            raise InventoryError(f"tenant {t.name}: {ns!r} is not a Kubernetes namespace (RFC 1123 label: lower-case "
                                 "letters, digits, '-')", hint=f"set tenants.members.{t.name}.namespace", **where)
        if not label_value_ok(t.name):
            raise InventoryError(f"tenant {t.name!r} is not a Kubernetes label value (its nodes are labelled "
                                 f"{TENANT_LABEL}=<tenant>)", hint="start and end the tenant's name with a letter or digit",
                                 **loaded.where("tenants", "members", t.name))
        if ns in reserved:
            raise InventoryError(f"tenant {t.name}: namespace {ns} is {reserved[ns]}: the tenant's rail networks, pools "
                                 "and NCCL ConfigMap would sit beside objects that are not the tenant's",
                                 hint=f"set tenants.members.{t.name}.namespace to one of its own, e.g. {t.name}-pods",
                                 **where)
        if ns in holder:
            raise InventoryError(f"tenants {holder[ns]} and {t.name} share Kubernetes namespace {ns}: each would see "
                                 "the other's rail networks", hint=f"give tenant {t.name} a namespace of its own", **where)
        holder[ns] = t.name
        out.append(K8sTenant(t.name, ns, tuple(t.servers)))
    return out
