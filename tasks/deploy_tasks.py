"""Nornir tasks: each runs one device pipeline of netauto.deploy.device over the `netauto` connection.

Usable from any Nornir script with the NetautoInventory plugin:

    nr = InitNornir(inventory={"plugin": "NetautoInventory", "options": {"inventory": "inventory"}})
    nr.filter(role="spine").run(task=dry_run_task)
"""

from __future__ import annotations

import time

from nornir.core.task import Result, Task

from netauto.deploy.connection import CONNECTION_NAME, DeviceSession
from netauto.deploy.host_keys import host_key_warning
from netauto.deploy.device import ApplyOptions, DeviceResult, apply_device, dry_run
from netauto.deploy.push import DONE


def _session(task: Task) -> DeviceSession:
    # Host.get_connection returns the plugin's `.connection`: the DeviceSession itself
    return task.host.get_connection(CONNECTION_NAME, task.nornir.config)


def dry_run_task(task: Task) -> Result:
    target = task.host.data["target"]
    if target.skip_reason:
        outcome = DeviceResult(target.name, "dry-run", "skipped", error=target.skip_reason)
        return Result(host=task.host, result=outcome)
    try:
        started = time.monotonic()
        session = _session(task)
        connected = time.monotonic() - started
        outcome = dry_run(session, target)
        outcome.steps.insert(0, ("connect", connected))
        outcome.host_key = getattr(session, "host_key", None)  # a plain DeviceSession stand-in has none
        outcome.warnings += filter(None, [host_key_warning(target.name, outcome.host_key)])
    except Exception as exc:  # noqa: BLE001 - an unreachable device is a result, not a crash
        outcome = DeviceResult(target.name, "dry-run", "unreachable", error=str(exc))
    return Result(host=task.host, result=outcome, changed=outcome.result == "changed",
                  failed=outcome.result in ("unreachable", "refused"), diff="".join(outcome.diff.values()))


def apply_task(task: Task, options: ApplyOptions) -> Result:
    target = task.host.data["target"]
    if target.skip_reason:
        outcome = DeviceResult(target.name, "apply", "skipped", error=target.skip_reason)
        return Result(host=task.host, result=outcome)
    try:
        started = time.monotonic()
        session = _session(task)
        connected = time.monotonic() - started
        outcome = apply_device(session, target, options)
        outcome.steps.insert(0, ("connect", connected))
        outcome.host_key = getattr(session, "host_key", None)  # a plain DeviceSession stand-in has none
        outcome.warnings += filter(None, [host_key_warning(target.name, outcome.host_key)])
    except Exception as exc:  # noqa: BLE001
        outcome = DeviceResult(target.name, "apply", "unreachable", error=str(exc))
    return Result(host=task.host, result=outcome, changed=outcome.result in DONE,
                  failed=outcome.result in ("failed", "rolled-back", "locked", "unreachable", "refused"),
                  diff="".join(outcome.diff.values()))
