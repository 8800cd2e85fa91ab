"""The fabric rules and the route simulation of a parsed fabric; on a large fabric side by side in two processes.

A fabric of `view.PARALLEL_MIN` devices or more: a forked child (`validate.forked`) runs the route simulation and
the rules that walk every switch's NVUE tree (NVUE-01, AR-05) while this process runs the other rules; about half
of the work each. The findings are merged in rule-id order and the simulation's come after them, as in one
process, so the result is the same (tests/test_view_parallel.py compares the two).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from netauto.validate import forked, routesim
from netauto.validate.findings import Finding
from netauto.validate.routesim import SimResult
from netauto.validate.rules import load_rules, rule_findings
from netauto.validate.view import PARALLEL_MIN

if TYPE_CHECKING:
    from netauto.validate.state import ParsedFabric

BESIDE_SIMULATION = ("NVUE-01", "AR-05")  # the rules the child runs with the simulation


class Checked:
    """The rules' findings (in rule-id order), the simulation's result and its duration."""

    def __init__(self, findings: list[Finding], sim: SimResult | None, sim_seconds: float) -> None:
        self.findings = findings
        self.sim = sim
        self.sim_seconds = sim_seconds


def _simulate(view: ParsedFabric, drain: list[str], simulate: bool) -> tuple[SimResult | None, float]:
    if not simulate:
        return None, 0.0
    t = time.perf_counter()
    sim = routesim.simulate(view, drain=drain)
    return sim, time.perf_counter() - t


def rules_and_simulation(view: ParsedFabric, *, simulate: bool, drain: list[str]) -> Checked:
    """Every fabric rule and, with `simulate`, the route simulation (what if `drain` is drained)."""
    rules = sorted(load_rules())
    devices = len(view.model.switches) + len(view.model.servers)
    if devices >= PARALLEL_MIN:
        apart = [r for r in rules if r in BESIDE_SIMULATION]
        rest = [r for r in rules if r not in BESIDE_SIMULATION]
        both = forked.beside(lambda: (rule_findings(view, apart), _simulate(view, drain, simulate)),
                             lambda: rule_findings(view, rest))
        if both is not None:
            (theirs, (sim, seconds)), mine = both
            by_rule = {**mine, **theirs}
            return Checked([f for rid in sorted(by_rule) for f in by_rule[rid]], sim, seconds)
    by_rule = rule_findings(view)
    sim, seconds = _simulate(view, drain, simulate)
    return Checked([f for rid in sorted(by_rule) for f in by_rule[rid]], sim, seconds)
