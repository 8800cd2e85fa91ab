"""Core commands: render, diff, golden update, show model, show cabling."""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import asdict
from collections.abc import Iterable, Iterator
from pathlib import Path

import click
import yaml
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from netauto.errors import UsageError, did_you_mean
from netauto.pipeline import build_cluster, build_model, render, render_into, render_session
from netauto.model.compute_planes import plane_of
from netauto.model.types import Server, Switch
from netauto.render.compare import compare_tree
from netauto.render.output import Row, write_tree

from netauto.cli.app import cli, err, out
from netauto.cli.quick import rendered_line
from netauto.cli.options import complete_device, inventory_option, templates_option

golden_option = click.option(
    "--golden", type=click.Path(path_type=Path, file_okay=False), default=Path("golden_configs"), show_default=True,
    help="Golden configs folder; the fabric's files live in GOLDEN/<fabric>/.",
)


@cli.command("render")
@inventory_option
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False), default=Path("build"),
              show_default=True, help="Output folder; files go to OUTPUT/<fabric>/<device>/<on-device path>.")
@templates_option
def render_cmd(inventory: Path, output: Path, templates: Path | None) -> None:
    """Render every device's files from the inventory (atomically: all or nothing)."""
    session = render_session(inventory, output, templates)
    if session.current():
        out.print(f"{session.target} is up to date (inventory, templates and netauto unchanged)")
        return
    summary, stats = render_into(session, lambda devices: lambda rows: _with_progress(rows, devices))
    out.print(rendered_line(summary, stats, session.target, bold=lambda text: f"[bold]{text}[/]"), soft_wrap=True)


PROGRESS_MIN_DEVICES = 200  # below this a render takes well under a second: no bar


def _with_progress(rows: Iterable[Row], devices: int) -> Iterator[Row]:
    """Pass the written files' rows through, advancing a progress bar (on stderr, terminals only) per device."""
    with Progress(TextColumn("rendering"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                  transient=True, disable=devices < PROGRESS_MIN_DEVICES) as progress:
        task = progress.add_task("render", total=devices)
        last = None
        each = iter(rows)
        try:
            for row in each:
                device = row.rel.partition("/")[0]
                if device != last:
                    progress.advance(task)
                    last = device
                yield row
        finally:
            getattr(each, "close", lambda: None)()  # the pool's generator: stops its workers at once


@cli.command("diff")
@inventory_option
@templates_option
@golden_option
def diff_cmd(inventory: Path, templates: Path | None, golden: Path) -> None:
    """Re-render in memory and compare with the golden configs (exit 1 when they differ)."""
    model, artifacts = render(inventory, templates)
    result = compare_tree(artifacts, golden / model.name)
    for rel in result.missing:
        out.print(f"[yellow]only rendered:[/] {rel}")
    for rel in result.extra:
        out.print(f"[yellow]only in golden:[/] {rel}")
    for text in result.changed.values():
        sys.stdout.write(text)
    sys.stdout.flush()
    if result.clean:
        out.print(f"golden configs of {model.name} are up to date ({golden / model.name})")
        return
    out.print(
        f"[red]{len(result.changed)} changed, {len(result.missing)} new, {len(result.extra)} removed[/] "
        f"against {golden / model.name}; review, then run `netauto golden update`"
    )
    sys.exit(1)


@cli.group("golden")
def golden_group() -> None:
    """Manage golden configs."""


@golden_group.command("update")
@inventory_option
@templates_option
@golden_option
def golden_update(inventory: Path, templates: Path | None, golden: Path) -> None:
    """Re-render and replace GOLDEN/<fabric>/ (review the git diff afterwards)."""
    model, artifacts = render(inventory, templates)
    stats = write_tree(artifacts, golden / model.name, manifest=False)
    out.print(f"updated {golden / model.name}: {stats.written} files changed, {stats.unchanged} unchanged")


@cli.group("show")
def show_group() -> None:
    """Show the resolved model or the cabling plan."""


def _jsonable(obj: object) -> object:
    return json.loads(json.dumps(obj, default=str))


@show_group.command("model")
@inventory_option
@click.option("--device", default=None, shell_complete=complete_device, help="Only this switch or server.")
@click.option("--format", "fmt", type=click.Choice(["json", "yaml"]), default="yaml", show_default=True,
              help="Output format.")
def show_model(inventory: Path, device: str | None, fmt: str) -> None:
    """Print the resolved fabric model."""
    model = build_model(inventory)
    if device:
        devices: list[Switch | Server] = [*model.switches, *model.servers]
        found = [asdict(d) for d in devices if d.name == device]
        if not found:
            raise UsageError(f"--device {device!r}: no such device in fabric {model.name}"
                             f"{did_you_mean(device, [d.name for d in devices])}")
        data: object = found[0]
    else:
        data = model.to_dict()
    data = _jsonable(data)
    if fmt == "json":
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=False) + "\n")
    else:
        sys.stdout.write(yaml.safe_dump(data, sort_keys=False, width=120))


CABLING_COLUMNS = ("a_device", "a_port", "b_device", "b_port", "speed", "kind", "state")


@show_group.command("cabling")
@inventory_option
@click.option("--format", "fmt", type=click.Choice(["csv", "table", "json"]), default="csv", show_default=True,
              help="csv (one header line), a table, or JSON (a list of objects with the csv columns as keys).")
def show_cabling(inventory: Path, fmt: str) -> None:
    """Print the cabling plan: one row per physical link."""
    cluster = build_cluster(inventory)
    model = cluster.compute
    several = bool(cluster.networks or cluster.oob)  # a `network` column only when there is more than one
    planes = bool(cluster.compute_planes)  # a `plane` column (the compute plane both ends are on) with planes
    columns = CABLING_COLUMNS + (("network",) if several else ()) + (("plane",) if planes else ())
    rows = [
        (l.a_device, l.a_port, l.b_device, l.b_port, l.speed, l.kind, "enabled" if l.enabled else "disabled")
        + ((l.network,) if several else ()) + ((str(plane_of(l.network) or ""),) if planes else ())
        for l in cluster.all_links()
    ]
    if fmt == "json":
        sys.stdout.write(json.dumps([dict(zip(columns, row)) for row in rows], indent=2) + "\n")
        return
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        sys.stdout.write(buf.getvalue())
        return
    table = Table(title=f"cabling plan: {model.name} ({len(rows)} links)")
    for col in columns:
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    out.print(table)
