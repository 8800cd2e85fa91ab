"""`netauto lab`: run the rendered fabric on real FRR in network namespaces (root, Debian packages only)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from netauto.errors import NetautoError
from netauto.cli.options import inventory_option, templates_option
from netauto.cli.app import cli, err, out
from netauto.visible import plain
from netauto.lab.state import labs_root, list_labs, load_state, save_state
from netauto.lab.plan import NOT_EMULATED, build_plan

if TYPE_CHECKING:
    from collections.abc import Iterable

    from netauto.lab.check import CheckReport

name_option = click.option("--name", default="default", show_default=True,
                           help="Lab name; namespaces are na-<name>-<device>, state in /var/lib/netauto/labs/<name>.")


def _log(msg: str) -> None:
    out.print(msg, highlight=False, soft_wrap=True)


def _grouped_notes(notes: list[str]) -> list[str]:
    """'spine1: x' + 'spine2: x' -> 'x (spine1, spine2)'."""
    groups: dict[str, list[str]] = {}
    for n in notes:
        dev, _, msg = n.partition(": ")
        if not msg:
            dev, msg = "", n
        groups.setdefault(msg, []).append(dev)
    lines = []
    for msg, devs in groups.items():
        devs = [d for d in devs if d]
        shown = ", ".join(devs[:4]) + (f" +{len(devs) - 4} more" if len(devs) > 4 else "")
        lines.append(f"{msg}" + (f"  [{len(devs)}: {shown}]" if devs else ""))
    return lines


@cli.group("lab")
def lab_group() -> None:
    """Emulate the rendered fabric: real FRR + ifupdown2 per switch in network namespaces (needs root)."""


@lab_group.command("preflight")
@click.option("--ssh", is_flag=True, help="Also check what --ssh needs (sshd, ssh-keygen).")
def preflight_cmd(ssh: bool) -> None:
    """Check root, kernel features and tools; explain what is missing."""
    from netauto.lab.preflight import preflight  # lazy: +13 modules (netauto.lab) in every `netauto --help` otherwise; only this command needs them

    pf = preflight(ssh=ssh)
    for i in pf.info:
        _log(f"note: {i}")
    for p in pf.problems:
        err.print(f"[red]missing:[/] {p}", highlight=False, soft_wrap=True)
    if not pf.ok:
        sys.exit(1)
    _log("preflight ok: root, veth, bridge, IPv6, frr, frr-pythontools, ifupdown2, iproute2, ping" + (", openssh" if ssh else ""))


@lab_group.command("up")
@inventory_option
@name_option
@click.option("--ssh", is_flag=True, help="Run sshd per device on a lab-only mgmt network (key-based; lab known_hosts).")
@click.option("--servers", "servers", type=click.IntRange(min=0), default=None,
              help="Only the first N servers per SU (default: all).")
@templates_option
@click.option("--check/--no-check", "do_check", default=False, help="Run `lab check` right after up.")
@click.option("--monitoring", is_flag=True, help="Also run frr/node exporters in the nodes and a Prometheus with the "
              "generated rules in the lab's management namespace (`netauto lab alerts`).")
def up_cmd(inventory: Path, name: str, ssh: bool, servers: int | None, templates: Path | None, do_check: bool,
           monitoring: bool = False) -> None:
    """Build namespaces + veths from the cabling, start FRR/ifupdown2 per switch, configure hosts from netplan."""
    from netauto.lab import runtime  # lazy: +24 modules (netauto.lab) in every `netauto --help` otherwise; only this command needs them

    from netauto.lab.networks import build_cluster_plan  # lazy: +52 modules (jinja2, netauto.lab, netauto.render) in every `netauto --help` otherwise; only this command needs them
    from netauto.pipeline import build  # lazy: +182 modules (pydantic, jinja2, netauto.pipeline) in every `netauto --help` otherwise; only this command needs them

    t0 = time.monotonic()
    built = build(inventory, templates)
    cluster, model, artifacts = built.cluster, built.model, built.artifacts
    if cluster.networks or cluster.compute_planes:  # every network's switches, each server with all its NICs
        plan = build_cluster_plan(cluster, artifacts, name, servers)
    else:
        plan = build_plan(model, artifacts, name, servers)
    s = plan.summary()
    _log(f"lab [bold]{name}[/]: fabric {model.name}: {s['switches']} switches, {s['servers']} servers, "
         f"{s['links']} links, {s['sessions']} BGP sessions expected")
    if monitoring:
        from netauto.lab import monitoring as lab_mon  # lazy: +80 modules (netauto.monitoring, netauto.lab) in every `netauto --help` otherwise; only this command needs them

        if lab_mon.preflight():
            raise NetautoError("lab --monitoring: " + "; ".join(lab_mon.preflight()))
    st = runtime.up(plan, ssh=ssh, log=_log, fabric_id=_fabric_id(inventory))
    if monitoring:
        try:
            st["monitoring"] = lab_mon.start(st, cluster, _log)
            save_state(st)
        except BaseException:
            runtime.down(name, log=_log)
            raise
    _log(f"started in {time.monotonic() - t0:.1f} s (render + namespaces + daemons); state: {st['dir']}")
    _log("[bold]adapted for this kernel/lab[/] (frr.conf is used unmodified):")
    for line in _grouped_notes(plan.notes):
        _log(f"  - {line}")
    _log("  - hosts: rendered netplan applied with `ip` (addresses, per-rail tables, rules, routes) and sysctl.d; no systemd-networkd")
    _log(f"[yellow]{NOT_EMULATED}[/]")
    for w in st.get("warnings", []):
        err.print(f"[yellow]warning:[/] {w}", highlight=False, soft_wrap=True)
    if ssh:
        _log(f"ssh: ip netns exec na-{name}-mgmt ssh -F {st['dir']}/ssh/ssh_config <device>   (or: netauto lab ssh --name {name} <device>)")
    _log(f"next: netauto lab check --name {name}; netauto lab exec --name {name} <device> -- vtysh -c 'show bgp summary'")
    if do_check:
        ctx = click.get_current_context()
        ctx.invoke(check_cmd, name=name, timeout=90.0, drained=(), no_ping=False)


def _print_report(rep: CheckReport, verbose: bool, st_leaves: Iterable[str] = ()) -> None:
    table = Table(title="lab check", expand=False)
    for col in ("check", "device", "item", "expected", "actual", "ok"):
        table.add_column(col)
    kinds: dict[str, list] = {}
    for r in rep.results:
        kinds.setdefault(r.kind, []).append(r)
    for kind, rs in kinds.items():
        bad = [r for r in rs if not r.ok]
        shown = rs if verbose or kind in ("ecmp", "drain") else bad
        for r in shown:
            table.add_row(*map(plain, (r.kind, r.device, r.item, r.expected, r.actual)),
                          "[green]ok[/]" if r.ok else "[red]FAIL[/]")
        if not verbose and kind not in ("ecmp", "drain"):
            table.add_row(kind, "all", f"{len(rs)} checked", "", f"{len(rs) - len(bad)} ok, {len(bad)} failed",
                          "[green]ok[/]" if not bad else "[red]FAIL[/]")
    out.print(table)
    if rep.forwarded:
        leaves = set(st_leaves)
        fw = ", ".join(f"{d} {n}" for d, n in sorted(rep.forwarded.items()) if d not in leaves)
        _log(f"IPv4 packets forwarded by each spine during the pings: {fw}")
    _log(" ".join(f"{k} {v:.1f} s" for k, v in rep.timings.items()))


def _fabric_id(inventory: Path) -> str | None:
    """The inventory's fabric id, recorded now if the lab is its first deploy (deploy/identity.py): every copy
    of the inventory made afterwards deploys to the lab as the same fabric. A read-only inventory: none (the lab's
    markers then name the fabric only, and its first confirmed push records the id)."""
    from netauto.deploy import identity  # lazy: +595 modules (netmiko, paramiko, jinja2) in every `netauto --help` otherwise; only this command needs them

    try:
        return identity.record_id(inventory)[0]
    except identity.InventoryIdError as exc:
        if identity.id_file(inventory).exists():
            raise  # a fabric-id that is not one: bad input
        _log(f"no fabric id recorded: {plain(str(exc))}")
        return None


def check_report_json(name: str, rep: CheckReport) -> dict:
    """`lab check --format json`: every result (not only the failures), the timings, spine forwarding counts."""
    return {"lab": name, "ok": rep.ok, "results": [asdict(r) for r in rep.results],
            "timings": {k: round(v, 3) for k, v in rep.timings.items()}, "forwarded": dict(rep.forwarded)}


@lab_group.command("check")
@name_option
@click.option("--timeout", type=float, default=90.0, show_default=True, help="Seconds to wait for every expected session.")
@click.option("--drained", multiple=True, help="Switch drained at runtime (expect its paths gone and no traffic through it).")
@click.option("--no-ping", is_flag=True, help="Skip the ping matrix.")
@click.option("-v", "--verbose", is_flag=True, help="List every session and ping, not only failures.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="json: {lab, ok, results: [{kind, device, item, expected, actual, ok}], timings, forwarded} "
                   "on stdout (progress on stderr).")
def check_cmd(name: str, timeout: float, drained: tuple[str, ...], no_ping: bool, verbose: bool = False,
              fmt: str = "table") -> None:
    """Wait for every expected BGP session, check ECMP width and ping rail to rail; exit 1 on any failure."""
    from netauto.lab.check import check  # lazy: +28 modules (netauto.lab) in every `netauto --help` otherwise; only this command needs them

    st = load_state(name)
    log = _log if fmt == "table" else (lambda msg: err.print(msg, highlight=False, soft_wrap=True))
    rep = check(st, timeout=timeout, drained=set(drained), pings=not no_ping, log=log)
    if fmt == "json":
        sys.stdout.write(json.dumps(check_report_json(name, rep), indent=2) + "\n")
        sys.stdout.flush()
        sys.exit(0 if rep.ok else 1)
    _print_report(rep, verbose, st['ecmp'])
    if not rep.ok:
        for r in rep.failures()[:20]:
            err.print(f"[red]FAIL[/] {plain(r.kind)} {plain(r.device)} {plain(r.item)}: expected {plain(r.expected)}, "
                      f"got {plain(r.actual)}", highlight=False, soft_wrap=True)
        sys.exit(1)
    _log(f"[green]lab {name}: all checks passed[/]")


@lab_group.command("status")
@name_option
@click.option("--memory", is_flag=True, help="Also sum the PSS of each device's processes.")
def status_cmd(name: str, memory: bool) -> None:
    """Show the lab's devices, namespaces and process counts."""
    from netauto.lab import runtime  # lazy: +24 modules (netauto.lab) in every `netauto --help` otherwise; only this command needs them

    if name == "default" and not (labs_root() / "default" / "state.json").exists():
        labs = list_labs()
        if labs:
            _log(f"labs: {', '.join(labs)}")
    res = runtime.status(name)
    mem = runtime.memory_kib(res["state"]) if memory else {}
    table = Table(title=f"lab {name} ({res['state']['fabric']}, {res['state']['status']})")
    for col in ("device", "kind", "namespace", "processes", "mgmt") + (("PSS MiB",) if memory else ()):
        table.add_column(col)
    for r in res["rows"]:
        table.add_row(r["device"], r["kind"], r["ns"] if r["present"] else f"[red]{r['ns']} (missing)[/]", str(r["processes"]),
                      r["mgmt"] or "", *( [f"{mem.get(r['device'], 0) / 1024:.1f}"] if memory else []))
    out.print(table)
    if memory:
        _log(f"total PSS {sum(mem.values()) / 1024:.0f} MiB")


