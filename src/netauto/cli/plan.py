"""`netauto plan --from OLD --to NEW`: devices, cables and configs a change of inventory takes;
`netauto plan racks -i INV`: every device's rack in the data hall (inventory `hall:`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from netauto.cli.app import cli
from netauto.cli.options import inventory_option
from netauto.errors import InventoryError
from netauto.growth import plan, to_text
from netauto import prices as pricing
from netauto import pipeline


@cli.group("plan", invoke_without_command=True)
@click.option("--from", "old", type=click.Path(path_type=Path), help="Inventory as built.")
@click.option("--to", "new", type=click.Path(path_type=Path), help="Inventory to grow to.")
@click.option("--all", "show_all", is_flag=True, help="List every line, not the first 20 of each section.")
@click.option("--prices", type=click.Path(path_type=Path), default=None,
              help="CSV part,unit_price,currency: the cost of the bill-of-materials delta.")
@click.pass_context
def plan_cmd(ctx: click.Context, old: Path | None, new: Path | None, show_all: bool, prices: Path | None) -> None:
    """Devices to add/remove, cables to add/move/remove, existing devices whose config changes, and the
    bill-of-materials delta, from inventory OLD to inventory NEW (`plan racks`: the racks of one inventory)."""
    if ctx.invoked_subcommand is not None:
        return
    if old is None or new is None:
        raise click.UsageError("give both --from and --to (or a subcommand: plan racks)")
    table = pricing.load(prices) if prices is not None else None  # a bad price file before the long plan
    p = plan(old, new)
    if table is not None and not p.bom_compared:  # no bill delta counted is no cost, never "+0"
        raise InventoryError("--prices: no bill-of-materials delta to price", file=new,
                             hint="add a bom: section to both inventories (see examples/cluster-64/inventory/bom.yaml)")
    sys.stdout.write(to_text(p, limit=10**9 if show_all else 20))
    if table is not None:
        sys.stdout.write(pricing.delta_text(*pricing.delta_cost(p.bom_delta, table), table.currency))


@plan_cmd.command("racks")
@inventory_option
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "svg"]), default="table", show_default=True,
              help="table, csv (rack,u,device,model,size_u,power_kw) or an SVG floor plan with rack elevations.")
def racks_cmd(inventory: Path, fmt: str) -> None:
    """Every rack of the data hall (inventory `hall:`): its devices, rack units and power against its budget."""
    from netauto.racks import to_csv, to_svg, to_table  # lazy: +16 modules (netauto.racks) in every `netauto --help` otherwise; only this command needs them

    loaded = pipeline.load(inventory)
    if loaded.inventory.hall is None:
        raise InventoryError("the inventory has no hall: section", file=loaded.root,
                             hint="add hall: (rows, racks_per_row, power_kw; see examples/cluster-64/inventory/hall.yaml)")
    cluster = pipeline.resolve_cluster_model(loaded)
    assert cluster.hall is not None
    sys.stdout.write({"table": to_table, "csv": to_csv, "svg": to_svg}[fmt](cluster.hall))
