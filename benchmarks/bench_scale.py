#!/usr/bin/env python3
"""Scale benchmark: render and validate the 10,000-GPU fabric and its 1/8, 1/4, 1/2 scale-downs.

Every measurement runs `python -m netauto ...` in a fresh process and reads wall time and peak RSS of that
process (os.wait4). Not part of the default test run:

    python benchmarks/bench_scale.py                 # all sizes, 10k targets checked
    python benchmarks/bench_scale.py --sizes 1 2     # small sizes only (a CI regression check)

Exit code 1 when a target of the issue is missed (full size only) or growth is superlinear (> 2.3x per doubling).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "examples" / "10k-3tier" / "inventory"
FULL_PODS = 8
TARGETS = {"render": 10.0, "rerender-unchanged": 1.0, "validate": 20.0}  # seconds, full size
RSS_TARGET_MIB = 1024
MAX_GROWTH = 2.3


@dataclass
class Run:
    step: str
    pods: int
    seconds: float
    rss_mib: float
    rc: int


def run(step: str, pods: int, args: list[str], cwd: Path) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "netauto", *args], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1):
        sys.stderr.write(proc.stderr.read().decode() if proc.stderr else "")
    return Run(step, pods, seconds, usage.ru_maxrss / 1024, rc)


def scaled_inventory(pods: int, dest: Path) -> Path:
    inv = dest / "inventory"
    shutil.copytree(BASE, inv)
    fabric = inv / "fabric.yaml"
    data = yaml.safe_load(fabric.read_text())
    data["topology"]["pods"] = pods
    fabric.write_text(yaml.safe_dump(data, sort_keys=False))
    return inv


def change_one_leaf(inv: Path, drained: bool = True) -> None:
    """Drain (or undrain) one leaf: exactly one device's files change."""
    fabric = inv / "fabric.yaml"
    data = yaml.safe_load(fabric.read_text())
    data["features"]["gshut"]["drain"] = ["pod1-su01-r0-leaf"] if drained else []
    fabric.write_text(yaml.safe_dump(data, sort_keys=False))


def best(runs: list[Run]) -> Run:
    """The fastest of repeated runs: other load on the machine only ever adds time."""
    return min(runs, key=lambda r: r.seconds)


def has_validate() -> bool:
    out = subprocess.run([sys.executable, "-m", "netauto", "--help"], capture_output=True, text=True).stdout
    return "validate" in out


def bench_size(pods: int, with_validate: bool, validate_args: list[str], repeat: int) -> list[Run]:
    runs = []
    with tempfile.TemporaryDirectory(prefix="netauto-bench-") as tmp:
        work = Path(tmp)
        inv = scaled_inventory(pods, work)
        render = ["render", "-i", str(inv), "-o"]
        fresh = []
        for i in range(repeat):
            fresh.append(run("render", pods, [*render, str(work / f"build{i}")], work))
        runs.append(best(fresh))
        out = str(work / "build0")
        runs.append(best([run("rerender-unchanged", pods, [*render, out], work) for _ in range(repeat)]))
        one_leaf = []
        for i in range(repeat):
            change_one_leaf(inv, drained=i % 2 == 0)
            one_leaf.append(run("rerender-one-leaf", pods, [*render, out], work))
        runs.append(best(one_leaf))
        change_one_leaf(inv, drained=False)
        if with_validate:
            validate = ["validate", "-i", str(inv)]
            runs.append(best([run("validate", pods, [*validate, *validate_args], work) for _ in range(repeat)]))
            runs.append(run("validate+external", pods, validate, work))  # minutes at full size: once
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1, 2, 4, 8], help="pods (8 = the full 10k fabric)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    parser.add_argument("--validate-args", default="--no-external", help="flags for the validate run without external validators")
    parser.add_argument("--repeat", type=int, default=3, help="runs per step (the fastest counts); validate+external runs once")
    args = parser.parse_args()
    with_validate = has_validate()
    results: list[Run] = []
    for pods in sorted(args.sizes):
        results.extend(bench_size(pods, with_validate, args.validate_args.split(), max(1, args.repeat)))
    failures = []
    print(f"{'step':<20} {'pods':>4} {'GPUs':>6} {'seconds':>8} {'peak RSS MiB':>13} {'growth':>7}")
    by_step: dict[str, list[Run]] = {}
    for r in results:
        by_step.setdefault(r.step, []).append(r)
    for step, runs in by_step.items():
        prev = None
        for r in runs:
            growth = ""
            if prev and r.pods == 2 * prev.pods and prev.seconds > 0:
                g = r.seconds / prev.seconds
                growth = f"{g:.2f}x"
                if g > MAX_GROWTH and r.seconds > 1.0:
                    failures.append(f"{step}: {g:.2f}x from {prev.pods} to {r.pods} pods (> {MAX_GROWTH}x)")
            print(f"{step:<20} {r.pods:>4} {r.pods * 128 * 8:>6} {r.seconds:>8.2f} {r.rss_mib:>13.0f} {growth:>7}")
            if r.rc != 0:  # the example validates clean: exit 1 (findings) is a regression too
                failures.append(f"{step} at {r.pods} pods exited {r.rc}")
            if r.pods == FULL_PODS:
                if step in TARGETS and r.seconds > TARGETS[step]:
                    failures.append(f"{step}: {r.seconds:.2f} s > target {TARGETS[step]} s")
                if r.rss_mib > RSS_TARGET_MIB:
                    failures.append(f"{step}: peak RSS {r.rss_mib:.0f} MiB > {RSS_TARGET_MIB} MiB")
            prev = r
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=2))
    for f in failures:
        print(f"MISSED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
