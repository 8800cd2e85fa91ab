"""The host's neighbour table limits while labs run: raised for the largest lab, restored by the last `down`
(the gc_thresh sysctls are global, not per namespace)."""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator
from pathlib import Path

from netauto.lab.state import labs_root

GC_KEYS = {f"net.ipv{v}.neigh.default.gc_thresh{i}": None for v in (4, 6) for i in (1, 2, 3)}


def _sysctl_path(key: str) -> Path:
    return Path("/proc/sys") / key.replace(".", "/")


@contextlib.contextmanager
def _sysctl_lock() -> Iterator[None]:
    labs_root().mkdir(parents=True, exist_ok=True)
    with open(labs_root() / ".sysctl.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def raise_neigh_limits(name: str, need: int) -> dict[str, str] | None:
    with _sysctl_lock():
        return _raise_neigh_limits(name, need)


def release_neigh_limits(name: str) -> dict[str, str]:
    with _sysctl_lock():
        return _release_neigh_limits(name)


def _raise_neigh_limits(name: str, need: int) -> dict[str, str] | None:
    """Raise the (global, root-netns) neighbour table limits when the lab needs more entries (lab-notes G2).
    Originals are kept in <labs_root>/sysctl.json with the labs holding them; the last `down` restores them."""
    f = labs_root() / "sysctl.json"
    data = json.loads(f.read_text()) if f.exists() else {"orig": {}, "holders": []}
    cur3 = int(_sysctl_path("net.ipv4.neigh.default.gc_thresh3").read_text())
    target = {1: max(8192, need), 2: max(16384, 2 * need), 3: max(32768, 4 * need)}
    if cur3 >= target[3] and not data["holders"]:
        return None
    changed = {}
    for key in GC_KEYS:
        p = _sysctl_path(key)
        val = int(p.read_text())
        want = target[int(key[-1])]
        if val < want:
            data["orig"].setdefault(key, str(val))
            p.write_text(str(want))
            changed[key] = f"{val} -> {want}"
    if name not in data["holders"]:
        data["holders"].append(name)
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(data, indent=1))
    return changed


def _release_neigh_limits(name: str) -> dict[str, str]:
    f = labs_root() / "sysctl.json"
    if not f.exists():
        return {}
    data = json.loads(f.read_text())
    data["holders"] = [h for h in data["holders"] if h != name and (labs_root() / h / "state.json").exists()]
    if data["holders"]:
        f.write_text(json.dumps(data, indent=1))
        return {}
    restored = {}
    for key, val in data["orig"].items():
        _sysctl_path(key).write_text(val)
        restored[key] = val
    f.unlink()
    return restored
