"""`netauto verify` reports: table (terminal), json, junit (CI), markdown. All carry the same findings."""

from __future__ import annotations

import json
import re
import time
from xml.etree import ElementTree as ET

from netauto.verify.findings import Report
from netauto.visible import visible
from netauto.platforms import telemetry as t

FORMATS = ("table", "json", "junit", "markdown", "openmetrics")
PORT_LIKE = re.compile(r"^[A-Za-z][\w./:-]*\d$")  # swp1, swp1s0, Ethernet0, PortChannel1, mlx5_0, enp1s0f0


def to_json(rep: Report) -> str:
    doc = {"fabric": rep.fabric, "ok": rep.ok, "counts": rep.counts(),
           "timings": {k: round(v, 3) for k, v in rep.timings.items()},
           "warnings": rep.warnings, "findings": [f.to_dict() for f in rep.findings]}
    return json.dumps(doc, indent=2) + "\n"


def to_junit(rep: Report, tool: str = "netauto verify") -> str:
    """One testsuite per check, one testcase per finding (classname = device); n/a is <skipped>."""
    suites = ET.Element("testsuites", name=f"{tool} {rep.fabric}", tests=str(len(rep.findings)),
                        failures=str(sum(1 for f in rep.findings if f.status == "fail")),
                        errors=str(sum(1 for f in rep.findings if f.status == "error")))
    if rep.warnings:
        props = ET.SubElement(suites, "properties")
        for w in rep.warnings:
            ET.SubElement(props, "property", name="warning", value=w)
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
             *(f"> **{w}**\n" for w in rep.warnings),
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


def to_openmetrics(rep: Report, now: float | None = None) -> str:
    """The findings as Prometheus text exposition (what node-exporter's textfile collector reads), written with
    prometheus_client: `netauto_verify_finding_failed{check,device,item,port,network}` 1 for fail/error, 0
    otherwise; `netauto_verify_window_increase` for the counters check's numeric results; the run's time and
    verdict. Metric names: netauto.platforms.telemetry (the generated alerts read them)."""
    from prometheus_client import CollectorRegistry, Gauge, generate_latest  # lazy: +prometheus_client only for the textfile output

    reg = CollectorRegistry()
    labels = ["check", "device", "item", "port", "network"]
    failed = Gauge(t.VERIFY_FINDING, "1 when a netauto verify finding failed (fail or error)", labels, registry=reg)
    value = Gauge(t.VERIFY_VALUE, "increase of a counter over the verify window", labels, registry=reg)
    seen: dict[tuple[str, ...], int] = {}
    for f in rep.findings:
        first = f.item.split(" ", 1)[0]
        key = tuple(visible(x, keep="") for x in (f.check, f.device, f.item, first if PORT_LIKE.match(first) else "",
                                                   f.network))  # a label value: one line, no control character
        seen[key] = max(seen.get(key, 0), int(f.failed))
        failed.labels(*key).set(seen[key])
        if f.check == "counters" and f.actual.isdigit():
            value.labels(*key).set(int(f.actual))
    Gauge(t.VERIFY_LAST_RUN, "when netauto verify last ran (unix seconds)", registry=reg).set(
        time.time() if now is None else now)
    Gauge(t.VERIFY_OK, "1 when every checked finding passed", registry=reg).set(int(rep.ok))
    return generate_latest(reg).decode()
