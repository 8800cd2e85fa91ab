"""`netauto plan --from OLD --to NEW`: devices, cables and configs a change of inventory takes."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from netauto.cli.app import cli
from netauto.growth import plan, to_text


@cli.command("plan")
@click.option("--from", "old", type=click.Path(path_type=Path), required=True, help="Inventory as built.")
@click.option("--to", "new", type=click.Path(path_type=Path), required=True, help="Inventory to grow to.")
@click.option("--all", "show_all", is_flag=True, help="List every line, not the first 20 of each section.")
def plan_cmd(old: Path, new: Path, show_all: bool) -> None:
    """Devices to add/remove, cables to add/move/remove, existing devices whose config changes, and the
    bill-of-materials delta, from inventory OLD to inventory NEW."""
    sys.stdout.write(to_text(plan(old, new), limit=10**9 if show_all else 20))
