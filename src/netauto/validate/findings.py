"""One finding of `netauto validate`: which rule, how bad, which device, what is wrong."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # "BGP-01", "EXT-vtysh", "DRIFT-01", "SIM-01"
    severity: Severity
    device: str  # "" for fabric-wide findings
    message: str
    file: str | None = None  # on-device path, e.g. "etc/frr/frr.conf"
    line: int | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def sort_key(self) -> tuple:
        return (SEVERITY_ORDER[self.severity], self.rule, self.device, self.message)

    def on_device(self, root: Path) -> Finding:
        """This finding with `file` relative to its device's folder `root/<device>`: a real validator names the
        file it was given (a path under the tree it ran on). A file outside that folder keeps its path."""
        path = Path(self.file or "")
        try:
            return replace(self, file=path.relative_to(root / self.device).as_posix())
        except ValueError:
            return replace(self, file=str(path))


def tool_finding(tool: str, device: str, path: str, line: int | None, message: str) -> Finding:
    """What a real validator (validate.external and the checkers it gathers) reports: rule `EXT-<tool>`
    ("vtysh", "bgpd", "ifup", "netplan", "yanglint", "promtool-test"...), always an error, `file` the path the tool
    was given (validate's runner turns it into the on-device path: `Finding.on_device`)."""
    return Finding(f"EXT-{tool}", "error", device, message, path, line)


# Checks that are not fabric rules (they come from the runner, the parsers, the simulation or the tools).
CHECKS = {
    "DRIFT-01": "a file of --configs differs from what the inventory renders (missing files are errors)",
    "PARSE-01": "a rendered file is missing or cannot be parsed",
    "PARSE-02": "no parser for the switch's NOS: its files are not checked by the fabric rules",
    "SIM-01": "route simulation: a leaf's rail subnet is unreachable from another leaf (blackhole)",
    "SIM-02": "route simulation: ECMP narrower than the leaf's uplinks (info while a switch is drained)",
    "SIM-03": "route simulation: a frontend access switch has no default route from the upstream (site) sessions",
    "SIM-04": "route simulation, per VRF: a tenant's VRF on a leaf misses one of the tenant's own host links",
    "SIM-05": "route simulation, per VRF: a tenant's VRF reaches another tenant's host link (isolation broken)",
    "EXT-<tool>": "a real validator (vtysh, bgpd, ifup, ifupdown2-keywords, netplan, yanglint) rejected a file",
}
# `validate --batfish HOST`: Batfish's answers mapped to findings (netauto.validate.batfish_answers)
BATFISH_CHECKS = {
    "BF-PARSE": "Batfish could not parse or convert a file or a line of it (initIssues, fileParseStatus)",
    "BF-BGP-STATUS": "Batfish: a compatible BGP session would not be established (bgpSessionStatus)",
    "BF-BGP-COMPAT": "Batfish: a BGP peering is misconfigured or has no unique remote (bgpSessionCompatibility)",
    "BF-DUP-IP": "Batfish: an IP address is owned by more than one node or VRF (ipOwners duplicatesOnly)",
    "BF-UNDEF-REF": "Batfish: a route-map, prefix-list, community-list... is referenced but not defined",
    "BF-TRACE": "Batfish traceroute: a flow from one rail to another is not delivered",
}
CHECKS.update(BATFISH_CHECKS)

