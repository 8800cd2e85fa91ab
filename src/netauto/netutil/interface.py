"""Port names: the natural order of interface names (swp2 before swp10, swp1 before swp1s0 before swp1s1,
Ethernet4 before Ethernet8), for sorting ports, neighbours and the keys of tables named by port."""

from __future__ import annotations

import re
from functools import lru_cache

_DIGITS = re.compile(r"(\d+)")


@lru_cache(maxsize=1 << 16)
def port_sort_key(name: str) -> tuple[str | int, ...]:
    """Sort key of a port name (or any name with numbers in it): its text and number runs, numbers compared as
    numbers. `sorted(["swp10", "swp1s1", "swp2", "swp1"], key=port_sort_key)` -> swp1, swp1s1, swp2, swp10."""
    return tuple(int(part) if i % 2 else part for i, part in enumerate(_DIGITS.split(name)))
