"""Validation output: a rich table grouped by severity, JSON, or JUnit XML."""

from __future__ import annotations

import json
from collections import defaultdict
from xml.etree import ElementTree as ET

from rich.console import Console
from rich.table import Table

from netauto.validate.findings import CHECKS, Finding
from netauto.validate.rules import load_rules
from netauto.validate.runner import Result

STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def to_json(result: Result, strict: bool = False) -> str:
    data = {
        "fabric": result.fabric,
        "source": result.source,
        "devices": result.devices,
        "files": result.files,
        "summary": {s: result.count(s) for s in ("error", "warning", "info")},
        "exit_code": result.exit_code(strict),
        "notes": result.notes,
        "timings": {k: round(v, 3) for k, v in result.timings.items()},
        "findings": [f.to_dict() for f in result.findings],
    }
    if result.sim is not None and hasattr(result.sim, "to_dict"):
        data["routesim"] = result.sim.to_dict()
    return json.dumps(data, indent=2) + "\n"


def to_junit(result: Result) -> str:
    """One testcase per rule (and per tool/check seen); each finding of an error rule is a <failure>."""
    rules = load_rules()
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for f in result.findings:
        by_rule[f.rule].append(f)
    names = sorted(set(rules) | set(by_rule))
    suite = ET.Element("testsuite", name=f"netauto validate {result.fabric}", tests=str(len(names)))
    failures = 0
    for rid in names:
        desc = rules[rid].description if rid in rules else CHECKS.get(rid, CHECKS.get("EXT-<tool>") if rid.startswith("EXT-") else rid)
        case = ET.SubElement(suite, "testcase", classname=f"netauto.validate.{result.fabric}", name=f"{rid}: {desc}")
        items = by_rule.get(rid, [])
        errors = [f for f in items if f.severity == "error"]
        if errors:
            failures += 1
            fail = ET.SubElement(case, "failure", message=f"{len(errors)} finding(s)")
            fail.text = "\n".join(_line(f) for f in errors)
        others = [f for f in items if f.severity != "error"]
        if others:
            ET.SubElement(case, "system-out").text = "\n".join(_line(f) for f in others)
    skipped = [n for n in result.notes if n.startswith("skipped")]
    for note in skipped:
        case = ET.SubElement(suite, "testcase", classname=f"netauto.validate.{result.fabric}", name=note)
        ET.SubElement(case, "skipped", message=note)
    suite.set("failures", str(failures))
    suite.set("skipped", str(len(skipped)))
    suite.set("tests", str(len(names) + len(skipped)))
    return ET.tostring(suite, encoding="unicode") + "\n"


def _line(f: Finding) -> str:
    where = f.file + (f":{f.line}" if f.line else "") if f.file else ""
    return f"[{f.severity}] {f.rule} {f.device or '-'}{' ' + where if where else ''}: {f.message}"


def print_table(result: Result, console: Console, strict: bool = False, limit: int = 200) -> None:
    """What ran (the `ran:`/`skipped:` notes, the route simulation and drain summaries), then the findings by
    severity, then the verdict: a reader sees what was checked before what it found."""
    rules = load_rules()
    for note in result.notes:
        console.print(f"[dim]{note}[/]" if not note.startswith("skipped") else f"[yellow]{note}[/]", soft_wrap=True)
    for severity in ("error", "warning", "info"):
        items = [f for f in result.findings if f.severity == severity]
        if not items:
            continue
        table = Table(title=f"{severity}s ({len(items)})", title_style=STYLE[severity], show_lines=False)
        for col in ("rule", "device", "file", "finding"):
            table.add_column(col, overflow="fold")
        for f in items[:limit]:
            table.add_row(f.rule, f.device or "-", (f.file or "") + (f":{f.line}" if f.line else ""), f.message)
        if len(items) > limit:
            table.add_row("...", "", "", f"{len(items) - limit} more (use --format json for all)")
        console.print(table)
    errors, warnings = result.count("error"), result.count("warning")
    verdict = "[bold red]FAIL[/]" if result.exit_code(strict) else "[bold green]OK[/]"
    console.print(
        f"{verdict} {result.fabric} ({result.source}): {result.devices} devices, {result.files} files, "
        f"{len(rules)} rules: {errors} error(s), {warnings} warning(s)"
        + (" (warnings fail with --strict)" if strict and warnings else ""), soft_wrap=True,
    )
