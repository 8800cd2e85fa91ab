"""Kubernetes for compute planes (docs/compute-planes.md, "Kubernetes"): model.kubernetes_planes ->
render.kubernetes(_planes) -> validate.kubernetes and CPLANE-03 (validate.plane_mode).

The shipped dual-plane example (examples/b300-2plane, attach: pf on p2p links, swplb) renders one network, resource
and pool per rail and plane, and one NicConfigurationTemplate whose spectrumXOptimized block says swplb over 2 planes;
every manifest passes ../shared/k8s-crds/check-crd.py, and the template's CEL rules (which check-crd.py does not
evaluate) are evaluated here by hand, each against its rule text in the CRD. The plane mode has one owner (the
inventory): a NIC template, a netplan file or an NCCL_IB_HCA that shows another is an error naming the file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from ipaddress import IPv4Interface
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES
from test_compute_planes import _cli, _doc, _write, four_plane

from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster
from netauto.validate.api import errors_for
from netauto.validate.files import FileSet
from netauto.validate.kubernetes import check_kubernetes
from netauto.validate.plane_mode import check_plane_mode

TWO = EXAMPLES / "b300-2plane" / "inventory"
SHARED_CRDS = Path("/work/shared/k8s-crds")
NCT_CRD = SHARED_CRDS / "configuration.net.nvidia.com_nicconfigurationtemplates.yaml"
K8S = yaml.safe_load((TWO / "kubernetes.yaml").read_text())


@pytest.fixture(scope="module")
def two():
    cluster = build_cluster(TWO)
    return cluster, list(render_cluster(cluster))


def _k8s(arts) -> dict[str, list[dict]]:
    return {a.path: [d for d in yaml.safe_load_all(a.content) if d] for a in arts
            if a.device == "kubernetes" and a.path.endswith(".yaml")}


def _mutate(arts, device: str, path: str, old: str, new: str) -> FileSet:
    files = FileSet.from_artifacts(arts)
    text = files.files[device][path]
    assert old in text, (device, path, old)
    files.files[device][path] = text.replace(old, new, 1)
    return files


def test_every_manifest_passes_the_shared_crd_checker(two, tmp_path):
    if not (SHARED_CRDS / "check-crd.py").is_file():
        pytest.skip("no ../shared/k8s-crds/check-crd.py")
    for a in two[1]:
        if a.device == "kubernetes" and a.path.endswith(".yaml"):
            (tmp_path / a.path).write_text(a.content)
    res = subprocess.run([sys.executable, str(SHARED_CRDS / "check-crd.py"), str(tmp_path)], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stdout
    assert "84 without errors" in res.stderr, res.stderr


def test_one_network_resource_and_pool_per_rail_and_plane(two):
    cluster, arts = two
    files = _k8s(arts)
    nets = files["rail-networks.yaml"]
    want = [f"rail{r}p{p}" for r in range(8) for p in (1, 2)]  # rail by rail, plane by plane (NCCL_IB_HCA's order)
    assert [n["metadata"]["name"] for n in nets] == want
    assert [n["metadata"]["annotations"]["k8s.v1.cni.cncf.io/resourceName"] for n in nets] == [f"nvidia.com/{w}"
                                                                                              for w in want]
    config = json.loads(files["nic-cluster-policy.patch.yaml"][0]["spec"]["sriovDevicePlugin"]["config"])
    pci = {r["resourceName"]: r["selectors"]["pciAddresses"] for r in config["resourceList"]}
    pools = {p["metadata"]["name"]: p["spec"] for p in files["rail-ippools.yaml"]}
    assert len(pools) == 8 * 2 * 4
    for plane, fab in enumerate(cluster.compute_fabrics(), start=1):
        for srv in fab.servers:
            for rail in srv.rails:
                pool = pools[f"rail{rail.index}p{plane}-{srv.name}"]
                # the pod takes the plane port with its own plane-p address, on that plane's network only
                assert pool["ips"] == [rail.ip] and pool["nodeName"] == [srv.name]
                assert pool["subnet"] == str(IPv4Interface(rail.address).network)
                assert pool["multusName"] == [f"training/rail{rail.index}p{plane}"]
                assert pci[f"rail{rail.index}p{plane}"] == [rail.pci]
    nccl = files["nccl-configmap.yaml"][0]["data"]
    assert nccl["NETAUTO_RDMA_RESOURCES"] == ",".join(f"nvidia.com/{w}" for w in want)


def _cel(spec: dict) -> dict[str, bool]:
    """The NicConfigurationTemplate CRD's CEL rules (x-kubernetes-validations) that a spectrumXOptimized template
    meets, evaluated by hand: message -> holds."""
    t = spec["template"]
    sx = t.get("spectrumXOptimized") or {}
    on = bool(sx.get("enabled"))
    mode, planes = sx.get("multiplaneMode", "none"), sx.get("numberOfPlanes", 1)
    return {
        "when MultiplaneMode is none, numberOfPlanes must be 1": mode != "none" or planes == 1,
        "when MultiplaneMode is not none, numberOfPlanes must not be 1": mode == "none" or planes != 1,
        "platformType is required when Spectrum-X optimization is enabled": not on or "platformType" in sx,
        "spectrumXOptimized can be enabled only when linkType=='Ethernet'": not on or (
            t.get("linkType", "Ethernet") == "Ethernet" and t["numVfs"] == 1),
        "spectrumXOptimized includes RoCE optimizations, so separate roceOptimized section must not be enabled":
            not on or not (t.get("roceOptimized") or {}).get("enabled"),
        "spectrumXOptimized can be enabled only for ConnectX-8, ConnectX-9": not on or spec["nicSelector"][
            "nicType"] in ("1023", "1025", "a2dc"),
        "hwplb MultiplaneMode can only be enabled for ConnectX-8 (NicType 1023) or ConnectX-9 (NicType 1025)":
            mode != "hwplb" or spec["nicSelector"]["nicType"] in ("1023", "1025"),
    }


def test_the_nic_template_sets_swplb_over_every_plane_port_and_meets_the_cel_rules(two):
    cluster, arts = two
    [doc] = _k8s(arts)["nic-configuration.yaml"]
    spec = doc["spec"]
    t = spec["template"]
    assert t["spectrumXOptimized"] == {"enabled": True, "version": "RA2.4", "platformType": "b300",
                                       "multiplaneMode": "swplb", "numberOfPlanes": 2, "overlay": "none"}
    assert "roceOptimized" not in t and t["numVfs"] == 1 and t["linkType"] == "Ethernet"
    assert spec["nicSelector"]["pciAddresses"] == [r.pci for r0, r1 in zip(cluster.compute.servers[0].rails,
                                                                             cluster.compute_planes[0].servers[0].rails)
                                                   for r in (r0, r1)]
    # the fabric's firmware values win over the Spectrum-X profile's (rawNvConfig is merged last)
    assert {r["name"]: r["value"] for r in t["rawNvConfig"]} == {"ROCE_CC_PRIO_MASK_P1": "8", "CNP_DSCP_P1": "48",
                                                                 "CNP_802P_PRIO_P1": "6",
                                                                 "ROCE_ADAPTIVE_ROUTING_EN": "1"}
    rules = _crd_messages()
    for message, holds in _cel(spec).items():
        assert not rules or any(r.startswith(message) for r in rules), message  # the rule is still the CRD's
        assert holds, message


def _crd_messages() -> list[str]:
    """Every x-kubernetes-validations message of the NicConfigurationTemplate CRD (empty without the CRD)."""
    if not NCT_CRD.is_file():
        return []
    out: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            out.extend(str(r["message"]) for r in node.get("x-kubernetes-validations") or [])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load(NCT_CRD.read_text()))
    return out


def test_the_hosts_keep_cable_length_and_pause_beside_a_spectrum_x_template(two):
    """The Spectrum-X template has no roceOptimized.qos (cableLen, pauseFrames): the host scripts keep them, on
    every plane's ports, while the firmware values are the template's alone."""
    cluster, arts = two
    texts = {(a.device, a.path): a.content for a in arts}
    for path in ("usr/local/sbin/netauto-roce-qos.sh", "usr/local/sbin/netauto-compute-p2-qos.sh"):
        assert "\nPORT_BUFFER_OWNER=host\n" in texts[("b300-01", path)], path
    assert 'connectx-8) echo ""' in texts[("b300-01", "usr/local/sbin/netauto-nic-firmware.sh")]


def test_the_cel_evaluation_can_fail():
    """The hand evaluation is not a tautology: the single-plane roceOptimized template broken each way fails."""
    spec = {"nicSelector": {"nicType": "1021"}, "template": {"numVfs": 8, "linkType": "Ethernet",
                                                             "roceOptimized": {"enabled": True},
                                                             "spectrumXOptimized": {"enabled": True,
                                                                                    "multiplaneMode": "hwplb",
                                                                                    "numberOfPlanes": 1}}}
    assert [m for m, ok in _cel(spec).items() if not ok] == list(_cel(spec))[1:]


def test_validate_is_clean_with_the_crds(two):
    cluster, arts = two
    crds = SHARED_CRDS if SHARED_CRDS.is_dir() else None
    found, notes = check_kubernetes(cluster, FileSet.from_artifacts(arts), crds)
    assert found == [], [f.message for f in found]
    assert check_plane_mode(cluster, FileSet.from_artifacts(arts)) == []


MODE_MUTATIONS = [  # (device, path, old, new, what the finding names)
    ("kubernetes", "nic-configuration.yaml", "numberOfPlanes: 2", "numberOfPlanes: two",
     "NicConfigurationTemplate/b300-connectx-8 sets the NICs to swplb over -1 plane(s)"),
    ("b300-04", "etc/netplan/61-compute-p2.yaml", "network:\n", "network: [\n",
     "(etc/netplan/61-compute-p2.yaml does not)"),
    ("kubernetes", "nic-configuration.yaml", "multiplaneMode: swplb", "multiplaneMode: hwplb",
     "NicConfigurationTemplate/b300-connectx-8 sets the NICs to hwplb over 2 plane(s)"),
    ("kubernetes", "nic-configuration.yaml", "numberOfPlanes: 2", "numberOfPlanes: 4",
     "NicConfigurationTemplate/b300-connectx-8 sets the NICs to swplb over 4 plane(s)"),
    ("b300-02", "etc/netplan/61-compute-p2.yaml", "addresses: [10.8.0.3/31]", "addresses: []",
     "the netplan files address the ports of 1 plane(s) (etc/netplan/61-compute-p2.yaml does not)"),
    ("b300-03", "etc/nccl.conf", "mlx5_0:1,mlx5_1:1,", "mlx5_0:1,", "NCCL_IB_HCA lists the ports of 1 plane(s)"),
]


@pytest.mark.parametrize(("device", "path", "old", "new", "names"), MODE_MUTATIONS,
                         ids=["hostile-planes", "unreadable-netplan", "template-mode", "template-planes", "netplan",
                              "nccl"])
def test_a_plane_mode_contradiction_is_an_error(two, device, path, old, new, names):
    cluster, arts = two
    found = check_plane_mode(cluster, _mutate(arts, device, path, old, new))
    assert [f for f in found if f.rule == "CPLANE-03" and names in f.message and f.device == device], \
        [f.message for f in found]


def test_the_mode_check_runs_in_validate(two):
    cluster, arts = two
    mutated = [a if (a.device, a.path) != ("kubernetes", "nic-configuration.yaml") else
               type(a)(a.device, a.path, a.content.replace("numberOfPlanes: 2", "numberOfPlanes: 4"), a.mode, a.owner)
               for a in arts]
    errors = errors_for(cluster, mutated, external=False)
    assert any(e.startswith("CPLANE-03 kubernetes") for e in errors), errors


def test_four_planes_with_kubernetes(tmp_path):
    inv = four_plane(tmp_path)
    (inv / "kubernetes.yaml").write_text(yaml.safe_dump(K8S))
    cluster = build_cluster(inv)
    arts = list(render_cluster(cluster))
    files = _k8s(arts)
    assert len(files["rail-networks.yaml"]) == 8 * 4
    assert files["nic-configuration.yaml"][0]["spec"]["template"]["spectrumXOptimized"]["numberOfPlanes"] == 4
    assert len(files["nic-configuration.yaml"][0]["spec"]["nicSelector"]["pciAddresses"]) == 32
    found, _ = check_kubernetes(cluster, FileSet.from_artifacts(arts), SHARED_CRDS if SHARED_CRDS.is_dir() else None)
    assert found == [] and check_plane_mode(cluster, FileSet.from_artifacts(arts)) == []


@pytest.mark.parametrize(("k8s", "planes", "key", "text"), [
    ({"nic_config": "nic-configuration-operator"}, 2, "kubernetes.nic_config", "need kubernetes.spectrum_x"),
    ({"spectrum_x": {"version": "RA 2.4", "platform_type": "b300"}}, 2, "kubernetes.spectrum_x.version",
     "does not match the pattern"),
    ({}, 1, "kubernetes.spectrum_x", "the fabric has one compute plane"),
])
def test_kubernetes_bad_input_is_one_line(tmp_path, k8s, planes, key, text):
    doc = _doc()
    if planes == 1:
        doc["topology"]["compute_planes"] = {"count": 1}
        for nic in doc["servers"]["profiles"]["b300"]["nics"]:
            nic.pop("plane_ports")  # plane ports on one plane are refused before Kubernetes is read
    inv = _write(tmp_path, doc)
    spec = {**K8S["kubernetes"], **k8s}
    if "nic_config" in k8s:
        spec.pop("spectrum_x")
    (inv / "kubernetes.yaml").write_text(yaml.safe_dump({"kubernetes": spec}))
    proc = _cli("show", "cabling", "-i", str(inv))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert key in lines[0] and text in lines[0], lines[0]


def _leaf_subnet_vf(tmp_path: Path, vfs: int) -> Path:
    """The example on leaf subnets with SR-IOV VFs (attach: vf): a VF per plane port, addressed on its plane."""
    doc = _doc()
    doc["addressing"]["host_links"] = {"mode": "leaf-subnet", "pool": "10.0.0.0/12", "rail_prefix_len": 16,
                                       "leaf_prefix_len": 24}
    inv = _write(tmp_path, doc)
    (inv / "kubernetes.yaml").write_text(yaml.safe_dump({"kubernetes": {
        "nic_config": "nic-configuration-operator", "vfs_per_nic": vfs,
        "spectrum_x": {"version": "RA2.4", "platform_type": "b300"}}}))
    return inv


def test_vfs_per_rail_and_plane_on_leaf_subnets(tmp_path):
    cluster = build_cluster(_leaf_subnet_vf(tmp_path, 1))
    arts = list(render_cluster(cluster))
    policies = {p["metadata"]["name"]: p["spec"] for p in _k8s(arts)["sriov-node-policies.yaml"]}
    assert sorted(policies) == sorted(f"rail{r}p{p}-b300" for r in range(8) for p in (1, 2))
    port = cluster.compute_planes[0].servers[0].rails[3]
    assert policies["rail3p2-b300"]["nicSelector"]["pfNames"] == [port.nic] == ["r3p2"]
    assert policies["rail3p2-b300"]["nicSelector"]["rootDevices"] == [port.pci] and policies["rail3p2-b300"][
        "numVfs"] == 1
    crds = SHARED_CRDS if SHARED_CRDS.is_dir() else None
    files = FileSet.from_artifacts(arts)
    assert check_kubernetes(cluster, files, crds)[0] == [] and check_plane_mode(cluster, files) == []
    # a plane-2 policy that selects the plane-1 PF is named (K8S-06 reads the plane from the resource name)
    bad = _mutate(arts, "kubernetes", "sriov-node-policies.yaml", "    - r3p2\n", "    - r3p1\n")
    found = [f.message for f in check_kubernetes(cluster, bad, crds)[0] if f.rule == "K8S-06"]
    assert any("SriovNetworkNodePolicy/rail3p2-b300" in m and "rail 3 NIC r3p2" in m for m in found), found


def test_more_than_one_vf_beside_spectrum_x_is_one_line(tmp_path):
    proc = _cli("show", "cabling", "-i", str(_leaf_subnet_vf(tmp_path, 8)))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "kubernetes.vfs_per_nic" in lines[0] and "numVfs 1" in lines[0], lines[0]


def test_incremental_render_of_a_plane_2_port_edit_re_renders_kubernetes(tmp_path):
    """A plane-2 port's PCI address is in the pods' manifests (its device-plugin resource, the NIC template):
    an incremental render after editing it rewrites kubernetes/ byte for byte as a cold render does."""
    from test_output_incremental import _manifest, _render, _tree

    inv = tmp_path / "inv"
    doc = _doc()
    inv.mkdir()
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    (inv / "kubernetes.yaml").write_text(yaml.safe_dump(K8S))
    out = tmp_path / "out"
    _render(tmp_path, inv, out)
    before = _tree(out / "gpu-b300")
    doc["servers"]["profiles"]["b300"]["nics"][5]["plane_ports"][2]["pci"] = "0000:a4:00.1"
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    _render(tmp_path, inv, out)
    cold = tmp_path / "cold"
    _render(tmp_path / "c", inv, cold)
    after = _tree(out / "gpu-b300")
    assert after == _tree(cold / "gpu-b300") and _manifest(out / "gpu-b300")["files"] == _manifest(cold / "gpu-b300")["files"]
    changed = {rel for rel in after if before.get(rel) != after[rel]}
    assert {"kubernetes/nic-cluster-policy.patch.yaml", "kubernetes/nic-configuration.yaml"} <= changed, changed
