"""The pods' RDMA networks (`kubernetes:` -> netauto.model.kubernetes -> render.kubernetes -> validate.kubernetes).

The leaf-subnet example renders <fabric>/kubernetes/: every custom resource passes its CRD's OpenAPI schema (the
pinned CRDs, ../shared/k8s-crds in development), one SR-IOV policy and one network per rail, pod ranges on the right
rail's leaf subnets and disjoint from every host and switch address. Each rule K8S-01..07 has a mutation of the
rendered files that breaks it, and the finding names the object. Inventory mistakes are one clear line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from pathlib import Path

import pytest
import yaml
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.errors import InventoryError
from netauto.formats.host import parse_firmware_script
from netauto.pipeline import build
from netauto.render.engine import Artifact
from netauto.validate.files import FileSet
from netauto.validate.k8s_crds import DEV_ENV, DIR_ENV, PINS, check_document, dev_dir, find_crds, git_blob_id, load_crds
from netauto.validate.kubernetes import check_kubernetes
from netauto.validate.runner import validate_cluster

LEAF_SUBNET = EXAMPLES / "2su-leaf-subnet" / "inventory"
SHARED_CRDS = Path("/work/shared/k8s-crds")


@pytest.fixture(scope="module")
def crd_dir() -> Path:
    found = find_crds(dev=True)[0] or (SHARED_CRDS if SHARED_CRDS.is_dir() else None)
    if found is None:
        pytest.skip("no CRDs: run scripts/get-k8s-crds (or set NETAUTO_K8S_CRD_DIR)")
    return found


@pytest.fixture(scope="module")
def built():
    return build(LEAF_SUBNET)


def _k8s(artifacts: list[Artifact]) -> dict[str, Artifact]:
    return {a.path: a for a in artifacts if a.device == "kubernetes"}


def _docs(art: Artifact) -> list[dict]:
    return [d for d in yaml.safe_load_all(art.content) if d]


def _copy(tmp_path: Path, src: Path = LEAF_SUBNET, **changes: object) -> Path:
    dst = tmp_path / "inventory"
    shutil.copytree(src, dst)
    f = dst / "fabric.yaml"
    data = yaml.safe_load(f.read_text())
    for dotted, value in changes.items():
        node = data
        *parents, last = dotted.split("__")
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value
    f.write_text(yaml.safe_dump(data, sort_keys=False))
    return dst


# ---------------------------------------------------------------- what is rendered
def test_every_manifest_passes_its_crd_schema(built, crd_dir):
    crds = load_crds(str(crd_dir))
    files = _k8s(built.artifacts)
    kinds = set()
    for path, art in files.items():
        if not path.endswith(".yaml") or path == "kustomization.yaml":
            continue
        for doc in _docs(art):
            kinds.add(doc["kind"])
            if doc["kind"] == "ConfigMap":
                continue
            assert check_document(doc, crds) == [], (path, doc["metadata"]["name"])
    assert kinds == {"SriovNetworkNodePolicy", "SpiderMultusConfig", "SpiderIPPool", "NicConfigurationTemplate",
                     "ConfigMap"}


def test_the_shared_checker_agrees(built, tmp_path):
    """The CRD folder's own checker (check-crd.py), run on the rendered folder as a user would."""
    checker = SHARED_CRDS / "check-crd.py"
    if not checker.is_file():
        pytest.skip("no ../shared/k8s-crds/check-crd.py")
    out = tmp_path / "k8s"
    out.mkdir()
    for path, art in _k8s(built.artifacts).items():
        if path.endswith(".yaml") and path != "kustomization.yaml":
            (out / path).write_text(art.content)
    res = subprocess.run([sys.executable, str(checker), str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
    assert "unknown kind" in res.stdout  # the ConfigMap: a built-in kind, checked by kubernetes-validate instead


def test_one_policy_and_one_network_per_rail(built):
    files = _k8s(built.artifacts)
    rails = {r.index for s in built.model.servers for r in s.rails}
    policies = _docs(files["sriov-node-policies.yaml"])
    networks = _docs(files["rail-networks.yaml"])
    assert sorted(p["spec"]["resourceName"] for p in policies) == sorted(f"rail{r}" for r in rails)
    assert sorted(n["spec"]["sriov"]["resourceName"] for n in networks) == sorted(f"openshift.io/rail{r}" for r in rails)
    assert all(p["metadata"]["namespace"] == "sriov-network-operator" for p in policies)
    server = built.model.servers[0]
    for p in policies:
        rail = next(r for r in server.rails if f"rail{r.index}" == p["spec"]["resourceName"])
        assert p["spec"]["nicSelector"]["rootDevices"] == [rail.pci]
        assert p["spec"]["nicSelector"]["pfNames"] == [rail.nic]
        assert p["spec"]["isRdma"] is True and p["spec"]["mtu"] == rail.mtu


def test_pod_ranges_on_their_rail_and_disjoint_from_hosts(built):
    pools = _docs(_k8s(built.artifacts)["rail-ippools.yaml"])
    hosts = {IPv4Interface(r.address).ip for s in built.model.servers for r in s.rails}
    switches = {IPv4Interface(sw.svi.address).ip for sw in built.model.switches if sw.svi}
    leaves = {sw.name.lower(): sw for sw in built.model.switches if sw.svi}
    assert len(pools) == len(leaves)
    for pool in pools:
        rail, leaf = pool["metadata"]["name"].split("-", 1)
        sw = leaves[leaf]
        assert rail == f"rail{sw.rail}"
        net = IPv4Network(pool["spec"]["subnet"])
        assert net == IPv4Interface(sw.svi.address).network
        a, b = (IPv4Address(x) for x in pool["spec"]["ips"][0].split("-"))
        span = {IPv4Address(i) for i in range(int(a), int(b) + 1)}
        assert span <= set(net.hosts()) and not span & (hosts | switches)
        assert set(pool["spec"]["nodeName"]) == {s.name for s in built.model.servers
                                                 for r in s.rails if r.leaf == sw.name}


def test_validate_is_clean(built, crd_dir):
    found, notes = check_kubernetes(built.cluster, FileSet.from_artifacts(built.artifacts), crd_dir)
    assert found == []
    assert any(n.startswith("ran: K8S-01..11") for n in notes)
    found, notes = check_kubernetes(built.cluster, FileSet.from_artifacts(built.artifacts), None)
    assert found == [] and any(n.startswith("skipped: K8S-01") for n in notes)


def test_inventories_without_the_section_render_no_folder():
    assert not _k8s(build(EXAMPLES / "multi-profile" / "inventory").artifacts)


def test_roce_priority_4_changes_every_layer(tmp_path):
    inv = _copy(tmp_path, qos__roce={"dscp": 26, "priority": 4}, qos__ets={0: 40, 4: 60})
    files = {(a.device, a.path): a.content for a in build(inv).artifacts}
    template = _docs(Artifact("kubernetes", "", files[("kubernetes", "nic-configuration.yaml")]))[0]
    qos = template["spec"]["template"]["roceOptimized"]["qos"]
    assert qos["pfc"] == "0,0,0,0,1,0,0,0" and qos["ecn"]["priority"] == 4
    assert "pfc.ROCE_PFC.cos_list = [4]" in files[("su1-r0-leaf", "etc/cumulus/datapath/qos/qos_features.conf")]
    script = files[("su1-gpu01", "usr/local/sbin/netauto-roce-qos.sh")]
    assert "PRIO=4" in script and "PFC=0,0,0,0,1,0,0,0" in script


def test_validate_never_reads_the_development_copy(built, crd_dir, monkeypatch, tmp_path):
    """`netauto validate` takes the CRDs from $NETAUTO_K8S_CRD_DIR or the user cache only; the development copy
    (../shared beside the checkout) is for the tests and `scripts/get-k8s-crds where`, as the SONiC YANG lookup."""
    monkeypatch.delenv(DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setenv(DEV_ENV, str(crd_dir))
    assert find_crds(dev=True)[0] == crd_dir and find_crds()[0] is None
    result = validate_cluster(built.cluster, built.artifacts, external=False, simulate=False)
    assert any(n.startswith("skipped: K8S-01") for n in result.notes), result.notes
    monkeypatch.setenv(DIR_ENV, str(crd_dir))
    assert find_crds()[0] == crd_dir


def test_adaptive_routing_follows_the_switches(tmp_path, crd_dir):
    inv = _copy(tmp_path, features={"adaptive_routing": False})
    b = build(inv)
    data = _docs(_k8s(b.artifacts)["nccl-configmap.yaml"])[0]["data"]
    assert data["NCCL_IB_ADAPTIVE_ROUTING"] == "0"
    assert "NCCL_IB_ADAPTIVE_ROUTING=0" in next(a.content for a in b.artifacts if a.path == "etc/nccl.conf")
    found, _ = check_kubernetes(b.cluster, FileSet.from_artifacts(b.artifacts), crd_dir)
    assert found == []


# ---------------------------------------------------------------- mutations: each rule names the object
def _mutate(built, path: str, old: str, new: str, count: int = 1, device: str = "kubernetes") -> FileSet:
    arts = []
    for a in built.artifacts:
        if a.device == device and a.path == path:
            assert old in a.content, old
            a = Artifact(a.device, a.path, a.content.replace(old, new, count), a.mode)
        arts.append(a)
    return FileSet.from_artifacts(arts)


MUTATIONS = [
    ("K8S-01", "sriov-node-policies.yaml", "numVfs: 2", "numVfs: '2'", "SriovNetworkNodePolicy/rail0-default"),
    ("K8S-01", "nccl-configmap.yaml", "NCCL_IB_TC: '106'", "NCCL_IB_TC: 106", "ConfigMap/netauto-nccl"),
    ("K8S-01", "kustomization.yaml", "- nccl-configmap.yaml\n", "", "Kustomization resources"),
    ("K8S-02", "rail-networks.yaml", "openshift.io/rail1\n", "openshift.io/rail0\n", "rail 1: 0 networks"),
    ("K8S-03", "rail-networks.yaml", "mtu: 9000", "mtu: 9100", "SpiderMultusConfig/rail0: VF MTU 9100"),
    ("K8S-03", "sriov-node-policies.yaml", "mtu: 9000", "mtu: 9216", "SriovNetworkNodePolicy/rail0-default: PF MTU"),
    ("K8S-04", "rail-ippools.yaml", "10.0.0.191-10.0.0.254", "10.0.0.30-10.0.0.254", "SpiderIPPool/rail0-su1-r0-leaf"),
    ("K8S-04", "rail-ippools.yaml", "10.0.0.191-10.0.0.254", "10.1.0.191-10.1.0.254", "not on rail 0's leaf subnet"),
    ("K8S-05", "nic-configuration.yaml", "pfc: 0,0,0,1,0,0,0,0", "pfc: 0,0,0,0,1,0,0,0",
     "NicConfigurationTemplate/default-connectx-7: qos.pfc"),
    ("K8S-05", "nic-configuration.yaml", "trust: dscp", "trust: pcp", "NicConfigurationTemplate/default-connectx-7"),
    ("K8S-06", "sriov-node-policies.yaml", "'0000:18:00.0'", "'0000:19:00.0'", "SriovNetworkNodePolicy/rail0-default"),
    ("K8S-06", "nic-configuration.yaml", "0000:dc:00.0", "0000:dd:00.0", "NicConfigurationTemplate/default-connectx-7"),
    ("K8S-07", "nccl-configmap.yaml", "NCCL_IB_ADAPTIVE_ROUTING: '1'", "NCCL_IB_ADAPTIVE_ROUTING: '0'",
     "ConfigMap/netauto-nccl"),
    ("K8S-08", "nccl-configmap.yaml", "NCCL_IB_TC: '106'", "NCCL_IB_TC: '104'", "ConfigMap/netauto-nccl: NCCL_IB_TC=104"),
    ("K8S-08", "nccl-configmap.yaml", "  NCCL_IB_ROCE_VERSION_NUM: '2'\n", "", "NCCL_IB_ROCE_VERSION_NUM is missing"),
    ("K8S-09", "rail-ippools.yaml", "  routes:\n", "  gateway: 10.0.0.1\n  routes:\n", "SpiderIPPool/rail0-su1-r0-leaf"),
    ("K8S-09", "rail-networks.yaml", "enableCoordinator: false", "enableCoordinator: true", "SpiderMultusConfig/rail0"),
    ("K8S-09", "rail-networks.yaml", "- '{\"type\":\"sbr\"}'", "- '{\"type\":\"tuning\"}'",
     "SpiderMultusConfig/rail0"),
]


@pytest.mark.parametrize(("rule", "path", "old", "new", "names"), MUTATIONS,
                         ids=[f"{m[0]}-{i}" for i, m in enumerate(MUTATIONS)])
def test_mutation_is_an_error_naming_the_object(built, crd_dir, rule, path, old, new, names):
    found, _ = check_kubernetes(built.cluster, _mutate(built, path, old, new), crd_dir)
    hits = [f for f in found if f.rule == rule and f.file is not None]
    assert hits, found
    assert any(names in f.message for f in hits), [f.message for f in hits]
    assert all(f.severity == "error" and f.device == "kubernetes" for f in hits)


@pytest.mark.parametrize(("path", "old", "new", "rule"), [
    ("usr/local/sbin/netauto-roce-qos.sh", "PFC=0,0,0,1,0,0,0,0", "PFC=0,0,0,0,1,0,0,0", "K8S-05"),
    ("usr/local/sbin/netauto-roce-qos.sh", "TOS=106", "TOS=104", "K8S-05"),
    ("etc/nccl.conf", "NCCL_IB_ADAPTIVE_ROUTING=1", "NCCL_IB_ADAPTIVE_ROUTING=0", "K8S-07"),
])
def test_host_files_that_disagree_with_the_pods_are_errors(built, crd_dir, path, old, new, rule):
    """The host units' rendered files are read back: a host that drifted from the pods' NIC settings is named."""
    found, _ = check_kubernetes(built.cluster, _mutate(built, path, old, new, device="su1-gpu01"), crd_dir)
    hits = [f for f in found if f.rule == rule]
    assert hits and all(f.device == "kubernetes" for f in hits), found


# ---------------------------------------------------------------- other stacks and bad input
def test_whereabouts_single_leaf_per_rail(tmp_path, crd_dir):
    inv = _copy(tmp_path, topology__sus_per_pod=1, kubernetes={"ipam": "whereabouts", "pool_size": 32, "vfs_per_nic": 1},
                overrides={"devices": {}, "ports": []})
    b = build(inv)
    nets = _docs(_k8s(b.artifacts)["rail-networks.yaml"])
    assert [n["kind"] for n in nets] == ["SriovNetwork"] * 8
    crds = load_crds(str(crd_dir))
    assert all(check_document(n, crds) == [] for n in nets)
    assert "nic-configuration.yaml" not in _k8s(b.artifacts)  # nic_config defaults to netauto's host units
    found, _ = check_kubernetes(b.cluster, FileSet.from_artifacts(b.artifacts), crd_dir)
    assert found == []
    # metaPlugins: raw plugin objects the operator splices after the sriov plugin (no enclosing list)
    plugins = json.loads("[" + nets[0]["spec"]["metaPlugins"] + "]")
    assert plugins == [{"type": "rdma"}, {"type": "tuning", "mtu": 9000}, {"type": "sbr"}]
    ipam = json.loads(nets[0]["spec"]["ipam"])
    assert ipam["type"] == "whereabouts" and ipam["range"] == "10.0.0.0/24" and ipam["range_end"] == "10.0.0.254"
    found, _ = check_kubernetes(b.cluster, _mutate(b, "rail-networks.yaml", '"mtu":9000', '"mtu":9100'), crd_dir)
    assert any(f.rule == "K8S-03" and "SriovNetwork/rail0: VF MTU 9100" in f.message for f in found)
    found, _ = check_kubernetes(b.cluster, _mutate(b, "rail-networks.yaml", '"range_start":"10.0.0.223"',
                                                   '"range_start":"10.0.0.2"'), crd_dir)
    assert any(f.rule == "K8S-04" and "SriovNetwork/rail0" in f.message for f in found)


@pytest.mark.parametrize(("changes", "words"), [
    ({"kubernetes": {"ipam": "whereabouts", "vfs_per_nic": 2}}, "whereabouts hands one range per network"),
    ({"kubernetes": {"pool_size": 250}}, "250 pod addresses per rail (pool_size) do not fit"),
    ({"kubernetes": {"pool_size": 64, "vfs_per_nic": 8}}, "pool_size 64 gives leaf su1-r0-leaf's 32 servers x 8 VFs (256)"),
    ({"kubernetes": {"namespace": "Training"}}, "namespace"),
    ({"kubernetes": {"vf_mtu": 9216}}, "vf_mtu 9216 is above the hosts' MTU 9000"),
    ({"kubernetes": {"ipam": "nvidia-ipam"}}, "nvidia-ipam is not rendered yet"),
])
def test_bad_input_is_one_line(tmp_path, changes, words):
    inv = _copy(tmp_path, **changes)
    with pytest.raises(InventoryError) as exc:
        build(inv)
    text = str(exc.value)
    assert words in text and "fabric.yaml" in text and "\n" not in text.strip()


def test_p2p_refused_in_one_line_by_the_cli(tmp_path):
    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    (inv / "kubernetes.yaml").write_text("kubernetes:\n  ipam: spiderpool\n")
    res = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(tmp_path / "out")],
                         capture_output=True, text=True)
    assert res.returncode == 2
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) <= 2 and "p2p host links" in res.stderr and "leaf-subnet" in res.stderr
    assert "Traceback" not in res.stderr


