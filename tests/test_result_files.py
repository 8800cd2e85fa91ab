"""Result files and plans are hostile input (issue 33): a non-finite number is refused where it is parsed (item 3),
and a result file is read only up to a bound, with one clear line past it (item 4)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _acceptance_helpers import nccl_text, perftest_json, perftest_text
from conftest import DEFAULT_INVENTORY

from netauto.acceptance.model import ALL_REDUCE, IPERF3, PERFTEST, AccTest
from netauto.acceptance.results import judge
from netauto.formats.values import finite

HUGE = "9" * 400  # parses as float('inf')


def _netauto(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("value", [1e999, "1e999", "Infinity", "-inf", "NaN", float("nan"), HUGE, True, None, "x"])
def test_finite_refuses_what_is_not_a_finite_number(value):
    with pytest.raises(ValueError):
        finite(value)


PLANTED = {
    "perftest json 1e999": (PERFTEST, "json", perftest_json("mlx5_0", 100.0).replace('"BW_average": 100.00', '"BW_average": 1e999')),
    "perftest json Infinity": (PERFTEST, "json", perftest_json("mlx5_0", 100.0).replace('"BW_average": 100.00', '"BW_average": Infinity')),
    "perftest json string": (PERFTEST, "json", perftest_json("mlx5_0", 100.0).replace('"BW_average": 100.00', '"BW_average": "inf"')),
    "perftest json NaN": (PERFTEST, "json", perftest_json("mlx5_0", 100.0).replace('"BW_average": 100.00', '"BW_average": NaN')),
    "perftest text digits": (PERFTEST, "txt", perftest_text("mlx5_0", 100.0).replace("100.00", HUGE)),
    "iperf3 1e999": (IPERF3, "txt", json.dumps({"end": {"sum_received": {"bits_per_second": "1e999"}}})),
    "iperf3 Infinity": (IPERF3, "txt", '{"end": {"sum_received": {"bits_per_second": Infinity}}}'),
    "nccl avg": (ALL_REDUCE, "txt", "# Collective test starting: all_reduce_perf\n# Avg bus bandwidth    : 1e999\n"),
    "nccl row": (ALL_REDUCE, "txt", nccl_text(ALL_REDUCE, 40.0).replace("40.00", "inf")),
}


@pytest.mark.parametrize("case", list(PLANTED))
def test_a_non_finite_bandwidth_is_a_failure_not_a_pass(tmp_path, case):
    kind, suffix, text = PLANTED[case]
    assert text != perftest_json("mlx5_0", 100.0)  # the planting replaced something
    (tmp_path / f"t1.{suffix}").write_text(text)
    (outcome,) = judge([AccTest("t1", kind, "a", "b", 0, {}, 360.0)], tmp_path)
    assert outcome.status == "fail" and outcome.measured_gbps is None
    assert "finite" in outcome.detail, outcome.detail


@pytest.mark.parametrize("expect", ['"-inf"', "-1e999", "NaN", '"nan"'])
def test_a_plan_with_a_non_finite_expectation_is_refused(tmp_path, expect):
    from netauto.acceptance.planner import PlanOptions, build
    from netauto.pipeline import build_model

    plan = json.loads(build(build_model(DEFAULT_INVENTORY), PlanOptions(nccl=False)).to_json())
    t = plan["rounds"][0]["tests"][0]
    text = json.dumps({"rounds": [{"round": 1, "tests": [{**t, "expect_gbps": "EXPECT"}]}]})
    (tmp_path / "plan.json").write_text(text.replace('"EXPECT"', expect))
    (tmp_path / f"{t['id']}.json").write_text(perftest_json("mlx5_0", 1.0))  # a known bad cable: 1 Gb/s
    p = _netauto("acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(tmp_path))
    assert p.returncode == 2, p.stdout
    assert "expect_gbps" in p.stderr and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


RSS = ("import resource, sys\nfrom netauto.cli import main\ntry:\n    main()\nfinally:\n"
       "    print('maxrss-kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")


def _report_rss(folder) -> tuple[subprocess.CompletedProcess, int, list[str]]:
    p = subprocess.run([sys.executable, "-c", RSS, "acceptance", "report", "-i", str(DEFAULT_INVENTORY), str(folder)],
                       capture_output=True, text=True, timeout=300)
    lines = p.stderr.strip().splitlines()
    return p, int(lines[-1].split()[1]), lines[:-1]


@pytest.mark.parametrize("name", ["t.txt", "plan.json"])
def test_a_huge_result_file_is_one_line_and_costs_no_memory(tmp_path, name):
    from netauto.acceptance.planner import PlanOptions, build
    from netauto.pipeline import build_model

    plan = build(build_model(DEFAULT_INVENTORY), PlanOptions(nccl=False))
    t = plan.tests()[0]
    good = tmp_path / "good"
    good.mkdir()
    (good / f"{t.id}.json").write_text(perftest_json("mlx5_0", 390.0))
    _, baseline, _ = _report_rss(good)
    bad = tmp_path / "bad"
    bad.mkdir()
    huge = bad / (f"{t.id}.txt" if name == "t.txt" else name)
    subprocess.run(["truncate", "-s", "2G", str(huge)], check=True)  # sparse: no disk used
    p, rss, err = _report_rss(bad)
    assert p.returncode == 2, (p.stdout[-500:], err)
    assert len(err) == 1 and str(huge) in err[0] and "larger than" in err[0] and "fix:" in err[0], err
    assert rss < baseline + 64 * 1024, (rss, baseline)  # KiB: the bound (16 MiB / 1 GiB) is never read whole


def test_a_fifo_as_a_result_file_does_not_hang(tmp_path):
    import os

    from netauto.acceptance.results import measure

    os.mkfifo(tmp_path / "t1.json")
    (tmp_path / "t1.txt").symlink_to("/dev/zero")
    assert measure(AccTest("t1", PERFTEST, "a", "b", 0, {}, 1.0), tmp_path) is None  # neither is a result file
