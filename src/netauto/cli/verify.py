"""`netauto verify` (is the running fabric the intended one?), `drain` / `undrain` (maintenance) and `backup`."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from netauto.cli.app import cli, out
from netauto.cli.options import adopt_option, complete_device, complete_limit, inventory_option, templates_option
from netauto.deploy.redact import redact
from netauto.errors import NetautoError
from netauto.private_files import write_private
from netauto.visible import plain, visible
from netauto import diffstat
from netauto.verify.findings import CheckResult, Report

if TYPE_CHECKING:
    from netauto.deploy.targets import Credentials, Target
    from netauto.model.cluster import ClusterModel
    from netauto.render.engine import Artifact
    from netauto.verify.findings import Report

lab_option = click.option("--lab", "lab", default=None,
                          help="Target a running `netauto lab up --ssh` (its management namespace and keys).")
host_key_option = click.option("--no-host-key-check", is_flag=True, help="Do NOT verify SSH host keys (explicit opt-out).")


def _targets(inventory: Path, templates: Path | None, lab: str | None, no_host_key_check: bool, adopt: bool = False,
             ) -> tuple[ClusterModel, list[Artifact], dict[str, Target], Credentials]:
    """(the cluster, its files, one target per device of every network, credentials): the compute fabric's
    devices, every network's switches and the servers only a network has (as deploy's targets)."""
    from netauto.deploy.run_targets import built_targets  # lazy: +813 modules (netmiko, paramiko, pydantic, jinja2) in every `netauto --help` otherwise; only this command needs them

    run = built_targets(inventory, templates, lab, "off" if no_host_key_check else "strict", adopt)
    return run.build.cluster, run.build.artifacts, run.targets, run.creds


def _emit_table(rep: Report, verbose: bool, output: Path | None) -> None:
    """The table on the console, or as plain text into `output` (-o is never silently ignored)."""
    if output is None:
        _table(rep, verbose)
        return
    with out.capture() as captured:
        _table(rep, verbose)
    _emit(captured.get(), output)


def _emit(text: str, output: Path | None) -> None:
    """A report on stdout or into `output`, through the console sanitiser (netauto.visible): it quotes what
    devices sent (JSON and OpenMetrics escape their strings already: there it changes nothing)."""
    text = visible(text)
    if output is None:
        sys.stdout.write(text)
        return
    write_private(output, text)  # 0600 in a folder created 0700: reports quote device content
    out.print(f"report: {output}", highlight=False)


@cli.command("verify")
@inventory_option
@templates_option
@click.option("--limit", default=None, shell_complete=complete_limit,
              help="Devices: names, globs (su1-*), groups (role_spine, su_1, nos_sonic, servers, network_storage) "
                   "or role=leaf, network=frontend; `a,b` union, `&role=leaf` intersection, `!spine1` exclusion "
                   "(as Ansible's --limit).")
@click.option("--checks", "checks_spec", default=None, help="Comma-separated checks (default: all; see --list-checks).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "junit", "markdown", "openmetrics"]), default="table",
              show_default=True, help="table: failures and a per-check summary; json/junit/markdown: every finding; "
              "openmetrics: Prometheus text format for node-exporter's textfile collector (docs/monitoring.md).")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the report to this file instead of stdout.")
@click.option("--workers", type=int, default=40, show_default=True, help="Devices read in parallel.")
@click.option("--window", type=float, default=0.0, show_default=True,
              help="Counters: read twice, this many seconds apart, and judge the increase.")
@click.option("-v", "--verbose", is_flag=True, help="Table: list passing findings too.")
@click.option("--list-checks", is_flag=True, help="List the checks and exit.")
@lab_option
@host_key_option
def verify_cmd(inventory: Path, templates: Path | None, limit: str | None, checks_spec: str | None, fmt: str,
               output: Path | None, workers: int, window: float, verbose: bool, list_checks: bool, lab: str | None,
               no_host_key_check: bool) -> None:
    """Compare the running network with the source of truth: BGP, ECMP, drain, LLDP cabling, interfaces,
    QoS/AR, host NIC addresses, QoS and policy routing (or bonds), counters; on every network of a cluster (the
    compute fabric and each network, every finding naming its network). Exit 0 when everything that can be
    checked passes, 1 on any failure, 2 for bad input."""
    from netauto.deploy.host_keys import host_key_warnings  # lazy: +289 modules (paramiko, yaml, netauto.deploy) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.run import select  # lazy: +867 modules (pydantic, nornir, netmiko) in every `netauto --help` otherwise; only this command needs them
    from netauto.verify import catalog, output as fmt_out  # lazy: +722 modules (netmiko, paramiko, jinja2) in every `netauto --help` otherwise; only this command needs them
    from netauto.verify.run import parse_checks, verify  # lazy: +882 modules (pydantic, nornir, netmiko) in every `netauto --help` otherwise; only this command needs them

    if list_checks:
        table = Table(title="netauto verify: checks")
        table.add_column("check")
        table.add_column("what")
        for c in catalog.CATALOG.values():
            table.add_row(c.name, c.what)
        out.print(table)
        return
    names_checks = parse_checks(checks_spec)
    model, _, targets, creds = _targets(inventory, templates, lab, no_host_key_check)
    names = select(targets, limit)
    thresholds = _thresholds(inventory) if window > 0 and "counters" in names_checks else {}  # a 2nd YAML load: only when used
    rep = verify(model, targets, names, creds, check_names=names_checks, workers=workers, window=window,
                 thresholds=thresholds)
    rep.warnings = host_key_warnings()  # (on the console already: open_session announces each)
    if fmt == "json":
        _emit(fmt_out.to_json(rep), output)
    elif fmt == "junit":
        _emit(fmt_out.to_junit(rep), output)
    elif fmt == "markdown":
        _emit(fmt_out.to_markdown(rep, verbose), output)
    elif fmt == "openmetrics":
        _emit(fmt_out.to_openmetrics(rep), output)
    else:
        _emit_table(rep, verbose, output)
    sys.exit(0 if rep.ok else 1)


def _thresholds(inventory: Path) -> dict[str, int]:
    """Counter thresholds per window from the inventory (features.yaml `features: {verify: {thresholds: ...}}`)."""
    from netauto.pipeline import load  # lazy: +255 modules (pydantic, jinja2, yaml) in every `netauto --help` otherwise; only this command needs them

    return dict(load(inventory).inventory.features.verify.thresholds)


def _table(rep: Report, verbose: bool) -> None:
    from netauto.verify.output import summary_rows  # lazy: +14 modules (netauto.verify) in every `netauto --help` otherwise; only this command needs them

    table = Table(title=f"netauto verify: {rep.fabric} ({len(rep.devices)} devices)")
    for col in ("status", "check", "network", "device", "item", "expected", "actual", "reason"):
        table.add_column(col, overflow="fold")
    for f in rep.findings:
        if f.failed or verbose:
            style = {"fail": "[red]FAIL[/]", "error": "[red]ERROR[/]", "pass": "[green]ok[/]", "n/a": "n/a"}[f.status]
            table.add_row(style, *map(plain, (f.check, f.network, f.device, f.item, f.expected, f.actual, f.reason)))
    if table.row_count:
        out.print(table)
    summary = Table(title="per check")
    for col in ("check", "pass", "fail", "error", "n/a", "not applicable because"):
        summary.add_column(col, overflow="fold")
    for row in summary_rows(rep):
        summary.add_row(plain(row[0]), *map(str, row[1:5]), plain(row[5]))
    out.print(summary)
    c = rep.counts()
    verdict = "[green]PASS[/]" if rep.ok else "[red]FAIL[/]"
    out.print(f"{verdict}: {c['pass']} passed, {c['fail']} failed, {c['error']} errors, {c['n/a']} not applicable "
              f"({rep.timings.get('total', 0):.2f} s: read {rep.timings.get('collect', 0):.2f} s)", highlight=False)


def _drain_cmd(device: str, undrain: bool, inventory: Path, templates: Path | None, lab: str | None,
               no_host_key_check: bool, timeout: float, adopt: bool = False) -> None:
    from netauto.deploy.connection import open_session  # lazy: +589 modules (netmiko, paramiko, ttp) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.device import ApplyOptions, maintenance_drain  # lazy: +704 modules (netmiko, paramiko, jinja2) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.run import NeighbourWatcher  # lazy: +867 modules (pydantic, nornir, netmiko) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.targets import session_options  # lazy: +119 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

    _, _, targets, creds = _targets(inventory, templates, lab, no_host_key_check, adopt)
    target = targets.get(device)
    if target is None or target.kind != "switch":
        raise NetautoError(f"{device}: no such switch in the inventory")
    if target.drained_by_intent and undrain:
        raise NetautoError(f"{device} is drained by the inventory (bgp graceful-shutdown): change the inventory and deploy")
    watcher = NeighbourWatcher(targets, creds)
    session = open_session(target.host, target.port, target.username, password=creds.password,
                           **session_options(target, creds))  # type: ignore[arg-type]
    try:
        result = maintenance_drain(session, target, ApplyOptions(drain_timeout=timeout, neighbours=watcher), undrain)
    finally:
        session.close()
        watcher.close()
    d = result.drain
    verb = "undrain" if undrain else "drain"
    if result.result == "failed":
        raise NetautoError(f"{verb} {device}: {result.error}" + "".join(f"; {n}" for n in result.notes))
    key = "restored" if undrain else "drained"
    out.print(f"{verb} {device}: neighbours' ECMP width {d.get('before')} -> {d.get(key)} "
              f"in {d.get(f'{key}_after_s')} s; no neighbour forwards through it "
              f"{'any more' if not undrain else 'less than before'} (BGP, zebra RIB/FIB, FIB read from "
              f"{', '.join(d.get('fib', [])) or 'nothing'})", highlight=False)
    why = unchanged_width_note(device, target.role, d.get("before"), d.get(key), undrain)
    if why:
        out.print(f"  {why}", highlight=False)
    for n in result.notes:
        out.print(f"  note: {n}", highlight=False)


def unchanged_width_note(device: str, role: str, before: object, after: object, undrain: bool) -> str | None:
    """Why a drain whose neighbours' ECMP widths did not move still did something (a leaf's drain), or None.
    The map is, per neighbour, the widest ECMP set among the prefixes it learns through DEVICE."""
    if undrain or not before or before != after:
        return None
    return (f"the widths are unchanged because every prefix the neighbours learn through {device} is reachable "
            f"only through it ({'its rail/host subnets and loopback' if role == 'leaf' else 'its own prefixes'}): "
            f"they keep that one path, now marked graceful-shutdown (local-preference 0), and traffic to "
            f"{device}'s own hosts still flows; it no longer carries traffic that has another way. A spine's drain "
            f"lowers the leaves' widths; a {role}'s drain marks its routes. `netauto verify` reports `drain` on "
            f"{device} until `netauto undrain {device}`.")


@cli.command("drain")
@click.argument("device", shell_complete=complete_device)
@inventory_option
@templates_option
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds to wait for the neighbours to move traffic away.")
@lab_option
@host_key_option
@adopt_option
def drain_cmd(device: str, inventory: Path, templates: Path | None, timeout: float, lab: str | None,
              no_host_key_check: bool, adopt: bool) -> None:
    """Maintenance: BGP graceful-shutdown on DEVICE, then wait until no neighbour forwards through it
    (the same verified drain `deploy` does before a push). Runtime only: `verify` reports it until `undrain`."""
    _drain_cmd(device, False, inventory, templates, lab, no_host_key_check, timeout, adopt)


@cli.command("undrain")
@click.argument("device", shell_complete=complete_device)
@inventory_option
@templates_option
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds to wait for the neighbours to take DEVICE's paths back.")
@lab_option
@host_key_option
@adopt_option
def undrain_cmd(device: str, inventory: Path, templates: Path | None, timeout: float, lab: str | None,
                no_host_key_check: bool, adopt: bool) -> None:
    """Lift the maintenance drain of DEVICE and wait until the neighbours use its paths again."""
    _drain_cmd(device, True, inventory, templates, lab, no_host_key_check, timeout, adopt)


@cli.command("backup")
@inventory_option
@templates_option
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Folder (e.g. a git work tree): <device>/files/... and <device>/state/...")
@click.option("--limit", default=None, shell_complete=complete_limit,
              help="Devices: names, globs (su1-*), groups (role_spine, su_1, nos_sonic, servers) or role=leaf; "
                   "`a,b` union, `&role=leaf` intersection, `!spine1` exclusion (as Ansible's --limit).")
@click.option("--workers", type=int, default=40, show_default=True, help="Parallel SSH sessions.")
@lab_option
@host_key_option
@adopt_option
def backup_cmd(inventory: Path, templates: Path | None, output: Path, limit: str | None, workers: int,
               lab: str | None, no_host_key_check: bool, adopt: bool) -> None:
    """Save the running files and NOS state of every device (deterministic, diffable with git)."""
    from netauto.deploy.run import select  # lazy: +867 modules (pydantic, nornir, netmiko) in every `netauto --help` otherwise; only this command needs them
    from netauto.verify.backup import backup  # lazy: +729 modules (nornir, netmiko, paramiko) in every `netauto --help` otherwise; only this command needs them

    t0 = time.monotonic()
    _, _, targets, creds = _targets(inventory, templates, lab, no_host_key_check, adopt)
    results = backup(targets, select(targets, limit), creds, output, workers)
    bad = [r for r in results if r.errors and not r.files]
    out.print(f"backup: {sum(len(r.files) for r in results)} files and {sum(len(r.state) for r in results)} state "
              f"dumps of {len(results) - len(bad)} devices in {output} ({time.monotonic() - t0:.1f} s)", highlight=False)
    for r in results:
        for e in r.errors:
            out.print(f"  {r.device}: {plain(e)}", highlight=False)
    if any(r.errors and not r.files and not (r.errors[0] or "").startswith("not in lab") for r in results):
        sys.exit(1)


@cli.command("drift")
@inventory_option
@templates_option
@click.option("--limit", default=None, shell_complete=complete_limit,
              help="Devices: names, globs (su1-*), groups (role_spine, su_1, nos_sonic, servers) or role=leaf; "
                   "`a,b` union, `&role=leaf` intersection, `!spine1` exclusion (as Ansible's --limit).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "junit", "markdown"]), default="table",
              show_default=True, help="table (drifted files, one row each), json (every finding with its diff), "
                                      "junit, markdown (a table, then each diff in its own block).")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the report to this file instead of stdout.")
@click.option("--workers", type=int, default=20, show_default=True, help="Parallel SSH sessions.")
@lab_option
@host_key_option
@adopt_option
def drift_cmd(inventory: Path, templates: Path | None, limit: str | None, fmt: str, output: Path | None,
              workers: int, lab: str | None, no_host_key_check: bool, adopt: bool) -> None:
    """Drift report for a scheduled job: `deploy --dry-run` (every managed file against intent) as findings,
    one per device and file. Exit 1 when anything drifted or a device was unreachable.

    Files only: running state changed and never saved (vtysh, `nv set` without apply) is not compared; `netauto
    verify` checks the running network against intent."""
    from netauto.deploy import file_modes  # lazy: +665 modules (netmiko, paramiko, jinja2) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.host_keys import host_key_warnings  # lazy: +289 modules (paramiko, yaml, netauto.deploy) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy import run as rollout  # lazy: +867 modules (pydantic, nornir, netmiko) in every `netauto --help` otherwise; only this command needs them
    from netauto.verify import output as fmt_out  # lazy: +14 modules (netauto.verify) in every `netauto --help` otherwise; only this command needs them

    t0 = time.monotonic()
    model, _, targets, creds = _targets(inventory, templates, lab, no_host_key_check, adopt)
    names = rollout.select(targets, limit)
    done = rollout.dry_run(targets, names, creds, workers)
    rep = Report(fabric=model.name, devices=names)
    for r in done:
        t = targets[r.device]
        net = ",".join(t.networks) or "compute"  # the networks the device is on (a cluster's networks)
        if r.result == "skipped":
            rep.findings.append(CheckResult("drift", r.device, "files", "as intended", "", "n/a", redact(r.error or ""), net))
        elif r.result in ("unreachable", "refused"):
            rep.findings.append(CheckResult("drift", r.device, "files", "as intended", "", "error", redact(r.error or ""), net))
        else:
            for path in sorted(t.files):
                if path in r.diff:
                    rep.findings.append(CheckResult("drift", r.device, path, "as intended",
                                                file_modes.describe(r.diff[path]), "fail",
                                                diffstat.summary(r.diff[path]), net, detail=r.diff[path]))
                else:
                    rep.findings.append(CheckResult("drift", r.device, path, "as intended", "as intended", "pass", "", net))
    rep.timings["total"] = time.monotonic() - t0
    rep.warnings = host_key_warnings()  # (on the console already: open_session announces each)
    if fmt == "json":
        _emit(fmt_out.to_json(rep), output)
    elif fmt == "junit":
        _emit(fmt_out.to_junit(rep, "netauto drift"), output)
    elif fmt == "markdown":
        _emit(fmt_out.to_markdown(rep), output)
    else:
        _emit_table(rep, False, output)
    # said on every run, on stderr for the machine formats: what drift does not see
    scope = ("drift compares the managed files on each device with intent, not the running state: a change made "
             "in vtysh (or `nv set` without apply) and never saved is not reported; `netauto verify` checks the "
             "running network")
    if fmt == "table" and output is None:
        out.print(scope, highlight=False, soft_wrap=True)
    else:
        print(scope, file=sys.stderr)
    sys.exit(0 if rep.ok else 1)
