"""netauto acceptance: parsers on the tools' real output formats, planner coverage, and the report naming a bad
cable (the property over every shipped fabric), through the CLI's exit codes."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from functools import cache

import pytest
from _acceptance_helpers import DATA, nccl_text, perftest_json, perftest_text, write_results
from conftest import DEFAULT_INVENTORY, shipped_inventories
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netauto.acceptance.commands import BwOptions
from netauto.acceptance.localise import Parts, localise
from netauto.acceptance.model import ALL_REDUCE, ALLTOALL, PERFTEST
from netauto.acceptance.planner import PlanOptions, Planner, build, ends_by_leaf
from netauto.formats.iperf3 import Iperf3Error, parse_iperf3_json
from netauto.formats.nccl_tests import NcclTestsError, parse_nccl_tests
from netauto.formats.perftest import PerftestError, parse_bw_json, parse_bw_text
from netauto.pipeline import build_model


@cache
def _model(inv: str):
    return build_model(inv)


def _netauto(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


# --- parsers -------------------------------------------------------------------------------------------------

def test_perftest_text_and_json_give_the_average_in_gbps():
    rep = parse_bw_text(perftest_text("mlx5_4", 371.58))
    assert rep.device == "mlx5_4" and rep.average_gbps == pytest.approx(371.58)
    assert parse_bw_json(perftest_json("mlx5_4", 371.58)).average_gbps == pytest.approx(371.58)
    assert parse_bw_json(perftest_json("mlx5_4", 371.58)).device == "mlx5_4"


def test_perftest_mib_table_is_converted_and_the_largest_size_wins():
    text = (" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n"
            " 2          5000             4.86               4.67\t\t     2.450225\n"
            " 65536      5000             44000.00           44349.31\t\t     0.709589\n")
    assert parse_bw_text(text).average_gbps == pytest.approx(44349.31 / 119.2, rel=1e-3)


def test_perftest_without_a_table_is_an_error_with_perftests_reason():
    with pytest.raises(PerftestError, match="Couldn't connect"):
        parse_bw_text(" Couldn't connect to 10.0.0.3:18515\n Unable to open file descriptor for socket connection\n")
    with pytest.raises(PerftestError):
        parse_bw_json('{"test_info": {}}')


def test_iperf3_is_judged_by_no_more_than_the_client_sent(tmp_path):
    """TCP `sum_received` is what the SERVER reports back: whoever listens on the port (any user of the server:
    5201+ is no privileged port, and netauto's listener fails silently when it is taken) can report 400 Gb/s for
    a link that carried 0.1. The client's own `sum_sent` (bounded by the link's acknowledgements) bounds it."""
    from netauto.acceptance import results
    from netauto.acceptance.model import AccTest

    doc = {"start": {}, "end": {"sum_sent": {"bits_per_second": 1e8, "seconds": 2.0},
                                "sum_received": {"bits_per_second": 4e11, "seconds": 2.0}}}
    (tmp_path / "t1.txt").write_text(json.dumps(doc))
    test = AccTest("t1", results.IPERF3, "gpu01", "gpu02", 0, {}, 0.2)
    got = results.measure(test, tmp_path)
    assert got is not None and got[0] == pytest.approx(0.1)


def test_nccl_tests_busbw_of_the_largest_size_and_the_average():
    res = parse_nccl_tests(nccl_text(ALL_REDUCE, 46.5))
    assert res.program == ALL_REDUCE and res.out_of_bounds == 0
    assert res.largest_busbw == pytest.approx(46.5) and res.rows[0].size == 1 << 30
    assert res.avg_busbw == pytest.approx((46.5 * 0.9 * 4 + 46.5) / 5, rel=1e-3)
    a2a = parse_nccl_tests(nccl_text(ALLTOALL, 20.0))
    assert a2a.largest_busbw == pytest.approx(20.0) and a2a.rows[-1].out_wrong == "0"
    with pytest.raises(NcclTestsError):
        parse_nccl_tests("mpirun: command not found\n")


def test_iperf3_json_recorded_from_the_real_tool():
    got = parse_iperf3_json((DATA / "iperf3-200M.json").read_text())
    assert 0.15 < got.received_gbps < 0.25  # -b 200M over loopback
    with pytest.raises(Iperf3Error, match="unable to connect"):
        parse_iperf3_json('{"start": {}, "intervals": [], "end": {}, "error": "unable to connect to server: refused"}')


# --- planner -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("inv", [str(p) for p in shipped_inventories()], ids=lambda p: p.split("/")[-2] if "examples" in p else "default")
def test_plan_covers_every_nic_and_cable_and_never_uses_a_nic_twice_per_round(inv):
    model = _model(inv)
    plan = build(model, PlanOptions(per_spine=True))
    host_links = {(l.b_device, l.b_port, l.a_device, l.a_port) for l in model.links
                  if l.kind == "server-leaf" and l.enabled and l.b_device in {s.name for s in model.servers}}
    exercised = {(e.server, e.nic, e.leaf, e.leaf_port) for t in plan.tests() if t.kind == PERFTEST for e in t.ends}
    assert exercised == host_links
    for r in plan.rounds:
        nics = [(e.server, e.rail) for t in r.tests for e in t.ends]
        assert len(nics) == len(set(nics)), f"round {r.number} uses a NIC twice"
        bundles = [(e.leaf, t.via) for t in r.tests if t.via for e in t.ends]
        assert len(bundles) == len(set(bundles))
    ids = [t.id for t in plan.tests()]
    assert len(ids) == len(set(ids))


def test_plan_json_has_exactly_the_issues_shape_and_the_fabrics_roce_class():
    plan = json.loads(build(_model(str(DEFAULT_INVENTORY)), PlanOptions()).to_json())
    assert set(plan) == {"rounds"}
    for r in plan["rounds"]:
        assert set(r) == {"round", "tests"}
        for t in r["tests"]:
            assert set(t) == {"id", "kind", "client", "server", "rail", "command", "expect_gbps"}
    first = plan["rounds"][0]["tests"][0]
    assert first["kind"] == "ib_write_bw" and first["expect_gbps"] == 360.0  # 400G x 0.9
    srv, cli = first["command"]["server"].split(), first["command"]["client"].split()
    # the class NCCL uses (NCCL_IB_TC = host_tos 106: DSCP 26 << 2 | ECT(0)), the GID found by rdma_cm from the
    # NIC's address (no hard-coded GID index: issue 34)
    model = _model(str(DEFAULT_INVENTORY))
    tos = model.servers[0].qos.host_tos
    assert tos == model.servers[0].nccl.ib_tc == 106
    assert f"--tos={tos}" in srv and f"--tos={tos}" in cli and "-R" in srv and "-R" in cli
    assert "-x" not in cli and "--tclass" not in " ".join(cli)
    assert "--report_gbits" in cli and cli[-1].startswith("10.")
    assert f"--source_ip={model.servers[0].rails[0].ip}" in cli
    assert cli[cli.index("-d") + 1] == "mlx5_0" and "--out_json" in cli
    # an explicit GID index: the GRH traffic class, still NCCL's
    pinned = build(model, PlanOptions(bw=BwOptions(gid_index=3))).rounds[0].tests[0].command["client"].split()
    assert "-x" in pinned and f"--tclass={tos}" in pinned and "-R" not in pinned
    kinds = {t["kind"] for r in plan["rounds"] for t in r["tests"]}
    assert kinds == {"ib_write_bw", "all_reduce_perf", "alltoall_perf"}


def test_every_flag_of_the_plan_is_one_the_installed_perftest_knows():
    import shutil

    if not shutil.which("ib_write_bw"):
        if os.environ.get("CI"):
            pytest.fail("perftest missing in CI (.ci/run installs it)")
        pytest.skip("perftest not installed (.ci/run installs it)")
    helptext = subprocess.run(["ib_write_bw", "--help"], capture_output=True, text=True).stdout
    plan = build(_model(str(DEFAULT_INVENTORY)), PlanOptions())
    cmd = plan.rounds[0].tests[0].command["client"].split()
    for word in cmd[1:]:
        if word.startswith("-"):
            flag = word.split("=")[0]
            assert f"{flag}" in helptext, flag


# --- report: the bad cable named -----------------------------------------------------------------------------

@cache
def _tests_and_parts(inv: str):
    model = _model(inv)
    return Planner(model, PlanOptions(nccl=False)).plan().tests(), Parts(model)


def _single_fault(inv: str, server: str, rail: int):
    tests, parts = _tests_and_parts(inv)
    bad = [t for t in tests if any((e.server, e.rail) == (server, rail) for e in t.ends)]
    good = [t for t in tests if t not in bad]
    return localise(parts, bad, good), bad


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_single_bad_cable_is_named_alone_in_every_shipped_fabric(data):
    inv = data.draw(st.sampled_from([str(p) for p in shipped_inventories()]))
    model = _model(inv)
    ends = [e for es in ends_by_leaf(model).values() for e in es]
    e = data.draw(st.sampled_from(ends))
    where, bad = _single_fault(inv, e.server, e.rail)
    assert bad and not where.unexplained
    assert len(where.suspects) == 1, [s.label for s in where.suspects]
    (part,) = where.suspects[0].parts
    assert part.kind == "host-link" and part.ports == ((e.server, e.nic), (e.leaf, e.leaf_port))


@cache
def _pinned(inv: str):
    model = _model(inv)
    tests = Planner(model, PlanOptions(per_spine=True, nccl=False)).plan().tests()
    return tests, Parts(model), sorted({(e.leaf, t.via) for t in tests if t.via for e in t.ends})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_per_spine_rounds_cover_every_bundle_and_name_a_bad_one(data):
    """Every leaf-spine bundle is in a pinned test; a bad one is named alone where its pod has 3+ leaves (a ring
    of two leaves puts both bundles in the same tests: then both are named, the bad one among them)."""
    inv = data.draw(st.sampled_from([str(p) for p in shipped_inventories()]))
    model = _model(inv)
    tests, parts, bundles = _pinned(inv)
    assert set(bundles) == {(l.a_device, l.b_device) for l in model.links if l.kind == "leaf-spine"}
    leaf, spine = data.draw(st.sampled_from(bundles))
    bad = [t for t in tests if t.via == spine and any(e.leaf == leaf for e in t.ends)]
    where = localise(parts, bad, [t for t in tests if t not in bad])
    pod_leaves = [s for s in model.switches if s.role == "leaf" and s.pod == model.switch(leaf).pod]
    keys = [p.key for s in where.suspects for p in s.parts]
    if len(pod_leaves) >= 3:
        assert keys == [(leaf, spine)]
    else:
        assert len(where.suspects) == 1 and (leaf, spine) in keys


def test_a_bad_leaf_spine_bundle_is_named_by_the_per_spine_rounds():
    model = _model(str(DEFAULT_INVENTORY))
    tests = [t for t in Planner(model, PlanOptions(per_spine=True, nccl=False)).plan().tests()]
    bad = [t for t in tests if t.via == "spine2" and any(e.leaf == "su1-r3-leaf" for e in t.ends)]
    where = localise(Parts(model), bad, [t for t in tests if t not in bad])
    assert [p.key for s in where.suspects for p in s.parts] == [("su1-r3-leaf", "spine2")]
    assert "su1-r3-leaf:swp33s" in where.suspects[0].label or "su1-r3-leaf:swp" in where.suspects[0].label


def test_report_cli_names_server_rail_and_leaf_port_and_exits_1_then_0_when_healthy(tmp_path):
    model = _model(str(DEFAULT_INVENTORY))
    tests = Planner(model, PlanOptions()).plan().tests()
    srv = model.servers[2]
    rail = srv.rails[5]
    slow = tmp_path / "slow"
    write_results(slow, tests, lambda t: None if t.kind != PERFTEST else
                  (212.4 if any((e.server, e.rail) == (srv.name, rail.index) for e in t.ends) else 377.9))
    p = _netauto("acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(slow), "--format", "json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    (sus,) = doc["suspects"]
    assert sus["parts"][0]["ports"] == [[srv.name, rail.nic], [rail.leaf, rail.leaf_port]]
    assert f"{srv.name} rail {rail.index}" in sus["parts"][0]["name"]
    assert doc["counts"] == {"pass": 124, "fail": 4, "not-run": 2, "missing": 0}  # NCCL not run: not a failure
    table = _netauto("acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(slow))
    assert table.returncode == 1 and f"{rail.leaf}:{rail.leaf_port}" in table.stdout
    assert "SUSPECT:" in table.stdout

    healthy = tmp_path / "healthy"
    write_results(healthy, tests, lambda t: 377.9 if t.kind == PERFTEST else 2800.0, json_too=True)  # busbw 350 GB/s: 8 x 400G less 12 %
    ok = _netauto("acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(healthy), "--format", "junit")
    assert ok.returncode == 0, ok.stdout
    assert 'failures="0"' in ok.stdout
    # --require-all: a perftest-only folder is short of the NCCL results
    part = tmp_path / "perftest-only"
    write_results(part, tests, lambda t: 377.9 if t.kind == PERFTEST else None)
    assert _netauto("acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(part)).returncode == 0
    req = _netauto("acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(part), "--require-all", "--format", "markdown")
    assert req.returncode == 1 and "all_reduce-su1" in req.stdout


def test_report_refuses_a_plan_json_of_another_fabric(tmp_path):
    (tmp_path / "plan.json").write_text(json.dumps({"rounds": [{"round": 1, "tests": [
        {"id": "leaf-x-r0-y-r0", "kind": "ib_write_bw", "client": "x", "server": "y", "rail": 0, "command": {},
         "expect_gbps": 1}]}]}))
    p = _netauto("acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(tmp_path))
    assert p.returncode == 2 and "leaf-x-r0-y-r0" in p.stderr and "Traceback" not in p.stderr


def test_emitted_script_quotes_everything_and_passes_shellcheck(tmp_path):
    import shutil

    from netauto.acceptance.script import emit

    plan = build(_model(str(DEFAULT_INVENTORY)), PlanOptions(per_spine=True))
    for how in ("script", "slurm"):
        text = emit(plan, how)
        assert text.count("\nwait\n") == len(plan.rounds)
        if shutil.which("shellcheck"):
            f = tmp_path / f"{how}.sh"
            f.write_text(text)
            p = subprocess.run(["shellcheck", "-s", "bash", str(f)], capture_output=True, text=True)
            assert p.returncode == 0, p.stdout[:2000]


def test_results_are_private(tmp_path):
    from netauto.acceptance.store import results_dir, write_private

    d = results_dir(tmp_path / "RESULTS")
    write_private(d / "a.txt", "x")
    assert stat.S_IMODE(d.stat().st_mode) == 0o700 and stat.S_IMODE((d / "a.txt").stat().st_mode) == 0o600


def test_run_writes_only_the_hosts_own_result_names(tmp_path, monkeypatch):
    """A server's output names the files: a block named `../x` (or another test's id) is refused, not written."""
    from netauto.acceptance import runner
    from netauto.acceptance.model import Round

    plan = build(_model(str(DEFAULT_INVENTORY)), PlanOptions(nccl=False))
    t = plan.rounds[0].tests[0]
    other = plan.rounds[0].tests[1]

    def fake(targets, creds, scripts, timeout, workers):
        def evil(script: str) -> str:  # what a server whose output names the files sends, with the script's separator
            sep = runner._sep(re.search(r"--netauto-acceptance-end-(\w+)--", script)[1])  # type: ignore[index]
            return f"{t.id}.txt\nok\n{sep}../escape.txt\nx\n{sep}{other.id}.txt\nforged\n{sep}"
        return {h: (0, evil(sc) if "wait" in sc else "", "") for h, sc in scripts.items()}

    monkeypatch.setattr(runner, "_on_hosts", fake)
    targets = {t.client: object(), t.server: object()}
    res = runner.run_round(Round(1, [t]), targets, None, tmp_path, settle=0)  # type: ignore[arg-type]
    assert res.saved == [f"{t.id}.txt"] and (tmp_path / f"{t.id}.txt").read_text() == "ok\n"
    assert not (tmp_path.parent / "escape.txt").exists() and not (tmp_path / f"{other.id}.txt").exists()
    assert any("escape" in p for p in res.problems)


# --- NCCL pass marks from the inventory (issue 34 item 2) -------------------------------------------------------

def test_nccl_runs_one_rank_per_gpu_and_expects_the_nodes_nic_total():
    """multi-profile: SU 1 is 8-GPU DGX H100 with 8 x 400G, SU 2 mostly 4-GPU servers with 4 x 400G. Every host
    runs one rank per GPU of its own profile (SU 1: 8, not the fabric's minimum 4: rails 4-7 would never carry
    NCCL traffic), and all_reduce busbw is held against the node's NIC total (nccl-tests doc/PERFORMANCE.md):
    SU 1 = 8 x 400 Gb/s x 0.75 = 2400 Gb/s (300 GB/s busbw), not one NIC's 300 Gb/s."""
    from conftest import EXAMPLES

    model = _model(str(EXAMPLES / "multi-profile" / "inventory"))
    tests = {t.id: t for t in Planner(model, PlanOptions()).nccl_tests()}
    su1 = tests["all_reduce-su1"]
    cmd = su1.command["client"]
    assert "--map-by ppr:8:node" in cmd and f"-np {8 * len(su1.hosts)}" in cmd, cmd
    assert su1.expect_gbps == 2400.0  # hand-checked: 8 NICs x 400 Gb/s x 0.75
    assert tests["alltoall-su1"].expect_gbps == 1600.0  # 8 x 400 x 0.50
    # SU 2 mixes 8-GPU and 4-GPU hosts: each host its own slot count, the slowest node's NIC total
    su2 = tests["all_reduce-su2"]
    slots = dict(h.split(":") for h in su2.command["client"].split(" -H ")[1].split()[0].strip("'").split(","))
    gpus = {s.name: len({g for r in s.rails for g in r.gpus}) for s in model.servers}
    assert {h: int(n) for h, n in slots.items()} == {h: gpus[h] for h in su2.hosts}
    assert f"-np {sum(gpus[h] for h in su2.hosts)}" in su2.command["client"]
    assert su2.expect_gbps == 1200.0  # 4 NICs x 400 x 0.75


