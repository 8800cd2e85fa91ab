"""Rollout orchestration: selection (--limit), waves, parallel dry-run, batched apply that stops at the
first failure, neighbour route checks for the gshut drain, and the JSON result file."""

from __future__ import annotations

import fnmatch
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nornir.core import Nornir
from nornir.core.inventory import Inventory
from nornir.plugins.runners import ThreadedRunner

from netauto.deploy import remote
from netauto.deploy.connection import DeviceSession, open_session
from netauto.deploy.device import ApplyOptions, DeviceResult
from netauto.deploy.nornir_inventory import nornir_inventory, target_groups
from netauto.deploy.targets import Credentials, Target
from netauto.errors import NetautoError
from netauto.task_loader import load as load_tasks

Progress = Callable[[DeviceResult], None]


def select(targets: dict[str, Target], limit: str | None) -> list[str]:
    """--limit: comma-separated device names, globs (su1-*) or groups (role_spine, su_1, nos_sonic, servers)."""
    names = list(targets)
    if not limit:
        return names
    chosen: list[str] = []
    for term in (t.strip() for t in limit.split(",")):
        if not term:
            continue
        hits = [n for n in names if fnmatch.fnmatchcase(n, term) or term in target_groups(targets[n])]
        if not hits:
            raise NetautoError(f"--limit {term!r} matches no device or group (groups: role_<role>, su_<n>, "
                               f"pod_<n>, nos_<nos>, switches, servers)")
        chosen += [n for n in hits if n not in chosen]
    return [n for n in names if n in chosen]


def waves(targets: dict[str, Target], names: list[str], batch: int) -> list[list[str]]:
    """Servers and leaves in batches of `batch`; then spines, then super-spines, one at a time."""
    first = [n for n in names if targets[n].role in ("server", "leaf")]
    out = [first[i : i + batch] for i in range(0, len(first), batch)]
    for role in ("spine", "super_spine"):
        out += [[n] for n in names if targets[n].role == role]
    return out


def _nornir(targets: dict[str, Target], creds: Credentials, workers: int) -> Nornir:
    inventory: Inventory = nornir_inventory(targets, creds)
    return Nornir(inventory=inventory, runner=ThreadedRunner(num_workers=workers))


def dry_run(targets: dict[str, Target], names: list[str], creds: Credentials, workers: int,
            progress: Progress | None = None) -> list[DeviceResult]:
    tasks = load_tasks("deploy_tasks")
    nr = _nornir({n: targets[n] for n in names}, creds, workers)
    try:
        agg = nr.run(task=tasks.dry_run_task, on_failed=True)
    finally:
        nr.close_connections(on_good=True, on_failed=True)
    results = [agg[n][0].result for n in names]
    if progress:
        for r in results:
            progress(r)
    return results


class NeighbourWatcher:
    """Looks at the neighbours' routes during a drain, over sessions opened once and reused."""

    def __init__(self, targets: dict[str, Target], creds: Credentials) -> None:
        self.targets = targets
        self.creds = creds
        self.sessions: dict[str, DeviceSession] = {}
        self.lock = threading.Lock()

    def _session(self, name: str) -> DeviceSession:
        with self.lock:
            if name not in self.sessions:
                t = self.targets[name]
                self.sessions[name] = open_session(
                    t.host, t.port, t.username, key_file=str(self.creds.key_file) if self.creds.key_file else None,
                    password=self.creds.password, known_hosts=str(self.creds.known_hosts) if self.creds.known_hosts else None,
                    check_host_keys=self.creds.check_host_keys, netns=t.netns,
                )
            return self.sessions[name]

    def __call__(self, target: Target) -> tuple[int, int]:
        mixed = only = 0
        for neighbour, ports in target.facing.items():
            m, o = remote.routes_via(self._session(neighbour), set(ports))
            mixed, only = mixed + m, only + o
        return mixed, only

    def ecmp_widths(self, names: list[str]) -> dict[str, int]:
        """Widest ECMP set per device (used to show a drain in progress)."""
        widths = {}
        for name in names:
            res = self._session(name).run("vtysh -c 'show ip route bgp json'")
            data = json.loads(res.stdout or "{}")
            widths[name] = max((len([h for h in e.get("nexthops", []) if h.get("active")])
                                for entries in data.values() for e in entries), default=0)
        return widths

    def close(self) -> None:
        for s in self.sessions.values():
            s.close()


@dataclass
class Rollout:
    results: list[DeviceResult]
    stopped_at: str | None  # the device whose failure stopped the rollout
    untouched: list[str]


def apply(targets: dict[str, Target], names: list[str], creds: Credentials, batch: int, options: ApplyOptions,
          progress: Progress | None = None) -> Rollout:
    tasks = load_tasks("deploy_tasks")
    watcher = NeighbourWatcher(targets, creds)
    options.check_neighbours = watcher
    results: list[DeviceResult] = []
    plan = waves(targets, names, batch)
    try:
        for i, wave in enumerate(plan):
            nr = _nornir({n: targets[n] for n in wave}, creds, max(1, len(wave)))
            try:
                agg = nr.run(task=tasks.apply_task, options=options, on_failed=True)
            finally:
                nr.close_connections(on_good=True, on_failed=True)
            wave_results = [agg[n][0].result for n in wave]
            results += wave_results
            if progress:
                for r in wave_results:
                    progress(r)
            failed = [r for r in wave_results if r.result not in ("applied", "unchanged")]
            if failed:
                untouched = [n for later in plan[i + 1 :] for n in later]
                return Rollout(results, failed[0].device, untouched)
    finally:
        watcher.close()
    return Rollout(results, None, [])


def write_results(path: Path, action: str, results: list[DeviceResult], extra: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"action": action, "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **extra,
           "devices": [r.to_dict() for r in results]}
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path
