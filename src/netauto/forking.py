"""Forked children, one rule for all of them (render's pool, render's bounded override run, validate's half in a
child, validate's preloaded ifupdown2).

THE RULE. A child is forked, never spawned: it inherits what the parent has resolved and loaded (the model, the
compiled templates, a preloaded ifupdown2) copy-on-write instead of receiving it pickled. So a fork copies every
lock of every thread in whatever state it is, and the child:
  1. does only its own work and writes its result to the pipe it was given: no logging, no console, no SSH, no
     thread pool; the parent flushes stdout and stderr before the fork (`fork_child`), so nothing buffered is
     written twice;
  2. never returns into the caller's stack: it leaves with `os._exit` (`fork_child`, or multiprocessing's worker
     loop), whatever happens;
  3. dies with its parent (`die_with_parent`): a killed render's workers do not go on writing.
Work that may touch a lock another thread holds (validate's halves run under deploy's SSH worker threads) forks
only from a single-threaded process (`fork_usable(single_thread=True)`), else runs in-process.

Stdlib only, and importable by path: validate/ifup_batch.py runs under the system python3, outside netauto's
package, and loads this file by its path.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from multiprocessing.context import BaseContext

__all__ = ["cpus", "die_with_parent", "fork_child", "fork_context", "fork_usable"]

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
CHILD_FAILED = 70  # EX_SOFTWARE (sysexits.h): the child's work raised


def cpus() -> int:
    """CPUs this process may run on (its affinity mask: a container's or taskset's limit), not the host's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 2


def fork_usable(*, min_cpus: int = 1, single_thread: bool = False) -> bool:
    """Fork is there, this process may use `min_cpus` CPUs or more and, when the work asks (`single_thread`: it may
    take a lock another thread holds), it runs no other thread."""
    if not hasattr(os, "fork") or "fork" not in multiprocessing.get_all_start_methods():
        return False
    return cpus() >= min_cpus and (not single_thread or threading.active_count() == 1)


def fork_context() -> BaseContext:
    """multiprocessing's fork context (for a Pool or a ProcessPoolExecutor whose workers follow the rule)."""
    return multiprocessing.get_context("fork")


def die_with_parent(parent: int) -> None:
    """Linux: this child gets SIGKILL when its parent dies; a parent already gone (before prctl) ends it now."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux
        pass
    if os.getppid() != parent:
        os._exit(1)


def fork_child(work: Callable[[], int]) -> int:
    """Fork; in the child run `work()` and leave with its exit code (CHILD_FAILED if it raised), never returning.
    In the parent: the child's pid. stdout and stderr are flushed first (nothing buffered is written twice)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = CHILD_FAILED
        try:
            code = work()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001, S110 - the forked child must exit with a code, never unwind
            pass
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    return pid
