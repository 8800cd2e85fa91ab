from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from netauto.pipeline import build_model, render

# validate's clean-run cache (netauto.validate.clean_cache) lives in the user's cache folder: off in tests, so
# a test's tool runs never depend on an earlier run (tests/test_clean_cache.py turns it on in a temp folder)
os.environ.setdefault("NETAUTO_VALIDATE_CACHE", "0")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INVENTORY = ROOT / "inventory"
EXAMPLES = ROOT / "examples"
GOLDEN = ROOT / "golden_configs"
# Examples too big for the default run (no goldens; minutes to render): benchmarks/bench_100k.py renders and
# validates them, tests that touch them are marked `benchmark` and run only with NETAUTO_BENCHMARK=1.
BENCHMARK_ONLY = frozenset({"100k-3tier"})


def shipped_inventories() -> list[Path]:
    return [DEFAULT_INVENTORY] + sorted(p / "inventory" for p in EXAMPLES.iterdir()
                                        if (p / "inventory").is_dir() and p.name not in BENCHMARK_ONLY)


def edited_copy(src: Path, dst: Path, edits: dict[str, list[tuple[str, str]]]) -> Path:
    """`src` (an inventory folder) copied to `dst` with, per file stem, each (old, new) text edit made once
    (old must be there)."""
    shutil.copytree(src, dst)
    for stem, pairs in edits.items():
        f = dst / f"{stem}.yaml"
        text = f.read_text()
        for old, new in pairs:
            assert old in text, (stem, old)
            text = text.replace(old, new, 1)
        f.write_text(text)
    return dst


@pytest.fixture(scope="session")
def default_model():
    return build_model(DEFAULT_INVENTORY)


@pytest.fixture(scope="session")
def default_render():
    return render(DEFAULT_INVENTORY)


def sonic_yang_models() -> Path:
    """The SONiC YANG models (netauto.validate.yang_models lookup); a skip without them, a failure under CI
    (`.ci/run` runs scripts/get-sonic-yang-models --if-missing first)."""
    from netauto.validate.yang_models import find_models

    lookup = find_models(dev=True)
    if lookup.found is None:
        message = (f"SONiC YANG models not found (looked in: {lookup.describe()}); "
                   f"run scripts/get-sonic-yang-models or set NETAUTO_SONIC_YANG_DIR")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return lookup.found


def require_tool(name: str, how: str = "run .ci/run, which installs the Debian validators") -> str:
    """The tool's path; a skip when it is missing, a failure under CI (`.ci/run` must install it)."""
    path = shutil.which(name) or (f"/usr/lib/frr/{name}" if Path(f"/usr/lib/frr/{name}").exists() else None)
    if not path:
        if os.environ.get("CI"):
            pytest.fail(f"{name} missing in CI: .ci/run must install it ({how})")
        pytest.skip(f"{name} not installed ({how})")
    return path


@pytest.fixture(scope="module", autouse=True)
def _lab_share(request, tmp_path_factory):
    """Lab modules share the machine with the other pytest-xdist worker's lab module; one marked `lab_alone`
    (it measures time itself: an alert window, a quiet period) runs with no other lab module beside it. A
    reader-writer lock in the run's own temp folder (pytest's, 0700): readers pass a turnstile the waiting writer
    holds, so a writer is never starved by the other worker's next module."""
    marks = {m.name for m in request.node.iter_markers()}
    if "lab" not in marks or not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    shared = tmp_path_factory.getbasetemp().parent  # the run's folder, one level above each worker's
    with open(shared / "lab-turnstile.lock", "a") as turn, open(shared / "lab-share.lock", "a") as share:
        fcntl.flock(turn, fcntl.LOCK_EX)
        if "lab_alone" in marks:
            fcntl.flock(share, fcntl.LOCK_EX)
        else:
            fcntl.flock(share, fcntl.LOCK_SH)
            fcntl.flock(turn, fcntl.LOCK_UN)
        yield
