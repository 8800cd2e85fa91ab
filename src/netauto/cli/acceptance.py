"""`netauto acceptance plan|run|report`: line-rate tests from the cabling plan, and the bad part named."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table
from dataclasses import replace

from netauto.acceptance.model import ISOLATION
from netauto.cli.app import cli, err, out
from netauto.cli.options import inventory_option, templates_option
from netauto.errors import UsageError
from netauto.cli.verify import _drain_cmd
from netauto.cli.verify import _emit

if TYPE_CHECKING:
    from netauto.acceptance.model import AccTest
    from netauto.acceptance.planner import PlanOptions
    from netauto.acceptance.report import AcceptanceReport
    from netauto.model.cluster import ClusterModel


def _plan_options(f: Callable[..., None]) -> Callable[..., None]:  # the options plan, run and report share
    for opt in reversed([
        click.option("--tool", type=click.Choice(["ib_write_bw", "iperf3"]), default="ib_write_bw", show_default=True,
                     help="Traffic generator: perftest ib_write_bw (RoCE), or iperf3 (the lab: no RDMA)."),
        click.option("--efficiency", type=float, default=None,
                     help="Minimum as a fraction of the line rate (default 0.9; docs/acceptance.md)."),
        click.option("--nccl-efficiency", type=float, default=None,
                     help="NCCL busbw minimum as a fraction of one NIC's rate (default all_reduce 0.75, alltoall 0.5)."),
        click.option("--per-spine", is_flag=True, help="Add rounds through one spine at a time (the others drained)."),
        click.option("--no-nccl", is_flag=True, help="Leave out the nccl-tests rounds."),
        click.option("--gid-index", type=int, default=None,
                     help="perftest -x: a fixed RoCEv2 IPv4 GID index (see `show_gids`); default: rdma_cm (-R) "
                          "finds it from the NIC's address."),
        click.option("--qps", type=int, default=4, show_default=True, help="perftest -q: queue pairs per test."),
        click.option("--duration", type=int, default=None, help="Seconds per test (default ib_write_bw 10, iperf3 2)."),
        click.option("--rate", default="200M", show_default=True, help="iperf3 -b: the paced rate (the lab's line rate)."),
    ]):
        f = opt(f)
    return f


def _options(tool: str, efficiency: float | None, nccl_efficiency: float | None, per_spine: bool, no_nccl: bool,
             gid_index: int | None, qps: int, duration: int | None, rate: str) -> PlanOptions:
    from netauto.acceptance import commands, expect  # lazy: +10 modules (netauto.acceptance) in every `netauto --help` otherwise; only this command needs them
    from netauto.acceptance.planner import PlanOptions  # lazy: +46 modules (yaml, netauto.inventory, netauto.acceptance) in every `netauto --help` otherwise; only this command needs them

    eff = expect.check_efficiency(efficiency if efficiency is not None else expect.BW_EFFICIENCY, "--efficiency")
    if nccl_efficiency is not None:
        expect.check_efficiency(nccl_efficiency, "--nccl-efficiency")
    if min(qps, duration or 1) < 1 or not 0 <= (gid_index or 0) <= 255:
        raise UsageError("--qps and --duration take a positive number, --gid-index 0..255")
    bw = commands.BwOptions(gid_index=gid_index, qps=qps, duration=duration or 10)
    ip3 = commands.Iperf3Options(rate=rate, duration=duration or 2)
    return PlanOptions(tool=tool, efficiency=eff, nccl=not no_nccl and tool == "ib_write_bw",
                       nccl_efficiency=nccl_efficiency, per_spine=per_spine, bw=bw, iperf3=ip3)


def _nccl_left_out(cluster: ClusterModel, options: PlanOptions, opts: dict[str, object]) -> str | None:
    """A line naming the nccl-tests a non-RDMA tool leaves out of the plan (and so out of every count), or None
    when none are (the RDMA tool, or --no-nccl: left out on purpose)."""
    from netauto.acceptance.model import NCCL_KINDS, PERFTEST  # lazy: +7 modules (netauto.acceptance) in every `netauto --help` otherwise; only this command needs them
    from netauto.acceptance.planner import build  # lazy: +46 modules (yaml, netauto.inventory, netauto.acceptance) in every `netauto --help` otherwise; only this command needs them

    if opts.get("no_nccl") or options.tool == PERFTEST:
        return None
    full = build(cluster.compute, replace(options, tool=PERFTEST, nccl=True), planes=cluster.compute_planes)
    n = sum(1 for t in full.tests() if t.kind in NCCL_KINDS)
    return (f"left out: {n} nccl-tests test(s), which need RDMA (--tool {PERFTEST}); not in the counts "
            "(--no-nccl leaves them out without this line)") if n else None


def _cluster(inventory: Path) -> ClusterModel:
    from netauto.pipeline import build_cluster  # lazy: +255 modules (pydantic, jinja2, yaml) in every `netauto --help` otherwise; only this command needs them

    return build_cluster(inventory)


@cli.group("acceptance")
def acceptance_group() -> None:
    """Acceptance tests before users: ib_write_bw on every NIC and cable, nccl-tests per SU and fabric, and a
    named suspect (NIC/cable, leaf uplink, spine) when anything is short."""


@acceptance_group.command("plan")
@inventory_option
@_plan_options
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table: one row per round; json: the plan with every test's commands and minimum.")
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Folder: write plan.json there (the JSON plan) instead of printing.")
def plan_cmd(inventory: Path, fmt: str, output: Path | None, **opts: object) -> None:
    """Rounds of tests that can run at once (no NIC twice in a round), each with its commands and minimum."""
    from netauto.acceptance.planner import build  # lazy: +46 modules (yaml, netauto.inventory, netauto.acceptance) in every `netauto --help` otherwise; only this command needs them
    from netauto.acceptance.results import PLAN_FILE  # lazy: +45 modules (yaml, netauto.acceptance) in every `netauto --help` otherwise; only this command needs them

    cluster = _cluster(inventory)
    options = _options(**opts)  # type: ignore[arg-type]
    plan = build(cluster.compute, options, cluster.networks, cluster.compute_planes)
    left_out = _nccl_left_out(cluster, options, opts)
    if output is not None:
        from netauto.acceptance.store import results_dir, write_private  # lazy: as the imports above

        write_private(results_dir(output) / PLAN_FILE, plan.to_json())  # report judges by it: a folder of its own
        out.print(f"plan: {output / PLAN_FILE} ({len(plan.rounds)} rounds, {len(plan.tests())} tests)", highlight=False)
    elif fmt == "json":
        sys.stdout.write(plan.to_json())
    else:
        table = Table(title=f"netauto acceptance plan: {plan.fabric}")
        for col in ("round", "phase", "tests", "kind", "expect (Gb/s)", "drained"):
            table.add_column(col)
        for r in plan.rounds:
            exp = sorted({t.expect_gbps for t in r.tests})
            want = "no reply" if r.tests[0].kind == ISOLATION else ", ".join(f">= {e:g}" for e in exp)
            table.add_row(str(r.number), _phase(r.tests[0], bool(cluster.compute_planes)), str(len(r.tests)),
                          r.tests[0].kind, want, ", ".join(r.drain) or "-")
        out.print(table)
        nics = {(e.network, e.server, e.rail) for t in plan.tests() for e in t.ends}
        out.print(f"{len(plan.tests())} tests in {len(plan.rounds)} rounds; {len(nics)} NICs and their leaf cables "
                  "exercised", highlight=False)
    if left_out and fmt != "json":
        out.print(left_out, highlight=False)


def _phase(t: AccTest, planes: bool) -> str:
    """A round's phase in the plan table: with compute planes, the point-to-point tests' plane ("plane 2 leaf")."""
    from netauto.model.compute_planes import plane_of  # lazy: +176 modules (pydantic, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

    plane = plane_of(t.ends[0].network) if planes and t.ends and t.phase != "nccl" else None
    return f"plane {plane} {t.phase}" if plane else t.phase


@acceptance_group.command("run")
@inventory_option
@templates_option
@_plan_options
@click.option("-o", "--results", type=click.Path(path_type=Path, file_okay=False), default=Path("RESULTS"),
              show_default=True, help="Folder for <id>.txt / <id>.json (0700, files 0600) and plan.json.")
@click.option("--emit", type=click.Choice(["script", "slurm"]), default=None,
              help="Do not run: print the plan as an ssh shell script or a Slurm batch job.")
@click.option("--workers", type=int, default=64, show_default=True, help="Parallel SSH sessions.")
@click.option("--lab", "lab", default=None, help="Run in a `netauto lab up --ssh` lab (its namespaces and keys).")
@click.option("--no-host-key-check", is_flag=True, help="Do NOT verify SSH host keys (explicit opt-out).")
def run_cmd(inventory: Path, templates: Path | None, results: Path, emit: str | None, workers: int, lab: str | None,
            no_host_key_check: bool, **opts: object) -> None:
    """Run the plan's rounds over SSH (Nornir), or emit them as a script / Slurm job."""
    from netauto.acceptance import runner, script  # lazy: +126 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them
    from netauto.acceptance.planner import build  # lazy: +46 modules (yaml, netauto.inventory, netauto.acceptance) in every `netauto --help` otherwise; only this command needs them

    options = _options(**opts)  # type: ignore[arg-type]
    if emit:
        cluster = _cluster(inventory)
        sys.stdout.write(script.emit(build(cluster.compute, options, cluster.networks, cluster.compute_planes), emit,
                                     str(inventory)))
        return
    from netauto.cli.verify import _targets  # lazy: looked up per call: tests patch netauto.cli.verify._targets

    model, _, targets, creds = _targets(inventory, templates, lab, no_host_key_check)
    if lab:  # a lab holds a subset of the servers (`lab up --servers N`)
        options = replace(options, servers=frozenset(n for n, t in targets.items() if t.kind == "server"
                                                     and not t.skip_reason))
    plan = build(model.compute, options, model.networks, model.compute_planes)
    drain = _drainer(inventory, templates, lab, no_host_key_check) if any(r.drain for r in plan.rounds) else None
    got = runner.run(plan, targets, creds, results, workers=workers, drain=drain,
                     log=lambda s: err.print(s, highlight=False))
    for p in got.problems:
        err.print(f"  {p}", highlight=False)
    out.print(f"run: {len(got.saved)} result file(s) in {results}; next: netauto acceptance report -i {inventory} "
              f"{results}", highlight=False)
    sys.exit(1 if got.problems else 0)