def test_an_nccl_job_that_left_nics_idle_fails_although_its_busbw_passes(tmp_path):
    from _acceptance_helpers import nccl_debug

    from netauto.acceptance.results import judge

    model = _model(str(DEFAULT_INVENTORY))
    job = next(t for t in Planner(model, PlanOptions()).nccl_tests() if t.kind == ALL_REDUCE)
    write_results(tmp_path, [job], lambda t: 2800.0)
    (ok,) = judge([job], tmp_path)
    assert ok.status == "pass", ok.detail
    # the same busbw, but the first host's NCCL carried no channel through its last NIC and lost GDR on one
    text = (tmp_path / f"{job.id}.txt").read_text()
    first = job.hosts[0]
    last = [e.rdma for e in job.ends if e.server == first][-1]
    idx = len([e for e in job.ends if e.server == first]) - 1
    lines = [ln for ln in text.splitlines() if not (ln.startswith(f"{first}:") and f"via NET/IB/{idx}/" in ln)]
    lines = [ln.replace("via NET/IB/0/GDRDMA", "via NET/IB/0") if ln.startswith(f"{first}:") else ln for ln in lines]
    (tmp_path / f"{job.id}.txt").write_text("\n".join(lines) + "\n")
    (bad,) = judge([job], tmp_path)
    assert bad.status == "fail" and f"{first}: no NCCL channel through {last}" in bad.detail, bad.detail
    assert "without GPUDirect RDMA" in bad.detail
    assert nccl_debug(job).count("NET/IB : Using") == len(job.hosts)


