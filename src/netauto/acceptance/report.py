"""`netauto acceptance report`: outcomes + suspects, as json, junit, markdown (verify's writers) or a table."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from netauto.acceptance.localise import Localisation, Parts, Suspect, localise
from netauto.acceptance.model import ISOLATION, KINDS, AccTest
from netauto.acceptance.results import Outcome, judge, planned
from netauto.errors import UsageError
from netauto.formats.values import finite
from netauto.model.types import FabricModel
from netauto.verify.findings import CheckResult, Report


@dataclass(slots=True)
class AcceptanceReport:
    fabric: str
    outcomes: list[Outcome]
    where: Localisation
    counters: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # device -> port -> counter -> delta

    @property
    def ok(self) -> bool:
        return not any(o.failed for o in self.outcomes)

    def counts(self) -> dict[str, int]:
        out = {"pass": 0, "fail": 0, "not-run": 0, "missing": 0}
        for o in self.outcomes:
            out[o.status] += 1
        return out


def select(catalog: list[AccTest], default: list[AccTest], folder: Path) -> list[AccTest]:
    """The tests to report: those of RESULTS/plan.json (its expectations win) or else the default plan's."""
    known = {t.id: t for t in catalog}
    ran = planned(folder)
    if ran is None:
        return default
    out = []
    for tid, entry in ran.items():
        t = known.get(tid)
        if t is None:
            raise UsageError(f"{folder / 'plan.json'}: test {tid!r} is not in this inventory's plan; report with "
                             "the inventory the plan was made from")
        try:
            exp = finite(entry["expect_gbps"])
        except (KeyError, TypeError, ValueError):
            raise UsageError(f"{folder / 'plan.json'}: test {tid!r} has no finite numeric expect_gbps; give the "
                             "minimum in Gb/s, or write the plan with `netauto acceptance plan --format json`") from None
        kind = entry.get("kind", t.kind)
        if kind not in KINDS:
            raise UsageError(f"{folder / 'plan.json'}: test {tid!r} has kind {str(kind)[:40]!r}; one of "
                             f"{', '.join(KINDS)}")
        if (kind == ISOLATION) != (t.kind == ISOLATION):  # a probe that must fail never becomes one that must pass
            raise UsageError(f"{folder / 'plan.json'}: test {tid!r} has kind {kind}, this inventory's plan has "
                             f"{t.kind}; report with the inventory the plan was made from")
        out.append(AccTest(t.id, kind, t.client, t.server, t.rail, dict(entry.get("command") or {}),
                           exp, t.phase, t.ends, t.via, t.hosts, t.tenants))
    return out


def build_report(model: FabricModel, tests: list[AccTest], folder: Path, require_all: bool = False,
                 networks: Iterable[FabricModel] = ()) -> AcceptanceReport:
    """`networks`: the fabrics of the storage networks the plan tests (their cables are parts too)."""
    outcomes = judge(tests, folder, require_all)
    # isolation probes carry no traffic when they pass: they clear and accuse no part
    failed = [o.test for o in outcomes if o.status == "fail" and o.test.kind != ISOLATION]
    passed = [o.test for o in outcomes if o.status == "pass" and o.test.kind != ISOLATION]
    return AcceptanceReport(model.name, outcomes, localise(Parts(model, networks), failed, passed))


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f} Gb/s" if v >= 10 else f"{v:.3g} Gb/s"


def as_findings(rep: AcceptanceReport) -> Report:
    """The outcomes and suspects as verify findings (check = test kind or "suspect"), for junit and markdown."""
    status = {"pass": "pass", "fail": "fail", "not-run": "n/a", "missing": "error"}
    out = Report(fabric=rep.fabric)
    network = {o.test.id: o.test.ends[0].network if o.test.ends else "compute" for o in rep.outcomes}
    for o in rep.outcomes:
        t = o.test
        want = "no reply (another tenant)" if t.kind == ISOLATION else f">= {t.expect_gbps} Gb/s"
        out.findings.append(CheckResult(t.kind, t.client, t.id, want, _fmt(o.measured_gbps),
                                        status[o.status], o.detail, network[t.id]))  # type: ignore[arg-type]
    for s in rep.where.suspects:
        dev = s.parts[0].ports[0][0] if s.parts[0].ports else s.parts[0].key[0]
        out.findings.append(CheckResult("suspect", dev, s.label, "every test through it at line rate",
                                        f"{len(s.tests)} failing: {', '.join(s.tests)}", "fail",
                                        _counters_text(rep, s), network.get(s.tests[0], "compute")))
    for tid in rep.where.unexplained:
        out.findings.append(CheckResult("suspect", "-", tid, "a part common to the failing tests",
                                    "none that no passing test also crosses", "fail", "intermittent or multiple faults"))
    return out


def _counters_text(rep: AcceptanceReport, s: Suspect) -> str:
    bits = []
    for part in s.parts:
        for dev, port in part.ports:
            got = rep.counters.get(dev, {}).get(port)
            if got:
                bits.append(f"{dev}:{port} " + " ".join(f"{k}+{v}" for k, v in sorted(got.items()) if v))
    return "; ".join(b for b in bits if b)


def to_json(rep: AcceptanceReport) -> str:
    doc = {
        "fabric": rep.fabric, "ok": rep.ok, "counts": rep.counts(),
        "tests": [{"id": o.test.id, "kind": o.test.kind, "client": o.test.client, "server": o.test.server,
                   "rail": o.test.rail, "status": o.status, "expect_gbps": o.test.expect_gbps,
                   "measured_gbps": None if o.measured_gbps is None else round(o.measured_gbps, 3), "detail": o.detail}
                  for o in rep.outcomes],
        "suspects": [{"parts": [{"kind": p.kind, "name": p.label, "ports": [list(x) for x in p.ports]} for p in s.parts],
                      "failing_tests": s.tests} for s in rep.where.suspects],
        "unexplained": rep.where.unexplained,
        "counters": rep.counters,
    }
    return json.dumps(doc, indent=2) + "\n"
