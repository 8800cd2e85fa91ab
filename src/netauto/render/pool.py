"""Render independent parts of a large fabric on every core the process may use.

The parts (a chunk of switches, a chunk of servers, the monitoring folder, ...) are closures over the resolved
model; the workers are forked after the model is resolved, so they inherit it and the compiled templates instead
of receiving them pickled. Each worker passes every file it renders to the caller's `each` (`render.output`'s
writer: the file goes into the new tree's temp folder there and then) and sends back only what `each` returns,
never the files' text. The results come out in the parts' order (model order), whatever order the workers
finish in; a part's exception (a template failing for a device: NetautoError, one line) is raised in the parent
as it would be in a serial render, after every worker is stopped. Below `MIN_DEVICES`, on one core, or where
fork is not available, the caller renders serially: a pool costs a fork.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from netauto.render.artifact import Artifact

MIN_DEVICES = 400  # measured: the 10k example (1,664 devices) gains; a few hundred devices render in < 1 s anyway
CHUNK = 64  # devices per part: small enough to balance two workers, large enough that results go back in bulk

R = TypeVar("R")
Part = Callable[[], "Iterator[Artifact]"]
# set in the parent just before the fork; the workers read them
_PARTS: Sequence[Part] = ()
_EACH: Callable[[Artifact], Any] = id
_PR_SET_PDEATHSIG = 1


def workers() -> int:
    """The cores this process may run on (its CPU affinity), 1 where fork is not available."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _start(parent: int) -> None:
    """A worker's setup. gc.freeze: its collections skip the inherited model, whose pages they would otherwise
    touch (and so copy) on every full collection. Linux: the worker dies with the parent (a SIGKILLed render's
    workers do not go on writing into its temp folder and holding its output lock)."""
    gc.freeze()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux
        pass
    if os.getppid() != parent:  # the parent died before prctl
        os._exit(1)


def _run(index: int) -> list[Any]:
    return [_EACH(a) for a in _PARTS[index]()]


def run(parts: Sequence[Part], n: int, first: Sequence[int], each: Callable[[Artifact], R],
        forked: Callable[[], None] = lambda: None) -> Iterator[R]:
    """`each(artifact)` of every part's artifacts, called in `n` forked workers, in the parts' order. `first`: the
    parts to start before the others (the longest ones, so they do not finish alone at the end). `forked`: called
    in this process once the workers exist (to drop what only they read)."""
    global _PARTS, _EACH
    _PARTS, _EACH = parts, each
    try:
        with multiprocessing.get_context("fork").Pool(n, initializer=_start, initargs=(os.getpid(),)) as pool:
            forked()
            early = set(first)
            order = [*first, *(i for i in range(len(parts)) if i not in early)]
            pending = {i: pool.apply_async(_run, (i,)) for i in order}
            for i in range(len(parts)):
                rows = pending.pop(i).get()
                yield from rows
                del rows
    finally:
        _PARTS, _EACH = (), id
