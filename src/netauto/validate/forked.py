"""Two halves of a validation step side by side: one in a forked child, one in this process.

The child inherits everything this process holds (copy-on-write: the parsed fabric is not copied or pickled on
the way in); only its result comes back, pickled. Used for the parse-back (`view._parse_parallel`) and for the
rules beside the route simulation (`validate.fabric_run`).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from netauto import forking

T = TypeVar("T")
U = TypeVar("U")

_TASK: Callable[[], Any] | None = None  # what the forked child runs


def _run_task() -> Any:
    assert _TASK is not None
    return _TASK()


def usable() -> bool:
    """Fork is there, this process may use two CPUs or more, and it has no other thread (netauto.forking's rule:
    a check may take a lock another thread holds, e.g. deploy's workers)."""
    return forking.fork_usable(min_cpus=2, single_thread=True)


def beside(child: Callable[[], T], here: Callable[[], U]) -> tuple[T, U] | None:
    """`child()` in a forked process while `here()` runs in this one: (child's result, here's result). None when
    fork is not usable (the caller runs both itself). A child that dies is run again here; an exception raised by
    `child()` is raised here."""
    global _TASK
    if not usable():
        return None
    _TASK = child
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=forking.fork_context(), initializer=forking.die_with_parent,
                                 initargs=(os.getpid(),)) as pool:
            theirs_future = pool.submit(_run_task)
            mine = here()
            try:
                theirs = theirs_future.result()
            except (BrokenProcessPool, OSError, pickle.PicklingError):  # the child died: its half runs here
                theirs = child()
    finally:
        _TASK = None
    return theirs, mine
