"""Benchmark: `netauto deploy --dry-run` over a 40-switch lab, 1 SSH worker vs N workers (root).

    sudo python benchmarks/bench_deploy.py [--workers 40] [--repeat 2]

Brings up a lab of the shipped gpu-pod1 design widened to 4 SUs x 8 rails (32 leaves) + 8 spines = 40
switches (1 server per SU), runs the same dry-run (connect over SSH from the lab's mgmt namespace with
host-key checking, read every file, diff) with 1 worker and with N, prints the times and the speedup,
and always tears the lab down. Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


def wide_inventory(dst: Path) -> Path:
    """gpu-pod1 with 4 SUs and 8 spines (1 link each): 40 switches."""
    shutil.copytree(REPO / "inventory", dst)
    topo = dst / "topology.yaml"
    text = topo.read_text()
    for old, new in (("sus_per_pod: 1", "sus_per_pod: 4"), ("spines_per_pod: 4", "spines_per_pod: 8"),
                     ("leaf_spine_links: 2 ", "leaf_spine_links: 1 "),
                     ('server: "gpu{index:02d}"', 'server: "su{su}-gpu{index:02d}"')):
        assert old in text, f"inventory/topology.yaml no longer has {old!r}"
        text = text.replace(old, new)
    topo.write_text(text)
    return dst


def timed_dry_run(targets, names, creds, workers: int) -> tuple[float, list]:  # noqa: ANN001
    from netauto.deploy import run

    t0 = time.perf_counter()
    results = run.dry_run(targets, names, creds, workers)
    return time.perf_counter() - t0, results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="8,16,40", help="comma-separated worker counts compared with 1")
    ap.add_argument("--repeat", type=int, default=2, help="runs per setting (the best is reported)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root (it starts a lab)", file=sys.stderr)
        return 2
    from netauto.deploy.lab_access import lab_access
    from netauto.deploy.run import select
    from netauto.deploy.targets import build_targets
    from netauto.lab import runtime
    from netauto.lab.plan import build_plan
    from netauto.pipeline import render

    name = f"depbench{os.getpid() % 100000}"
    with tempfile.TemporaryDirectory(prefix="netauto-bench-deploy-") as tmp:
        inv = wide_inventory(Path(tmp) / "inventory")
        model, artifacts = render(inv)
        try:
            t0 = time.perf_counter()
            runtime.up(build_plan(model, artifacts, name, 1), ssh=True)
            print(f"lab {name}: {len(model.switches)} switches up in {time.perf_counter() - t0:.1f} s")
            access, creds = lab_access(name)
            targets = build_targets(model, artifacts, access)
            names = select(targets, "switches")
            counts = [int(w) for w in args.workers.split(",")]
            timings: dict[int, list[float]] = {w: [] for w in [1, *counts]}
            for _ in range(args.repeat):
                for workers in timings:
                    sec, results = timed_dry_run(targets, names, creds, workers)
                    states = {r.result for r in results}
                    assert states == {"unchanged"}, f"unexpected results: {[(r.device, r.result, r.error) for r in results if r.result != 'unchanged'][:3]}"
                    timings[workers].append(sec)
                    print(f"dry-run of {len(names)} switches, {workers:>2} worker(s): {sec:6.2f} s")
            one = min(timings[1])
            print(f"best of {args.repeat}: 1 worker {one:.2f} s ({one / len(names):.2f} s/switch)")
            for w in counts:
                print(f"  {w:>2} workers {min(timings[w]):.2f} s -> speedup {one / min(timings[w]):.1f}x")
            print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (shared machine)")
        finally:
            runtime.down(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
