"""`netauto render` of a large fabric streams: the pool's workers write their parts' files into the new tree's temp
folder as they render them and send back manifest rows only. The tree is the serial render's, byte for byte; a
template failing in a worker leaves the previous tree as it was and no temp folder; a SIGKILLed render's workers
die with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY
from test_render_pool import _broken_environment, _pooled

from netauto.errors import NetautoError
from netauto.pipeline import build_cluster, render_tree
from netauto.render import engine, fingerprint, output, pool
from netauto.render.output import MANIFEST, Row, output_lock, write_tree


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(DEFAULT_INVENTORY)


def _files(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mode) for p in root.rglob("*")
            if p.is_file() and p.name != MANIFEST}


def _manifest(root: Path) -> dict[str, dict]:
    files = json.loads((root / MANIFEST).read_text())["files"]
    return {rel: {k: v for k, v in entry.items() if k != "stat"} for rel, entry in files.items()}


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What the parent receives from the pool's workers."""
    received: list[object] = []
    run = pool.run

    def spied(*args, **kwargs):
        for item in run(*args, **kwargs):
            received.append(item)
            yield item

    monkeypatch.setattr(pool, "run", spied)
    return received


def test_streamed_tree_is_the_serial_tree_and_the_parent_gets_no_text(cluster, tmp_path, monkeypatch) -> None:
    serial = list(engine.render_cluster(cluster))
    write_tree(serial, tmp_path / "serial", "fp")
    received = _spy(monkeypatch)
    _pooled(monkeypatch)
    stats = render_tree(cluster, None, tmp_path / "pooled", "fp")
    assert len(received) == len(serial) == stats.files == stats.written, "the pool was not used"
    assert _files(tmp_path / "pooled") == _files(tmp_path / "serial")
    assert _manifest(tmp_path / "pooled") == _manifest(tmp_path / "serial")
    texts = {a.content for a in serial}
    for row in received:  # what crossed from the workers: paths, digests, modes, owners, stats, never content
        assert type(row) is Row and Row._fields == ("rel", "sha", "mode", "owner", "stat", "linked")
        assert not any(isinstance(value, str) and value in texts for value in row)
    assert fingerprint.tree_matches(tmp_path / "pooled", "fp")  # the workers' stats are the files'


def test_streamed_rerender_links_unchanged_files(cluster, tmp_path, monkeypatch) -> None:
    _pooled(monkeypatch)
    out = tmp_path / "out"
    render_tree(cluster, None, out, "one")
    inodes = {rel: os.lstat(out / rel).st_ino for rel in _files(out)}
    stats = render_tree(cluster, None, out, "two")
    assert (stats.unchanged, stats.written) == (len(inodes), 0)
    assert {rel: os.lstat(out / rel).st_ino for rel in _files(out)} == inodes
    assert fingerprint.tree_matches(out, "two")


def test_template_error_in_a_worker_leaves_the_old_tree_and_no_temp_folder(cluster, tmp_path, monkeypatch) -> None:
    out = tmp_path / "build" / "fab"
    render_tree(cluster, None, out, "old")
    before = {rel: (data, mode, os.lstat(out / rel).st_ino) for rel, (data, mode) in _files(out).items()}
    manifest = (out / MANIFEST).read_bytes()
    _broken_environment(monkeypatch)
    with pytest.raises(NetautoError) as serial:
        render_tree(cluster, None, out, "new")
    removed: list[int] = []
    rmtree = output.shutil.rmtree

    def counting(path, *args, **kwargs):  # the temp folder the workers had written into
        removed.append(sum(1 for p in Path(path).rglob("*") if p.is_file()))
        return rmtree(path, *args, **kwargs)

    monkeypatch.setattr(output.shutil, "rmtree", counting)
    _pooled(monkeypatch)
    with pytest.raises(NetautoError) as pooled:
        render_tree(cluster, None, out, "new")
    assert str(pooled.value) == str(serial.value) and pooled.value.exit_code == serial.value.exit_code == 1
    assert "\n" not in str(pooled.value) and "host/nccl.conf.j2" in str(pooled.value)
    assert removed and removed[0] > 0, "the workers wrote nothing before the error: the test proves nothing"
    assert {rel: (data, mode, os.lstat(out / rel).st_ino) for rel, (data, mode) in _files(out).items()} == before
    assert (out / MANIFEST).read_bytes() == manifest
    assert sorted(p.name for p in out.parent.iterdir()) == ["fab"]



def test_failed_first_render_leaves_no_output_folder(cluster, tmp_path, monkeypatch) -> None:
    """The folders a first render creates for its output (-o new/deeper) are gone again when it fails."""
    _broken_environment(monkeypatch)
    _pooled(monkeypatch)
    with pytest.raises(NetautoError):
        render_tree(cluster, None, tmp_path / "new" / "deeper" / "fab", "new")
    assert list(tmp_path.iterdir()) == []


CHILD = r"""
import sys
from netauto.pipeline import build_cluster, render_tree
from netauto.render import device, pool
pool.MIN_DEVICES, pool.CHUNK = 0, 10**6  # two long parts: switches, servers
pool.workers = lambda: 2
real = device._render
def slow(*args, **kwargs):  # each part takes minutes: an orphaned worker would go on far past the test's wait
    import time
    time.sleep(0.5)
    return real(*args, **kwargs)
device._render = slow
render_tree(build_cluster(sys.argv[1]), None, __import__("pathlib").Path(sys.argv[2]), "new")
"""


def test_killed_pooled_render_takes_its_workers_with_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(DEFAULT_INVENTORY), str(out)])
    deadline = time.monotonic() + 120
    while not any(next(p.rglob("*.conf"), None) for p in tmp_path.glob(".out.tmp-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.poll() is None, "the render ended before it could be killed"
    child.send_signal(signal.SIGKILL)
    child.wait()
    with output_lock(tmp_path, timeout=10):  # no orphaned worker holds the inherited lock or writes on
        pass
    cluster = build_cluster(DEFAULT_INVENTORY)
    write_tree(list(engine.render_cluster(cluster)), out, "next")  # the next render removes the dead temp folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_cold_render_collects_the_design_facts_once(tmp_path, monkeypatch) -> None:
    """The incremental keys and the monitoring folder both read the design facts: one collection per render."""
    from click.testing import CliRunner

    from netauto.cli.app import cli, load_commands
    from netauto.monitoring import facts

    load_commands()
    calls: list[int] = []
    real = facts._collect
    monkeypatch.setattr(facts, "_collect", lambda cluster: calls.append(1) or real(cluster))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    result = CliRunner().invoke(cli, ["render", "-i", str(DEFAULT_INVENTORY), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert len(calls) == 1
    assert next((tmp_path / "out").glob("*/monitoring/prometheus/netauto-intent.rules.yml")).stat().st_size > 0
