"""Run `netauto verify`: read every selected device concurrently over Nornir (netauto connection, one SSH round
trip per device through the NAPALM drivers), then run the catalog of checks on the collected state.

A cluster has several networks (the compute fabric and its networks, each a FabricModel of its own): every device
is read once, then the same catalog runs once per network, on that network's devices against that network's
intent. A server on several networks is checked on each with the NICs that network cables; every finding
names its network."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from nornir.core import Nornir
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.core.task import Result, Task
from nornir.plugins.runners import ThreadedRunner

from netauto.deploy.connection import CONNECTION_NAME, DeviceSession, NetautoConnection
from netauto.deploy.nornir_inventory import nornir_inventory
from netauto.deploy.targets import Credentials, Target
from netauto.errors import NetautoError
from netauto.formats.device_json import DeviceJsonError
from netauto.model.cluster import ClusterModel
from netauto.model.types import FabricModel
from netauto.napalm.cumulus import Cumulus
from netauto.napalm.device import NetautoDevice
from netauto.napalm.linux import Linux
from netauto.napalm.sonic import Sonic
from netauto.verify import catalog, counter_checks
from netauto.verify.expect import build_intents
from netauto.verify.findings import CheckResult, Report
from netauto.verify.state import DeviceState, extra_reads, read_state

# the NAPALM drivers' own classes, without NAPALM's import cost (netauto.napalm.device)
DRIVERS: dict[str, type[NetautoDevice]] = {"cumulus": Cumulus, "sonic": Sonic, "linux": Linux}


def nornir_for(targets: dict[str, Target], creds: Credentials, workers: int) -> Nornir:
    """A Nornir over `targets` with the `netauto` connection (registered here: no InitNornir entry points)."""
    if CONNECTION_NAME not in ConnectionPluginRegister.available:
        ConnectionPluginRegister.register(CONNECTION_NAME, NetautoConnection)
    return Nornir(inventory=nornir_inventory(targets, creds), runner=ThreadedRunner(num_workers=workers))


def driver_for(target: Target, session: DeviceSession) -> NetautoDevice:
    cls = DRIVERS.get(target.nos, Linux if target.kind == "server" else Cumulus)
    return cls(target.host, target.username, optional_args={"session": session, "frr_exec": target.frr_exec})


Networks = list[tuple[str, FabricModel]]


def networks_of(model: FabricModel | ClusterModel) -> Networks:
    """(network, fabric) pairs: a cluster's compute fabric and networks, or a lone fabric as `compute`."""
    return model.fabrics() if isinstance(model, ClusterModel) else [("compute", model)]


def extra_for(networks: Networks, target: Target, qos_counters: bool = False) -> dict[str, str]:
    """The reads beyond the getters for one device: a switch's ports (its one network), a server's NICs on
    every network it is on; with `qos_counters` (a --window run) also a lossless switch's RoCE-class counters."""
    if target.kind == "switch":
        sw = next(s for _, fab in networks for s in fab.switches if s.name == target.name)
        counted = sw.qos_ports if qos_counters and sw.qos.lossless else None
        return extra_reads("switch", sw.nos, {i.name: i.fec for i in sw.interfaces if i.enabled}, [], counted)
    nics = [(r.nic, r.rdma_device) for _, fab in networks for s in fab.servers if s.name == target.name for r in s.rails]
    return extra_reads("server", "linux", {}, nics)


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
            said = multi[0].result if multi and isinstance(multi[0].result, str) else "no result"
            out[n] = str(exc).strip().splitlines()[-1] if exc else said
    return out


def collect_task(task: Task, networks: Networks, qos_counters: bool = False) -> Result:
    target: Target = task.host.data["target"]
    session = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    driver = driver_for(target, session)
    try:
        state = read_state(driver, target.name, target.kind, target.nos, extra_for(networks, target, qos_counters))
    except (ValueError, NetautoError) as exc:  # what the device sent: one line, no Nornir traceback
        return Result(host=task.host, result=f"unreadable: {exc}", failed=True)
    return Result(host=task.host, result=state)