def test_pinned_crds_match_the_shared_copies():
    folder = dev_dir() if (dev_dir() / PINS[0].name).is_file() else SHARED_CRDS
    if not (folder / PINS[0].name).is_file():
        pytest.skip("no development copy of the CRDs")
    for pin in PINS:
        assert git_blob_id((folder / pin.name).read_bytes()) == pin.blob, pin.name


# ---------------------------------------------------------------- attach: pf (the default inventory: p2p /31 links)
@pytest.fixture(scope="module")
def pf_built():
    return build(DEFAULT_INVENTORY)


def test_pf_attach_on_p2p(pf_built, crd_dir):
    files = _k8s(pf_built.artifacts)
    assert "sriov-node-policies.yaml" not in files  # no VFs: the NIC itself moves into the pod
    crds = load_crds(str(crd_dir))
    for path in ("nic-cluster-policy.patch.yaml", "rail-networks.yaml", "rail-ippools.yaml", "nic-configuration.yaml"):
        for doc in _docs(files[path]):
            assert check_document(doc, crds) == [], (path, doc["metadata"]["name"])
    nets = _docs(files["rail-networks.yaml"])
    assert [n["kind"] for n in nets] == ["NetworkAttachmentDefinition"] * 8
    chain = json.loads(nets[0]["spec"]["config"])["plugins"]
    assert [p["type"] for p in chain] == ["host-device", "sbr"]  # sbr: a HostDeviceNetwork cannot chain it
    assert nets[0]["metadata"]["annotations"] == {"k8s.v1.cni.cncf.io/resourceName": "nvidia.com/rail0"}
    pools = {p["metadata"]["name"]: p["spec"] for p in _docs(files["rail-ippools.yaml"])}
    for server in pf_built.model.servers:
        for rail in server.rails:
            pool = pools[f"rail{rail.index}-{server.name}"]
            assert pool["ips"] == [rail.ip] and pool["nodeName"] == [server.name]
            assert "gateway" not in pool and pool["routes"] == [{"dst": d, "gw": g} for d, g in
                                                                  [(rt.to, rt.via) for rt in rail.routes
                                                                   if rt.via and rt.table is None]]
            assert IPv4Network(pool["subnet"]) == IPv4Interface(rail.address).network
    plugin = _docs(files["nic-cluster-policy.patch.yaml"])[0]
    resources = yaml.safe_load(plugin["spec"]["sriovDevicePlugin"]["config"])["resourceList"]
    server = pf_built.model.servers[0]
    assert [r["selectors"]["pciAddresses"] for r in resources] == [[r.pci] for r in server.rails]
    template = _docs(files["nic-configuration.yaml"])[0]
    assert template["spec"]["template"]["numVfs"] == 0
    # the partial NicClusterPolicy is a merge patch, never applied whole (that would drop ofedDriver & co)
    kustomization = _docs(files["kustomization.yaml"])[0]
    assert "nic-cluster-policy.patch.yaml" not in kustomization["resources"]
    assert set(plugin["spec"]) == {"sriovDevicePlugin"} and plugin["metadata"] == {"name": "nic-cluster-policy"}
    script = files["patch-nic-cluster-policy.sh"]
    assert script.mode == 0o755 and ("kubectl patch nicclusterpolicy nic-cluster-policy --type merge --patch-file "
                                     "nic-cluster-policy.patch.yaml") in script.content
    found, _ = check_kubernetes(pf_built.cluster, FileSet.from_artifacts(pf_built.artifacts), crd_dir)
    assert found == []


