"""`validate --configs` reads a rendered tree that may have been edited by hand or by someone hostile: its
Kubernetes manifests too. They are read as every other rendered YAML (netauto.formats.fastyaml: no aliases, at most
64 levels), and what the K8S rules cannot read is a K8S-01 finding, never a traceback. Before: a 2 KB manifest of
nested aliases cost 33 s and 2.1 GB before a MemoryError traceback; a YAML syntax error and a `nodeSelector` list
were tracebacks."""

from __future__ import annotations

import time

import pytest
from conftest import DEFAULT_INVENTORY

from netauto.pipeline import build
from netauto.render.engine import Artifact
from netauto.validate import plane_mode
from netauto.validate.files import FileSet
from netauto.validate.kubernetes import FOLDER, check_kubernetes

PATH = "nic-configuration.yaml"
ANCHORS = ["x0: &a0 [x, x, x, x, x, x, x, x, x, x]",
           *(f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9))]  # 10^9 items
HEAD = "---\napiVersion: configuration.net.nvidia.com/v1alpha1\nkind: NicConfigurationTemplate\n"
BOMB = HEAD + "\n".join(ANCHORS) + ("\nmetadata: {name: bomb, namespace: nic-configuration-operator}\n"
                                    "spec:\n  nodeSelector: {netauto.io/server-profile: *a8}\n")
SYNTAX = HEAD + "metadata: [\n"
SHAPE = HEAD + "metadata: {name: odd, namespace: nic-configuration-operator}\nspec:\n  nodeSelector: [a, b]\n"


@pytest.fixture(scope="module")
def built():
    return build(DEFAULT_INVENTORY)


def _with(built, extra: str) -> FileSet:
    arts = [Artifact(a.device, a.path, a.content + extra, a.mode) if (a.device, a.path) == (FOLDER, PATH) else a
            for a in built.artifacts]
    return FileSet.from_artifacts(arts)


@pytest.mark.parametrize(("extra", "said"), [(BOMB, "alias"), (SYNTAX, "line"), (SHAPE, "wrong type")],
                         ids=["aliases", "syntax", "shape"])
def test_a_hostile_manifest_is_one_finding(built, extra, said):
    t0 = time.monotonic()
    found, _ = check_kubernetes(built.cluster, _with(built, extra), None)
    assert time.monotonic() - t0 < 10
    hits = [f for f in found if f.rule == "K8S-01" and f.file == PATH and said in f.message]
    assert hits, [f.message[:200] for f in found]


def test_the_plane_check_reads_no_aliases():
    bomb = HEAD + "\n".join(ANCHORS) + "\nspec:\n  template:\n    spectrumXOptimized: {enabled: true, multiplaneMode: *a8}\n"
    t0 = time.monotonic()
    assert plane_mode._templates(FileSet({FOLDER: {PATH: bomb}}), ("swplb", 2)) == []  # K8S-01 names it
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize("body", ["spec: [a]\n", "spec: {template: [a]}\n",
                                  "metadata: [a]\nspec: {template: {spectrumXOptimized: {enabled: true}}}\n"])
def test_the_plane_check_reads_odd_shapes_without_a_traceback(body):
    found = plane_mode._templates(FileSet({FOLDER: {PATH: HEAD + body}}), ("swplb", 2))
    assert all(f.rule == "CPLANE-03" for f in found)


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("doc", [
    "---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {name: rail0, namespace: x}\n"
    f"spec: {{resourceName: rail0, ipam: '{DEEP}'}}\n",
    "---\napiVersion: k8s.cni.cncf.io/v1\nkind: NetworkAttachmentDefinition\nmetadata: {name: rail0, namespace: x}\n"
    f"spec: {{config: '{DEEP}'}}\n"], ids=["sriov-ipam", "nad-config"])
def test_json_inside_a_manifest_nested_100000_deep_is_a_finding(built, doc):
    arts = [Artifact(a.device, a.path, a.content + doc, a.mode) if (a.device, a.path) == (FOLDER, "rail-networks.yaml")
            else a for a in built.artifacts]
    found, _ = check_kubernetes(built.cluster, FileSet.from_artifacts(arts), None)
    assert any("nested deeper" in f.message for f in found), [f.message[:200] for f in found]


