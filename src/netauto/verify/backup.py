"""`netauto backup`: the running files and NOS state of every device into a folder, git-friendly.

Layout: DIR/<device>/files/<on-device path> (the files netauto manages, as on the device but with every secret
token redacted: netauto.deploy.redact) and
DIR/<device>/state/<name> (what the NOS runs: FRR running-config, NVUE config, SONiC CONFIG_DB, addresses,
routes, policy rules), JSON with sorted keys and no timestamps or counters, so that `git diff` between two backups
shows only real changes. DIR/devices.json lists devices and what could not be read. Every file is 0600 and every
folder 0700 (netauto.private_files): a backup is device configuration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nornir.core.task import Result, Task

from netauto.formats import device_json
from netauto.deploy import identity, remote
from netauto.deploy.connection import CONNECTION_NAME
from netauto.deploy.redact import redact
from netauto.deploy.targets import Credentials, Target
from netauto.private_files import private_dir, write_private

# key -> (command, is JSON); the `{frr}` prefix runs where FRR runs (SONiC: the bgp container)
SWITCH_STATE = {
    "frr-running.conf": ("{frr}vtysh -c 'show running-config'", False),
    "nvue-config.yaml": ("command -v nv >/dev/null && nv config show -o yaml", False),
    "sonic-config_db.json": ("command -v sonic-cfggen >/dev/null && sonic-cfggen -d --print-data", True),
    "ip-addr.json": ("ip -j addr show", True),
    "ip-route.json": ("ip -j -4 route show table all", True),
}
SERVER_STATE = {
    "ip-addr.json": ("ip -j addr show", True),
    "ip-route.json": ("ip -j -4 route show table all", True),
    "ip-rule.json": ("ip -j rule show", True),
}
# volatile keys in iproute2 JSON (lifetimes, counters) that would make every backup differ
_VOLATILE = {"valid_life_time", "preferred_life_time", "stats", "stats64", "expires", "age", "used", "lastused"}


@dataclass
class Saved:
    device: str
    files: list[str] = field(default_factory=list)
    state: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _stable(text: str) -> str:
    def clean(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: clean(v) for k, v in sorted(x.items()) if k not in _VOLATILE}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(device_json.loads(text)), indent=1, sort_keys=True) + "\n"


def backup_task(task: Task, dest: Path) -> Result:
    from netauto.verify.run import driver_for  # lazy: +161 modules (pydantic, nornir, netauto.pipeline) at import otherwise; only this function needs them

    target: Target = task.host.data["target"]
    session = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    saved = Saved(target.name)
    root = dest / target.name
    files = remote.read_files(session, identity.paths(target))
    problem = identity.refusal(target, identity.claim(files), target.adopt)
    if problem:  # another fabric's device (or nobody's with content): nothing read is saved
        saved.errors.append(problem)
        return Result(host=task.host, result=saved)
    files.pop(identity.MARKER)
    for path, data in files.items():
        if data is None:
            saved.errors.append(f"{path}: missing on the device")
            continue
        write_private(root / "files" / path.lstrip("/"), redact(data.decode(errors="replace")))
        saved.files.append(path)
    table = SWITCH_STATE if target.kind == "switch" else SERVER_STATE
    driver = driver_for(target, session)
    outputs = driver.run_batch({k: cmd.format(frr=target.frr_exec) for k, (cmd, _) in table.items()})
    for key, (rc, text) in outputs.items():
        if rc != 0:
            continue  # the NOS has no such thing (no NVUE, not SONiC)
        try:
            body = _stable(text) if table[key][1] else text
        except ValueError:
            saved.errors.append(f"{key}: unparsable output")
            continue
        write_private(root / "state" / key, redact(body))
        saved.state.append(key)
    return Result(host=task.host, result=saved)


def backup(targets: dict[str, Target], names: list[str], creds: Credentials, dest: Path, workers: int = 40) -> list[Saved]:
    private_dir(dest, own=True)
    live = [n for n in names if not targets[n].skip_reason]
    out = {n: Saved(n, errors=[targets[n].skip_reason or ""]) for n in names if targets[n].skip_reason}
    if live:
        from netauto.verify.run import run_task  # lazy: +161 modules (pydantic, nornir, netauto.pipeline) at import otherwise; only this function needs them

        for n, got in run_task(targets, live, creds, workers, backup_task, Saved, dest=dest).items():
            out[n] = got if isinstance(got, Saved) else Saved(n, errors=[got])
    results = [out[n] for n in names]
    write_private(dest / "devices.json", json.dumps(
        {r.device: {"files": sorted(r.files), "state": sorted(r.state), "errors": r.errors} for r in results},
        indent=1, sort_keys=True) + "\n")
    return results
