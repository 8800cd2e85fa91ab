"""Run `netauto verify`: read every selected device concurrently over Nornir (netauto connection, one SSH round
trip per device through the NAPALM drivers), then run the catalog of checks on the collected state."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from nornir.core import Nornir
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.core.task import Result, Task
from nornir.plugins.runners import ThreadedRunner

from netauto.deploy.connection import CONNECTION_NAME, NetautoConnection
from netauto.deploy.nornir_inventory import nornir_inventory
from netauto.deploy.targets import Credentials, Target
from netauto.errors import NetautoError
from netauto.model.types import FabricModel
from netauto.napalm.cumulus import Cumulus
from netauto.napalm.device import NetautoDevice
from netauto.napalm.linux import Linux
from netauto.napalm.sonic import Sonic
from netauto.verify import checks
from netauto.verify.expect import build_intent
from netauto.verify.findings import Finding, Report
from netauto.verify.state import DeviceState, extra_reads, read_state

# the NAPALM drivers' own classes, without NAPALM's import cost (netauto.napalm.device)
DRIVERS: dict[str, type[NetautoDevice]] = {"cumulus": Cumulus, "sonic": Sonic, "linux": Linux}


def nornir_for(targets: dict[str, Target], creds: Credentials, workers: int) -> Nornir:
    """A Nornir over `targets` with the `netauto` connection (registered here: no InitNornir entry points)."""
    if CONNECTION_NAME not in ConnectionPluginRegister.available:
        ConnectionPluginRegister.register(CONNECTION_NAME, NetautoConnection)
    return Nornir(inventory=nornir_inventory(targets, creds), runner=ThreadedRunner(num_workers=workers))


def driver_for(target: Target, session) -> NetautoDevice:  # noqa: ANN001
    cls = DRIVERS.get(target.nos, Linux if target.kind == "server" else Cumulus)
    return cls(target.host, target.username, optional_args={"session": session, "frr_exec": target.frr_exec})


def _extra(model: FabricModel, target: Target) -> dict[str, str]:
    if target.kind == "switch":
        sw = model.switch(target.name)
        return extra_reads("switch", sw.nos, {i.name: i.fec for i in sw.interfaces if i.enabled}, [])
    srv = next(s for s in model.servers if s.name == target.name)
    return extra_reads("server", "linux", {}, [(r.nic, r.rdma_device) for r in srv.rails])


def run_task(targets: dict[str, Target], live: list[str], creds: Credentials, workers: int, task: Any,
             want: type, **kwargs: Any) -> dict[str, Any]:
    """Run a Nornir task on the `live` devices; per device its result (an instance of `want`) or, when it
    failed, the last line of its error as a string."""
    nr = nornir_for({n: targets[n] for n in live}, creds, max(1, min(workers, len(live))))
    try:
        agg = nr.run(task=task, on_failed=True, **kwargs)
    finally:
        nr.close_connections(on_good=True, on_failed=True)
    out: dict[str, Any] = {}
    for n in live:
        multi = agg[n]
        if multi and not multi.failed and isinstance(multi[0].result, want):
            out[n] = multi[0].result
        else:
            exc = multi.exception if multi else None
            out[n] = str(exc).strip().splitlines()[-1] if exc else "no result"
    return out


def collect_task(task: Task, model: FabricModel) -> Result:
    target: Target = task.host.data["target"]
    session = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    driver = driver_for(target, session)
    state = read_state(driver, target.name, target.kind, target.nos, _extra(model, target))
    return Result(host=task.host, result=state)


def collect(model: FabricModel, targets: dict[str, Target], names: list[str], creds: Credentials,
            workers: int) -> tuple[dict[str, DeviceState], list[Finding]]:
    live = [n for n in names if not targets[n].skip_reason]
    states: dict[str, DeviceState] = {}
    problems: list[Finding] = [Finding("reach", n, "ssh", "reachable", "", "n/a", targets[n].skip_reason or "")
                               for n in names if targets[n].skip_reason]
    if not live:
        return states, problems
    for n, got in run_task(targets, live, creds, workers, collect_task, DeviceState, model=model).items():
        if isinstance(got, DeviceState):
            states[n] = got
        else:
            problems.append(Finding("reach", n, "ssh", "reachable and readable", "", "error", got))
    return states, problems


class BadUsage(NetautoError):
    """A bad option value: exit 2, like any bad input."""

    exit_code = 2


def parse_checks(spec: str | None) -> list[str]:
    if not spec:
        return list(checks.CATALOG)
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if n not in checks.CATALOG]
    if unknown:
        raise BadUsage(f"--checks: unknown {', '.join(unknown)}; choose from {', '.join(checks.CATALOG)}")
    return names


def verify(model: FabricModel, targets: dict[str, Target], names: list[str], creds: Credentials, *,
           check_names: Iterable[str] | None = None, workers: int = 40, window: float = 0.0,
           thresholds: dict[str, int] | None = None) -> Report:
    t0 = time.monotonic()
    report = Report(fabric=model.name, devices=list(names))
    present = {n for n in names if not targets[n].skip_reason}
    states, problems = collect(model, targets, names, creds, workers)
    report.timings["collect"] = time.monotonic() - t0
    deltas = None
    if window > 0 and "counters" in (check_names or checks.CATALOG):
        time.sleep(window)
        later, _ = collect(model, targets, [n for n in names if n in states], creds, workers)
        deltas = checks.counter_deltas(states, later)
    intent = build_intent(model, present)
    report.findings += problems
    t1 = time.monotonic()
    for name in check_names or checks.CATALOG:
        if name == "counters":
            report.findings += list(checks.check_counters(intent, states, deltas, thresholds))
        else:
            report.findings += list(checks.CATALOG[name].run(intent, states))
    report.timings["checks"] = time.monotonic() - t1
    report.timings["total"] = time.monotonic() - t0
    return report
