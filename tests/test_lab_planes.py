"""netauto lab with planes on real FRR in namespaces: the three-network example boots, every network converges
and pings, and the networks are isolated; a route of another network injected into a storage leaf is caught."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import EXAMPLES
from test_lab_integration import _require_lab, _assert_gone  # noqa: F401

from netauto.lab import runtime
from netauto.lab.check import check
from netauto.lab.planes import build_cluster_plan
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


def test_planes_boot_reach_and_stay_isolated(lab):
    rep = check(lab, timeout=90)
    bad = [(r.kind, r.device, r.item, r.actual) for r in rep.results if not r.ok]
    assert not bad, bad
    kinds = {r.kind for r in rep.results}
    assert {"bgp", "ecmp", "ping", "isolation"} <= kinds
    # every network carried traffic: each spine/aggregation switch forwarded pings
    assert all(rep.forwarded[s] > 0 for s in ("spine1", "st-spine1", "fe-agg1")), rep.forwarded
    probes = [r for r in rep.results if r.kind == "isolation" and "->" in r.item]
    assert len(probes) == 6 and all(r.actual == "no reply" for r in probes)

    # a route of the compute network leaking into a storage leaf is an isolation failure naming the leaf
    ns = lab["nodes"]["st-leaf0"]["ns"]
    subprocess.run(["ip", "-n", ns, "route", "add", "blackhole", "10.0.5.0/24"], check=True)
    rep = check(lab, timeout=30, pings=False)
    bad = [(r.device, r.actual) for r in rep.results if not r.ok]
    assert bad == [("st-leaf0", "10.0.5.0/24")]
