#!/usr/bin/env python3
"""Stage benchmark: the 10k and 100k examples stage by stage, the editor loop, and netauto vs pyavd per device.

Every measurement runs in a fresh process. For each example one child process runs the pipeline's stages in
order (load, resolve, render in memory, write the tree, validate --no-external) and reports wall and CPU seconds
per stage and its peak RSS; the CLI steps (`netauto render` cold / unchanged / one leaf changed, `netauto
validate` with every real validator, cold and after one leaf changed) run as `python -m netauto` children and are
measured with os.wait4 (wall, CPU of the process and the validators it waited for, peak RSS). CPU seconds are the
numbers to compare on a loaded machine: other load only ever adds wall time.

    python benchmarks/bench_100k.py                       # 10k and 100k, pyavd if --pyavd-python is given
    python benchmarks/bench_100k.py --examples 10k        # the 10k fabric only (a few minutes)
    python benchmarks/bench_100k.py --pyavd-python /tmp/pyavd/bin/python   # + pyavd 6.4, 32 spines x 128 leaves
    python benchmarks/bench_100k.py --examples 100k --compute-planes 2    # the dual-plane variant (docs/scale.md)

Not part of the default test run (the 100k render alone takes minutes of CPU). Exit 1 when a goal of issue 26 is
missed, so the numbers are read, not just printed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {"10k": ROOT / "examples" / "10k-3tier" / "inventory", "100k": ROOT / "examples" / "100k-3tier" / "inventory"}
ONE_LEAF = {"10k": "pod1-su01-r0-leaf", "100k": "pod01-su001-r0-leaf"}
# seconds (wall, this machine, 2 cores) and MiB; issue 26
GOALS = {
    "10k": {"render": 2.5, "rerender-unchanged": 0.3, "rerender-one-leaf": 0.5, "validate --no-external": 5.0,
            "validate external cold": 20.0, "validate external one leaf": 3.0},
    "100k": {"render": 30.0, "validate --no-external": 60.0},
}
RSS_GOAL_MIB = {"100k": 2048}
PYAVD_RATIO_GOAL = 50.0


@dataclass
class Step:
    example: str
    step: str
    wall: float
    cpu: float
    rss_mib: float
    rc: int = 0


def cli(example: str, step: str, args: list[str], cwd: Path) -> Step:
    """One `python -m netauto` child: wall time, CPU of it and every process it waited for, peak RSS. Its cache
    folder is the run's own (validate's clean-run cache starts empty: "cold" is cold)."""
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "XDG_CACHE_HOME": str(cwd / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "netauto", *args], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    rc = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if rc not in (0, 1):
        sys.stderr.write(err[-2000:])
    return Step(example, step, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, rc)


# ---------------------------------------------------------------- stages, in one child process
def stages_child(inventory: Path, out: Path) -> None:
    """Run the stages in this process and print one JSON line per stage (wall, CPU, peak RSS so far)."""
    from netauto import pipeline
    from netauto.render.output import write_tree

    def mark(name: str, t0: float, c0: float) -> tuple[float, float]:
        t1, c1 = time.perf_counter(), time.process_time()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"step": name, "wall": t1 - t0, "cpu": c1 - c0, "rss_mib": rss}), flush=True)
        return t1, c1

    t, c = time.perf_counter(), time.process_time()
    loaded = pipeline.load(inventory)
    t, c = mark("load", t, c)
    cluster = pipeline.resolve_cluster_model(loaded)
    t, c = mark("resolve", t, c)
    artifacts = pipeline.render_files(cluster)
    t, c = mark("render (in memory)", t, c)
    write_tree(artifacts, out / cluster.name)
    t, c = mark("write", t, c)
    built = pipeline.Build(loaded, cluster, artifacts)
    result = pipeline.validate_build(built, external=False)
    t, c = mark("validate --no-external (after render)", t, c)
    for name, seconds in result.timings.items():
        print(json.dumps({"step": f"  validate: {name} (wall only)", "wall": seconds, "cpu": 0.0, "rss_mib": 0.0}),
              flush=True)
    if result.exit_code():
        sys.exit(1)


def stages(example: str, inventory: Path, work: Path) -> list[Step]:
    proc = subprocess.run([sys.executable, __file__, "--stages-child", str(inventory), str(work / "stages")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    steps = []
    for line in proc.stdout.splitlines():
        d = json.loads(line)
        steps.append(Step(example, "stage: " + d["step"], d["wall"], d["cpu"], d["rss_mib"], 0))
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-2000:])
        steps.append(Step(example, "stages", 0.0, 0.0, 0.0, proc.returncode))
    return steps


# ---------------------------------------------------------------- a multi-plane variant of an example
def planes_variant(base: Path, work: Path, count: int) -> Path:
    """The example as a `count`-plane fabric (docs/compute-planes.md): every server a profile of 8 ConnectX-8
    SuperNICs whose port p is on plane p, and pools wide enough for `count` times the switches (each plane takes
    1/count of a loopback and of the host-link pool; switch management addresses follow plane after plane)."""
    inv = work / "inventory"
    shutil.copytree(base, inv)
    fabric = inv / "fabric.yaml"
    data = yaml.safe_load(fabric.read_text())
    servers, bits = data["servers"], (count - 1).bit_length()
    nics = []
    for rail, (name, rdma, pci) in enumerate(zip(servers.pop("nics"), servers.pop("rdma_devices"), servers.pop("pci"))):
        ports = {p: {"name": f"{name}p{p}", "rdma": f"mlx5_{16 * (p - 1) + rail + 100}",
                     "pci": f"{pci[:-1]}{p - 1}"} for p in range(2, count + 1)}
        nics.append({"rail": rail, "name": name, "rdma": rdma, "pci": pci, "plane_ports": ports})
    servers.update(profile="cx8", profiles={"cx8": {"model": f"HGX B300 ({count} planes, benchmark variant)",
                                                    "nic_kind": "connectx-8", "nics": nics}})
    data["topology"]["compute_planes"] = {"count": count, "balancing": "swplb"}
    lo = data["addressing"]["loopbacks"]
    for role, pool in lo.items():
        net, _, plen = pool.partition("/")
        lo[role] = f"{net}/{int(plen) - bits - 1}"  # room for `count` planes of a pool that was nearly full
    mgmt = data["addressing"]["management"]
    net, _, plen = mgmt["switch_pool"].partition("/")
    mgmt["switch_pool"] = f"{net}/{int(plen) - bits}"
    fabric.write_text(yaml.safe_dump(data, sort_keys=False))
    return inv


# ---------------------------------------------------------------- the editor loop (CLI)
def drain_one_leaf(inv: Path, leaf: str, drained: bool) -> None:
    """Drain (or undrain) one leaf: that leaf's files change (its neighbours' route maps do not)."""
    fabric = inv / "fabric.yaml"
    data = yaml.safe_load(fabric.read_text())
    data["features"]["gshut"]["drain"] = [leaf] if drained else []
    fabric.write_text(yaml.safe_dump(data, sort_keys=False))


def editor_loop(example: str, base: Path, work: Path, external: bool) -> list[Step]:
    inv = work / "inventory"
    shutil.copytree(base, inv)
    out = str(work / "build")
    render = ["render", "-i", str(inv), "-o", out]
    steps = [cli(example, "render", render, work), cli(example, "rerender-unchanged", render, work)]
    drain_one_leaf(inv, ONE_LEAF[example], True)
    steps.append(cli(example, "rerender-one-leaf", render, work))
    drain_one_leaf(inv, ONE_LEAF[example], False)
    validate = ["validate", "-i", str(inv)]
    steps.append(cli(example, "validate --no-external", [*validate, "--no-external"], work))
    if external:
        steps.append(cli(example, "validate external cold", validate, work))
        drain_one_leaf(inv, ONE_LEAF[example], True)
        steps.append(cli(example, "validate external one leaf", validate, work))
        drain_one_leaf(inv, ONE_LEAF[example], False)
    return steps


def planes_steps(example: str, count: int) -> list[Step]:
    """The stages and a cold `netauto render` of the example's `count`-plane variant (labelled `<example>x<count>`:
    no goal applies)."""
    label = f"{example}x{count}"
    with tempfile.TemporaryDirectory(prefix=f"netauto-bench-{label}-") as tmp:
        work = Path(tmp)
        inv = planes_variant(EXAMPLES[example], work, count)
        steps = stages(label, inv, work)
        steps.append(cli(label, "render", ["render", "-i", str(inv), "-o", str(work / "build")], work))
    return steps


# ---------------------------------------------------------------- netauto vs pyavd, per device
def pyavd_per_device(python: str) -> tuple[float, int]:
    """pyavd 6.4 on 32 spines x 128 leaves (benchmarks/pyavd_fabric.py, run by the pyavd venv's python):
    CPU seconds per device of validate + facts + structured config + EOS config, and the device count."""
    proc = subprocess.run([python, str(Path(__file__).with_name("pyavd_fabric.py"))], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    d = json.loads(proc.stdout.splitlines()[-1])
    return d["cpu"] / d["devices"], d["devices"]


def netauto_per_device(example: str, inventory: Path) -> tuple[float, int]:
    """netauto load + resolve + render (in memory) of a whole example, CPU seconds per device (switches +
    servers)."""
    code = ("import time,sys,json;from netauto import pipeline;t=time.process_time();"
            f"c=pipeline.resolve_cluster_model(pipeline.load({str(inventory)!r}));a=pipeline.render_files(c);"
            "n=len(c.all_switches())+len(c.server_names());print(json.dumps([time.process_time()-t,n]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    seconds, devices = json.loads(proc.stdout.splitlines()[-1])
    return seconds / devices, devices


# ---------------------------------------------------------------- report
def report(steps: list[Step]) -> list[str]:
    missed = []
    print(f"{'example':<7} {'step':<46} {'wall s':>8} {'CPU s':>8} {'peak RSS MiB':>13}  goal")
    for s in steps:
        goal = GOALS.get(s.example, {}).get(s.step)
        note = ""
        if goal is not None:
            ok = s.wall <= goal
            note = f"<= {goal} s: {'met' if ok else f'MISSED by {s.wall - goal:.2f} s'}"
            if not ok:
                missed.append(f"{s.example} {s.step}: {s.wall:.2f} s > {goal} s")
        rss_goal = RSS_GOAL_MIB.get(s.example)
        if rss_goal and s.rss_mib > rss_goal:
            missed.append(f"{s.example} {s.step}: peak RSS {s.rss_mib:.0f} MiB > {rss_goal} MiB")
            note += f" RSS > {rss_goal} MiB"
        if s.rc not in (0,):
            missed.append(f"{s.example} {s.step}: exit {s.rc}")
            note += f" exit {s.rc}"
        print(f"{s.example:<7} {s.step:<46} {s.wall:>8.2f} {s.cpu:>8.2f} {s.rss_mib:>13.0f}  {note}")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", nargs="+", choices=sorted(EXAMPLES), default=["10k", "100k"])
    parser.add_argument("--external-100k", action="store_true",
                        help="also run every real validator on the 100k fabric (tens of minutes on 2 cores)")
    parser.add_argument("--pyavd-python", help="python of a venv with pyavd==6.4.0 (pip install 'pyavd==6.4.0')")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    # 4 planes: the examples' management pools leave no room for 4 planes of switches (the widened switch_pool
    # overlaps server_pool), so the variant is 2 planes only until it re-plans the management pools
    parser.add_argument("--compute-planes", type=int, choices=(1, 2), default=1,
                        help="the examples as a 2-plane fabric: stages and `netauto render` only, no goals")
    parser.add_argument("--stages-child", nargs=2, metavar=("INVENTORY", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stages_child:
        stages_child(Path(args.stages_child[0]), Path(args.stages_child[1]))
        return 0
    steps: list[Step] = []
    for example in args.examples:
        if args.compute_planes > 1:
            steps += planes_steps(example, args.compute_planes)
            continue
        with tempfile.TemporaryDirectory(prefix=f"netauto-bench-{example}-") as tmp:
            steps += stages(example, EXAMPLES[example], Path(tmp))
        with tempfile.TemporaryDirectory(prefix=f"netauto-bench-{example}-") as tmp:
            steps += editor_loop(example, EXAMPLES[example], Path(tmp), example == "10k" or args.external_100k)
    missed = report(steps)
    if args.pyavd_python:
        avd, avd_n = pyavd_per_device(args.pyavd_python)
        na, na_n = netauto_per_device("10k", EXAMPLES["10k"])
        ratio = avd / na
        print(f"CPU per device, one run: pyavd 6.4 {avd * 1000:.1f} ms ({avd_n} devices), netauto "
              f"{na * 1000:.2f} ms ({na_n} devices of the 10k example): {ratio:.0f}x (goal >= {PYAVD_RATIO_GOAL:.0f}x)")
        if ratio < PYAVD_RATIO_GOAL:
            missed.append(f"netauto vs pyavd {ratio:.0f}x < {PYAVD_RATIO_GOAL:.0f}x")
    if args.json:
        args.json.write_text(json.dumps([asdict(s) for s in steps], indent=2))
    for m in missed:
        print(f"MISSED: {m}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
