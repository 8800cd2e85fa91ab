"""Results of `netauto verify`: one `CheckResult` per check, device and item (validate's are `validate.findings.Finding`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Status = Literal["pass", "fail", "n/a", "error"]


@dataclass(slots=True)
class CheckResult:
    check: str  # catalog name: bgp, ecmp, drain, lldp, interface, speed, fec, qos, ar, host-qos, host-routing, counters
    device: str
    item: str  # port, session, prefix set, setting...
    expected: str
    actual: str
    status: Status
    reason: str = ""  # why not applicable / why it could not be read
    network: str = "compute"  # the cluster network whose intent it was checked against (compute, storage...)
    detail: str = ""  # multi-line evidence (drift: the unified diff); JSON carries it, markdown after the table

    @property
    def failed(self) -> bool:
        return self.status in ("fail", "error")

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(slots=True)
class Report:
    fabric: str
    findings: list[CheckResult] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    devices: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # loud opt-outs (a CHANGED host key accepted...)

    @property
    def ok(self) -> bool:
        return not any(f.failed for f in self.findings)

    def counts(self) -> dict[str, int]:
        out = {"pass": 0, "fail": 0, "n/a": 0, "error": 0}
        for f in self.findings:
            out[f.status] += 1
        return out


def ok(check: str, device: str, item: str, expected: str, actual: str | None = None) -> CheckResult:
    return CheckResult(check, device, item, expected, expected if actual is None else actual, "pass")


def compare(check: str, device: str, item: str, expected: object, actual: object) -> CheckResult:
    return CheckResult(check, device, item, str(expected), str(actual), "pass" if expected == actual else "fail")


def na(check: str, device: str, item: str, reason: str, expected: str = "") -> CheckResult:
    return CheckResult(check, device, item, expected, "", "n/a", reason)
