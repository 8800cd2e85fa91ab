"""`netauto check-sonic`: validate every rendered SONiC config_db.json against SONiC's YANG models."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from netauto.cli.options import inventory_option
from netauto.cli.app import cli, err, out
from netauto.pipeline import render
from netauto.validate.sonic_yang import CONFIG_DB_PATH, check_artifacts
from netauto.validate.yang_models import find_models


@cli.command("check-sonic")
@inventory_option
@click.option("--sonic-yang", "sonic_yang", type=click.Path(path_type=Path, file_okay=False), default=None,
              envvar="NETAUTO_SONIC_YANG_DIR", show_envvar=True,
              help="Folder of SONiC's YANG models (sonic-buildimage src/sonic-yang-models/yang-models, "
                   "yang-templates rendered). Default: what scripts/get-sonic-yang-models fetched. Without "
                   "models the check is skipped, and says so.")
@click.option("--require", is_flag=True, help="Exit 1 when the check is skipped (no models or no yanglint).")
def check_sonic(inventory: Path, sonic_yang: Path | None, require: bool) -> None:
    """Render in memory and validate each SONiC config_db.json with yanglint (converted to YANG-JSON first)."""
    if sonic_yang is None:
        sonic_yang = find_models().found
    model, artifacts = render(inventory)
    report = check_artifacts(artifacts, sonic_yang)
    if not report.files:
        out.print(f"no SONiC switches in {model.name}: no {CONFIG_DB_PATH} to check", soft_wrap=True)
        return
    if report.skipped:
        out.print(f"[{'red' if require else 'yellow'}]SKIPPED[/] SONiC YANG check of {report.files} {CONFIG_DB_PATH} "
                  f"file(s) in {model.name}: {report.skipped}", soft_wrap=True)
        if require:
            sys.exit(1)
        return
    if report.ok:
        out.print(f"[green]ok[/] {report.files} SONiC {CONFIG_DB_PATH} file(s) of {model.name} are valid against "
                  f"the YANG models in {sonic_yang}", soft_wrap=True)
        return
    for device, errors in report.errors.items():
        for text in errors:
            err.print(f"{device}/{CONFIG_DB_PATH}: {text}", highlight=False, soft_wrap=True)
    out.print(f"[red]{len(report.errors)} of {report.files}[/] SONiC config_db.json file(s) of {model.name} "
              f"fail the YANG check against {sonic_yang}", soft_wrap=True)
    sys.exit(1)
