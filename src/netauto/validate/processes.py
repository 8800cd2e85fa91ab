"""How the real validators share the machine: process slots (one per usable CPU, long processes first) and a
RAM-backed scratch folder. Used by `netauto.validate.external` and every checker built on it."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from netauto import forking


usable_cpus = forking.cpus  # CPUs this process may run on (its affinity mask), not the host's count


class _Slots:
    """`n` process slots; a long process (`long=True`) waiting for one gets the next free slot before any short one,
    so the longest processes start first and the checks do not end on one long process with the other CPUs idle."""

    def __init__(self, n: int) -> None:
        self.free = n
        self.long_waiting = 0
        self.cond = threading.Condition()

    @contextmanager
    def hold(self, long: bool) -> Iterator[None]:
        with self.cond:
            self.long_waiting += long
            try:
                while self.free == 0 or (not long and self.long_waiting):
                    self.cond.wait()
            finally:
                self.long_waiting -= long
            self.free -= 1
        try:
            yield
        finally:
            with self.cond:
                self.free += 1
                self.cond.notify_all()


_slots: _Slots | None = None
_slots_lock = threading.Lock()


@contextmanager
def process_slot(*, long: bool = False) -> Iterator[None]:
    """Hold one of `usable_cpus()` slots while a validator process runs (shared by every check of this process);
    `long`: a process of seconds (a promtool run, an ifupdown2 batch), served first."""
    global _slots
    with _slots_lock:
        if _slots is None:
            _slots = _Slots(usable_cpus())
        slots = _slots
    with slots.hold(long):
        yield


@lru_cache(maxsize=1)
def _shm() -> str | None:
    """/dev/shm when it is a tmpfs this user may write in."""
    shm = "/dev/shm"
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            tmpfs = any(line.split()[1:3] == [shm, "tmpfs"] for line in mounts)
    except OSError:
        return None
    return shm if tmpfs and os.access(shm, os.W_OK | os.X_OK) else None


def memory_tmp(need: int = 0) -> str | None:
    """A RAM-backed folder for `need` bytes of scratch files (/dev/shm, when it is a tmpfs this user may write and
    has four times that free), else None: the system's temporary folder.

    On the 2-vCPU test VM ext4 costs ~150 µs per file created and about as much to delete it (16,389 files for
    the 10k example), and netplan's generator fsyncs what it writes (~50 ms of waiting per server on disk)."""
    shm = _shm()
    if shm is None:
        return None
    try:
        st = os.statvfs(shm)
    except OSError:
        return None
    return shm if st.f_bavail * st.f_frsize >= 4 * need else None