def test_a_tests_output_cannot_forge_the_block_of_a_result_that_wrote_none(tmp_path, monkeypatch):
    """The blocks of a client script end with a separator of a random token per script: a test whose output holds
    a separator line and `<id>.json` (perftest's JSON is read before its text) would put a passing result in the
    place of a perftest that wrote no JSON (it failed to connect)."""
    from netauto.acceptance import results, runner
    from netauto.acceptance.model import Round

    plan = build(_model(str(DEFAULT_INVENTORY)), PlanOptions(nccl=False))
    t = plan.rounds[0].tests[0]
    forged = ('{"results": {"MsgSize": 65536, "n_iterations": 5000, "BW_peak": 399.9, "BW_average": 399.9, '
              '"MsgRate": 0.76}}')

    def fake(targets, creds, scripts, timeout, workers):
        def answer(script: str) -> str:
            sep = runner._sep(re.search(r"--netauto-acceptance-end-(\w+)--", script)[1])  # type: ignore[index]
            guess = "\n--netauto-acceptance-end--\n"  # the separator before: a constant anyone could print
            return f"{t.id}.txt\n Couldn't connect to {t.server}{guess}{t.id}.json\n{forged}\n{sep}{t.id}.json\n{sep}"
        return {h: (0, answer(sc) if "wait" in sc else "", "") for h, sc in scripts.items()}

    monkeypatch.setattr(runner, "_on_hosts", fake)
    targets = {t.client: object(), t.server: object()}
    res = runner.run_round(Round(1, [t]), targets, None, tmp_path, settle=0)  # type: ignore[arg-type]
    assert res.saved == [f"{t.id}.txt"] and not (tmp_path / f"{t.id}.json").exists()
    got = results.measure(t, tmp_path)
    assert got is not None and got[0] is None  # unreadable: no BW row, never the forged 399.9 Gb/s
