"""Rollout orchestration: selection (--limit), waves, parallel dry-run, batched apply that stops at the
first failure, neighbour route checks for the gshut drain, and the JSON result file."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nornir.core import Nornir
from nornir.core.inventory import Inventory
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.plugins.runners import ThreadedRunner

from netauto.deploy import remote
from netauto.deploy.connection import CONNECTION_NAME, DeviceSession, NetautoConnection, open_session
from netauto.deploy.device import ApplyOptions, DeviceResult
from netauto.deploy.limit import select as limit_select
from netauto.deploy.nornir_inventory import nornir_inventory, target_groups
from netauto.deploy.targets import Credentials, Target, credentials_for, session_options
from netauto.private_files import write_private
from netauto.task_loader import load as load_tasks

Progress = Callable[[DeviceResult], None]


def select(targets: dict[str, Target], limit: str | None) -> list[str]:
    """--limit (netauto.deploy.limit): names, globs, groups, `,` union, `&` intersection, `!` exclusion."""
    return limit_select({n: target_groups(t) for n, t in targets.items()}, limit)


def waves(targets: dict[str, Target], names: list[str], batch: int) -> list[list[str]]:
    """Servers and leaves in batches of `batch`; then spines, then super-spines, one at a time."""
    first = [n for n in names if targets[n].role in ("server", "leaf")]
    out = [first[i : i + batch] for i in range(0, len(first), batch)]
    for role in ("spine", "super_spine"):
        out += [[n] for n in names if targets[n].role == role]
    return out


def _nornir(targets: dict[str, Target], creds: Credentials, workers: int) -> Nornir:
    # InitNornir registers entry-point plugins; a Nornir built directly must do it itself
    if CONNECTION_NAME not in ConnectionPluginRegister.available:
        ConnectionPluginRegister.register(CONNECTION_NAME, NetautoConnection)
    inventory: Inventory = nornir_inventory(targets, creds)
    return Nornir(inventory=inventory, runner=ThreadedRunner(num_workers=workers))


def _skipped(target: Target, action: str) -> DeviceResult:
    return DeviceResult(target.name, action, "skipped", error=target.skip_reason)


def _run_tasks(targets: dict[str, Target], names: list[str], creds: Credentials, workers: int, action: str,
               task: Callable[..., object], progress: Progress | None, **kwargs: Any) -> list[DeviceResult]:
    """Run a Nornir task over `names` (skipped targets are reported without connecting)."""
    live = [n for n in names if not targets[n].skip_reason]
    by_name = {n: _skipped(targets[n], action) for n in names if targets[n].skip_reason}
    if live:
        nr = _nornir({n: targets[n] for n in live}, creds, max(1, min(workers, len(live))))
        try:
            agg = nr.run(task=task, on_failed=True, **kwargs)
        finally:
            nr.close_connections(on_good=True, on_failed=True)
        for n in live:
            multi = agg[n]
            by_name[n] = multi[0].result if multi and isinstance(multi[0].result, DeviceResult) else \
                DeviceResult(n, action, "unreachable", error=str(multi.exception if multi else "no result"))
    results = [by_name[n] for n in names]
    if progress:
        for r in results:
            progress(r)
    return results


def dry_run(targets: dict[str, Target], names: list[str], creds: Credentials, workers: int,
            progress: Progress | None = None) -> list[DeviceResult]:
    tasks = load_tasks("deploy_tasks")
    return _run_tasks(targets, names, creds, workers, "dry-run", tasks.dry_run_task, progress)


class NeighbourWatcher:
    """Looks at the neighbours' BGP tables during a drain, over sessions opened once and reused."""

    def __init__(self, targets: dict[str, Target], creds: Credentials) -> None:
        self.targets = targets
        self.creds = creds
        self.sessions: dict[str, DeviceSession] = {}
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="neighbours")

    def _open(self, name: str) -> DeviceSession:
        t = self.targets[name]
        return open_session(t.host, t.port, t.username, password=credentials_for(t, self.creds).password,
                            **session_options(t, self.creds))  # type: ignore[arg-type]

    def _session(self, name: str) -> DeviceSession:
        with self.lock:
            if name in self.sessions:
                return self.sessions[name]
        session = self._open(name)  # outside the lock: neighbours connect in parallel
        with self.lock:
            self.sessions.setdefault(name, session)
            return self.sessions[name]

    def _view(self, target: Target, neighbour: str) -> remote.DrainView:
        routes = remote.bgp_routes(self._session(neighbour))
        return remote.drain_view(routes, target.name, set(target.facing[neighbour]), target.asn)

    def views(self, target: Target) -> dict[str, remote.DrainView]:
        """Each neighbour's view of `target` (neighbours outside the fabric model are not asked)."""
        names = sorted(n for n in target.facing if n in self.targets and not self.targets[n].skip_reason)
        return dict(zip(names, self.pool.map(lambda n: self._view(target, n), names)))

    def close(self) -> None:
        self.pool.shutdown(wait=True)
        for s in self.sessions.values():
            s.close()


@dataclass
class Rollout:
    results: list[DeviceResult]
    stopped_at: str | None  # the device whose failure stopped the rollout
    untouched: list[str]


FAILED = ("failed", "rolled-back", "locked", "unreachable")


def apply(targets: dict[str, Target], names: list[str], creds: Credentials, batch: int, options: ApplyOptions,
          progress: Progress | None = None) -> Rollout:
    """Wave after wave; the first wave with a failure stops the rollout (later waves are never touched)."""
    tasks = load_tasks("deploy_tasks")
    watcher = NeighbourWatcher(targets, creds)
    options.neighbours = watcher
    results: list[DeviceResult] = []
    plan = waves(targets, names, batch)
    try:
        for i, wave in enumerate(plan):
            if options.stop.is_set():  # SIGINT/SIGTERM: no new wave
                return Rollout(results, None, [n for later in plan[i:] for n in later])
            wave_results = _run_tasks(targets, wave, creds, len(wave), "apply", tasks.apply_task, progress,
                                      options=options)
            results += wave_results
            failed = [r for r in wave_results if r.result in FAILED]
            if failed:
                untouched = [n for later in plan[i + 1 :] for n in later]
                return Rollout(results, failed[0].device, untouched)
    finally:
        watcher.close()
    return Rollout(results, None, [])


def write_results(path: Path, action: str, results: list[DeviceResult], extra: dict[str, object]) -> Path:
    """The results file, 0600 in a directory created 0700 (diffs show device config; secrets are redacted
    anyway). An existing directory keeps its mode: only the file is made private."""
    doc = {"action": action, "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **extra,
           "devices": [r.to_dict() for r in results]}
    return write_private(path, json.dumps(doc, indent=2) + "\n")
