"""How big a fabric netauto renders without being asked twice.

The schema bounds each topology number on its own (pods <= 64, sus_per_pod <= 256, servers_per_su <= 256,
...), but not their product: a schema-valid inventory of 16,384 switches and 131,072 servers rendered for
5 minutes in 7.3 GiB (issue #17), about 2 ms and 50 KiB per device; the shipped 10k example (640 switches,
1,024 servers) renders in about 5 s in 122 MiB (docs/scale.md). Cost grows linearly with the device count.

Bounds: 32,768 servers is 262,144 GPUs at 8 GPUs per server, 32 times the shipped 10,000-GPU example and
beyond any single RoCE fabric we know of. 16,384 switches leaves room for the switches such a fabric needs
(32,768 servers in 32-server SUs on 8 rails, three tiers: 8,192 leaves, 2,048 spines, 128 super-spines) and
for 16-rail designs. At the bounds a render costs by the figures above about 1.5-2 minutes and 2.5 GiB.
An inventory beyond either is almost certainly a typo (a digit too many in pods or servers_per_su) or
hostile; whoever really means it runs `netauto --allow-huge ...` or sets NETAUTO_ALLOW_HUGE=1.
"""

from __future__ import annotations

import os

MAX_SWITCHES = 16384
MAX_SERVERS = 32768
ALLOW_HUGE_ENV = "NETAUTO_ALLOW_HUGE"


def allow_huge_from_env() -> bool:
    return os.environ.get(ALLOW_HUGE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def too_big(switches: int, servers: int) -> str | None:
    """What is over the bound, or None."""
    over = []
    if switches > MAX_SWITCHES:
        over.append(f"{switches:,} switches (bound {MAX_SWITCHES:,})")
    if servers > MAX_SERVERS:
        over.append(f"{servers:,} servers (bound {MAX_SERVERS:,})")
    return " and ".join(over) or None
