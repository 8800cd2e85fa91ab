"""A render killed right after its swap leaves the old tree beside the output as `.<fabric>.tmp-*`: the next
render removes it even when the tree is up to date (issue 33, item 12), on the fast path (answered before the
CLI is imported) and on the full command's up-to-date exit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY


def _render(inv: Path, out: Path, cache: Path) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    p = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(out)], env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stdout + p.stderr
    return p.stdout


@pytest.mark.parametrize("path", ["fast", "full"])
def test_an_up_to_date_render_removes_what_a_killed_render_left(tmp_path, path):
    out = tmp_path / "out"
    _render(DEFAULT_INVENTORY, out, tmp_path / "cache")
    (fabric,) = [p for p in out.iterdir() if not p.name.startswith(".")]
    # killed after the exchange: the temp name holds the old tree, its removal never ran
    dead = out / f".{fabric.name}.tmp-k1lled00"
    shutil.copytree(fabric, dead, symlinks=True)
    old = out / f".{fabric.name}.old-k1lled00"
    old.mkdir()
    # the fast path answers from the render index in the cache; a fresh cache makes the full command answer
    said = _render(DEFAULT_INVENTORY, out, tmp_path / ("cache" if path == "fast" else "fresh"))
    assert "up to date" in said
    deadline = time.monotonic() + 20  # a large dead tree goes to a background rm
    while (dead.exists() or old.exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not dead.exists() and not old.exists()
    assert (fabric / ".netauto-manifest.json").is_file()
