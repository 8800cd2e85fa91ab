"""JSON a device prints (`vtysh -c '... json'`, `ip -j`, `lldpcli -f json0`, `nv show -o json`, config_db.json):
the one reader, because a device is hostile too. Python's json module recurses once per nesting level, so
`[[[[...]]]]` 100,000 deep raised RecursionError out of a Nornir task (a traceback on stderr); here it is a
ValueError like any other unreadable output, which every caller reports in one line per device."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class DeviceJsonError(ValueError):
    """Device output that is not JSON netauto can read."""


def loads(text: str | bytes) -> Any:
    """json.loads, with nesting deeper than Python's recursion limit refused as a ValueError (one line)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise DeviceJsonError("JSON nested deeper than netauto reads (about "
                              f"{sys.getrecursionlimit()} levels): refused") from None
    except json.JSONDecodeError as exc:
        raise DeviceJsonError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


# What reading valid JSON of the wrong shape raises: `[1].get`, `5["ifname"]`, `for x in 5`, `{}["prio_pfc"]`
SHAPE_ERRORS = (AttributeError, KeyError, TypeError, IndexError)


def shaped(what: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A parser of `what` (device output): valid JSON of the wrong shape (a list where an object belongs, a number
    where a list belongs, a key missing) is a DeviceJsonError naming `what`, like output that is not JSON, so
    every caller reports it as unreadable in one line (before: an AttributeError traceback out of verify)."""
    def wrap(parse: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(parse)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return parse(*args, **kwargs)
            except SHAPE_ERRORS as exc:
                raise DeviceJsonError(f"{what}: not the shape netauto reads ({type(exc).__name__}: "
                                      f"{str(exc)[:80]})") from None
        return run
    return wrap