def network_tags(networks: Networks) -> dict[str, str]:
    """device -> the networks it is on, as a finding names them (`compute,storage,frontend` for a GPU server)."""
    out: dict[str, list[str]] = {}
    for net, fab in networks:
        for name in fab.device_names():
            out.setdefault(name, []).append(net)
    return {d: ",".join(nets) for d, nets in out.items()}


def collect(model: FabricModel | ClusterModel, targets: dict[str, Target], names: list[str], creds: Credentials,
            workers: int, qos_counters: bool = False) -> tuple[dict[str, DeviceState], list[CheckResult]]:
    networks = networks_of(model)
    tags = network_tags(networks)
    live = [n for n in names if not targets[n].skip_reason]
    states: dict[str, DeviceState] = {}
    problems: list[CheckResult] = [CheckResult("reach", n, "ssh", "reachable", "", "n/a", targets[n].skip_reason or "",
                                       tags.get(n, "compute")) for n in names if targets[n].skip_reason]
    if not live:
        return states, problems
    for n, got in run_task(targets, live, creds, workers, collect_task, DeviceState, networks=networks,
                           qos_counters=qos_counters).items():
        if isinstance(got, DeviceState):
            states[n] = got
        else:
            problems.append(CheckResult("reach", n, "ssh", "reachable and readable", "", "error", got,
                                    tags.get(n, "compute")))
    return states, problems


class BadUsage(NetautoError):
    """A bad option value: exit 2, like any bad input."""

    exit_code = 2


def parse_checks(spec: str | None) -> list[str]:
    if not spec:
        return list(catalog.CATALOG)
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if n not in catalog.CATALOG]
    if unknown:
        raise BadUsage(f"--checks: unknown {', '.join(unknown)}; choose from {', '.join(catalog.CATALOG)}")
    return names


def run_checks(networks: Networks, states: dict[str, DeviceState], present: set[str],
               check_names: Iterable[str] | None = None, deltas: dict | None = None,
               thresholds: dict[str, int] | None = None) -> list[CheckResult]:
    """The catalog on every network: its devices' states against its intent, each finding tagged with it."""
    found: list[CheckResult] = []
    for intent in build_intents(networks, present):
        mine = set(intent.model.device_names())
        here = {n: st for n, st in states.items() if n in mine}
        if not here:
            continue  # --limit selected nothing of this network
        for name in check_names or catalog.CATALOG:
            if name == "counters":
                got = list(counter_checks.check_counters(intent, here, deltas, thresholds))
            else:
                got = _run_one(name, intent, here)
            for f in got:
                f.network = intent.network
            found += got
    return found


def _run_one(name: str, intent: Any, states: dict[str, DeviceState]) -> list[CheckResult]:
    """One check; a device's output it cannot read (JSON nested too deep, not JSON) is one error finding."""
    try:
        return list(catalog.CATALOG[name].run(intent, states))
    except DeviceJsonError as exc:
        return [CheckResult(name, ",".join(sorted(states)), "device output", "readable", "", "error", str(exc))]


def verify(model: FabricModel | ClusterModel, targets: dict[str, Target], names: list[str], creds: Credentials, *,
           check_names: Iterable[str] | None = None, workers: int = 40, window: float = 0.0,
           thresholds: dict[str, int] | None = None) -> Report:
    """`model`: a cluster (every network: compute fabric and networks) or one fabric."""
    t0 = time.monotonic()
    report = Report(fabric=model.name, devices=list(names))
    present = {n for n in names if not targets[n].skip_reason}
    windowed = window > 0 and "counters" in (check_names or catalog.CATALOG)
    states, problems = collect(model, targets, names, creds, workers, qos_counters=windowed)
    report.timings["collect"] = time.monotonic() - t0
    deltas = None
    if windowed:
        time.sleep(window)
        later, _ = collect(model, targets, [n for n in names if n in states], creds, workers, qos_counters=True)
        deltas = counter_checks.counter_deltas(states, later, counter_checks.roce_classes(networks_of(model)))
    report.findings += problems
    t1 = time.monotonic()
    report.findings += run_checks(networks_of(model), states, present, check_names, deltas, thresholds)
    report.timings["checks"] = time.monotonic() - t1
    report.timings["total"] = time.monotonic() - t0
    return report
