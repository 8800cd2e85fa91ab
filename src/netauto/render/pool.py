"""Render independent parts of a large fabric on every core the process may use.

The parts (a chunk of switches, a chunk of servers, the monitoring folder, ...) are closures over the resolved
model; the workers are forked after the model is resolved, so they inherit it and the compiled templates instead
of receiving them pickled. Each worker passes every file it renders to the caller's `each` (`render.output`'s
writer: the file goes into the new tree's temp folder there and then) and sends back only what `each` returns,
never the files' text. The results come out in the parts' order (model order), whatever order the workers
finish in; a part's exception (a template failing for a device: NetautoError, one line) is raised in the parent
as it would be in a serial render, after every worker is stopped. Below `MIN_DEVICES`, on one core, or where
fork is not available, the caller renders serially: a pool costs a fork. The workers follow netauto.forking's
rule (they render and write files only, and die with the parent).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from netauto import forking

if TYPE_CHECKING:
    from netauto.render.artifact import Artifact

MIN_DEVICES = 400  # measured: the 10k example (1,664 devices) gains; a few hundred devices render in < 1 s anyway
CHUNK = 64  # devices per part: small enough to balance two workers, large enough that results go back in bulk

R = TypeVar("R")
Part = Callable[[], "Iterator[Artifact]"]
# set in the parent just before the fork; the workers read them
_PARTS: Sequence[Part] = ()
_EACH: Callable[[Artifact], Any] = id


def workers() -> int:
    """The cores this process may run on (its CPU affinity), 1 where fork is not available."""
    return forking.cpus() if forking.fork_usable() else 1


def _start(parent: int) -> None:
    """A worker's setup. gc.freeze: its collections skip the inherited model, whose pages they would otherwise
    touch (and so copy) on every full collection. The worker dies with the parent (a SIGKILLed render's workers
    do not go on writing into its temp folder and holding its output lock)."""
    gc.freeze()
    forking.die_with_parent(parent)


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
        with forking.fork_context().Pool(n, initializer=_start, initargs=(os.getpid(),)) as pool:
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
