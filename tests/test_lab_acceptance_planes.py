"""Acceptance, verify, drain and deploy per compute plane over real FRR in namespaces (root; 2 planes x 2 rails x
2 leaves x 2 spines, 4 servers, tests/test_lab_compute_planes.py's inventory, `lab up --ssh`). `acceptance run
--tool iperf3`: every plane's tests pass, each over its own ports; one plane-2 server-leaf veth shaped with tc tbf
(both ends) to a fifth of the paced rate is named by `report` with plane 2, its rail, leaf and port. `verify` checks
plane 2's sessions and ECMP routes as network compute-p2, and a plane-2 uplink down fails plane 2 only. `drain` of
a plane-1 spine waits on plane-1 leaves only and moves no plane-2 route; `deploy --dry-run` of an inventory that
drains it changes that spine only. One lab, torn down even on failure."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time

import pytest
import yaml
from test_acceptance_lab import start_ssh_lab, with_shaped_cable
from test_deploy_lab import _netauto
from test_lab_compute_planes import _routes, lab_inventory
from test_verify_lab import _exec

from netauto.lab.state import load_state
from netauto.pipeline import build_cluster

pytestmark = pytest.mark.lab

RUN = ("--tool", "iperf3", "--rate", "50M", "--efficiency", "0.8", "--duration", "2")


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("acp")
    inv = lab_inventory(tmp)
    name = start_ssh_lab(request, "acp", inv)
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
    rep, doc = with_shaped_cable(lab, srv.name, rail, lambda: _run_and_report(lab, "shaped"))
    assert rep.returncode == 1
    (sus,) = doc["suspects"]
    (part,) = sus["parts"]
    assert part["ports"] == [[srv.name, rail.nic], [rail.leaf, rail.leaf_port]]
    assert rail.leaf.startswith("p2-") and f"{srv.name} plane 2 rail {rail.index}: NIC {rail.nic}" in part["name"]
    failed = {t["id"] for t in doc["tests"] if t["status"] == "fail"}
    assert failed == set(sus["failing_tests"]) and all(t.startswith("p2-") and "b300-02-r1" in t for t in failed)


def _verify(lab: dict, *args: str) -> dict:
    out = lab["tmp"] / f"verify-{time.monotonic_ns()}.json"
    p = _netauto("verify", "-i", str(lab["inv"]), "--lab", lab["name"], "--format", "json", "-o", str(out), *args)
    assert p.returncode in (0, 1), p.stdout + p.stderr
    return json.loads(out.read_text())


def _failed(doc: dict) -> set[tuple[str, str, str, str]]:
    return {(f["network"], f["check"], f["device"], f["item"]) for f in doc["findings"] if f["status"] in ("fail", "error")}


def test_verify_checks_plane_2_sessions_and_routes_and_names_a_plane_2_fault(lab):
    p2 = lab["cluster"].compute_planes[0]
    doc = _verify(lab, "--checks", "bgp,ecmp")
    assert doc["ok"], _failed(doc)
    passed = {(f["network"], f["check"], f["device"], f["item"]) for f in doc["findings"] if f["status"] == "pass"}
    for sw in p2.switches:  # every plane-2 session, checked against plane 2's intent
        assert {("compute-p2", "bgp", sw.name, nb.interface) for nb in sw.bgp.neighbors} <= passed, sw.name
    assert {d for n, c, d, _ in passed if n == "compute-p2" and c == "ecmp"} == \
        {s.name for s in p2.switches if s.role == "leaf"}
    leaf = p2.switch("p2-su1-r0-leaf")
    up = leaf.fabric_ports[0]
    ns = lab["state"]["nodes"][leaf.name]["ns"]
    subprocess.run(["ip", "-n", ns, "link", "set", up.name, "down"], check=True)
    try:
        deadline = time.monotonic() + 60
        while ("compute-p2", "bgp", leaf.name, up.name) not in _failed(doc := _verify(lab, "--checks", "bgp,ecmp")):
            assert time.monotonic() < deadline, _failed(doc)
            time.sleep(2)
        failed = _failed(doc)
        assert ("compute-p2", "bgp", up.peer_device, up.peer_port) in failed
        assert {n for n, *_ in failed} == {"compute-p2"}, failed  # plane 1 untouched
    finally:
        subprocess.run(["ip", "-n", ns, "link", "set", up.name, "up"], check=True)
        for dev in (leaf.name, up.peer_device):  # FRR 8.4 keeps a stale nexthop group after a flap (test_verify_lab)
            assert _exec(lab, dev, "/usr/lib/frr/frrinit.sh", "restart").returncode == 0


def test_draining_a_plane_1_spine_touches_plane_1_only(lab):
    p1, p2 = lab["cluster"].compute_fabrics()
    ns = {d: n["ns"] for d, n in lab["state"]["nodes"].items()}
    p2_leaves = [s.name for s in p2.switches if s.role == "leaf"]
    deadline = time.monotonic() + 90  # after the previous test's restarts: plane 2 whole again
    while not _verify(lab, "--checks", "bgp,ecmp")["ok"]:
        assert time.monotonic() < deadline
        time.sleep(2)
    before = {leaf: _routes(ns[leaf]) for leaf in p2_leaves}
    # deploy --dry-run of the inventory that drains p1-spine1: that spine's files change, nothing else
    drained = lab["tmp"] / "drained"
    shutil.copytree(lab["inv"], drained)  # its fabric id too: the devices recorded it
    doc = yaml.safe_load((lab["inv"] / "fabric.yaml").read_text())
    doc.setdefault("features", {})["gshut"] = {"drain": ["p1-spine1"]}
    (drained / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    res = lab["tmp"] / "dry.json"
    p = _netauto("deploy", "-i", str(drained), "--lab", lab["name"], "--dry-run", "--limit", "switches",
                 "--results", str(res))
    assert p.returncode == 0, p.stdout + p.stderr
    results = {r["device"]: r["result"] for r in json.loads(res.read_text())["devices"]}
    assert {d for d, r in results.items() if r == "changed"} == {"p1-spine1"}, results
    assert {d for d in results if d.startswith("p2-")} == {s.name for s in p2.switches}  # plane 2 read, unchanged
    # the live drain waits on plane-1 leaves only, and moves no plane-2 route
    p = _netauto("drain", "p1-spine1", "-i", str(lab["inv"]), "--lab", lab["name"])
    try:
        assert p.returncode == 0, p.stdout + p.stderr
        m = re.search(r"ECMP width (\{[^}]*\})", p.stdout)
        assert m, p.stdout
        waited = set(re.findall(r"'([^']+)'", m.group(1)))
        assert waited == {s.name for s in p1.switches if s.role == "leaf"}, p.stdout
        assert {leaf: _routes(ns[leaf]) for leaf in p2_leaves} == before
    finally:
        u = _netauto("undrain", "p1-spine1", "-i", str(lab["inv"]), "--lab", lab["name"])
    assert u.returncode == 0, u.stdout + u.stderr
