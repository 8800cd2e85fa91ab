"""JSON a device prints (`vtysh -c '... json'`, `ip -j`, `lldpcli -f json0`, `nv show -o json`, config_db.json):
the one reader, because a device is hostile too. Python's json module recurses once per nesting level, so
`[[[[...]]]]` 100,000 deep raised RecursionError out of a Nornir task (a traceback on stderr); here it is a
ValueError like any other unreadable output, which every caller reports in one line per device."""

from __future__ import annotations

import json
import sys
from typing import Any


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
