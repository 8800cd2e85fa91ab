"""`netauto docs`: the fabric document, topology pictures and cabling plan."""

from __future__ import annotations

from pathlib import Path

import click

from netauto.cli.options import inventory_option
from netauto.cli.app import cli, out
from netauto.docs import write_docs
from netauto.docs.cluster import write_cluster_docs, write_hall_docs
from netauto.pipeline import build_cluster


@cli.command("docs")
@inventory_option
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False), default=Path("docs/fabric"),
              show_default=True, help="Folder for fabric.md, topology.svg/.dot, cabling.csv.")
@click.option("--su", "sus", type=int, multiple=True, metavar="N",
              help="Also draw SU N in detail (every leaf, server and spine): topology-suN.svg. Repeatable.")
@click.option("--all-sus", is_flag=True, help="Draw every SU in detail.")
@click.option("--no-svg", is_flag=True, help="Write the Graphviz .dot sources only (no `dot` needed).")
def docs_cmd(inventory: Path, output: Path, sus: tuple[int, ...], all_sus: bool, no_svg: bool) -> None:
    """Markdown fabric document (devices, ASNs, addressing, leaf port maps, rail plan, QoS), topology picture
    (aggregate view grouped by pod/SU/tier; per-SU detail with --su) and the cabling plan CSV."""
    cluster = build_cluster(inventory)
    model = cluster.compute
    if all_sus:
        sus = tuple(sorted({sw.su for sw in model.switches if sw.su is not None}))
    result = write_docs(model, output, sus=list(sus), svg=not no_svg)
    if cluster.networks or cluster.oob or cluster.compute_planes:  # every network's document in OUTPUT/<network>/, networks.md, all cables
        result.files += write_cluster_docs(cluster, output, svg=not no_svg).files
    result.files += write_hall_docs(cluster, output).files  # racks.svg, racks.csv with a hall: section
    # each file by its path under OUTPUT: a network's files are in OUTPUT/<network>/ with the same names as the fabric's
    names = [p.relative_to(output).as_posix() if p.is_relative_to(output) else str(p) for p in result.files]
    out.print(f"wrote docs of [bold]{model.name}[/] to {output}: " + ", ".join(names))
