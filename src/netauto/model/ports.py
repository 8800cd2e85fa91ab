"""Port naming per NOS: logical port number -> the name the NOS uses (swp1, swp1s0, Ethernet0)."""

from __future__ import annotations

from dataclasses import dataclass

LANES_PER_CAGE = 8  # Spectrum-4 OSFP cage: 8 SerDes lanes


@dataclass(frozen=True, slots=True)
class PortSlot:
    cage: int  # 1-based front-panel cage
    sub: int | None  # breakout sub-port (0-based), None when not broken out
    breakout: int

    def name(self, nos: str) -> str:
        if nos == "sonic":
            lane_offset = 0 if self.sub is None else self.sub * (LANES_PER_CAGE // self.breakout)
            return f"Ethernet{(self.cage - 1) * LANES_PER_CAGE + lane_offset}"
        if self.sub is None:
            return f"swp{self.cage}"
        return f"swp{self.cage}s{self.sub}"

    def parent(self, nos: str) -> str | None:
        if self.sub is None or nos == "sonic":
            return None
        return f"swp{self.cage}"


def slot(first_cage: int, breakout: int, i: int) -> PortSlot:
    """The i-th (0-based) logical port of a range starting at `first_cage`."""
    if breakout == 1:
        return PortSlot(first_cage + i, None, 1)
    return PortSlot(first_cage + i // breakout, i % breakout, breakout)


def cages_used(first_cage: int, breakout: int, count: int) -> range:
    if count == 0:
        return range(first_cage, first_cage)
    return range(first_cage, first_cage + (count + breakout - 1) // breakout)
