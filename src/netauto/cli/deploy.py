"""`netauto deploy`: dry-run diffs, or a safe rollout with gshut drain, verified apply and rollback."""

from __future__ import annotations

import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from netauto.cli.app import cli, err, out
from netauto.cli.options import adopt_option, complete_limit, inventory_option, templates_option
from netauto.deploy.redact import redact
from netauto.visible import plain, visible
from netauto.errors import NetautoError
from netauto.platforms.nos import CUMULUS_MODES

F = TypeVar("F", bound=Callable[..., Any])  # a click command function, decorated in place

if TYPE_CHECKING:
    from netauto.deploy.connection import DeviceSession
    from netauto.deploy.targets import Credentials, Target
    from netauto.pipeline import Build



def _host_key_mode(no_host_key_check: bool, accept_new: bool) -> str:
    """The host-key mode: strict, accept-new or off (loudly: open_session says so, and names every CHANGED key,
    on stderr)."""
    if no_host_key_check and accept_new:
        raise click.UsageError("--no-host-key-check and --accept-new-host-keys exclude each other")
    return "off" if no_host_key_check else "accept-new" if accept_new else "strict"


def _targets(inventory: Path, templates: Path | None, lab: str | None, no_host_key_check: bool, accept_new: bool,
             cumulus_mode: str | None = None, adopt: bool = False,
             record_id: bool = False) -> tuple[Build, dict[str, Target], Credentials]:
    """`record_id` (an apply): the inventory's fabric id is made now if this is its first deploy."""
    from netauto.deploy import identity  # lazy: +648 modules (netmiko, paramiko, jinja2) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.run_targets import built_targets  # lazy: +817 modules (netmiko, paramiko, pydantic, jinja2) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.targets import scrub_env  # lazy: +92 modules (jinja2, netauto.inventory, netauto.deploy) in every `netauto --help` otherwise; only this command needs them

    mode = _host_key_mode(no_host_key_check, accept_new)
    run = built_targets(inventory, templates, lab, mode, adopt, cumulus_mode=cumulus_mode, record_id=record_id)
    scrub_env()  # the credentials are read: no validator or other child process inherits a password
    if run.id_recorded:
        err.print(f"fabric id {run.fabric_id} recorded in {identity.id_file(inventory)}: the first deploy of "
                  f"{run.build.model.name}; commit it with the inventory (a device it reaches records it too)",
                  highlight=False)
    return run.build, run.targets, run.creds


_host_key_options = [
    click.option("--no-host-key-check", is_flag=True, help="Do NOT verify SSH host keys (explicit opt-out, warned "
                 "about and recorded per device in the results)."),
    click.option("--accept-new-host-keys", "accept_new", is_flag=True,
                 help="Trust a host not in known_hosts yet (its key is added); a changed key is still refused."),
]


def _with(options: Sequence[Callable[[Any], Any]]) -> Callable[[F], F]:
    def wrap(fn: F) -> F:
        for option in reversed(options):
            fn = option(fn)
        return fn
    return wrap


@cli.group("deploy", invoke_without_command=True)
@inventory_option
@templates_option
@click.option("--dry-run", is_flag=True, help="Only show per-device diffs against the running files; change nothing.")
@click.option("--limit", default=None, shell_complete=complete_limit,
              help="Devices: names, globs (su1-*), groups (role_spine, su_1, nos_sonic, servers) or role=leaf; "
                   "`a,b` union, `&role=leaf` intersection, `!spine1` exclusion (as Ansible's --limit).")
@click.option("--batch", type=click.IntRange(min=1), default=8, show_default=True,
              help="Servers/leaves per wave (spines: always one).")
@click.option("--workers", type=click.IntRange(min=1), default=20, show_default=True,
              help="Parallel SSH sessions for --dry-run.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation before changing devices.")
@click.option("--skip-validate", is_flag=True, help="Escape hatch: push even if `netauto validate` finds errors.")
@click.option("--lab", "lab", default=None, help="Target a running `netauto lab` (its management namespace and keys).")
@_with(_host_key_options)
@click.option("--confirm-timeout", type=float, default=600.0, show_default=True,
              help="On-device watchdog: seconds after which an unconfirmed push restores itself (at least "
                   "2 x drain-timeout + session-timeout + 30, at most 3600).")
@click.option("--session-timeout", type=click.FloatRange(min=1), default=90.0, show_default=True,
              help="Post-check: seconds to wait for every expected BGP session after the apply.")
@click.option("--drain-timeout", type=click.FloatRange(min=1), default=60.0, show_default=True,
              help="Seconds to wait for the neighbours to move traffic away (gshut) before giving up.")
