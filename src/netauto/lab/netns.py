"""Low-level namespace helpers: ip batches, pid discovery, cheap in-namespace /proc reads via setns()."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, TypeVar

NETNS_DIR = Path("/run/netns")
CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(None, use_errno=True)
T = TypeVar("T")


def run(cmd: list[str], *, input: str | None = None, check: bool = True, timeout: float | None = 60) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}... failed (rc {proc.returncode}): {(proc.stderr or proc.stdout).strip()[:800]}")
    return proc


def ip_batch(lines: list[str], ns: str | None = None, *, force: bool = False) -> subprocess.CompletedProcess:
    if not lines:
        return subprocess.CompletedProcess([], 0, "", "")
    cmd = ["ip"] + (["-n", ns] if ns else []) + (["-force"] if force else []) + ["-batch", "-"]
    return run(cmd, input="\n".join(lines) + "\n", check=not force)


def list_netns(prefix: str) -> list[str]:
    if not NETNS_DIR.is_dir():
        return []
    return sorted(p.name for p in NETNS_DIR.iterdir() if p.name.startswith(prefix))


def _ns_inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def pids_in_netns(names: list[str]) -> dict[str, list[int]]:
    """One pass over /proc: which processes live in each named network namespace."""
    inodes = {}
    for n in names:
        ino = _ns_inode(NETNS_DIR / n)
        if ino is not None:
            inodes[ino] = n
    out: dict[str, list[int]] = {n: [] for n in names}
    if not inodes:
        return out
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            ino = os.stat(f"/proc/{entry.name}/ns/net").st_ino
        except OSError:
            continue
        if ino in inodes:
            out[inodes[ino]].append(int(entry.name))
    return out


def kill_pids(pids: list[int], grace: float = 3.0) -> int:
    """SIGTERM, wait up to `grace` seconds, then SIGKILL what is left. Returns how many were SIGKILLed."""
    alive = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
            alive.append(pid)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [p for p in alive if _alive(p)]
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(alive)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return False


def in_netns(ns_names: list[str], fn: Callable[[str], T]) -> dict[str, T | None]:
    """Call fn(ns) for each namespace from one helper thread that setns()es into each in turn.

    fn may read /proc/thread-self/net/*; spawning nothing keeps polling cheap (lab-notes §2.4)."""
    results: dict[str, T | None] = {}

    def worker() -> None:
        for ns in ns_names:
            try:
                fd = os.open(NETNS_DIR / ns, os.O_RDONLY)
            except OSError:
                results[ns] = None
                continue
            try:
                if _libc.setns(fd, CLONE_NEWNET) != 0:
                    results[ns] = None
                    continue
                results[ns] = fn(ns)
            except OSError:
                results[ns] = None
            finally:
                os.close(fd)

    t = threading.Thread(target=worker, daemon=True)  # the thread dies with its namespace; the caller's stays put
    t.start()
    t.join()
    return results


def established_bgp(_: str) -> int:
    """Number of ESTABLISHED TCP connections to or from port 179 in the current thread's netns."""
    count = 0
    for f in ("/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"):
        try:
            with open(f) as fh:
                next(fh)
                for line in fh:
                    parts = line.split(None, 4)
                    if parts[3] == "01" and (parts[1].endswith(":00B3") or parts[2].endswith(":00B3")):
                        count += 1
        except OSError:
            pass
    return count


def forwarded_ipv4(_: str) -> int:
    with open("/proc/thread-self/net/snmp") as fh:
        lines = [l.split() for l in fh if l.startswith("Ip:")]
    return int(lines[1][lines[0].index("ForwDatagrams")])