PF_MUTATIONS = [
    ("K8S-01", "kustomization.yaml", "- rail-networks.yaml\n", "- rail-networks.yaml\n- nic-cluster-policy.patch.yaml\n",
     "Kustomization resources"),
    ("K8S-04", "rail-ippools.yaml", "- 10.0.0.1\n", "- 10.0.0.3\n", "SpiderIPPool/rail0-gpu01: attach: pf"),
    ("K8S-02", "nic-cluster-policy.patch.yaml", '"resourceName": "rail3"', '"resourceName": "rail9"', "rail 3"),
    ("K8S-06", "nic-cluster-policy.patch.yaml", '"0000:18:00.0"', '"0000:19:00.0"', "NicClusterPolicy/nic-cluster-policy"),
    ("K8S-08", "nccl-configmap.yaml", "=mlx5_0:1,mlx5_3:1", "=mlx5_0:1,mlx5_1:1", "NCCL_IB_HCA"),
]


@pytest.mark.parametrize(("rule", "path", "old", "new", "names"), PF_MUTATIONS,
                         ids=[f"pf-{m[0]}-{i}" for i, m in enumerate(PF_MUTATIONS)])
def test_pf_mutation_is_an_error_naming_the_object(pf_built, crd_dir, rule, path, old, new, names):
    found, _ = check_kubernetes(pf_built.cluster, _mutate(pf_built, path, old, new), crd_dir)
    hits = [f for f in found if f.rule == rule]
    assert any(names in f.message for f in hits), [f.message for f in found]


