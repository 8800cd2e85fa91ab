"""Benchmark: `netauto verify --lab` against `netauto lab check` on the same 40-switch lab (root).

    sudo python benchmarks/bench_verify.py [--repeat 3] [--lab NAME]

Brings up the lab of benchmarks/bench_deploy.py (gpu-pod1 widened to 4 SUs x 8 rails + 8 spines = 40 switches,
1 server per SU, --ssh), waits until `lab check` passes, then times, best of --repeat:
- `lab check` as it runs today (sessions, ECMP, the rail-to-rail ping matrix; local vtysh, no SSH), and
  `lab check --no-ping`;
- `verify` of the 40 switches (`--limit switches`) and of the whole lab, in-process (collect over SSH from the
  lab's mgmt namespace with host-key checks, one round trip per device, + every check), and the CLI wall time
  (Python start, render, SSH, checks).
Prints a table; always tears the lab down (unless --lab). Not a test: numbers depend on the machine's load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from netauto.lab.state import load_state

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))


def _cli(*args: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "netauto", *args], cwd=REPO, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    return time.perf_counter() - t0, p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lab", help="use this running lab (started from the benchmark's 40-switch inventory)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root (it starts a lab)", file=sys.stderr)
        return 2
    from bench_deploy import wide_inventory

    from netauto.deploy.lab_access import lab_access
    from netauto.deploy.run import select
    from netauto.deploy.targets import build_targets
    from netauto.lab import runtime
    from netauto.lab.check import check
    from netauto.lab.plan import build_plan
    from netauto.pipeline import render
    from netauto.verify.run import verify

    name = args.lab or f"benchver{os.getpid() % 100000}"
    rows: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="netauto-bench-verify-") as tmp:
        inv = wide_inventory(Path(tmp) / "inventory")
        model, artifacts = render(inv)
        try:
            if not args.lab:
                t0 = time.perf_counter()
                runtime.up(build_plan(model, artifacts, name, 1), ssh=True)
                print(f"lab {name}: {len(model.switches)} switches up in {time.perf_counter() - t0:.1f} s", flush=True)
            st = load_state(name)
            rep = check(st, timeout=180)
            if not rep.ok:
                print(f"lab check fails before the benchmark: {rep.failures()[:3]}", file=sys.stderr)
                return 1
            access, creds = lab_access(name)
            targets = build_targets(model, artifacts, access)
            switches = select(targets, "switches")
            everything = select(targets, None)

            def best(fn) -> float:
                times = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    fn()
                    times.append(time.perf_counter() - t0)
                return min(times)

            rows.append(("lab check (sessions, ECMP, pings), in-process", best(lambda: check(st, timeout=60)), "today"))
            rows.append(("lab check --no-ping, in-process", best(lambda: check(st, timeout=60, pings=False)), ""))
            results = {}

            def run_verify(names: list[str], key: str) -> None:
                results[key] = verify(model, targets, names, creds, workers=40)

            rows.append((f"verify, {len(switches)} switches, in-process",
                         best(lambda: run_verify(switches, "sw")), _verdict(results["sw"])))
            rows.append((f"verify, all {len([n for n in everything if not targets[n].skip_reason])} lab devices, in-process",
                         best(lambda: run_verify(everything, "all")), _verdict(results["all"])))
            rows.append(("CLI: netauto lab check --name N", min(_cli("lab", "check", "--name", name)[0]
                                                                for _ in range(args.repeat)), ""))
            cli_v = [_cli("verify", "-i", str(inv), "--lab", name, "--limit", "switches", "--format", "json", "-o",
                          f"{tmp}/v.json") for _ in range(args.repeat)]
            rows.append(("CLI: netauto verify --lab N --limit switches", min(t for t, _ in cli_v),
                         f"exit {cli_v[0][1]}"))
        finally:
            if not args.lab:
                runtime.down(name)
    print(f"\n40 switches, best of {args.repeat}, {os.cpu_count()} CPUs (load average now {os.getloadavg()[0]:.1f}):\n")
    print("| what | seconds | result |")
    print("|---|---:|---|")
    for what, sec, res in rows:
        print(f"| {what} | {sec:.2f} | {res} |")
    return 0


def _verdict(rep) -> str:  # noqa: ANN001
    c = rep.counts()
    return f"{'PASS' if rep.ok else 'FAIL'}: {c['pass']} pass, {c['fail']} fail, {c['n/a']} n/a"


if __name__ == "__main__":
    raise SystemExit(main())
