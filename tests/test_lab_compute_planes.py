"""netauto lab with two compute planes on real FRR in namespaces (2 planes x 2 rails x 2 leaves x 2 spines,
4 servers): each plane converges by itself, the planes are isolated, and a plane-1 spine taken down moves no
route on plane 2 while plane 1 reconverges on its other spine."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES
from test_lab_integration import _assert_gone, _require_lab

from netauto.lab import runtime
from netauto.lab.check import check
from netauto.lab.networks import build_cluster_plan
from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster

pytestmark = pytest.mark.lab


def lab_inventory(tmp_path: Path) -> Path:
    """examples/b300-2plane cut to 2 rails: per plane 2 rail leaves and 2 spines, 4 servers."""
    doc = yaml.safe_load((EXAMPLES / "b300-2plane" / "inventory" / "fabric.yaml").read_text())
    doc["topology"]["rails"] = 2
    prof = doc["servers"]["profiles"]["b300"]
    prof["nics"] = prof["nics"][:2]
    inv = tmp_path / "inventory"
    inv.mkdir()
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return inv


@pytest.fixture
def lab(tmp_path):
    _require_lab()
    name = f"tcp{os.getpid() % 100000}"
    runtime.down(name)
    cluster = build_cluster(lab_inventory(tmp_path))
    plan = build_cluster_plan(cluster, list(render_cluster(cluster)), name)
    try:
        yield cluster, runtime.up(plan)
    finally:
        runtime.down(name)
        _assert_gone(name)


def _routes(ns: str) -> set[tuple[str, tuple[str, ...]]]:
    out = subprocess.run(["ip", "-n", ns, "-j", "route", "show", "proto", "bgp"], capture_output=True, text=True,
                         check=True, timeout=30).stdout
    got = set()
    for r in json.loads(out or "[]"):
        hops = tuple(sorted(h.get("dev", "") for h in r.get("nexthops", []))) or (r.get("dev", ""),)
        got.add((r["dst"], hops))
    return got


def test_two_planes_converge_apart_and_a_spine_down_stays_in_its_plane(lab):
    cluster, st = lab
    assert len(cluster.compute_fabrics()) == 2 and all(len(f.switches) == 4 for f in cluster.compute_fabrics())
    rep = check(st, timeout=120)
    bad = [(r.kind, r.device, r.item, r.actual) for r in rep.results if not r.ok]
    assert not bad, bad
    assert {"bgp", "ecmp", "ping", "isolation"} <= {r.kind for r in rep.results}
    probes = [r for r in rep.results if r.kind == "isolation" and "->" in r.item]
    assert len(probes) == 2 and all(r.actual == "no reply" for r in probes)  # plane 1 <-> plane 2

    p1, p2 = cluster.compute_fabrics()
    ns = {d: st["nodes"][d]["ns"] for d in st["nodes"]}
    p2_leaves = [s.name for s in p2.switches if s.role == "leaf"]
    p1_leaves = [s.name for s in p1.switches if s.role == "leaf"]
    before = {leaf: _routes(ns[leaf]) for leaf in p2_leaves}
    assert all(before.values())
    spine = next(s for s in p1.switches if s.role == "spine")
    for port in spine.fabric_ports:
        subprocess.run(["ip", "-n", ns[spine.name], "link", "set", port.name, "down"], check=True, timeout=30)
    # plane 1 reconverges on its other spine: no BGP route of its leaves leaves through a port to the dead spine
    dead = {(s.name, p.name) for s in p1.switches if s.role == "leaf" for p in s.fabric_ports
            if p.peer_device == spine.name}
    deadline = time.monotonic() + 60
    while True:
        p1_routes = {leaf: _routes(ns[leaf]) for leaf in p1_leaves}
        if all(r and not any((leaf, dev) in dead for _, h in r for dev in h) for leaf, r in p1_routes.items()):
            break
        assert time.monotonic() < deadline, p1_routes
        time.sleep(1)
    assert {leaf: _routes(ns[leaf]) for leaf in p2_leaves} == before  # plane 2 moved no route
    p2_prefixes = set(p2.rail_supernets)
    for leaf, routes in p1_routes.items():  # and plane 1 learned nothing of plane 2
        assert not any(dst in p2_prefixes or dst.startswith("10.8.") for dst, _ in routes), (leaf, routes)
    rep = check(st, timeout=60, pings=True, drained={spine.name})
    bad = [(r.kind, r.device, r.item, r.actual) for r in rep.results if not r.ok and r.device != spine.name
           and spine.name not in r.item and r.kind != "bgp"]
    assert not bad, bad