@click.option("--nic-firmware", is_flag=True,
              help="Servers: also set the rail NICs' firmware (mlxconfig); a reboot or mlxfwreset activates it.")
@click.option("--results", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="JSON result file, 0600 (default: deploy-results/<action>-<timestamp>.json, dir 0700).")
@click.option("--results-dir", type=click.Path(path_type=Path, file_okay=False), default=Path("deploy-results"),
              show_default=True, help="Folder (made 0700) for the JSON result file <action>-<timestamp>.json when "
                                      "--results is not given; relative to the current folder.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table: diffs and a summary table; json: the result document (as in --results) on stdout, "
                   "progress on stderr.")
@click.option("--cumulus-mode", type=click.Choice(list(CUMULUS_MODES)), default=None,
              help="Cumulus switches: nvue (deploy owns NVUE's configuration) or linux-files (deploy owns frr.conf, "
                   "interfaces, QoS files; switches run without NVUE). Default: the inventory's "
                   "fabric.cumulus_config_mode (nvue); with --lab: linux-files.")
@click.option("--disable-nvue", is_flag=True,
              help="linux-files Cumulus switches where NVUE still owns the files (auto-save on, "
                   "/etc/nvue.d/startup.yaml present, PASSWORD_NVUE_SYNC not 'no'): switch NVUE off as NVIDIA "
                   "documents, inside the device lock before the push (auto-save off, startup.yaml moved to "
                   "/var/tmp/netauto/nvue-off/<run>/, PASSWORD_NVUE_SYNC=no); a rollback restores them. Without "
                   "it such a switch is refused. Never read from the environment.")
@adopt_option
@click.pass_context
def deploy_cmd(ctx: click.Context, inventory: Path, templates: Path | None, dry_run: bool, limit: str | None,
               batch: int, workers: int, yes: bool, skip_validate: bool, lab: str | None, no_host_key_check: bool,
               accept_new: bool, confirm_timeout: float, session_timeout: float, drain_timeout: float,
               nic_firmware: bool, results: Path | None, results_dir: Path, fmt: str, cumulus_mode: str | None,
               disable_nvue: bool = False, adopt: bool = False) -> None:
    """Push the rendered intent with Nornir + Netmiko (or show what would change with --dry-run).

    `netauto deploy status` shows each device's lock and pending watchdog, `netauto deploy clear` ends them."""
    if ctx.invoked_subcommand is not None:
        return
    from netauto.deploy import run as rollout  # lazy: +838 modules (pydantic, nornir, netmiko) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.device import CONFIRM_MAX, ApplyOptions, min_confirm_timeout  # lazy: +675 modules (netmiko, paramiko, jinja2) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.interrupt import on_signals  # lazy: imports deploy.run and deploy.device (above); only this command needs them

    lowest = min_confirm_timeout(drain_timeout, session_timeout)
    if not dry_run and not lowest <= confirm_timeout <= CONFIRM_MAX:
        raise click.BadParameter(f"{confirm_timeout:g} s: the watchdog must outlast the push's own waits, at least "
                                 f"{lowest:g} s (2 x --drain-timeout + --session-timeout + 30) and at most "
                                 f"{CONFIRM_MAX:g} s", param_hint="--confirm-timeout")
    t_start = time.monotonic()
    built, targets, creds = _targets(inventory, templates, lab, no_host_key_check, accept_new, cumulus_mode, adopt,
                                     record_id=not dry_run)
    model = built.model
    names = rollout.select(targets, limit)
    action = "dry-run" if dry_run else "apply"
    results_path = results or _default_results(action, results_dir)

    if not dry_run and not skip_validate:
        _require_valid(built)
    if not dry_run and not yes:
        click.confirm(f"Deploy to {len(names)} device(s) of {model.name}?", abort=True, err=fmt == "json")

    extra: dict[str, object] = {"fabric": model.name, "lab": lab, "workers": workers,
                                "host_key_check": creds.host_key_mode}
    done: list = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=out if fmt == "table" else err, transient=True) as progress:
        bar = progress.add_task(action, total=len(names))

        def tick(result: object) -> None:
            done.append(result)
            progress.advance(bar)

        if dry_run:
            rollout.dry_run(targets, names, creds, workers, tick)
            stopped, untouched, interrupted = None, [], False
        else:
            options = ApplyOptions(confirm_timeout=confirm_timeout, session_timeout=session_timeout,
                                   drain_timeout=drain_timeout, nic_firmware=nic_firmware,
                                   disable_nvue=disable_nvue)
            extra["run"] = options.run.run
            with on_signals(options, done, results_path, extra, names):
                outcome = rollout.apply(targets, names, creds, batch, options, tick)
            stopped, untouched, interrupted = outcome.stopped_at, outcome.untouched, options.stop.is_set()
            done[:] = outcome.results

    t_total = time.monotonic() - t_start
    show = out if fmt == "table" else err
    if fmt == "table":
        _report(done, action, model.name, untouched)
    extra["warnings"] = [w for r in done for w in r.warnings]
    rollout.write_results(results_path, action, done, {**extra, "stopped_at": stopped, "untouched": untouched,
                                                        "interrupted": interrupted, "seconds": round(t_total, 3)})
    if fmt == "json":
        sys.stdout.write(results_path.read_text())
        sys.stdout.flush()
    show.print(f"results: {results_path} ({t_total:.1f} s)")
    pending = [r for r in done if r.device_state and r.action == "apply"]
    for r in pending:
        show.print(f"[bold red]{r.device}: {plain(r.device_state)}[/]", highlight=False)
    if interrupted:
        show.print(f"[red]interrupted[/]: devices in flight were rolled back ({len(untouched)} not started)",
                   highlight=False)
        sys.exit(130)
    if stopped:
        show.print(f"[red]rollout stopped at {stopped}[/]; {len(untouched)} device(s) untouched: "
                   f"{', '.join(untouched[:8])}{' ...' if len(untouched) > 8 else ''}", highlight=False)
        sys.exit(1)
    if any(r.result in rollout.FAILED for r in done):
        sys.exit(1)