def _drainer(inventory: Path, templates: Path | None, lab: str | None,
             no_host_key_check: bool) -> Callable[[list[str], bool], None]:
    """Graceful shutdown on spines for a pinned round (`netauto drain`'s verified drain), undone after it."""
    def drain(spines: list[str], undo: bool) -> None:
        for s in spines:
            _drain_cmd(s, undo, inventory, templates, lab, no_host_key_check, 60.0)

    return drain


@acceptance_group.command("report")
@inventory_option
@templates_option
@click.argument("results", type=click.Path(path_type=Path, file_okay=False, exists=True))
@_plan_options
@click.option("--format", "fmt", type=click.Choice(["table", "json", "junit", "markdown"]), default="table",
              show_default=True, help="table: failures and suspects; json/junit/markdown: every test and suspect.")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the report to this file instead of stdout.")
@click.option("--require-all", is_flag=True, help="A planned test without a result file is a failure.")
@click.option("--counters", is_flag=True,
              help="Read the suspect ports' PFC/ECN/CNP and drop counters twice (--window apart), as verify does.")
@click.option("--window", type=float, default=10.0, show_default=True, help="--counters: seconds between reads.")
@click.option("--lab", "lab", default=None, help="--counters in a `netauto lab up --ssh` lab.")
@click.option("--no-host-key-check", is_flag=True, help="Do NOT verify SSH host keys (explicit opt-out).")
def report_cmd(inventory: Path, templates: Path | None, results: Path, fmt: str, output: Path | None,
               require_all: bool, counters: bool, window: float, lab: str | None, no_host_key_check: bool,
               **opts: object) -> None:
    """Hold RESULTS/<id>.txt|json against the plan: exit 1 when any test is short (or, --require-all, missing),
    naming the part the failing tests share and the passing ones do not."""
    from netauto.acceptance.planner import Planner  # lazy: +46 modules (yaml, netauto.inventory, netauto.acceptance) in every `netauto --help` otherwise; only this command needs them
    from netauto.acceptance.report import build_report, select  # lazy: +56 modules (yaml, netauto.acceptance, netauto.verify) in every `netauto --help` otherwise; only this command needs them
    from netauto.acceptance.results import planned, planned_servers  # lazy: +45 modules (yaml, netauto.acceptance) in every `netauto --help` otherwise; only this command needs them

    cluster = _cluster(inventory)
    model = cluster.compute
    options = _options(**opts)  # type: ignore[arg-type]
    ran = planned(results)
    if ran is not None:  # the plan that ran (a lab's: a subset of the servers) is the one to look tests up in
        known = {s.name for _, f in cluster.fabrics() for s in f.servers}  # a storage network's nodes too
        options = replace(options, servers=planned_servers(ran) & known)
    planner = Planner(model, options, cluster.networks, cluster.compute_planes)
    tests = select(planner.catalog(), planner.plan().tests(), results)
    rep = build_report(model, tests, results, require_all, planner.fabrics())
    if counters and rep.where.suspects:
        from netauto.acceptance.counters import suspect_counters  # lazy: +730 modules (netmiko, paramiko, jinja2) in every `netauto --help` otherwise; only this command needs them

        rep.counters = suspect_counters(rep, inventory, templates, lab, no_host_key_check, window)
    _emit_report(rep, fmt, output)
    left_out = _nccl_left_out(cluster, options, opts)
    if left_out and fmt == "table":
        out.print(left_out, highlight=False)
    sys.exit(0 if rep.ok else 1)


