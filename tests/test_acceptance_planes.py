"""`netauto acceptance` on a fabric of compute planes (issue 36): every plane's NIC ports are tested, each plane
by itself (no test crosses planes, a pinned round drains spines of its own plane only), and a bad plane-2 cable
is named with its plane, rail, leaf and port."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from _acceptance_helpers import bad_nic_results, report_cli

from netauto.acceptance.localise import Parts, localise
from netauto.acceptance.model import ALL_REDUCE
from netauto.acceptance.planner import PlanOptions, Planner
from netauto.model.compute_planes import network_name
from netauto.pipeline import build_cluster

ROOT = Path(__file__).resolve().parents[1]
TWO = ROOT / "examples" / "b300-2plane" / "inventory"


@cache
def _cluster():
    return build_cluster(TWO)


def _planner(**kw) -> Planner:
    cluster = _cluster()
    return Planner(cluster.compute, PlanOptions(**kw), cluster.networks, cluster.compute_planes)


def test_every_plane_port_is_tested_and_no_test_crosses_planes():
    cluster = _cluster()
    plan = _planner(nccl=False, per_spine=True).plan()
    p2p = plan.tests()
    for p, fab in enumerate(cluster.compute_fabrics(), start=1):
        net = network_name(p)
        mine = [t for t in p2p if t.ends[0].network == net]
        cables = {(lk.b_device, lk.b_port, lk.a_device, lk.a_port) for lk in fab.links
                  if lk.kind == "server-leaf" and lk.enabled}
        assert {(e.server, e.nic, e.leaf, e.leaf_port) for t in mine for e in t.ends} == cables, net
        switches = {s.name for s in fab.switches}
        for t in mine:
            assert {e.network for e in t.ends} == {net}, t.id  # no test crosses planes
            assert {e.leaf for e in t.ends} <= switches and (t.via is None or t.via in switches), t.id
            assert t.id.startswith(f"p{p}-"), t.id
        assert {t.phase for t in mine} >= {"leaf", "spine"} and any(t.via for t in mine)
    assert {t.ends[0].network for t in p2p} == {"compute", "compute-p2"}
    for r in plan.rounds:  # a round holds one plane's tests, and drains spines of that plane only
        nets = {e.network for t in r.tests for e in t.ends}
        assert len(nets) == 1, r.number
        fab = cluster.compute_fabrics()[1 if nets == {"compute-p2"} else 0]
        assert set(r.drain) <= {s.name for s in fab.switches if s.role == "spine"}, (r.number, r.drain)
        nics = [(e.network, e.server, e.rail) for t in r.tests for e in t.ends]
        assert len(nics) == len(set(nics))
    assert any(r.drain and r.drain[0].startswith("p2-") for r in plan.rounds)


def test_nccl_jobs_use_every_plane_port():
    cluster = _cluster()
    (job,) = [t for t in _planner().nccl_tests() if t.kind == ALL_REDUCE]
    assert {e.network for e in job.ends} == {"compute", "compute-p2"}
    assert len(job.ends) == sum(len(s.rails) for f in cluster.compute_fabrics() for s in f.servers)


def test_a_bad_plane_2_cable_is_named_with_its_plane_rail_leaf_and_port():
    planner = _planner(nccl=False)
    tests = planner.plan().tests()
    c = next(t for t in tests if t.ends[0].network == "compute-p2").ends[0]
    bad = [t for t in tests if (c.network, c.server, c.rail) in {(e.network, e.server, e.rail) for e in t.ends}]
    where = localise(Parts(planner.model, planner.fabrics()), bad, [t for t in tests if t not in bad])
    (sus,) = where.suspects
    (part,) = sus.parts
    assert part.ports == ((c.server, c.nic), (c.leaf, c.leaf_port))
    assert c.leaf.startswith("p2-") and f"{c.server} plane 2 rail {c.rail}: NIC {c.nic}" in sus.label
    assert f"{c.leaf}:{c.leaf_port}" in sus.label
    # the same fault on plane 1 names plane 1
    d = next(t for t in tests if t.ends[0].network == "compute").ends[0]
    bad = [t for t in tests if (d.network, d.server, d.rail) in {(e.network, e.server, e.rail) for e in t.ends}]
    (sus,) = localise(Parts(planner.model, planner.fabrics()), bad, [t for t in tests if t not in bad]).suspects
    assert f"{d.server} plane 1 rail {d.rail}:" in sus.label


def test_report_cli_names_the_bad_plane_2_cable(tmp_path):
    tests = _planner().plan().tests()
    c = next(t for t in tests if t.ends[0].network == "compute-p2").ends[0]
    bad_nic_results(tmp_path, tests, c)
    p = report_cli(TWO, tmp_path, "json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    (sus,) = doc["suspects"]
    assert sus["parts"][0]["ports"] == [[c.server, c.nic], [c.leaf, c.leaf_port]]
    assert f"plane 2 rail {c.rail}" in sus["parts"][0]["name"]
    assert all(t.startswith("p2-") for t in sus["failing_tests"])
    md = report_cli(TWO, tmp_path, "markdown")
    suspect_row = next(line for line in md.stdout.splitlines() if line.startswith("| fail | suspect |"))
    assert suspect_row.split(" | ")[2] == "compute-p2" and f"{c.leaf}:{c.leaf_port}" in suspect_row