def _default_results(action: str, folder: Path = Path("deploy-results")) -> Path:
    """The results folder (--results-dir, default ./deploy-results) is made (or kept) 0700: it holds device
    configuration."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(f"{folder}: cannot create it: {exc.strerror}", param_hint="--results-dir") from None
    if folder.stat().st_uid == os.getuid():
        folder.chmod(0o700)
    return _claim_results(folder, f"{action}-{time.strftime('%Y%m%d-%H%M%S')}")


def _claim_results(folder: Path, stem: str) -> Path:
    """A results file of this run alone: `<stem>-<run id>.json`, created empty and 0600 with O_EXCL (two runs
    in the same second, or a name planted in the folder, never share or follow one)."""
    for _ in range(100):
        path = folder / f"{stem}-{secrets.token_hex(4)}.json"
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        except FileExistsError:
            continue
        except OSError as exc:
            raise click.BadParameter(f"{path}: cannot create it: {exc.strerror}", param_hint="--results-dir") from None
        return path
    raise click.BadParameter(f"{folder}: no free results file name after 100 tries", param_hint="--results-dir")


_state_options = [
    inventory_option,
    templates_option,
    click.option("--limit", default=None, shell_complete=complete_limit,
                 help="Devices: names, globs, groups, role=leaf; `,` union, `&` intersection, `!` exclusion."),
    click.option("--lab", "lab", default=None, help="Target a running `netauto lab`."),
    click.option("--workers", type=click.IntRange(min=1), default=20, show_default=True,
                 help="Parallel SSH sessions."),
    *_host_key_options,
]


def _each_device(inventory: Path, templates: Path | None, limit: str | None, lab: str | None, workers: int,
                 no_host_key_check: bool, accept_new: bool,
                 fn: Callable[[DeviceSession, Target], list[str]]) -> dict[str, tuple[bool, list[str]]]:
    """fn(session, target) on every selected live device, in parallel: {device: (ok, lines)}."""
    from concurrent.futures import ThreadPoolExecutor  # lazy: +6 modules (_queue, concurrent) in every `netauto --help` otherwise; only this command needs them

    from netauto.deploy import run as rollout  # lazy: +838 modules (pydantic, nornir, netmiko) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.connection import open_session  # lazy: +564 modules (netmiko, paramiko, ttp) in every `netauto --help` otherwise; only this command needs them
    from netauto.deploy.targets import session_options  # lazy: +92 modules (jinja2, netauto.inventory, netauto.deploy) in every `netauto --help` otherwise; only this command needs them

    _, targets, creds = _targets(inventory, templates, lab, no_host_key_check, accept_new)
    names = [n for n in rollout.select(targets, limit) if not targets[n].skip_reason]

    def one(name: str) -> tuple[bool, list[str]]:
        t = targets[name]
        try:
            session = open_session(t.host, t.port, t.username, password=creds.password,
                                   **session_options(t, creds))  # type: ignore[arg-type]
        except Exception as exc:  # noqa: BLE001
            return False, [f"unreachable: {exc}"]
        try:
            return True, fn(session, t)
        except NetautoError as exc:
            return False, [str(exc)]
        finally:
            session.close()

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(names) or 1))) as pool:
        return dict(zip(names, pool.map(one, names)))


def _print_states(found: dict[str, tuple[bool, list[str]]], title: str) -> None:
    table = Table(title=title)
    for col in ("device", "state"):
        table.add_column(col, overflow="fold")
    for device, (ok, lines) in found.items():
        table.add_row(device, ("" if ok else "[red]") + plain("\n".join(lines)) + ("" if ok else "[/]"))
    out.print(table)


@deploy_cmd.command("status")
@_with(_state_options)
def status_cmd(inventory: Path, templates: Path | None, limit: str | None, lab: str | None, workers: int,
               no_host_key_check: bool, accept_new: bool) -> None:
    """Each device's deploy lock, unfinished runs (watchdog, deadline), drain and recent history.
    Exit 1 when a device is busy, drained, unreachable or holds a state folder that is not netauto's."""
    from netauto.deploy import devstate  # lazy: +569 modules (netmiko, paramiko, ttp) in every `netauto --help` otherwise; only this command needs them

    def look(session: DeviceSession, target: Target) -> list[str]:
        state = devstate.status(session, target.frr_exec if target.kind == "switch" else None)
        lines = [state.describe() if state.busy or state.drained or state.foreign else "free"]
        return lines + [f"history: {h}" for h in state.history[-3:]]

    found = _each_device(inventory, templates, limit, lab, workers, no_host_key_check, accept_new, look)
    _print_states(found, "deploy status")
    if any(not ok or lines[0] != "free" for ok, lines in found.values()):
        sys.exit(1)


