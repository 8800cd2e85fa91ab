"""`acceptance run` and the emitted script/Slurm job keep each run's files in a private `mktemp -d` folder on the
servers (issue 33, item 2): a /tmp/netauto-acceptance planted by another user (a link to a root-owned file, a
passing result) is neither written through nor read. The scripts run here for real, `sh` standing in for ssh."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from netauto.acceptance import runner
from netauto.acceptance.model import PERFTEST, AccTest, Plan, Round
from netauto.acceptance.script import emit

FIXED = Path("/tmp/netauto-acceptance")
PASSING = '{"results": {"BW_average": 400.0}}'


@pytest.fixture
def planted(tmp_path):
    """The old fixed folder, as another user would leave it: 0777, every result name a link to a victim file,
    and a passing JSON result."""
    if os.path.lexists(FIXED):
        pytest.skip(f"{FIXED} exists on this machine")
    victim = tmp_path / "victim"
    victim.write_text("root's file\n")
    FIXED.mkdir()
    FIXED.chmod(0o777)
    for name in ("t1.txt", "t1.server.txt"):
        (FIXED / name).symlink_to(victim)
    (FIXED / "t1.json").write_text(PASSING)
    try:
        yield victim
    finally:
        shutil.rmtree(FIXED, ignore_errors=True)


def _test(client: str) -> AccTest:
    cmd = 'echo measured; echo \'{"fresh": 1}\' >"$NETAUTO_ACC_DIR"/t1.json # --out_json_file='
    return AccTest("t1", PERFTEST, client, "srv", 0, {"client": cmd, "server": "true"}, 1.0)


def test_run_neither_writes_through_nor_reads_a_planted_fixed_folder(planted, tmp_path, monkeypatch):
    def local(targets, creds, scripts, timeout, workers):
        out = {}
        for host, script in scripts.items():
            p = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30)
            out[host] = (p.returncode, p.stdout, p.stderr)
        return out

    monkeypatch.setattr(runner, "_on_hosts", local)
    results = tmp_path / "RESULTS"
    results.mkdir()
    got = runner.run_round(Round(1, [_test("cli")]), {"cli": object(), "srv": object()}, None, results,  # type: ignore[arg-type]
                           settle=0)
    assert planted.read_text() == "root's file\n"
    assert (results / "t1.txt").read_text() == "measured\n"
    assert (results / "t1.json").read_text() == '{"fresh": 1}\n', got.problems
    assert not list(Path("/tmp").glob("netauto-acceptance.*"))  # the private folder is removed


@pytest.mark.parametrize("how", ["script", "slurm"])
def test_emitted_script_uses_a_private_folder_per_run(planted, tmp_path, how):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    # ssh -n -o BatchMode=yes HOST CMD / srun --nodes=1 --ntasks=1 --overlap --nodelist=HOST sh -c CMD: run CMD here
    (bindir / "ssh").write_text('#!/bin/sh\nshift 4\nexec sh -c "$1"\n')
    (bindir / "srun").write_text('#!/bin/sh\nshift 6\nexec sh -c "$1"\n')
    for f in bindir.iterdir():
        f.chmod(0o755)
    text = emit(Plan("fab", [Round(1, [_test("cli")])]), how)
    (tmp_path / "job.sh").write_text(text)
    env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"}
    p = subprocess.run(["bash", "job.sh", "R"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert planted.read_text() == "root's file\n"
    assert (tmp_path / "R" / "t1.txt").read_text() == "measured\n"
    assert (tmp_path / "R" / "t1.json").read_text() == '{"fresh": 1}\n'
    assert not list(Path("/tmp").glob("netauto-acceptance.*"))
    # a results folder that exists already (another run's results, or planted) is refused
    again = subprocess.run(["bash", "job.sh", "R"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode != 0 and (tmp_path / "R" / "t1.txt").read_text() == "measured\n"
