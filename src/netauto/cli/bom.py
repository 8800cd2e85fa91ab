"""`netauto bom`: the bill of materials of every network of the cluster."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from netauto.bom import bill_of_materials, to_csv, to_markdown
from netauto.cli.app import cli
from netauto.cli.options import inventory_option
from netauto import pipeline


@cli.command("bom")
@inventory_option
@click.option("--format", "fmt", type=click.Choice(["csv", "markdown"]), default="csv", show_default=True,
              help="csv (network,category,item,length,count) or a Markdown table per network.")
def bom_cmd(inventory: Path, fmt: str) -> None:
    """Switches, transceivers (by the platform's cage type and breakout) and cables by length class, per
    network and in total."""
    loaded = pipeline.load(inventory)
    cluster = pipeline.resolve_cluster_model(loaded)
    lines = bill_of_materials(loaded, cluster)
    sys.stdout.write(to_csv(lines) if fmt == "csv" else to_markdown(lines, cluster.name))
