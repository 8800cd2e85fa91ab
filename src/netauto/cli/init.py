"""`netauto init DIR` (a starter inventory) and `netauto schema` (the inventory's JSON schema)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

from netauto.cli.app import cli, out


@cli.command("init")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False), default=Path("inventory"))
@click.option("--name", default=None, help="Fabric name (default: the folder's parent name, else `fabric1`).")
@click.option("--nos", type=click.Choice(["cumulus", "sonic"]), default="cumulus", show_default=True,
              help="NOS of every switch (mix them later with fabric.nos.leaf/spine or per-device overrides).")
@click.option("--rails", type=click.IntRange(1, 16), default=8, show_default=True, help="NICs (rails) per server.")
@click.option("--servers", type=click.IntRange(1, 32), default=4, show_default=True, help="GPU servers in the SU.")
@click.option("--spines", type=click.IntRange(1, 16), default=2, show_default=True, help="Spines.")
@click.option("--sus", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Scalable units (grow later by raising topology.sus_per_pod: names carry the SU).")
@click.option("--storage", type=click.IntRange(0, 64), default=0, show_default=True,
              help="Storage nodes on a storage network (0: no storage network).")
@click.option("--oob", is_flag=True, help="The out-of-band network (BMCs and switch management ports).")
@click.option("--kubernetes", type=click.Choice(["pf", "vf"]), default=None,
              help="The pods' RDMA networks: pf (the rail NICs, one pod per node) or vf (SR-IOV VFs; the host "
                   "links become leaf-subnet).")
@click.option("--force", is_flag=True, help="Overwrite files that exist.")
def init_cmd(directory: Path, name: str | None, nos: str, rails: int, servers: int, spines: int, sus: int,
             storage: int, oob: bool, kubernetes: str | None, force: bool) -> None:
    """Write a starter source of truth to DIRECTORY (default: inventory/) that renders and validates, with
    the JSON schema for editor completion (yaml-language-server modelines)."""
    from netauto.inventory.starter import StarterOptions, write_starter  # lazy: +125 modules (pydantic, netauto.inventory) in every `netauto --help` otherwise; only this command needs them
    from netauto.pipeline import build_cluster, free_output  # lazy: +254 modules (pydantic, jinja2, yaml) in every `netauto --help` otherwise; only this command needs them

    if name is None:
        parent = directory.resolve().parent.name if directory.name == "inventory" else directory.resolve().name
        name = re.sub(r"[^A-Za-z0-9_.-]", "-", parent).strip("-._") or "fabric1"
        if not name[0].isalnum():
            name = "fabric1"
    opt = StarterOptions(name, nos, rails, servers, spines, sus, storage, oob, kubernetes)
    written = write_starter(directory, opt, force)
    cluster = build_cluster(directory)  # the starter must load and resolve; a failure here is a netauto bug
    model = cluster.compute
    out.print(f"wrote {len(written)} files to {directory}: {', '.join(p.name for p in written)}", highlight=False, soft_wrap=True)
    more = "".join(f", {p.name} network {len(p.fabric.switches)} switches" for p in cluster.networks)
    more += f", OOB {len(cluster.oob.switches)} switches" if cluster.oob else ""
    out.print(f"fabric {model.name}: {len(model.switches)} switches, {len(model.servers)} servers, "
              f"{len(model.links)} links{more}", highlight=False, soft_wrap=True)
    build = free_output(directory, Path("build"), model.name)  # build/<name> may be where the inventory is
    out.print(f"next: netauto render -i {directory} -o {build} && netauto validate -i {directory}", highlight=False,
              soft_wrap=True)


@cli.command("schema")
@click.option("--whole", is_flag=True,
              help="Schema of the merged inventory (fabric, topology required) instead of one file's.")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write here instead of stdout.")
def schema_cmd(whole: bool, output: Path | None) -> None:
    """Print the JSON schema of an inventory file (from the pydantic models), for editors and CI linters.

    VS Code / vim / emacs with yaml-language-server: put `# yaml-language-server: $schema=<file>` on the
    first line of each inventory file (`netauto init` does)."""
    from netauto.inventory.starter import inventory_schema  # lazy: +125 modules (pydantic, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

    text = json.dumps(inventory_schema(whole), indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    output.write_text(text)
    out.print(f"wrote {output}", highlight=False, soft_wrap=True)