@lab_group.command("alerts")
@name_option
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table: one row per firing alert; json: each alert with its labels and summary.")
def alerts_cmd(name: str, fmt: str) -> None:
    """The alerts firing in the lab's Prometheus (`lab up --monitoring`), generated from the inventory."""
    from netauto.lab import monitoring as lab_mon  # lazy: +80 modules (netauto.monitoring, netauto.lab) in every `netauto --help` otherwise; only this command needs them

    firing = lab_mon.firing(load_state(name))
    if fmt == "json":
        sys.stdout.write(json.dumps(firing, indent=2) + "\n")
        return
    table = Table(title=f"lab {name}: {len(firing)} firing alert(s)")
    for col in ("alert", "severity", "device", "port", "peer", "summary"):
        table.add_column(col, overflow="fold")
    for a in firing:
        lb = a["labels"]
        table.add_row(a["alert"], lb.get("severity", ""), lb.get("device", ""), lb.get("port", ""), lb.get("peer", ""),
                      a["summary"])
    out.print(table)


@lab_group.command("down")
@name_option
def down_cmd(name: str) -> None:
    """Kill every lab process (by namespace), delete the namespaces, restore sysctls. Idempotent."""
    from netauto.lab import runtime  # lazy: +24 modules (netauto.lab) in every `netauto --help` otherwise; only this command needs them

    runtime.down(name, log=_log)


