"""The isolation test inside `netauto acceptance` (docs/tenants.md, "Acceptance"): probes between tenants that must
FAIL to connect. Planned per tenant pair and rail; judged from iputils ping's own output (real ping runs here, in a
throwaway network namespace when root); a reply is a failure naming both tenants and servers; a probe that did not
run proves nothing and fails. The probes on the real tenant fabric (FRR, VXLAN): tests/test_tenants_lab.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_tenants import EXAMPLE

from netauto.acceptance.model import ISOLATION
from netauto.acceptance.planner import PlanOptions, build
from netauto.acceptance.report import build_report
from netauto.cli.app import cli
from netauto.pipeline import build_cluster


@pytest.fixture(scope="module")
def fab():
    return build_cluster(EXAMPLE).compute


def _probes(fab):
    return [t for r in build(fab, PlanOptions()).rounds for t in r.tests if t.kind == ISOLATION]


def test_probes_between_every_tenant_pair_on_every_rail(fab):
    owner = {s: t.name for t in fab.tenants for s in t.servers}
    probes = _probes(fab)
    got = {(t.tenants, t.client, t.server, t.rail) for t in probes}
    assert got == {(("acme", "globex"), "gpu1", "gpu3", 0), (("acme", "globex"), "gpu1", "gpu3", 1),
                   (("globex", "acme"), "gpu3", "gpu1", 0), (("globex", "acme"), "gpu3", "gpu1", 1)}
    for t in probes:
        assert (owner[t.client], owner[str(t.server)]) == t.tenants
        c, s = t.ends
        assert t.command == {"client": f"ping -c 3 -W 1 -q -I {c.ip} {s.ip}"} and c.rail == s.rail == t.rail
    assert not [t for r in build(replace(fab, tenants=[]), PlanOptions()).rounds for t in r.tests
                if t.kind == ISOLATION]  # one tenant (none): nothing to isolate


def _real_ping(reply: bool) -> str:
    """iputils ping's real output: to this host's loopback (answered), or in a new network namespace to an address
    routed into the void (3 echoes out, none back)."""
    if not shutil.which("ping"):
        pytest.skip("no ping")
    if reply:
        argv = ["ping", "-c", "3", "-W", "1", "-q", "-I", "127.0.0.1", "127.0.0.1"]
    else:
        if os.geteuid() != 0 or not shutil.which("unshare"):
            pytest.skip("needs root for a throwaway network namespace")
        argv = ["unshare", "-n", "sh", "-c", "ip link set lo up && ip addr add 10.9.0.1/24 dev lo && "
                "ip route add 10.9.1.0/24 dev lo && exec ping -c 3 -W 1 -q -I 10.9.0.1 10.9.1.1"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    return r.stdout + r.stderr


def _report(fab, folder: Path, outputs: dict[str, str]):
    for tid, text in outputs.items():
        (folder / f"{tid}.txt").write_text(text)
    probes = _probes(fab)
    return build_report(fab, probes, folder), probes


def test_no_reply_passes_a_reply_fails_naming_both_tenants(fab, tmp_path):
    silent, answered = _real_ping(False), _real_ping(True)
    assert "3 packets transmitted, 0 received" in silent and "3 packets transmitted, 3 received" in answered
    probes = _probes(fab)
    rep, _ = _report(fab, tmp_path, {t.id: silent for t in probes})
    assert [o.status for o in rep.outcomes] == ["pass"] * len(probes) and rep.ok
    leak = probes[0].id
    rep, _ = _report(fab, tmp_path, {leak: answered})
    bad = [o for o in rep.outcomes if o.status == "fail"]
    assert [o.test.id for o in bad] == [leak] and not rep.ok
    assert bad[0].detail == ("tenant isolation broken: gpu1 (tenant acme) reached gpu3 (tenant globex) on rail 0: "
                             "3 of 3 echoes answered")
    assert not rep.where.suspects  # a probe carries no traffic: it accuses no cable


def test_a_probe_that_did_not_run_proves_nothing(fab, tmp_path):
    probes = _probes(fab)
    rep, _ = _report(fab, tmp_path, {probes[0].id: "ssh: connect to host gpu1 port 22: Connection refused\n"})
    (o,) = [o for o in rep.outcomes if o.test.id == probes[0].id]
    assert o.status == "fail" and "isolation of acme from globex not shown" in o.detail


def test_report_cli_exit_1_and_plan_json_cannot_turn_a_probe_into_a_pass(fab, tmp_path):
    probes = _probes(fab)
    res = tmp_path / "res"
    res.mkdir()
    (res / f"{probes[0].id}.txt").write_text(_real_ping(True))
    r = CliRunner().invoke(cli, ["acceptance", "report", "-i", str(EXAMPLE), str(res), "--format", "json"])
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output[r.output.index("{"):])
    (t,) = [t for t in doc["tests"] if t["id"] == probes[0].id]
    assert t["status"] == "fail" and "gpu1 (tenant acme) reached gpu3 (tenant globex)" in t["detail"]
    plan = json.loads(build(fab, PlanOptions()).to_json())
    for rnd in plan["rounds"]:
        for test in rnd["tests"]:
            if test["id"] == probes[0].id:
                test["kind"] = "iperf3"
    (res / "plan.json").write_text(json.dumps(plan))
    r2 = subprocess.run([sys.executable, "-m", "netauto", "acceptance", "report", "-i", str(EXAMPLE), str(res)],
                        capture_output=True, text=True, timeout=120)
    assert r2.returncode == 2 and "has kind iperf3, this inventory's plan has isolation" in r2.stderr, r2.stderr
    assert "Traceback" not in r2.stderr


def test_plan_table_says_no_reply():
    r = CliRunner().invoke(cli, ["acceptance", "plan", "-i", str(EXAMPLE)])
    rows = [line for line in r.output.splitlines() if " isolation " in line]
    assert r.exit_code == 0 and len(rows) == 2 and all("no reply" in x and ">= 0" not in x for x in rows), r.output
