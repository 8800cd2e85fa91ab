"""The nccl-tests a non-RDMA tool leaves out are named, never silently missing from the counts (issue 40 item 6)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import DEFAULT_INVENTORY

from netauto.cli.app import cli

LEFT_OUT = "left out: 2 nccl-tests test(s), which need RDMA (--tool ib_write_bw)"


def test_iperf3_plan_and_report_name_the_nccl_tests_left_out(tmp_path: Path) -> None:
    runner = CliRunner()
    full = runner.invoke(cli, ["acceptance", "plan", "-i", str(DEFAULT_INVENTORY)])
    assert "130 tests" in full.output and "left out" not in full.output, full.output
    plan = runner.invoke(cli, ["acceptance", "plan", "-i", str(DEFAULT_INVENTORY), "--tool", "iperf3"])
    assert "128 tests" in plan.output and LEFT_OUT in plan.output, plan.output
    rep = runner.invoke(cli, ["acceptance", "report", "-i", str(DEFAULT_INVENTORY), "--tool", "iperf3", str(tmp_path)])
    assert LEFT_OUT in rep.output, rep.output
    quiet = runner.invoke(cli, ["acceptance", "plan", "-i", str(DEFAULT_INVENTORY), "--tool", "iperf3", "--no-nccl"])
    assert "left out" not in quiet.output, quiet.output
