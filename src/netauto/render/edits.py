"""Device-local edits: inventory changes whose effect is confined to named devices, re-resolved one by one.

`netauto render` after an edit compares the inventory's merged YAML data with the data of the tree in the
output folder (`netauto.render.store`). When every difference is of a kind in `KINDS`, only the devices the
edit names are re-resolved (their cached objects patched through the function the full build uses), rendered
and rewritten; anything else, including input the full path would refuse, goes the full path, which reports
it (so bad input gets exactly its one-line error and exit code).

Each kind declares the cluster-wide groups (`incremental.CLUSTER_WIDE`) whose inputs it changes; a test
proves the declaration by comparing those groups' inputs after the edit with a full resolve's.

| kind  | the inventory's key                    | devices re-resolved                      | touches |
|-------|----------------------------------------|------------------------------------------|---------|
| drain | features.gshut.drain (list membership) | the switches drained or undrained by it  | nothing |
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from typing import TYPE_CHECKING

from netauto.model.drain import drain_set, set_drained
from netauto.model.types import Switch

if TYPE_CHECKING:
    from netauto.model.cluster import ClusterModel


@dataclass(frozen=True)
class Edit:
    """The devices one edit changes: name -> the patch to apply to its (unpickled) switch."""

    patches: dict[str, Callable[[Switch], None]] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)  # the facts after the edit (`drain_facts`' keys)
    touches: frozenset[str] = frozenset()  # cluster-wide groups whose inputs changed


@dataclass(frozen=True)
class Kind:
    name: str
    strip: Callable[[dict[str, Any]], dict[str, Any]]  # the data without what this kind edits
    devices: Callable[[dict[str, Any], dict[str, Any]], Edit | None]  # (new data, facts) -> the edit, or None
    touches: frozenset[str]


# ---------------------------------------------------------------- drain: features.gshut.drain membership
def _gshut(data: dict[str, Any]) -> dict[str, Any] | None:
    features = data.get("features")
    gshut = features.get("gshut") if isinstance(features, dict) else None
    return gshut if isinstance(gshut, dict) else None


def _strip_drain(data: dict[str, Any]) -> dict[str, Any]:
    if _gshut(data) is None:
        return data
    out = copy.copy(data)
    out["features"] = features = copy.copy(data["features"])
    features["gshut"] = {k: v for k, v in data["features"]["gshut"].items() if k != "drain"}
    return out


def _drain_edit(new: dict[str, Any], facts: dict[str, Any]) -> Edit | None:
    """The switches whose drained state the new `features.gshut.drain` changes; None when a listed name is not
    one the full path accepts (not a list of names, not a switch of the compute fabric: it reports it)."""
    gshut = _gshut(new)
    listed = gshut.get("drain", []) if gshut is not None else []
    drainable = set(facts["drainable"])
    if not isinstance(listed, list) or not all(isinstance(n, str) and n in drainable for n in listed):
        return None
    now = drain_set(listed, facts["override_drained"])
    before = set(facts["drained"])
    patches: dict[str, Callable[[Switch], None]] = {
        name: partial(set_drained, drained=name in now) for name in sorted(now ^ before)}
    return Edit(patches, {**facts, "drained": sorted(now)}, frozenset())


KINDS = (Kind("drain", _strip_drain, _drain_edit, frozenset()),)


def edit_of(old: Any, new: Any, facts: dict[str, Any]) -> Edit | None:
    """The device-local edit that turns the inventory data `old` into `new` (no patch when they are equal), or
    None when some difference is of no kind in `KINDS` or the new data is not valid for it."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None
    if old == new:
        return Edit(facts=facts)
    stripped_old, stripped_new = old, new
    for kind in KINDS:
        stripped_old, stripped_new = kind.strip(stripped_old), kind.strip(stripped_new)
    if stripped_old != stripped_new:
        return None
    patches: dict[str, Callable[[Switch], None]] = {}
    touches: frozenset[str] = frozenset()
    for kind in KINDS:
        edit = kind.devices(new, facts)
        if edit is None or set(edit.patches) & set(patches):
            return None
        patches.update(edit.patches)
        facts = edit.facts
        touches |= kind.touches
    return Edit(patches, facts, touches)


def drain_facts(cluster: ClusterModel, overridden: set[str]) -> dict[str, Any]:
    """What `_drain_edit` checks an edit against, from a full resolve: the switches of the compute fabric whose
    names `features.gshut.drain` accepts, those drained now, and those their override drains."""
    from pydantic import ValidationError

    from netauto.inventory.schema import Gshut

    def accepted(name: str) -> bool:
        try:
            Gshut.model_validate({"drain": [name]})
        except ValidationError:
            return False
        return True

    switches = cluster.compute.switches
    return {"drainable": sorted(sw.name for sw in switches if accepted(sw.name)),
            "drained": sorted(sw.name for sw in switches if sw.bgp.graceful_shutdown),
            "override_drained": sorted(overridden & {sw.name for sw in switches})}
