"""Kubernetes and operator facts the inventory's defaults and the model's checks both read (no pydantic here: the
drain fast path imports the model without the schema): the operators' install namespaces and Kubernetes' own."""

from __future__ import annotations

DEFAULT_NAMESPACE: dict[str, str] = {
    "sriov-network-operator": "sriov-network-operator",  # sriov-network-operator README, "make deploy-setup"
    "nvidia-network-operator": "nvidia-network-operator",  # Network Operator Helm install namespace
}
# Kubernetes' own namespaces (kubernetes.io docs, "Namespaces", "Initial namespaces"): no tenant's pods go there
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")
NIC_OPERATOR_NAMESPACE = "nic-configuration-operator"  # the NIC Configuration Operator's Helm chart default
