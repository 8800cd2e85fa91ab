"""`netauto acceptance` on a storage network (issue 40 item 6): GPU servers' storage NICs to storage nodes through
the storage leaves, with the network's own RoCE class and NIC speed, never crossing to a compute rail; a bad
storage cable named with its network, leaf and port."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from _acceptance_helpers import bad_nic_results, report_cli

from netauto.acceptance.localise import Parts, localise
from netauto.acceptance.model import IPERF3, PERFTEST
from netauto.acceptance.planner import PlanOptions, Planner
from netauto.pipeline import build_cluster

ROOT = Path(__file__).resolve().parents[1]
C64 = ROOT / "examples" / "cluster-64" / "inventory"
LAB = ROOT / "examples" / "cluster-lab" / "inventory"


@cache
def _cluster(inv: Path):
    return build_cluster(inv)


def _storage(inv: Path, **kw):
    cluster = _cluster(inv)
    (net,) = [n for n in cluster.networks if n.role == "storage"]
    plan = Planner(cluster.compute, PlanOptions(nccl=False, **kw), cluster.networks).plan()
    return cluster, net, plan, [t for t in plan.tests() if t.ends[0].network == net.name]


def test_cluster_64_plan_tests_every_gpu_storage_nic_against_a_storage_node():
    cluster, net, plan, tests = _storage(C64)
    gpus = {s.name for s in cluster.compute.servers}
    nodes = {g.name for g in cluster.groups if g.group == "storage"}
    by_name = {s.name: s for s in net.fabric.servers}
    assert tests and all(t.kind == PERFTEST and t.phase == "storage" for t in tests)
    # every GPU server's storage NICs, each once, to a storage node's NIC of the same index; every node used
    assert sorted((t.client, t.rail) for t in tests) == sorted((g, k) for g in gpus for k in (0, 1))
    assert {t.server for t in tests} == nodes
    cables = {(lk.b_device, lk.b_port, lk.a_device, lk.a_port) for lk in net.fabric.links
              if lk.kind == "server-leaf" and lk.enabled}
    assert {(e.server, e.nic, e.leaf, e.leaf_port) for t in tests for e in t.ends} == cables  # every storage cable
    tos = net.fabric.servers[0].qos.host_tos
    for t in tests:
        c, s = t.ends
        assert {e.network for e in t.ends} == {"storage"} and c.rail == s.rail and s.server in nodes
        for e in (c, s):  # the storage network's own NIC, RDMA device, address and leaf port
            rail = by_name[e.server].rails[e.rail]
            assert (e.nic, e.rdma, e.ip, e.leaf, e.leaf_port) == (rail.nic, rail.rdma_device, rail.ip, rail.leaf,
                                                                 rail.leaf_port)
            assert e.leaf.startswith("st-g") and e.nic in ("stor0", "stor1", "ens1f0np0", "ens1f1np1")
        assert c.rdma == ("mlx5_1", "mlx5_7")[c.rail]
        cli, srv = t.command["client"].split(), t.command["server"].split()
        assert f"--tos={tos}" in cli and f"--tos={tos}" in srv and "-R" in cli
        assert f"--source_ip={c.ip}" in cli and cli[-1] == s.ip and cli[cli.index("-d") + 1] == c.rdma
        assert any(a.startswith('--out_json_file="$NETAUTO_ACC_DIR"/') for a in cli)
        assert t.expect_gbps == 180.0  # the storage NIC's 200G x 0.9, not the rails' 400G
    # no test crosses from a storage NIC to a compute rail; storage rounds hold storage tests only
    for t in plan.tests():
        assert len({e.network for e in t.ends}) == 1
    for r in plan.rounds:
        assert len({t.phase for t in r.tests}) == 1
        nics = [(e.network, e.server, e.rail) for t in r.tests for e in t.ends]
        assert len(nics) == len(set(nics))


def test_iperf3_variant_and_the_lab_cluster():
    _, net, _, tests = _storage(LAB, tool=IPERF3)
    assert tests and all(t.kind == IPERF3 for t in tests)
    assert {t.server for t in tests} == {"stor1"} and all(t.command["client"].startswith("iperf3 -c ") for t in tests)
    # the lossy frontend is never planned
    assert not [t for t in _storage(C64)[2].tests() if t.ends[0].network == "frontend"]


def test_a_bad_storage_cable_is_named_with_its_network_leaf_and_port():
    cluster, net, plan, tests = _storage(C64)
    c = tests[5].ends[0]
    bad = [t for t in plan.tests() if (c.network, c.server, c.rail) in {(e.network, e.server, e.rail) for e in t.ends}]
    where = localise(Parts(cluster.compute, [net.fabric]), bad, [t for t in plan.tests() if t not in bad])
    (sus,) = where.suspects
    (part,) = sus.parts
    assert part.ports == ((c.server, c.nic), (c.leaf, c.leaf_port))
    assert f"{c.server} storage network NIC {c.rail}" in sus.label


def test_report_cli_names_the_bad_storage_cable(tmp_path):
    cluster, net, plan, tests = _storage(C64)
    c = tests[3].ends[0]
    bad_nic_results(tmp_path, Planner(cluster.compute, PlanOptions(), cluster.networks).plan().tests(), c)
    p = report_cli(C64, tmp_path, "json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    (sus,) = doc["suspects"]
    assert sus["parts"][0]["ports"] == [[c.server, c.nic], [c.leaf, c.leaf_port]]
    assert "storage network" in sus["parts"][0]["name"] and c.leaf_port in sus["parts"][0]["name"]
    assert doc["counts"]["fail"] == 1
    md = report_cli(C64, tmp_path, "markdown")
    suspect_row = next(line for line in md.stdout.splitlines() if line.startswith("| fail | suspect |"))
    assert suspect_row.split(" | ")[2] == "storage" and f"{c.leaf}:{c.leaf_port}" in suspect_row
