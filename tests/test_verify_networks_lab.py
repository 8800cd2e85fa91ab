"""`netauto verify --lab` on a cluster with networks (examples/cluster-lab: compute, storage and frontend on real FRR
and sshd in namespaces, root): every network's switches and every server's network NICs are checked against that
network's intent and a healthy lab passes; a storage leaf uplink taken down and an extra address on a GPU
server's storage NIC are named with the device, the port and the storage network."""

from __future__ import annotations

import json
import subprocess
import time
from xml.etree import ElementTree as ET

import pytest
from conftest import EXAMPLES
from test_deploy_lab import _netauto, start_lab
from test_verify_lab import _exec

pytestmark = pytest.mark.lab

CLUSTER_LAB = EXAMPLES / "cluster-lab" / "inventory"


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    t0 = time.monotonic()
    got = start_lab(request, tmp_path_factory, CLUSTER_LAB, "vpl", "network verify lab tests")
    got["timings"] = {"up+check": time.monotonic() - t0}
    return got


@pytest.fixture(scope="module")
def cluster():
    from netauto.pipeline import build_cluster

    return build_cluster(CLUSTER_LAB)


def _verify(lab: dict, *args: str, fmt: str = "json") -> tuple[int, dict | str]:
    out = lab["tmp"] / f"verify-{time.monotonic_ns()}.{fmt}"
    t0 = time.monotonic()
    p = _netauto("verify", "-i", str(CLUSTER_LAB), "--lab", lab["name"], "--format", fmt, "-o", str(out), *args)
    lab["timings"].setdefault("verify", []).append(round(time.monotonic() - t0, 2))
    assert p.returncode in (0, 1), p.stdout + p.stderr
    text = out.read_text()
    return p.returncode, json.loads(text) if fmt == "json" else text


def _failed(doc: dict) -> set[tuple[str, str, str, str]]:
    return {(f["network"], f["check"], f["device"], f["item"]) for f in doc["findings"] if f["status"] in ("fail", "error")}


def _until(lab: dict, pred, timeout: float = 60.0, *args: str) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        _, doc = _verify(lab, *args)
        if pred(doc) or time.monotonic() > deadline:
            return doc
        time.sleep(2)


def _ns(lab: dict, device: str) -> str:
    return lab["state"]["nodes"][device]["ns"]


def test_every_network_verifies_and_a_broken_storage_switch_is_named(lab, cluster):
    storage = next(p for p in cluster.networks if p.name == "storage").fabric
    gpu = next(s for s in cluster.compute.servers if s.name in lab["state"]["nodes"])
    stor_nic = next(s for s in storage.servers if s.name == gpu.name).rails[0]

    # 1. healthy: every network, no failure; network switches and network NICs were really checked
    doc = _until(lab, lambda d: d["ok"])
    assert doc["ok"], sorted(_failed(doc))[:10]
    assert {f["network"] for f in doc["findings"]} >= {"compute", "storage", "frontend"}
    passed = {(f["network"], f["check"], f["device"], f["item"]) for f in doc["findings"] if f["status"] == "pass"}
    for sw in ("st-leaf0", "st-spine1", "fe-acc0", "fe-agg1"):
        net = "storage" if sw.startswith("st-") else "frontend"
        checked = {c for n, c, d, _ in passed if d == sw and n == net}
        assert {"bgp", "lldp", "interface"} <= checked, (sw, checked)
    assert ("storage", "ecmp", "st-leaf0") in {(n, c, d) for n, c, d, _ in passed}
    assert ("storage", "host-routing", gpu.name, f"{stor_nic.nic} address") in passed
    assert ("storage", "host-routing", gpu.name, f"{stor_nic.nic} rule {stor_nic.rule_priority}") in passed
    assert ("storage", "lldp", gpu.name, stor_nic.nic) in passed
    assert ("storage", "host-routing", "stor1", "ens1f0np0 address") in passed  # a storage node, network only
    assert ("frontend", "host-routing", gpu.name, "fe0 table main 0.0.0.0/0 metric 100") in passed
    lab["timings"]["healthy_findings"] = len(doc["findings"])

    # --limit takes deploy's grammar, network groups included
    _, doc = _verify(lab, "--limit", "network=storage,&switches")
    assert {f["device"] for f in doc["findings"]} == {sw.name for sw in storage.switches}
    assert {f["network"] for f in doc["findings"]} == {"storage"} and doc["ok"]

    # 2. a storage leaf uplink down: named with the leaf, the port and the storage network (both ends)
    leaf = storage.switch("st-leaf0")
    up = leaf.fabric_ports[0]
    spine, spine_port = up.peer_device, up.peer_port
    assert spine and spine_port
    subprocess.run(["ip", "-n", _ns(lab, "st-leaf0"), "link", "set", up.name, "down"], check=True)
    try:
        doc = _until(lab, lambda d: ("storage", "bgp", "st-leaf0", up.name) in _failed(d))
        failed = _failed(doc)
        assert ("storage", "interface", "st-leaf0", up.name) in failed
        assert ("storage", "bgp", "st-leaf0", up.name) in failed and ("storage", "bgp", spine, spine_port) in failed
        assert ("storage", "interface", spine, spine_port) in failed  # the far end lost carrier
        assert any(c == "ecmp" and d == "st-leaf1" for _, c, d, _ in failed)  # the other leaf lost a path to it
        assert {n for n, *_ in failed} == {"storage"}, failed  # compute and frontend untouched
        _, xml = _verify(lab, fmt="junit")
        msgs = [c.find("failure").get("message") for c in ET.fromstring(xml).findall(".//testcase")
                if c.find("failure") is not None and c.get("classname") == "st-leaf0"]
        assert msgs and all("[network storage]" in m for m in msgs)
    finally:
        subprocess.run(["ip", "-n", _ns(lab, "st-leaf0"), "link", "set", up.name, "up"], check=True)
        # FRR 8.4 keeps a stale kernel nexthop group after a flap (see test_verify_lab): restart both ends
        for dev in ("st-leaf0", spine):
            assert _exec(lab, dev, "/usr/lib/frr/frrinit.sh", "restart").returncode == 0

    # 3. the server side of a network NIC: a stray address on the GPU server's storage NIC
    ns = _ns(lab, gpu.name)
    subprocess.run(["ip", "-n", ns, "addr", "add", "10.16.250.1/31", "dev", stor_nic.nic], check=True)
    try:
        want = {("storage", "host-routing", gpu.name, f"{stor_nic.nic} address")}
        doc = _until(lab, lambda d: _failed(d) == want)  # (FRR's restart above settles meanwhile)
        bad = [f for f in doc["findings"] if f["status"] == "fail"]
        assert [(f["network"], f["device"], f["item"]) for f in bad] == [("storage", gpu.name, f"{stor_nic.nic} address")]
        assert bad[0]["actual"] == f"{stor_nic.address}, 10.16.250.1/31"
    finally:
        subprocess.run(["ip", "-n", ns, "addr", "del", "10.16.250.1/31", "dev", stor_nic.nic], check=True)
    doc = _until(lab, lambda d: d["ok"])
    assert doc["ok"], sorted(_failed(doc))[:10]
    print("timings:", lab["timings"])
