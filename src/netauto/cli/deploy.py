"""`netauto deploy`: dry-run diffs, or a safe rollout with gshut drain, verified apply and rollback."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from netauto.cli.app import cli, err, out
from netauto.cli.options import complete_limit, inventory_option, templates_option
from netauto.errors import NetautoError


def _lab_access(name: str):
    from netauto.deploy.lab_access import lab_access

    return lab_access(name)


@cli.command("deploy")
@inventory_option
@templates_option
@click.option("--dry-run", is_flag=True, help="Only show per-device diffs against the running files; change nothing.")
@click.option("--limit", default=None, shell_complete=complete_limit,
              help="Devices: names, globs (su1-*), groups (role_spine, su_1, nos_sonic, servers) or role=leaf; "
                   "`a,b` union, `&role=leaf` intersection, `!spine1` exclusion (as Ansible's --limit).")
@click.option("--batch", type=int, default=8, show_default=True, help="Servers/leaves per wave (spines: always one).")
@click.option("--workers", type=int, default=20, show_default=True, help="Parallel SSH sessions for --dry-run.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation before changing devices.")
@click.option("--skip-validate", is_flag=True, help="Escape hatch: push even if `netauto validate` finds errors.")
@click.option("--lab", "lab", default=None, help="Target a running `netauto lab` (its management namespace and keys).")
@click.option("--no-host-key-check", is_flag=True, help="Do NOT verify SSH host keys (explicit opt-out).")
@click.option("--confirm-timeout", type=float, default=600.0, show_default=True,
              help="On-device watchdog: seconds after which an unconfirmed push restores itself.")
@click.option("--session-timeout", type=float, default=90.0, show_default=True,
              help="Post-check: seconds to wait for every expected BGP session after the apply.")
@click.option("--drain-timeout", type=float, default=60.0, show_default=True,
              help="Seconds to wait for the neighbours to move traffic away (gshut) before giving up.")
@click.option("--nic-firmware", is_flag=True,
              help="Servers: also set the rail NICs' firmware (mlxconfig); a reboot or mlxfwreset activates it.")
@click.option("--results", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="JSON result file (default: deploy-results/<action>-<timestamp>.json).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table: diffs and a summary table; json: the result document (as in --results) on stdout, "
                   "progress on stderr.")
def deploy_cmd(inventory: Path, templates: Path | None, dry_run: bool, limit: str | None, batch: int, workers: int,
               yes: bool, skip_validate: bool, lab: str | None, no_host_key_check: bool, confirm_timeout: float,
               session_timeout: float, drain_timeout: float, nic_firmware: bool, results: Path | None,
               fmt: str) -> None:
    """Push the rendered intent with Nornir + Netmiko (or show what would change with --dry-run)."""
    from netauto.deploy import run as rollout
    from netauto.deploy.device import ApplyOptions
    from netauto.deploy.targets import Credentials, build_targets
    from netauto.pipeline import render

    t_start = time.monotonic()
    model, artifacts = render(inventory, templates)
    creds = Credentials.from_env(check_host_keys=not no_host_key_check)
    access = None
    if lab:
        access, creds = _lab_access(lab)
        creds = Credentials(creds.key_file, creds.password, creds.known_hosts, not no_host_key_check)
    targets = build_targets(model, artifacts, access)
    names = rollout.select(targets, limit)
    action = "dry-run" if dry_run else "apply"
    results_path = results or Path("deploy-results") / f"{action}-{time.strftime('%Y%m%d-%H%M%S')}.json"

    if not dry_run and not skip_validate:
        _require_valid(inventory, templates)
    if not dry_run and not yes:
        click.confirm(f"Deploy to {len(names)} device(s) of {model.name}?", abort=True, err=fmt == "json")

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=out if fmt == "table" else err, transient=True) as progress:
        bar = progress.add_task(action, total=len(names))

        def tick(_result: object) -> None:
            progress.advance(bar)

        if dry_run:
            done = rollout.dry_run(targets, names, creds, workers, tick)
            stopped, untouched = None, []
        else:
            options = ApplyOptions(confirm_timeout=confirm_timeout, session_timeout=session_timeout,
                                   drain_timeout=drain_timeout, nic_firmware=nic_firmware)
            outcome = rollout.apply(targets, names, creds, batch, options, tick)
            done, stopped, untouched = outcome.results, outcome.stopped_at, outcome.untouched

    t_total = time.monotonic() - t_start
    if fmt == "table":
        _report(done, action, model.name, untouched)
    rollout.write_results(results_path, action, done, {"fabric": model.name, "stopped_at": stopped,
                                                        "untouched": untouched, "lab": lab,
                                                        "seconds": round(t_total, 3), "workers": workers})
    if fmt == "json":
        sys.stdout.write(results_path.read_text())
        sys.stdout.flush()
    (out if fmt == "table" else err).print(f"results: {results_path} ({t_total:.1f} s)")
    if stopped:
        (out if fmt == "table" else err).print(f"[red]rollout stopped at {stopped}[/]; {len(untouched)} device(s) untouched: "
                  f"{', '.join(untouched[:8])}{' ...' if len(untouched) > 8 else ''}", highlight=False)
        sys.exit(1)
    if any(r.result in rollout.FAILED for r in done):
        sys.exit(1)


def _report(done: list, action: str, fabric: str, untouched: list[str]) -> None:  # noqa: ANN001
    for r in done:
        for text in r.diff.values():
            sys.stdout.write(text)
    sys.stdout.flush()
    table = Table(title=f"deploy {action}: {fabric}")
    for col in ("device", "result", "files changed", "seconds", "error / notes"):
        table.add_column(col, overflow="fold")
    for r in done:
        detail = "; ".join(([r.error] if r.error else []) + r.notes)
        if r.drain.get("drained"):
            detail += f"; drain: neighbours' ECMP {r.drain.get('before')} -> {r.drain['drained']} " \
                      f"in {r.drain.get('drained_after_s')} s -> {r.drain.get('restored')}"
        table.add_row(r.device, r.result, str(len(r.diff)), f"{sum(s for _, s in r.steps):.1f}", detail)
    out.print(table)
    counts: dict[str, int] = {}
    for r in done:
        counts[r.result] = counts.get(r.result, 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    out.print(f"{len(done)} devices: {summary}" + (f"; untouched: {len(untouched)}" if untouched else ""))


def _require_valid(inventory: Path, templates: Path | None) -> None:
    try:
        from netauto.validate.api import errors_for
    except ImportError as exc:
        raise NetautoError("validation is not available; use --skip-validate to push anyway") from exc
    errors = errors_for(inventory, templates)
    if errors:
        raise NetautoError(f"validation found {len(errors)} error(s) (first: {errors[0]}); fix them or use "
                           f"--skip-validate")