@deploy_cmd.command("clear")
@_with(_state_options)
@click.option("--keep", is_flag=True, help="Do not roll back: stop the watchdogs and release the lock, leaving the "
              "files as they are.")
@click.option("--force", is_flag=True, help="Also when the run holding the lock still runs on this host.")
def clear_cmd(inventory: Path, templates: Path | None, limit: str | None, lab: str | None, workers: int,
              no_host_key_check: bool, accept_new: bool, keep: bool, force: bool) -> None:
    """End what an interrupted or concurrent run left on devices: roll it back now (verified, as its watchdog
    would), remove its stage dir and release the lock (`--keep`: release without rolling back)."""
    from netauto.deploy import devstate  # lazy: +569 modules (netmiko, paramiko, ttp) in every `netauto --help` otherwise; only this command needs them

    def clear(session: DeviceSession, target: Target) -> list[str]:
        done = devstate.clear(session, target.name, keep=keep, force=force)
        after = devstate.status(session, target.frr_exec if target.kind == "switch" else None)
        return done + [f"now: {after.describe() if after.busy or after.drained else 'free'}"]

    found = _each_device(inventory, templates, limit, lab, workers, no_host_key_check, accept_new, clear)
    _print_states(found, "deploy clear")
    if any(not ok for ok, _ in found.values()):
        sys.exit(1)


def _report(done: list, action: str, fabric: str, untouched: list[str]) -> None:  # noqa: ANN001
    for r in done:
        for text in r.diff.values():
            sys.stdout.write(visible(text))  # the diff the operator approves: shown as the device has it
    sys.stdout.flush()
    table = Table(title=f"deploy {action}: {fabric}")
    for col in ("device", "result", "files changed", "seconds", "error / notes"):
        table.add_column(col, overflow="fold")
    for r in done:
        detail = redact("; ".join(([r.error] if r.error else []) + r.notes))
        if r.drain.get("drained"):
            detail += f"; drain: neighbours' ECMP {r.drain.get('before')} -> {r.drain['drained']} " \
                      f"in {r.drain.get('drained_after_s')} s -> {r.drain.get('restored')}"
        table.add_row(r.device, r.result, str(len(r.diff)), f"{sum(s for _, s in r.steps):.1f}", plain(detail))
    out.print(table)
    counts: dict[str, int] = {}
    for r in done:
        counts[r.result] = counts.get(r.result, 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    out.print(f"{len(done)} devices: {summary}" + (f"; untouched: {len(untouched)}" if untouched else ""))


def _require_valid(built: Build) -> None:
    """The validation gate on exactly the model and files about to be pushed."""
    try:
        from netauto.validate.api import errors_for  # lazy: +94 modules (jinja2, netauto.inventory, netauto.validate) in every `netauto --help` otherwise; only this command needs them
    except ImportError as exc:
        raise NetautoError("validation is not available; use --skip-validate to push anyway") from exc
    errors = errors_for(built.cluster, built.artifacts)
    if errors:
        raise NetautoError(f"validation found {len(errors)} error(s) (first: {errors[0]}); fix them or use "
                           f"--skip-validate")