def test_a_netauto_bug_is_not_a_finding_about_the_users_file(built, monkeypatch):
    """A rule's own error (netauto's bug) propagates: before, any TypeError in a rule became a K8S-01 finding
    about whatever manifest was read last."""
    from netauto.validate import kubernetes

    def bug(self):
        raise TypeError("netauto's own bug")

    monkeypatch.setattr(kubernetes._Check, "nccl", bug)
    with pytest.raises(TypeError, match="netauto's own bug"):
        check_kubernetes(built.cluster, FileSet.from_artifacts(built.artifacts), None)


META = "metadata: {name: odd, namespace: training}\n"


@pytest.mark.parametrize(("path", "doc", "said"), [
    ("nccl-configmap.yaml", "apiVersion: v1\nkind: ConfigMap\n" + META + "data: {NCCL_IB_ADAPTIVE_ROUTING: [1]}\n",
     "data.NCCL_IB_ADAPTIVE_ROUTING"),
    ("nic-configuration.yaml", HEAD.removeprefix("---\n") + META + "spec: {template: {rawNvConfig: [1]}}\n",
     "spec.template.rawNvConfig"),
    ("nic-configuration.yaml", HEAD.removeprefix("---\n") + META + "spec: {nicSelector: {pciAddresses: [[a]]}}\n",
     "spec.nicSelector.pciAddresses"),
    ("nic-cluster-policy.patch.yaml", "apiVersion: mellanox.com/v1alpha1\nkind: NicClusterPolicy\n" + META +
     "spec: {sriovDevicePlugin: {config: '{\"resourceList\": [1]}'}}\n", "resourceList"),
    ("rail-networks.yaml", "apiVersion: k8s.cni.cncf.io/v1\nkind: NetworkAttachmentDefinition\n" + META +
     "spec: {config: '{\"plugins\": [{\"type\": \"tuning\", \"mtu\": \"big\"}, {\"type\": \"sbr\"}]}'}\n", "mtu"),
], ids=["configmap-list", "rawnvconfig-int", "pci-list", "device-plugin-json", "tuning-mtu-string"])
def test_a_value_of_the_wrong_type_is_one_finding_naming_file_and_document(built, path, doc, said):
    arts = [Artifact(a.device, a.path, a.content + "---\n" + doc, a.mode) if (a.device, a.path) == (FOLDER, path)
            else a for a in built.artifacts]
    found, _ = check_kubernetes(built.cluster, FileSet.from_artifacts(arts), None)
    hits = [f for f in found if f.rule == "K8S-01" and f.file == path and "/odd" in f.message]
    assert len(hits) == 1 and said in hits[0].message, [f.message[:200] for f in found]


@pytest.mark.parametrize(("path", "doc", "said"), [
    ("kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [1, a]\n",
     "Kustomization resources [1, 'a']"),
    ("nccl-configmap.yaml", "apiVersion: v1\nkind: Nonsense\n" + META, "no Kubernetes schema for apiVersion v1"),
    ("nccl-configmap.yaml", "apiVersion: v1\nkind: ../../x\n" + META, "is not a Kubernetes kind"),
    ("nccl-configmap.yaml", "kind: ConfigMap\n" + META, "apiVersion is missing"),
], ids=["resources-mixed", "unknown-kind", "kind-path", "no-apiversion"])
def test_the_schema_check_reads_odd_documents_without_a_traceback(built, path, doc, said):
    """Before: a TypeError (sorting mixed resources, no apiVersion) or kubernetes_validate's SchemaNotFoundError."""
    pytest.importorskip("kubernetes_validate")
    arts = [Artifact(a.device, a.path, a.content + "---\n" + doc, a.mode) if (a.device, a.path) == (FOLDER, path)
            else a for a in built.artifacts]
    found, _ = check_kubernetes(built.cluster, FileSet.from_artifacts(arts), None)
    assert [f for f in found if f.rule == "K8S-01" and f.file == path and said in f.message], \
        [f.message[:200] for f in found]
