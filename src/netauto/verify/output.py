"""`netauto verify` reports: table (terminal), json, junit (CI), markdown. All carry the same findings."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from netauto.verify.findings import Report

FORMATS = ("table", "json", "junit", "markdown")


def to_json(rep: Report) -> str:
    doc = {"fabric": rep.fabric, "ok": rep.ok, "counts": rep.counts(),
           "timings": {k: round(v, 3) for k, v in rep.timings.items()},
           "findings": [f.to_dict() for f in rep.findings]}
    return json.dumps(doc, indent=2) + "\n"


def to_junit(rep: Report, tool: str = "netauto verify") -> str:
    """One testsuite per check, one testcase per finding (classname = device); n/a is <skipped>."""
    suites = ET.Element("testsuites", name=f"{tool} {rep.fabric}", tests=str(len(rep.findings)),
                        failures=str(sum(1 for f in rep.findings if f.status == "fail")),
                        errors=str(sum(1 for f in rep.findings if f.status == "error")))
    by_check: dict[str, list] = {}
    for f in rep.findings:
        by_check.setdefault(f.check, []).append(f)
    for check, fs in by_check.items():
        suite = ET.SubElement(suites, "testsuite", name=check, tests=str(len(fs)),
                              failures=str(sum(1 for f in fs if f.status == "fail")),
                              errors=str(sum(1 for f in fs if f.status == "error")),
                              skipped=str(sum(1 for f in fs if f.status == "n/a")))
        for f in fs:
            case = ET.SubElement(suite, "testcase", classname=f.device, name=f"{check} {f.item}")
            msg = (f"{f.device} {f.item}: expected {f.expected}, got {f.actual}" + (f" ({f.reason})" if f.reason else "")
                   + f" [network {f.network}]")
            if f.status == "fail":
                ET.SubElement(case, "failure", message=msg, type=check).text = msg + (f"\n{f.detail}" if f.detail else "")
            elif f.status == "error":
                ET.SubElement(case, "error", message=msg, type=check).text = msg
            elif f.status == "n/a":
                ET.SubElement(case, "skipped", message=f.reason)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(rep: Report, everything: bool = False) -> str:
    c = rep.counts()
    lines = [f"# netauto verify: {rep.fabric}", "",
             f"**{'PASS' if rep.ok else 'FAIL'}**: {c['pass']} passed, {c['fail']} failed, {c['error']} errors, "
             f"{c['n/a']} not applicable", "",
             "| status | check | network | device | item | expected | actual | reason |",
             "|---|---|---|---|---|---|---|---|"]
    for f in rep.findings:
        if everything or f.status != "pass":
            lines.append("| " + " | ".join(_md(x) for x in (f.status, f.check, f.network, f.device, f.item,
                                                                f.expected, f.actual, f.reason)) + " |")
    details = [f for f in rep.findings if f.detail and (everything or f.status != "pass")]
    if details:  # a diff never goes into a table cell: one fenced block per finding after the table
        lines += ["", "## Details"]
        for f in details:
            fence = "~~~~" if "```" in f.detail else "```"
            lines += ["", f"### {_md(f.device)} {_md(f.item)}", "", f"{fence}diff", f.detail.rstrip("\n"), fence]
    return "\n".join(lines) + "\n"


def summary_rows(rep: Report) -> list[tuple[str, int, int, int, int, str]]:
    """Per check: (check, pass, fail, error, n/a, the n/a reasons grouped)."""
    rows = []
    checks: dict[str, list] = {}
    for f in rep.findings:
        checks.setdefault(f.check, []).append(f)
    for check, fs in checks.items():
        reasons: dict[str, int] = {}
        for f in fs:
            if f.status == "n/a":
                reasons[f.reason] = reasons.get(f.reason, 0) + 1
        rows.append((check, sum(f.status == "pass" for f in fs), sum(f.status == "fail" for f in fs),
                     sum(f.status == "error" for f in fs), sum(f.status == "n/a" for f in fs),
                     "; ".join(f"{r} ({n})" for r, n in reasons.items())))
    return rows