def _emit_report(rep: AcceptanceReport, fmt: str, output: Path | None) -> None:
    from netauto.acceptance.report import as_findings, to_json  # lazy: +56 modules (yaml, netauto.acceptance, netauto.verify) in every `netauto --help` otherwise; only this command needs them
    from netauto.verify import output as fmt_out  # lazy: +14 modules (netauto.verify) in every `netauto --help` otherwise; only this command needs them

    if fmt == "json":
        _emit(to_json(rep), output)
    elif fmt == "junit":
        _emit(fmt_out.to_junit(as_findings(rep), "netauto acceptance"), output)
    elif fmt == "markdown":
        _emit(fmt_out.to_markdown(as_findings(rep)).replace("# netauto verify", "# netauto acceptance", 1), output)
    else:
        _table(rep)


def _gbps(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f} Gb/s" if v >= 10 else f"{v:.3g} Gb/s"


def _table(rep: AcceptanceReport) -> None:
    table = Table(title=f"netauto acceptance report: {rep.fabric}")
    for col in ("status", "test", "expected", "measured", "detail"):
        table.add_column(col, overflow="fold")
    for o in rep.outcomes:
        if o.status != "pass":
            table.add_row(o.status.upper(), o.test.id,
                          "no reply" if o.test.kind == ISOLATION else f">= {o.test.expect_gbps:g} Gb/s",
                          _gbps(o.measured_gbps), o.detail)
    if table.row_count:
        out.print(table)
    for s in rep.where.suspects:
        out.print(f"SUSPECT: {s.label} ({len(s.tests)} failing test(s): {', '.join(s.tests)})", highlight=False)
    for tid in rep.where.unexplained:
        out.print(f"UNEXPLAINED: {tid} (every part it crosses also passed elsewhere)", highlight=False)
    c = rep.counts()
    verdict = "PASS" if rep.ok else "FAIL"
    out.print(f"{verdict}: {c['pass']} passed, {c['fail']} failed, {c['not-run']} not run"
              + (f", {c['missing']} missing" if c["missing"] else ""), highlight=False)
