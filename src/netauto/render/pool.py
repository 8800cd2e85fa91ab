"""Render independent parts of a large fabric on every core the process may use.

The parts (a chunk of switches, a chunk of servers, the monitoring folder, ...) are closures over the resolved
model; the workers are forked after the model is resolved, so they inherit it and the compiled templates instead
of receiving them pickled, and send back plain tuples. The artifacts come out in the parts' order (model order),
whatever order the workers finish in; a part's exception (a template failing for a device: NetautoError, one
line) is raised in the parent as it would be in a serial render. Below `MIN_DEVICES`, on one core, or where fork
is not available, the caller renders serially: a pool costs a fork and the pickling of every file's content.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netauto.render.engine import Artifact

MIN_DEVICES = 400  # measured: the 10k example (1,664 devices) gains; a few hundred devices render in < 1 s anyway
CHUNK = 64  # devices per part: small enough to balance two workers, large enough that pickling is in bulk

Part = Callable[[], "Iterator[Artifact]"]
_PARTS: Sequence[Part] = ()  # set in the parent just before the fork; the workers read it by index


def workers() -> int:
    """The cores this process may run on (its CPU affinity), 1 where fork is not available."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _run(index: int) -> list[tuple[str, str, str, int, str | None]]:
    return [(a.device, a.path, a.content, a.mode, a.owner) for a in _PARTS[index]()]


def run(parts: Sequence[Part], n: int, first: Sequence[int] = ()) -> Iterator[Artifact]:
    """Every part's artifacts, in the parts' order, rendered by `n` forked workers. `first`: the parts to start
    before the others (the longest ones, so they do not finish alone at the end)."""
    from netauto.render.engine import Artifact

    global _PARTS
    _PARTS = parts
    try:
        # gc.freeze in each worker: its collections skip the inherited model, whose pages it would otherwise touch
        # (and so copy) on every full collection
        with multiprocessing.get_context("fork").Pool(n, initializer=gc.freeze) as pool:
            order = [*first, *(i for i in range(len(parts)) if i not in set(first))]
            pending = {i: pool.apply_async(_run, (i,)) for i in order}
            for i in range(len(parts)):
                rows = pending.pop(i).get()
                for row in rows:
                    yield Artifact(*row)
                del rows
    finally:
        _PARTS = ()
