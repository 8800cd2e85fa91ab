"""iputils `ping` summary: the acceptance isolation probes' output (netauto.acceptance.isolation).

The line iputils prints at the end of every run that sent a packet (ping/ping.c, `finish()`, iputils 20211215
here): "<n> packets transmitted, <m> received[, +<e> errors][, <p>% packet loss][, time <t>ms]". Nothing else of
the output is read; without that line the probe did not run (no socket, no route, no ssh) and proves nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SUMMARY = re.compile(r"^(\d{1,9}) packets transmitted, (\d{1,9}) (?:packets )?received", re.MULTILINE)


class PingError(ValueError):
    """No ping summary line."""


@dataclass(frozen=True, slots=True)
class PingSummary:
    transmitted: int
    received: int


def parse_ping(text: str) -> PingSummary:
    m = _SUMMARY.search(text)
    if m is None:
        raise PingError("no 'packets transmitted' summary: the probe did not run")
    return PingSummary(int(m.group(1)), int(m.group(2)))
