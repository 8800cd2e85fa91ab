"""Nornir tasks: each runs one device pipeline of netauto.deploy.device over the `netauto` connection.

Usable from any Nornir script with the NetautoInventory plugin:

    nr = InitNornir(inventory={"plugin": "NetautoInventory", "options": {"inventory": "inventory"}})
    nr.filter(role="spine").run(task=dry_run_task)
"""

from __future__ import annotations

from nornir.core.task import Result, Task

from netauto.deploy.connection import CONNECTION_NAME
from netauto.deploy.device import ApplyOptions, DeviceResult, apply_device, dry_run


def _session(task: Task):
    return task.host.get_connection(CONNECTION_NAME, task.nornir.config).session


def dry_run_task(task: Task) -> Result:
    target = task.host.data["target"]
    try:
        outcome = dry_run(_session(task), target)
    except Exception as exc:  # noqa: BLE001 - an unreachable device is a result, not a crash
        outcome = DeviceResult(target.name, "dry-run", "unreachable", error=str(exc))
    return Result(host=task.host, result=outcome, changed=outcome.result == "changed",
                  failed=outcome.result == "unreachable")


def apply_task(task: Task, options: ApplyOptions) -> Result:
    target = task.host.data["target"]
    try:
        outcome = apply_device(_session(task), target, options)
    except Exception as exc:  # noqa: BLE001
        outcome = DeviceResult(target.name, "apply", "unreachable", error=str(exc))
    return Result(host=task.host, result=outcome, changed=outcome.result == "applied",
                  failed=outcome.result not in ("applied", "unchanged"))
