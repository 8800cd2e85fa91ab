"""`netauto bom`: the bill of materials of every network of the cluster (priced with --prices)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from netauto.bom import bill_of_materials, to_csv, to_markdown
from netauto.cli.app import cli
from netauto.cli.options import inventory_option
from netauto import pipeline
from netauto import prices as pricing

log = logging.getLogger(__name__)


@cli.command("bom")
@inventory_option
@click.option("--format", "fmt", type=click.Choice(["csv", "markdown"]), default="csv", show_default=True,
              help="csv (network,category,item,length,count,part) or a Markdown table per network.")
@click.option("--prices", type=click.Path(path_type=Path), default=None,
              help="CSV part,unit_price,currency: adds part, unit_price and total columns and the totals (csv only).")
def bom_cmd(inventory: Path, fmt: str, prices: Path | None) -> None:
    """Switches, transceivers (by the platform's cage type and breakout) and cables by length class, per
    network and in total; with --prices each line's part number, price and the cost per network and overall."""
    if prices is not None and fmt != "csv":
        raise click.UsageError("--prices goes with --format csv")
    loaded = pipeline.load(inventory)
    cluster = pipeline.resolve_cluster_model(loaded)
    lines = bill_of_materials(loaded, cluster)
    if prices is None:
        sys.stdout.write(to_csv(lines) if fmt == "csv" else to_markdown(lines, cluster.name))
        return

    table = pricing.load(prices)
    missing = pricing.unpriced(lines, table)
    if missing:
        log.warning("not priced (not in %s; the totals leave them out): %s", prices.name, ", ".join(missing))
    sys.stdout.write(pricing.to_csv(lines, table))
