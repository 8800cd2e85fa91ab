"""netauto lab with networks on real FRR in namespaces: the three-network example boots, every network converges
and pings, and the networks are isolated; a route of another network injected into a storage leaf is caught."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import EXAMPLES
from test_lab_integration import _require_lab, _assert_gone  # noqa: F401

from netauto.lab import runtime
from netauto.lab.check import check
from netauto.lab.networks import build_cluster_plan
from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster

pytestmark = pytest.mark.lab

CLUSTER_LAB = EXAMPLES / "cluster-lab" / "inventory"


@pytest.fixture
def lab():
    _require_lab()
    name = f"tpl{os.getpid() % 100000}"
    runtime.down(name)
    cluster = build_cluster(CLUSTER_LAB)
    plan = build_cluster_plan(cluster, list(render_cluster(cluster)), name)
    try:
        yield runtime.up(plan)
    finally:
        runtime.down(name)
        _assert_gone(name)


def test_networks_boot_reach_and_stay_isolated(lab):
    rep = check(lab, timeout=90)
    bad = [(r.kind, r.device, r.item, r.actual) for r in rep.results if not r.ok]
    assert not bad, bad
    kinds = {r.kind for r in rep.results}
    assert {"bgp", "ecmp", "ping", "isolation"} <= kinds
    # every spine/aggregation switch of every network forwards: one probe pinned to each leaf-spine path (the
    # lab check's pings hash onto the spines; with 2 compute spines all of them can land on one, so their
    # counters prove only that some spine forwarded)
    unused = pinned_spine_probes(lab, build_cluster(CLUSTER_LAB))
    assert not unused, f"paths that forwarded no pinned probe: {unused}"
    probes = [r for r in rep.results if r.kind == "isolation" and "->" in r.item]
    assert len(probes) == 6 and all(r.actual == "no reply" for r in probes)

    # a route of the compute network leaking into a storage leaf is an isolation failure naming the leaf
    ns = lab["nodes"]["st-leaf0"]["ns"]
    subprocess.run(["ip", "-n", ns, "route", "add", "blackhole", "10.0.5.0/24"], check=True)
    rep = check(lab, timeout=30, pings=False)
    bad = [(r.device, r.actual) for r in rep.results if not r.ok]
    assert bad == [("st-leaf0", "10.0.5.0/24")]


PROBES = 10


def pinned_spine_probes(lab, cluster) -> list[str]:
    """From every leaf out of each of its uplinks to another leaf's loopback: `ping -I <uplink>` binds the socket
    to that port, so the kernel takes the multipath route's nexthop on it (no hashing). The leaf-spine paths
    (`leaf port -> spine port`) on which the spine did not receive and forward the probes: received is counted on
    the spine's port facing that leaf (the replies come back on whatever path the other leaf hashes them to,
    never into this port), forwarded on the spine."""
    unused = []
    probed = 0
    for _, fab in cluster.fabrics():
        leaves = [sw for sw in fab.switches if sw.role == "leaf"]
        for leaf in leaves:
            target = next(o for o in leaves if o.name != leaf.name).loopback.split("/")[0]
            for port in leaf.fabric_ports:
                spine_ns = lab["nodes"][port.peer_device]["ns"]
                before = (_rx_packets(spine_ns, port.peer_port), _forwarded(spine_ns))
                subprocess.run(["ip", "netns", "exec", lab["nodes"][leaf.name]["ns"], "ping", "-n", "-q", "-c",
                                str(PROBES), "-i", "0.05", "-W", "1", "-I", port.name, target],
                               capture_output=True, timeout=30)
                after = (_rx_packets(spine_ns, port.peer_port), _forwarded(spine_ns))
                probed += 1
                if after[0] - before[0] < PROBES or after[1] - before[1] < PROBES:
                    unused.append(f"{leaf.name} {port.name} -> {port.peer_device} {port.peer_port}: "
                                  f"received {after[0] - before[0]}, forwarded {after[1] - before[1]}")
    assert probed >= 8, probed  # compute 2 leaves x 2 spines, storage and frontend 2 leaves x 1 spine
    return unused


def _rx_packets(ns: str, port: str) -> int:
    out = subprocess.run(["ip", "-n", ns, "-j", "-s", "link", "show", "dev", port], capture_output=True, text=True,
                         check=True, timeout=30).stdout
    return int(json.loads(out)[0]["stats64"]["rx"]["packets"])


def _forwarded(ns: str) -> int:
    from netauto.lab import netns

    return netns.in_netns([ns], netns.forwarded_ipv4)[ns] or 0


# ---------------------------------------------------------------- the frontend's exit: stand-in site routers
UPSTREAM = ("    upstream:\n      peer_asn: 64900\n      bfd: {}\n      links:\n"
            "        - {switch: 1, port: 63, address: 172.31.255.0/31, peer: site-rtr1}\n"
            "        - {switch: 1, port: 64, address: 172.31.255.2/31, peer: site-rtr2}\n")


def lab_with_exit(tmp_path):
    import shutil

    dst = tmp_path / "exit"
    shutil.copytree(CLUSTER_LAB, dst)
    f = dst / "networks.yaml"
    text = f.read_text()
    anchor = "    default_route: true\n"
    assert anchor in text
    f.write_text(text.replace(anchor, anchor + UPSTREAM, 1))
    return build_cluster(dst)


def test_exit_plan_has_routers_sessions_default_route_and_pings(tmp_path):
    """No root: the plan of the lab with an exit (what `lab up` builds and `lab check` expects)."""
    cluster = lab_with_exit(tmp_path)
    plan = build_cluster_plan(cluster, list(render_cluster(cluster)), "texit")
    assert {"site-rtr1", "site-rtr2"} <= set(plan.nodes)
    rtr = plan.nodes["site-rtr1"]
    assert rtr.kind == "switch" and "neighbor 172.31.255.0 remote-as 65300" in rtr.files["etc/frr/frr.conf"]
    assert "neighbor 172.31.255.0 default-originate" in rtr.files["etc/frr/frr.conf"]
    assert "bfdd=yes" in rtr.files["etc/frr/daemons"] and "addr add 172.31.255.1/31 dev up0" in rtr.ip_batch
    links = {(l.a_device, l.a_port, l.b_device, l.b_port) for l in plan.links}
    assert {("fe-agg1", "swp63", "site-rtr1", "up0"), ("fe-agg1", "swp64", "site-rtr2", "up0")} <= links
    sess = {(s.device, s.interface, s.peer_device) for s in plan.sessions}
    assert {("fe-agg1", "172.31.255.1", "site-rtr1"), ("site-rtr1", "172.31.255.0", "fe-agg1")} <= sess
    assert plan.ecmp["fe-acc0"]["0.0.0.0/0"] == 1 and plan.ecmp["fe-acc1"]["0.0.0.0/0"] == 1
    out = [p for p in plan.pings if p.via == "upstream"]
    assert out and all(p.dst == "192.0.2.1" for p in out)
    frontend = next(p for p in cluster.networks if p.name == "frontend")
    assert {p.server for p in out} == {s.name for s in frontend.fabric.servers} & set(plan.nodes)


def test_exit_default_route_reaches_the_site(tmp_path):
    """On real FRR: both site routers peer (BFD on), every access switch has the default route, the frontend's
    servers ping the site through it, an unused pool address ends at the discard route; with both upstream links
    down the access switches lose the default route and the routers the aggregate, and `lab check` says so."""
    _require_lab()
    name = f"tex{os.getpid() % 100000}"
    runtime.down(name)
    cluster = lab_with_exit(tmp_path)
    plan = build_cluster_plan(cluster, list(render_cluster(cluster)), name)
    try:
        lab = runtime.up(plan)
        rep = check(lab, timeout=90)
        bad = [(r.kind, r.device, r.item, r.actual) for r in rep.results if not r.ok]
        assert not bad, bad
        assert any(r.kind == "ecmp" and r.device == "fe-acc0" for r in rep.results)
        ups = [r for r in rep.results if r.kind == "ping" and "192.0.2.1" in r.item]
        assert ups and all(r.ok for r in ups)
        assert rep.forwarded["site-rtr1"] == 0 and rep.forwarded["fe-agg1"] > 0  # the router answers, agg forwards
        assert any(r.kind == "ecmp" and r.device == "site-rtr2" and r.ok for r in rep.results)  # learnt 10.32.0.0/15
        # BFD as rendered (`neighbor <ip> bfd 3 300 300`, bfdd=yes) is up with both routers
        bfd = json.loads(runtime.vtysh(lab, "fe-agg1", "show bfd peers json").stdout or "[]")
        assert sorted((p["peer"], p["status"], p["detect-multiplier"]) for p in bfd) == \
            [("172.31.255.1", "up", 3), ("172.31.255.3", "up", 3)], bfd
        # an unused address of the pool ends at the aggregation switch's discard route, not in a loop to the site
        agg = lab["nodes"]["fe-agg1"]["ns"]
        got = subprocess.run(["ip", "-n", agg, "-j", "route", "show", "match", "10.33.200.1"], capture_output=True,
                             text=True, check=True)
        best = max(json.loads(got.stdout), key=lambda r: int(r["dst"].partition("/")[2] or 0) if r["dst"] != "default" else -1)
        assert (best["dst"], best.get("type")) == ("10.32.0.0/15", "blackhole"), got.stdout
        # both upstream links down: the default route leaves the access switches and the check says where
        for rtr in ("site-rtr1", "site-rtr2"):
            subprocess.run(["ip", "-n", lab["nodes"][rtr]["ns"], "link", "set", "up0", "down"], check=True)
        rep = check(lab, timeout=30, pings=False)
        lost = {r.device: r.actual for r in rep.results if not r.ok and r.kind == "ecmp"}
        assert sorted(lost) == ["fe-acc0", "fe-acc1", "site-rtr1", "site-rtr2"], lost
        assert all(lost[d] == "0.0.0.0/0: 0 (want 1)" for d in ("fe-acc0", "fe-acc1")), lost
        assert lost["site-rtr1"] == "10.32.0.0/15: 0 (want 1)", lost
    finally:
        runtime.down(name)
        _assert_gone(name)