@pytest.mark.parametrize(("changes", "words"), [
    ({"attach": "pf", "stack": "sriov-network-operator"}, "attach: pf needs stack nvidia-network-operator"),
    ({"attach": "vf"}, "p2p host links give each rail NIC a /31"),
])
def test_p2p_bad_combinations_are_one_line(tmp_path, changes, words):
    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    spec = yaml.safe_load((inv / "kubernetes.yaml").read_text())
    spec["kubernetes"].update(changes)
    (inv / "kubernetes.yaml").write_text(yaml.safe_dump(spec))
    with pytest.raises(InventoryError) as exc:
        build(inv)
    assert words in str(exc.value) and "kubernetes.yaml" in str(exc.value)


# ---------------------------------------------------------------- one owner per NIC firmware setting
def _firmware_arms(b) -> dict[str, dict[str, int]]:
    script = next(a.content for a in b.artifacts if a.path == "usr/local/sbin/netauto-nic-firmware.sh")
    return parse_firmware_script(script)


def test_the_operator_owns_the_firmware_with_the_fabrics_values(built):
    """roceOptimized alone sets CNP_DSCP_P1=4 and ROCE_CC_PRIO_MASK_P1=255 (nic-configuration-operator
    configvalidation.go); the switches queue CNPs by DSCP 48 and run DCQCN on priority 3 only: rawNvConfig carries
    the fabric's values, and the host script leaves every one of them to the operator."""
    template = _docs(_k8s(built.artifacts)["nic-configuration.yaml"])[0]["spec"]["template"]
    raw = {r["name"]: r["value"] for r in template["rawNvConfig"]}
    assert raw["CNP_DSCP_P1"] == "48" and raw["ROCE_CC_PRIO_MASK_P1"] == "8"
    assert "CNP_802P_PRIO_P1" not in raw  # the operator's 6 is the fabric's: nothing to override
    # GPUDirect RDMA: ATS off needs gpuDirectOptimized, which the operator accepts only beside pciPerformanceOptimized
    assert template["gpuDirectOptimized"] == {"enabled": True, "env": "Baremetal"}
    assert template["pciPerformanceOptimized"] == {"enabled": True}
    assert _firmware_arms(built) == {"connectx-7": {}}


