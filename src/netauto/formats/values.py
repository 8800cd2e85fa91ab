"""Scalar coercions the readers share: a value read from a file, as an int or a yes/no."""

from __future__ import annotations

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