@lab_group.command("exec", context_settings={"ignore_unknown_options": True})
@name_option
@click.argument("device")
@click.argument("cmd", nargs=-1, required=True, type=click.UNPROCESSED)
def exec_cmd(name: str, device: str, cmd: tuple[str, ...]) -> None:
    """Run CMD on DEVICE (its netns, mount and UTS namespaces): netauto lab exec spine1 -- vtysh -c 'show bgp summary'."""
    from netauto.lab import runtime  # lazy: +24 modules (netauto.lab) in every `netauto --help` otherwise; only this command needs them

    st = load_state(name)
    argv = runtime.exec_argv(st, device, list(cmd))
    sys.exit(subprocess.run(argv).returncode)


@lab_group.command("ssh", context_settings={"ignore_unknown_options": True})
@name_option
@click.argument("device")
@click.argument("cmd", nargs=-1, type=click.UNPROCESSED)
def ssh_cmd(name: str, device: str, cmd: tuple[str, ...]) -> None:
    """SSH to DEVICE over the lab-only mgmt network (client runs inside the lab's mgmt namespace)."""

    st = load_state(name)
    if not st.get("ssh"):
        raise NetautoError(f"lab {name} was started without --ssh")
    argv = ["ip", "netns", "exec", f"na-{name}-mgmt", "ssh", "-F", f"{st['dir']}/ssh/ssh_config", device, *cmd]
    sys.exit(subprocess.run(argv).returncode)


@lab_group.command("swap-cables")
@name_option
@click.argument("port_a", metavar="DEVICE:PORT")
@click.argument("port_b", metavar="DEVICE:PORT")
def swap_cables_cmd(name: str, port_a: str, port_b: str) -> None:
    """Swap the far ends of the cables on two ports (test helper: `netauto verify` must then fail LLDP at all
    four ends). Run it again with the same ports to put them back."""
    from netauto.lab.cabling import swap_cables  # lazy: +25 modules (netauto.lab) in every `netauto --help` otherwise; only this command needs them

    ends = []
    for arg in (port_a, port_b):
        dev, sep, port = arg.partition(":")
        if not sep or not dev or not port:
            raise click.BadParameter(f"{arg!r}: expected DEVICE:PORT, e.g. su1-r0-leaf:swp33")
        ends.append((dev, port))
    new = swap_cables(load_state(name), ends[0], ends[1])
    for a, b in new.items():
        _log(f"{a} <-> {b}")