def test_host_scripts_own_the_firmware_without_the_operator(tmp_path):
    b = build(_copy(tmp_path, kubernetes__nic_config="netauto"))
    assert "nic-configuration.yaml" not in _k8s(b.artifacts)
    assert _firmware_arms(b)["connectx-7"]["CNP_DSCP_P1"] == 48


def test_operator_owner_needs_every_nics_pci(tmp_path):
    with pytest.raises(InventoryError) as exc:
        build(_copy(tmp_path, servers__pci=None))
    assert "nic_config" in str(exc.value) and "no" in str(exc.value) and "\n" not in str(exc.value)


FIRMWARE_MUTATIONS = [
    ("nic-configuration.yaml", "kubernetes", "    - name: CNP_DSCP_P1\n      value: '48'\n", "",
     "the operator sets CNP_DSCP_P1=4, the fabric needs 48"),
    ("usr/local/sbin/netauto-nic-firmware.sh", "su1-gpu01", 'connectx-7) echo ""', 'connectx-7) echo "CNP_DSCP_P1=48"',
     "CNP_DSCP_P1 also set by su1-gpu01"),
]


@pytest.mark.parametrize(("path", "device", "old", "new", "names"), FIRMWARE_MUTATIONS, ids=["raw-missing", "two-owners"])
def test_firmware_contradiction_is_one_error(built, crd_dir, path, device, old, new, names):
    found, _ = check_kubernetes(built.cluster, _mutate(built, path, old, new, device=device), crd_dir)
    hits = [f for f in found if f.rule == "K8S-10"]
    assert [f.message for f in hits if names in f.message], [f.message for f in found]


