"""Kubernetes follows the tenant (docs/tenants.md, "Kubernetes"): each tenant's rail networks, pools and NCCL
settings in its own namespace over its own nodes; the CRDs' schemas and the shared checker on the output; each
read-back rule broken by a mutation of the rendered manifests; the namespace refusals in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_cni_chain import _ip, namespaces  # noqa: F401  (a fixture)
from test_tenants import EXAMPLE, copy_with, members

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve_cluster
from netauto.pipeline import build
from netauto.render.artifact import Artifact
from netauto.validate.files import FileSet
from netauto.validate.kubernetes import check_kubernetes

SHARED_CRDS = Path("/work/shared/k8s-crds")
OWN = {"acme": {"gpu1", "gpu2"}, "globex": {"gpu3", "gpu4"}}


@pytest.fixture(scope="module")
def built():
    return build(EXAMPLE)


def _docs(built, path: str) -> list[dict]:
    art = next(a for a in built.artifacts if a.device == "kubernetes" and a.path == path)
    return [d for d in yaml.safe_load_all(art.content) if d]


def test_each_tenant_gets_its_own_networks_pools_and_nccl(built):
    pools = {d["metadata"]["name"]: d["spec"] for d in _docs(built, "rail-ippools.yaml")}
    for spec in pools.values():
        (node,) = spec["nodeName"]
        tenant = next(t for t, servers in OWN.items() if node in servers)
        assert spec["namespaceName"] == [tenant] and all(m.startswith(f"{tenant}/") for m in spec["multusName"])
    nads = _docs(built, "rail-networks.yaml")
    assert sorted((d["metadata"]["namespace"], d["metadata"]["name"]) for d in nads) == [
        ("acme", "rail0"), ("acme", "rail1"), ("globex", "rail0"), ("globex", "rail1")]
    for d in nads:
        ipam = yaml.safe_load(d["spec"]["config"])["plugins"][0]["ipam"]
        nodes = {pools[p]["nodeName"][0] for p in ipam["default_ipv4_ippool"]}
        assert nodes == OWN[d["metadata"]["namespace"]], d["metadata"]
    assert {d["metadata"]["namespace"] for d in _docs(built, "nccl-configmap.yaml")} == {"acme", "globex"}
    assert [d["metadata"]["name"] for d in _docs(built, "tenant-namespaces.yaml")] == ["acme", "globex"]
    labels = next(a.content for a in built.artifacts if a.path == "label-nodes.sh")
    assert "kubectl label node --overwrite gpu3 netauto.io/tenant=globex\n" in labels
    kust = _docs(built, "kustomization.yaml")[0]["resources"]
    assert kust[0] == "tenant-namespaces.yaml"  # namespaces before what lives in them


def test_clean_and_shared_checker_agrees(built, tmp_path):
    crds = SHARED_CRDS if SHARED_CRDS.is_dir() else None
    found, notes = check_kubernetes(built.cluster, FileSet.from_artifacts(built.artifacts), crds)
    assert found == [], found
    if crds is None:
        pytest.skip("no ../shared/k8s-crds")
    for a in built.artifacts:
        if a.device == "kubernetes" and a.path.endswith(".yaml") and a.path != "kustomization.yaml":
            (tmp_path / a.path).write_text(a.content)
    res = subprocess.run([sys.executable, str(SHARED_CRDS / "check-crd.py"), str(tmp_path)], capture_output=True,
                         text=True)
    assert res.returncode == 0 and " 0 error line(s)" in res.stderr, res.stdout + res.stderr


def _mutate(built, path: str, old: str, new: str) -> FileSet:
    arts = []
    for a in built.artifacts:
        if a.device == "kubernetes" and a.path == path:
            assert old in a.content, old
            a = Artifact(a.device, a.path, a.content.replace(old, new, 1), a.mode)
        arts.append(a)
    return FileSet.from_artifacts(arts)


MUTATIONS = [  # (file, old, new, rule, text of the finding)
    ("rail-networks.yaml", '"rail0-gpu1",', '"rail0-gpu1",\n              "rail0-gpu3",', "K8S-02",
     "NetworkAttachmentDefinition/rail0 of tenant acme names pool rail0-gpu3 of tenant globex"),
    ("rail-ippools.yaml", "  namespaceName:\n  - acme\n", "  namespaceName:\n  - acme\n  - globex\n", "K8S-02",
     "SpiderIPPool/rail0-gpu1: namespaceName ['acme', 'globex']"),
    ("rail-ippools.yaml", "  namespaceName:\n  - acme\n", "", "K8S-02", "SpiderIPPool/rail0-gpu1: namespaceName None"),
    ("rail-ippools.yaml", "  - gpu1\n", "  - gpu3\n", "K8S-02",
     "NetworkAttachmentDefinition/rail0 of tenant acme names pool rail0-gpu1 of tenant globex"),
    ("rail-ippools.yaml", "  - acme/rail0\n", "  - globex/rail0\n", "K8S-02", "multusName ['globex/rail0']"),
    ("rail-networks.yaml", "  namespace: acme\n", "  namespace: default\n", "K8S-02",
     "in namespace default, no tenant's"),
    ("nccl-configmap.yaml", "  namespace: globex\n", "  namespace: acme\n", "K8S-08",
     "tenant globex: no NCCL ConfigMap in namespace globex"),
]


@pytest.mark.parametrize(("path", "old", "new", "rule", "text"), MUTATIONS,
                         ids=[f"{m[3]}-{i}" for i, m in enumerate(MUTATIONS)])
def test_mutation_names_the_tenant(built, path, old, new, rule, text):
    found, _ = check_kubernetes(built.cluster, _mutate(built, path, old, new), None)
    assert any(f.rule == rule and text in f.message and f.severity == "error" for f in found), \
        [(f.rule, f.message) for f in found]


@pytest.mark.parametrize(("path", "old", "new", "text"), [
    ("rail-ippools.yaml", "spec:\n  ipVersion: 4\n", "spec: [4]\nx:\n  ipVersion: 4\n", "spec must be a mapping"),
    ("rail-ippools.yaml", "metadata:\n  name: rail0-gpu1\n", "metadata: rail0-gpu1\nx:\n  name: rail0-gpu1\n",
     "metadata must be a mapping"),
    ("rail-ippools.yaml", "  nodeName:\n  - gpu1\n", "  nodeName: 5\n", "nodes 5 are not all one tenant's"),
    ("rail-ippools.yaml", "  namespaceName:\n  - acme\n", "  namespaceName: 5\n", "namespaceName 5"),
    ("rail-ippools.yaml", "  multusName:\n  - acme/rail0\n", "  multusName: 5\n", "multusName [5]"),
    ("rail-ippools.yaml", "  ips:\n  - 10.0.0.1\n", "  ips: 5\n", "SpiderIPPool/rail0-gpu1: unreadable pod range"),
    ("rail-ippools.yaml", "  subnet: 10.0.0.0/31\n", "  subnet: banana\n", "SpiderIPPool/rail0-gpu1: unreadable pod range"),
    ("rail-ippools.yaml", "  - dst: 10.0.0.0/16\n    gw: 10.0.0.0\n", "  - 5\n", "unreadable pod range"),
])
def test_hostile_manifests_are_findings_not_tracebacks(built, path, old, new, text):
    """Manifests read back with --configs are outside input: a wrong type is a finding naming the object."""
    found, _ = check_kubernetes(built.cluster, _mutate(built, path, old, new), None)
    assert any(text in f.message and f.severity == "error" for f in found), [(f.rule, f.message) for f in found]


@pytest.mark.parametrize(("tenants", "key", "text"), [
    (members("acme: {servers: [gpu1, gpu2], namespace: team}", "globex: {servers: [gpu3, gpu4], namespace: team}"),
     "tenants.members.globex.namespace", "share Kubernetes namespace team"),
    (members("Acme: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3, gpu4]}"), "tenants.members.Acme",
     "'Acme' is not a Kubernetes namespace"),
    # Kubernetes' own namespaces and those of the operators netauto renders for: a tenant's networks, pools and
    # ConfigMap there would sit beside the cluster's or the operators' own objects, open to their service accounts
    *[(members(f"acme: {{servers: [gpu1, gpu2], namespace: {ns}}}", "globex: {servers: [gpu3, gpu4]}"),
       "tenants.members.acme.namespace", f"tenant acme: namespace {ns} is {what}")
      for ns, what in (("kube-system", "Kubernetes' own"), ("default", "Kubernetes' own"),
                       ("kube-public", "Kubernetes' own"), ("kube-node-lease", "Kubernetes' own"),
                       ("nvidia-network-operator", "the nvidia-network-operator stack's"),
                       ("sriov-network-operator", "the sriov-network-operator stack's"),
                       ("nic-configuration-operator", "the NIC Configuration Operator's"))],
    (members("kube-public: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3, gpu4]}"), "tenants.members.kube-public",
     "tenant kube-public: namespace kube-public is Kubernetes' own"),
])
def test_namespace_refusals(tmp_path, tenants, key, text):
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(copy_with(tmp_path, tenants)))
    assert exc.value.key == key and text in exc.value.message and exc.value.hint and exc.value.exit_code == 2


@pytest.mark.parametrize(("setting", "ns", "what"), [
    ("operator_namespace: netops", "netops", "kubernetes.operator_namespace"),
    ("nic_operator_namespace: nicops", "nicops", "kubernetes.nic_operator_namespace"),
])
def test_namespace_of_a_configured_operator_refused(tmp_path, setting, ns, what):
    inv = copy_with(tmp_path, members(f"acme: {{servers: [gpu1, gpu2], namespace: {ns}}}",
                                      "globex: {servers: [gpu3, gpu4]}"), "ipam: spiderpool}",
                    f"ipam: spiderpool, {setting}}}")
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(inv))
    key, text = "tenants.members.acme.namespace", f"tenant acme: namespace {ns} is the operators' ({what})"
    assert exc.value.key == key and text in exc.value.message and exc.value.hint and exc.value.exit_code == 2
    assert exc.value.key == key and text in exc.value.message and exc.value.hint and exc.value.exit_code == 2


def test_pinned_namespace_used(tmp_path):
    inv = copy_with(tmp_path, members("acme: {servers: [gpu1, gpu2], namespace: acme-prod}",
                                      "globex: {servers: [gpu3, gpu4]}"))
    k8s = resolve_cluster(load_inventory(inv)).kubernetes
    assert k8s is not None and [(t.name, t.namespace) for t in k8s.tenants] == [("acme", "acme-prod"),
                                                                                ("globex", "globex")]


@pytest.mark.lab
def test_tenant_rail_chains_run_on_its_nodes_only(built, namespaces):
    """acme's rendered rail networks run for real (host-device + sbr, Spiderpool IPAM as `static` with the pool's
    address: netauto.lab.cni) for a pod on acme's gpu1: it gets gpu1's rail addresses, one source rule per rail.
    The same networks on globex's gpu3 find no pool of theirs for that node (Spiderpool's node affinity, which the
    stand-in applies; Spiderpool itself does not run here)."""
    from ipaddress import IPv4Interface

    from netauto.formats.cni_networks import pool
    from netauto.lab.cni import CniChainError, add, runnable

    node_ns, pod_ns = namespaces
    docs = [d for path in ("rail-networks.yaml", "rail-ippools.yaml") for d in _docs(built, path)]
    pools = {p.name: p for p in (pool(d) for d in docs if d["kind"] == "SpiderIPPool")}
    acme = sorted((d for d in docs if d["kind"] == "NetworkAttachmentDefinition"
                   and d["metadata"]["namespace"] == "acme"), key=lambda d: d["metadata"]["name"])
    gpu1 = {r.index: r.ip for s in built.model.servers if s.name == "gpu1" for r in s.rails}
    for i, doc in enumerate(acme):
        with pytest.raises(CniChainError, match="serves node gpu3"):
            runnable(doc, pools, "gpu3", f"nic{i}")
        _ip(node_ns, "link", "add", f"nic{i}", "type", "veth", "peer", "name", f"nic{i}p")
        _ip(node_ns, "link", "set", f"nic{i}p", "up")
        result = add(runnable(doc, pools, "gpu1", f"nic{i}"), Path(f"/run/netns/{pod_ns}"), f"net{i + 1}", "c0ffee",
                     node_ns)
        addr = IPv4Interface(result["ips"][0]["address"])
        assert str(addr.ip) == gpu1[i], (doc["metadata"]["name"], addr)
        assert f"from {addr.ip} lookup" in _ip(pod_ns, "-4", "rule", "show")
