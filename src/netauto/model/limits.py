"""How big a fabric netauto renders without being asked twice.

The schema bounds each topology number on its own (pods <= 64, sus_per_pod <= 256, servers_per_su <= 256,
...), but their product is not bounded: a schema-valid inventory of 16,384 switches and 131,072 servers
rendered for 5 minutes in 7.3 GiB. Render time and memory grow linearly with the device count (the shipped
10k example, 640 switches and 1,024 servers, renders in seconds in well under 1 GiB), so the bound below
keeps a render to about a minute and a few GiB.

Bounds: 32,768 servers is 262,144 GPUs at 8 GPUs per server, 32 times the shipped 10,000-GPU example and
beyond any single RoCE fabric we know of; 8,192 switches is what a rail-optimized fabric of that size needs
(32,768 servers in 32-server SUs on 8 rails: 8,192 leaves; larger SUs need fewer). An inventory above either
is almost certainly a typo (a pods or servers_per_su digit too many) or hostile; whoever really means it
passes `netauto --allow-huge ...` or sets NETAUTO_ALLOW_HUGE=1.
"""

from __future__ import annotations

import os

MAX_SWITCHES = 8192
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
