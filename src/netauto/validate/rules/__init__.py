"""Fabric rules: small registered units, each with an id, a severity and a one-line description.

A rule is a function of the parsed fabric (`netauto.validate.state.ParsedFabric`) that yields
`(device, message)` or `(device, message, file)` tuples, or whole `Finding`s when it needs another
severity. Register one with::

    @rule(id="BGP-01", severity="error", description="unique router-ids and loopbacks")
    def unique_router_ids(view): ...

Rule modules in this package are imported by `load_rules()`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from typing import TYPE_CHECKING

from netauto.validate.findings import Finding, Severity

if TYPE_CHECKING:
    from netauto.validate.state import ParsedFabric

RuleItem = Finding | tuple[str, str] | tuple[str, str, str | None]
RuleOutput = Iterator[RuleItem]  # what a rule yields
RuleFn = Callable[..., Iterable[RuleItem]]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: Severity
    description: str
    fn: RuleFn


REGISTRY: dict[str, Rule] = {}


def rule(*, id: str, severity: Severity, description: str) -> Callable[[RuleFn], RuleFn]:  # noqa: A002
    def register(fn: RuleFn) -> RuleFn:
        if id in REGISTRY and REGISTRY[id].fn.__qualname__ != fn.__qualname__:
            raise ValueError(f"rule id {id} registered twice ({REGISTRY[id].fn.__qualname__}, {fn.__qualname__})")
        REGISTRY[id] = Rule(id, severity, description, fn)
        return fn

    return register


def load_rules() -> dict[str, Rule]:
    import netauto.validate.rules as package  # lazy: the package itself: its __path__ is complete only after its own import

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")
    return REGISTRY


def run_rules(view: ParsedFabric, only: Iterable[str] | None = None) -> list[Finding]:
    """The findings of every rule (or of `only`), rule by rule in id order."""
    by_rule = rule_findings(view, only)
    return [f for rid in sorted(by_rule) for f in by_rule[rid]]


def rule_findings(view: ParsedFabric, only: Iterable[str] | None = None) -> dict[str, list[Finding]]:
    """Rule id -> its findings, for every rule (or `only`): rules run apart (validate.fabric_run) merge in id order."""
    rules = load_rules()
    wanted = set(only) if only is not None else None
    out: dict[str, list[Finding]] = {}
    for rid in sorted(rules):
        if wanted is not None and rid not in wanted:
            continue
        r = rules[rid]
        found: list[Finding] = []
        for item in r.fn(view):
            if isinstance(item, Finding):
                found.append(item)
            else:
                device, message, *rest = item
                found.append(Finding(r.id, r.severity, device, message, rest[0] if rest else None))
        out[rid] = found
    return out