def test_pf_on_leaf_subnet_rails_is_steered_to_vfs(tmp_path, crd_dir):
    """attach: pf hides the NIC from the host while a pod runs; where VFs have addresses (leaf subnets) a warning
    says so, and p2p fabrics (no VF address) get none."""
    b = build(_copy(tmp_path, kubernetes={"stack": "nvidia-network-operator", "attach": "pf", "ipam": "spiderpool"}))
    found, _ = check_kubernetes(b.cluster, FileSet.from_artifacts(b.artifacts), crd_dir)
    assert [(f.rule, f.severity) for f in found] == [("K8S-11", "warning")], [f.message for f in found]
    assert "attach: vf" in found[0].message
    p2p = build(DEFAULT_INVENTORY)
    found, _ = check_kubernetes(p2p.cluster, FileSet.from_artifacts(p2p.artifacts), crd_dir)
    assert found == []


def test_unreadable_cni_config_is_a_finding(built, crd_dir):
    """A hand-edited chain that is not JSON is named, never a traceback."""
    found, _ = check_kubernetes(built.cluster, _mutate(built, "rail-networks.yaml", "- '{\"type\":\"sbr\"}'",
                                                       "- '{sbr'"), crd_dir)
    assert any(f.rule == "K8S-09" and "SpiderMultusConfig/rail0: CNI config unreadable" in f.message for f in found)
