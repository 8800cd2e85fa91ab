"""Console output into a pipe or file: rich tables wrap nothing, so `| grep <device>` finds every row (issue 21)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from conftest import ROOT as REPO_ROOT

from netauto.cli import app
from netauto.cli.verify import _table
from netauto.verify.findings import CheckResult, Report

LONG = "expected 8 Established sessions with the cabled spines, saw 6 (spine3 swp4s0, spine3 swp4s1 idle)"


def test_verify_table_piped_keeps_each_failing_device_on_one_line(monkeypatch):
    devices = [f"su{su}-r{r}-leaf" for su in (1, 2) for r in range(8)]
    rep = Report("gpu-pod1", [CheckResult("bgp", d, "sessions", LONG, LONG.upper(), "fail") for d in devices],
                 devices=devices)
    buf = io.StringIO()  # not a terminal, like `netauto verify ... | grep`
    monkeypatch.setattr(app.out, "_file", buf)  # "file" would be restored bound to this test's captured stdout
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(app.out, "_environ", {})
    monkeypatch.setattr(app.out, "_width", None)  # rich fixed it from COLUMNS at import (pytest-xdist sets 80)
    _table(rep, verbose=False)
    lines = buf.getvalue().splitlines()
    for device in devices:
        rows = [line for line in lines if device in line]
        assert len(rows) == 1 and "FAIL" in rows[0] and LONG in rows[0] and LONG.upper() in rows[0], (device, rows)


def test_columns_still_sets_the_width(monkeypatch):
    console = app.PipeConsole(file=io.StringIO(), width=None, _environ={"COLUMNS": "60"})
    assert console.width == 60


def test_cli_piped_output_does_not_wrap():
    """A real process writing into a pipe: the long drain summary and the up-to-date message stay whole."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(REPO_ROOT / "src")
    proc = subprocess.run([sys.executable, "-m", "netauto", "validate", "-i", str(REPO_ROOT / "inventory"),
                           "--no-external", "--drain", "spine1"], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, check=False)
    lines = proc.stdout.splitlines()
    drain = [line for line in lines if line.startswith("drain spine1")]
    assert len(drain) == 1 and drain[0].endswith("su1-r7-leaf 6/8"), proc.stdout
    sim02 = [line for line in lines if "SIM-02" in line]
    assert len(sim02) == 8 and all("(graceful shutdown on spine1)" in line for line in sim02), proc.stdout


def test_validate_prints_what_ran_before_its_findings():
    """`ran:`/`skipped:` and the simulation summaries first, then the infos table, then the verdict."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    proc = subprocess.run([sys.executable, "-m", "netauto", "validate", "-i", str(REPO_ROOT / "inventory"),
                           "--no-external", "--drain", "spine1"], capture_output=True, text=True, env=env, check=False)
    lines = proc.stdout.splitlines()
    first = {key: next(i for i, line in enumerate(lines) if key in line)
             for key in ("skipped: real validators", "route simulation:", "drain spine1", "infos (8)", "OK gpu-pod1")}
    order = sorted(first, key=first.__getitem__)
    assert order == ["skipped: real validators", "route simulation:", "drain spine1", "infos (8)", "OK gpu-pod1"], order


def test_table_with_output_file_is_written_not_dropped(tmp_path, monkeypatch):
    """`verify`/`drift -o FILE` with the default table format writes the table into FILE (0600)."""
    from netauto.cli.verify import _emit_table

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(app.out, "_environ", {})
    monkeypatch.setattr(app.out, "_width", None)

    rep = Report("gpu-pod1", [CheckResult("bgp", "su1-r0-leaf", "sessions", "8", "6", "fail")], devices=["su1-r0-leaf"])
    dest = tmp_path / "report.txt"
    _emit_table(rep, False, dest)
    text = dest.read_text()
    assert "su1-r0-leaf" in text and "FAIL" in text and (dest.stat().st_mode & 0o777) == 0o600
