"""`netauto acceptance run --lab --tool iperf3` on two compute planes over real FRR in namespaces (root; 2 planes x
2 rails x 2 leaves x 2 spines, 4 servers, tests/test_lab_compute_planes.py's inventory): every plane's tests pass,
each over its own ports; one plane-2 server-leaf veth shaped with tc tbf (both ends) to a fifth of the paced rate is
named by `report` with plane 2, its rail, leaf and port. One lab, torn down even on failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from test_deploy_lab import _netauto
from test_lab_compute_planes import lab_inventory

from netauto.lab.state import load_state
from netauto.pipeline import build_cluster

pytestmark = pytest.mark.lab

RUN = ("--tool", "iperf3", "--rate", "50M", "--efficiency", "0.8", "--duration", "2")


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    problems = ["root"] if os.geteuid() != 0 else None
    if problems is None:
        from netauto.lab.preflight import preflight

        problems = preflight(ssh=True).problems + ([] if shutil.which("iperf3") else ["iperf3"])
    if problems:
        if os.environ.get("CI"):
            pytest.fail("acceptance lab tests need: " + "; ".join(problems))
        pytest.skip("acceptance lab tests need: " + "; ".join(problems))
    from netauto.lab import netns, runtime

    name = f"acp{os.getpid() % 1_000_000}"

    def teardown() -> None:
        runtime.down(name)
        assert not netns.list_netns(f"na-{name}-"), "namespaces left behind"

    request.addfinalizer(teardown)
    tmp = tmp_path_factory.mktemp("acp")
    inv = lab_inventory(tmp)
    up = _netauto("lab", "up", "-i", str(inv), "--name", name, "--ssh")
    assert up.returncode == 0, up.stdout + up.stderr
    check = _netauto("lab", "check", "--name", name, "--no-ping")
    assert check.returncode == 0, check.stdout + check.stderr
    return {"name": name, "state": load_state(name), "tmp": tmp, "inv": inv, "cluster": build_cluster(inv)}


def _run_and_report(lab: dict, tag: str) -> tuple[subprocess.CompletedProcess, dict]:
    results = lab["tmp"] / tag
    run = _netauto("acceptance", "run", "-i", str(lab["inv"]), "--lab", lab["name"], "-o", str(results), *RUN)
    assert run.returncode == 0, run.stdout + run.stderr
    rep = _netauto("acceptance", "report", "-i", str(lab["inv"]), str(results), "--format", "json", *RUN)
    return rep, json.loads(rep.stdout)


def test_each_plane_passes_and_a_shaped_plane_2_cable_is_named_with_plane_2(lab):
    rep, doc = _run_and_report(lab, "healthy")
    assert rep.returncode == 0, [t for t in doc["tests"] if t["status"] != "pass"]
    ids = [t["id"] for t in doc["tests"]]
    assert not doc["suspects"] and all(t["status"] == "pass" for t in doc["tests"])
    p1, p2 = [i for i in ids if i.startswith("p1-")], [i for i in ids if i.startswith("p2-")]
    assert p1 and len(p1) == len(p2) and len(p1) + len(p2) == len(ids)  # both planes, nothing else

    cluster = lab["cluster"]
    srv = next(s for s in cluster.compute_planes[0].servers if s.name == "b300-02")
    rail = srv.rails[1]
    nodes = lab["state"]["nodes"]
    shaped = [(nodes[srv.name]["ns"], rail.nic), (nodes[rail.leaf]["ns"], rail.leaf_port)]
    for ns, dev in shaped:  # tc-tbf(8): 10 Mbit/s each way, a fifth of the 50M the tests pace at
        subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", "10mbit",
                        "burst", "16kb", "latency", "100ms"], check=True)
    try:
        rep, doc = _run_and_report(lab, "shaped")
    finally:
        for ns, dev in shaped:
            subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"], check=False)
    assert rep.returncode == 1
    (sus,) = doc["suspects"]
    (part,) = sus["parts"]
    assert part["ports"] == [[srv.name, rail.nic], [rail.leaf, rail.leaf_port]]
    assert rail.leaf.startswith("p2-") and f"{srv.name} plane 2 rail {rail.index}: NIC {rail.nic}" in part["name"]
    failed = {t["id"] for t in doc["tests"] if t["status"] == "fail"}
    assert failed == set(sus["failing_tests"]) and all(t.startswith("p2-") and "b300-02-r1" in t for t in failed)
