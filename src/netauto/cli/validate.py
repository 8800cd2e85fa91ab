"""`netauto validate`: prove the rendered configs right before anything is pushed; `netauto batfish-snapshot`."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import time

from netauto.cli.options import inventory_option, templates_option
from netauto.cli.app import PipeConsole, cli, out
from netauto.validate.findings import CHECKS
from netauto.validate.rules import load_rules
from netauto.validate.findings import Finding

@cli.command("validate")
@inventory_option
@click.option("--configs", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Check an already rendered tree (as `netauto render -o DIR` writes it: DIR/<fabric>/<device>/...) "
                   "and report every difference from intent. Default: render to a temporary folder and check that.")
@templates_option
@click.option("--format", "fmt", type=click.Choice(["table", "json", "junit"]), default="table", show_default=True,
              help="Report format (json and junit for CI).")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--external/--no-external", default=True, show_default=True,
              help="Run the real validators when installed: FRR (vtysh --dryrun, bgpd -C), ifupdown2 (ifup -s), "
                   "netplan generate, systemd-analyze verify, sh -n and shellcheck, promtool, yanglint.")
@click.option("--sonic-yang", "--yang-models", "yang_models", type=click.Path(path_type=Path, file_okay=False),
              default=None, envvar="NETAUTO_SONIC_YANG_DIR", show_envvar=True,
              help="SONiC YANG models folder: validate every config_db.json with yanglint. Default: the models "
                   "scripts/get-sonic-yang-models fetched, if any.")
@click.option("--simulate/--no-simulate", default=True, show_default=True, help="Offline BGP route simulation.")
@click.option("--drain", "drain", multiple=True, metavar="DEVICE",
              help="What if DEVICE is drained with graceful shutdown: reachability and ECMP width per leaf (repeatable).")
@click.option("--batfish", metavar="HOST[:PORT]", default=None,
              help="Also upload a Batfish snapshot to the service at HOST (port 9996) and map its answers (parse "
                   "issues, BGP sessions, duplicate IPs, undefined references, a traceroute per rail pair) to "
                   "BF-* findings. Needs pybatfish (pip install 'netauto-fabric[batfish]'); no service: exit 2 in seconds.")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the report to this file instead of stdout.")
@click.option("--list-rules", is_flag=True, help="List the rules (id, severity, description) and exit.")
def validate_cmd(inventory: Path, configs: Path | None, templates: Path | None, fmt: str, strict: bool, external: bool,
                 yang_models: Path | None, simulate: bool, drain: tuple[str, ...], batfish: str | None,
                 output: Path | None, list_rules: bool) -> None:
    """Parse the rendered files back and check them: fabric rules, real validators, route simulation.

    Exit 0 when clean, 1 when errors (or warnings with --strict), 2 for bad usage or input.
    """
    from netauto import pipeline  # lazy: +259 modules (pydantic, jinja2, yaml) in every `netauto --help` otherwise; only this command needs them
    from netauto.validate import report  # lazy: +196 modules (jinja2, rich, yaml) in every `netauto --help` otherwise; only this command needs them
    from netauto.validate.files import BadInput  # lazy: +129 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

    if list_rules:
        from rich.table import Table  # lazy: +8 modules (rich) in every `netauto --help` otherwise; only this command needs them

        import netauto.validate.oob  # noqa: F401  (registers the OOB-xx checks)  # lazy: +165 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them
        import netauto.validate.networks  # noqa: F401  (registers the PLANE-xx checks: the cross-network rules)  # lazy: +171 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

        table = Table(title="netauto validate: rules and checks")
        for col in ("id", "severity", "description"):
            table.add_column(col)
        for r in sorted(load_rules().values(), key=lambda r: r.id):
            table.add_row(r.id, r.severity, r.description)
        for cid, desc in CHECKS.items():
            table.add_row(cid, "error" if cid in ("SIM-01", "SIM-04", "SIM-05", "PARSE-01") or cid.startswith(("EXT", "BF-", "PLANE-", "OOB-")) else "warning", desc)
        out.print(table)
        return
    if configs is not None and not configs.is_dir():
        raise BadInput(f"--configs {configs}: no such folder")
    if drain and not simulate:
        raise BadInput("--drain needs the route simulation (drop --no-simulate)")
    bf_target = None
    if batfish:  # fail fast (no pybatfish, no service) before the long validation runs
        from netauto.validate.batfish_client import preflight  # lazy: +132 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

        bf_target = preflight(batfish)
    if yang_models is None and external:
        from netauto.validate.yang_models import find_models  # lazy: +20 modules (netauto.validate) in every `netauto --help` otherwise; only this command needs them

        yang_models = find_models().found

    t0 = time.perf_counter()
    built = pipeline.build(inventory, templates)  # rendered once: the intent for the rules, drift and Batfish
    render_s = time.perf_counter() - t0
    result = pipeline.validate_build(built, configs=configs, external=external, simulate=simulate,
                                     drain=list(drain), yang_models=yang_models, source=f"rendered from {inventory}")
    result.timings = {"render": render_s, **result.timings}
    if bf_target is not None and result.checked is not None:
        from netauto.validate.batfish_client import run as run_batfish  # lazy: +132 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

        bf = run_batfish(bf_target, built.model, result.checked)
        result.findings = sorted(result.findings + bf.findings, key=Finding.sort_key)
        result.notes += bf.notes
        result.timings.update(bf.timings)
    if fmt == "json":
        text = report.to_json(result, strict)
    elif fmt == "junit":
        text = report.to_junit(result)
    else:
        text = None
    if text is not None:
        if output:
            output.write_text(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    else:
        if output:
            with output.open("w") as fh:  # the console sanitiser too: findings quote --configs files
                report.print_table(result, PipeConsole(file=fh, width=160), strict)
        else:
            report.print_table(result, out, strict)
    code = result.exit_code(strict)
    if code:
        sys.exit(code)


@cli.command("batfish-snapshot")
@inventory_option
@click.option("--configs", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build the snapshot from an already rendered tree (DIR/<fabric>/...) instead of rendering.")
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Snapshot folder to write (configs/, sonic_configs/, batfish/layer1_topology.json).")
def batfish_snapshot_cmd(inventory: Path, configs: Path | None, output: Path) -> None:
    """Write a Batfish snapshot of the fabric (no connection to any Batfish service)."""
    from netauto import pipeline  # lazy: +259 modules (pydantic, jinja2, yaml) in every `netauto --help` otherwise; only this command needs them
    from netauto.validate.batfish import build_snapshot  # lazy: +130 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them
    from netauto.validate.files import FileSet  # lazy: +129 modules (jinja2, yaml, netauto.inventory) in every `netauto --help` otherwise; only this command needs them

    built = pipeline.build(inventory)
    files = (pipeline.configs_files(configs, built.model.name) if configs is not None
             else FileSet.from_artifacts(built.artifacts))
    stats = build_snapshot(built.model, files, output).stats()
    out.print(f"batfish snapshot of {stats['fabric']}: {stats['cumulus']} Cumulus, {stats['sonic']} SONiC configs, "
              f"{stats['edges']} layer-1 edges -> {output}", soft_wrap=True)
