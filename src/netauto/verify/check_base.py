"""What every `netauto verify` check shares: the state of every device by name, a check's catalog entry, and the
switches and servers of an intent that have a state."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from netauto.model.types import Server, Switch
from netauto.verify.expect import Intent
from netauto.verify.findings import CheckResult
from netauto.verify.state import DeviceState

States = dict[str, DeviceState]


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    what: str
    run: Callable[[Intent, States], Iterable[CheckResult]]


def _switches(it: Intent, states: States) -> list[Switch]:
    return [sw for sw in it.model.switches if sw.name in states]


def _servers(it: Intent, states: States) -> list[Server]:
    return [s for s in it.model.servers if s.name in states]


def _unreadable(check: str, st: DeviceState, key: str) -> CheckResult | None:
    if key in st.errors:
        return CheckResult(check, st.device, key, "readable", "", "error", st.errors[key])
    return None
