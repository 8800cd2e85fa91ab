"""Device-local edits: inventory changes whose effect is confined to named devices, re-resolved one by one.

`netauto render` after an edit compares the inventory's merged YAML data with the data of the tree in the
output folder (`netauto.render.store`). When every difference is of a kind in `KINDS`, only the devices the
edit names are re-resolved (their cached objects patched through the function the full build uses), rendered
and rewritten; anything else, including input the full path would refuse, goes the full path, which reports
it (so bad input gets exactly its one-line error and exit code).

Each kind declares the cluster-wide groups (`incremental.CLUSTER_WIDE`) whose inputs it changes; a test
proves the declaration by comparing those groups' inputs after the edit with a full resolve's.

| kind  | the inventory's keys                              | devices re-resolved                     | touches |
|-------|---------------------------------------------------|-----------------------------------------|---------|
| drain | features.gshut.drain (list membership),           | the switches drained or undrained by it | nothing |
|       | overrides.devices.<switch>.drain (true / false)   |                                         |         |

An override entry counts only while `drain` is its one key (an entry that also sets `nos`, `mgmt_ip`, ... or
one added without `drain` is another edit): its other keys shape the device and its neighbours.
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
    # (old data, new data, facts) -> the edit, or None
    devices: Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], Edit | None]
    touches: frozenset[str]


# ---------------------------------------------------------------- drain: features.gshut.drain, overrides' drain
def _gshut(data: dict[str, Any]) -> dict[str, Any] | None:
    features = data.get("features")
    gshut = features.get("gshut") if isinstance(features, dict) else None
    return gshut if isinstance(gshut, dict) else None


def _override_devices(data: dict[str, Any]) -> dict[Any, Any] | None:
    overrides = data.get("overrides")
    devices = overrides.get("devices") if isinstance(overrides, dict) else None
    return devices if isinstance(devices, dict) else None


def _drain_overrides(data: dict[str, Any]) -> dict[Any, Any]:
    """name -> `drain` value of the override entries whose one key is `drain`."""
    devices = _override_devices(data) or {}
    return {name: entry["drain"] for name, entry in devices.items() if isinstance(entry, dict) and set(entry) == {"drain"}}


def _strip_drain(data: dict[str, Any]) -> dict[str, Any]:
    """The data without the drain list and without the override entries that only drain."""
    out = data
    if _gshut(data) is not None:
        out = copy.copy(out)
        out["features"] = features = copy.copy(data["features"])
        features["gshut"] = {k: v for k, v in data["features"]["gshut"].items() if k != "drain"}
    only_drain = _drain_overrides(data)
    if only_drain:
        out = copy.copy(out)
        out["overrides"] = overrides = copy.copy(data["overrides"])
        overrides["devices"] = {k: v for k, v in data["overrides"]["devices"].items() if k not in only_drain}
    return out


def _drain_edit(old: dict[str, Any], new: dict[str, Any], facts: dict[str, Any]) -> Edit | None:
    """The switches whose drained state the new drain list and drain overrides change; None when a name or
    value is not one the full path accepts (not a list of names, not a switch of the compute fabric, not true
    or false: it reports it)."""
    gshut = _gshut(new)
    listed = gshut.get("drain", []) if gshut is not None else []
    drainable = set(facts["drainable"])
    if not isinstance(listed, list) or not all(isinstance(n, str) and n in drainable for n in listed):
        return None
    entries = _drain_overrides(new)
    if not all(isinstance(n, str) and n in drainable and isinstance(v, bool) for n, v in entries.items()):
        return None
    # entries with more keys than `drain` are as they were (the stripped data are equal): keep their state
    overridden = (set(facts["override_drained"]) - set(_drain_overrides(old))) | {n for n, on in entries.items() if on}
    now = drain_set(listed, overridden)
    before = set(facts["drained"])
    patches: dict[str, Callable[[Switch], None]] = {
        name: partial(set_drained, drained=name in now) for name in sorted(now ^ before)}
    return Edit(patches, {**facts, "drained": sorted(now), "override_drained": sorted(overridden)}, frozenset())


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
        edit = kind.devices(old, new, facts)
        if edit is None or set(edit.patches) & set(patches):
            return None
        patches.update(edit.patches)
        facts = edit.facts
        touches |= kind.touches
    return Edit(patches, facts, touches)


def drain_facts(cluster: ClusterModel, overridden: set[str]) -> dict[str, Any]:
    """What `_drain_edit` checks an edit against, from a full resolve: the switches of the compute fabric whose
    names `features.gshut.drain` accepts, those drained now, and those their override drains."""
    from pydantic import ValidationError  # lazy: the drain fast path imports this module without pydantic

    from netauto.inventory.schema import Gshut  # lazy: the drain fast path imports this module without the inventory schema

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
