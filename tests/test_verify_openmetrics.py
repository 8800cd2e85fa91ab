"""`netauto verify --format openmetrics`: Prometheus text format that promtool accepts, one gauge per finding."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from netauto.verify.findings import CheckResult, Report
from netauto.verify.output import to_openmetrics


def _report() -> Report:
    return Report("fab", [
        CheckResult("counters", "leaf1", "swp1 tc3 lossless drops", "<= 0 per window", "12", "fail"),
        CheckResult("fec", "leaf1", "swp2", "rs", "rs", "pass"),
        CheckResult("ar", "leaf1", "adaptive-routing", "enabled", "disabled", "fail"),
        CheckResult("bgp", 'we"ird\\dev', "swp3", "Established", "Active", "fail", network="storage"),
    ])


def test_findings_become_gauges():
    text = to_openmetrics(_report(), now=1700000000)
    assert ('netauto_verify_finding_failed{check="counters",device="leaf1",item="swp1 tc3 lossless drops",'
            'network="compute",port="swp1"} 1.0') in text
    assert 'netauto_verify_finding_failed{check="fec",device="leaf1",item="swp2",network="compute",port="swp2"} 0.0' in text
    assert 'item="adaptive-routing",network="compute",port=""} 1.0' in text
    assert 'netauto_verify_window_increase{check="counters",device="leaf1",item="swp1 tc3 lossless drops"' in text
    assert 'device="we\\"ird\\\\dev"' in text  # escaped, not broken
    assert "netauto_verify_ok 0.0" in text and "netauto_verify_last_run_timestamp_seconds 1.7e+09" in text


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_promtool_check_metrics_accepts_it():
    p = subprocess.run(["promtool", "check", "metrics"], input=to_openmetrics(_report()), capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
