"""SIGINT/SIGTERM during `netauto deploy`'s apply: stop starting devices, let the ones in flight finish or roll
back, and always leave a results file that says where each device stands."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from netauto.deploy import run as rollout
from netauto.deploy.device import ApplyOptions, DeviceResult


@contextmanager
def on_signals(options: ApplyOptions, done: list, results_path: Path, extra: dict, names: list[str]) -> Iterator[None]:
    """SIGINT/SIGTERM during an apply: the first lets every device in flight finish or roll back (verified),
    starts nothing new, and still writes the results; a second leaves the devices in flight to their on-device
    watchdogs, writes the results with each one's state and exits 130 at once."""
    def inflight_lines() -> list[str]:
        lines = []
        for device, j in sorted(options.inflight.items()):
            deadline, lock = j.get("deadline"), j.get("lock_deadline")
            when = time.strftime("%H:%M:%S UTC", time.gmtime(deadline)) if isinstance(deadline, int) else None
            state = "DRAINED" if j.get("drained") else "not drained"
            lines.append(f"{device}: {state}, at step {j.get('step')}; "
                         + (f"its watchdog restores the previous files at {when}" if when else
                            "nothing changed yet; its watchdog releases the lock at "
                            + (time.strftime("%H:%M:%S UTC", time.gmtime(lock)) if isinstance(lock, int) else "?")))
        return lines

    def handler(signum: int, _frame: object) -> None:
        name = signal.Signals(signum).name
        if not options.stop.is_set():
            options.stop.set()
            sys.stderr.write(f"\n{name}: rolling back the devices in flight, starting no new one "
                             f"({name} again: leave them to their on-device watchdogs)\n"
                             + "".join(f"  {line}\n" for line in inflight_lines()))
            sys.stderr.flush()
            return
        left = inflight_lines()
        finished = {r.device for r in done}
        hard = [*done, *(DeviceResult(d, "apply", "interrupted", error=f"{name} twice: left mid-push",
                                      device_state=line)
                         for d, line in zip(sorted(options.inflight), left) if d not in finished)]
        rollout.write_results(results_path, "apply", hard, {**extra, "interrupted": True, "hard_exit": True,
                                                            "untouched": [n for n in names if n not in
                                                                          finished | set(options.inflight)]})
        sys.stderr.write(f"\n{name} again: exiting now; results: {results_path}\n"
                         + "".join(f"  {line}\n" for line in left))
        sys.stderr.flush()
        os._exit(130)

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)
