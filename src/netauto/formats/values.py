"""Scalar coercions the readers share: a value read from a file, as an int, a finite number or a yes/no."""

from __future__ import annotations

import math
from typing import Any


def to_int(value: Any) -> int | None:
    """`9000`, `"9000"`, `" 9000 "` -> 9000; anything that is not an integer (None, "abc", "9k") -> None."""
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def yes(value: Any) -> bool | None:
    """ifupdown2-style yes/no (`yes`, `on`, `true`, `1` are yes); None when the value is absent."""
    return None if value is None else str(value).strip().lower() in ("yes", "on", "true", "1")


def finite(value: Any) -> float:
    """A number read from a file or a plan (`400`, `"400.5"`) as a float. ValueError for anything else, and for
    a value that is not finite (`1e999`, a 400-digit number, `"Infinity"`, `NaN`, `"-inf"`): a measurement or a
    limit that compares as larger or smaller than everything would make any test pass."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{str(value)[:40]!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{str(value)[:40]!r} is not a finite number")
    return number
