"""Port naming per NOS: logical port number -> the name the NOS uses (swp1, swp1s0, Ethernet0).

Cumulus names a port by its cage (swpN, swpNsM); SONiC by lane position, which is a hardware fact: the
platform layer (`platforms.hardware.Hardware.sonic_name`) gives it per switch model.
"""

from __future__ import annotations

from dataclasses import dataclass

from netauto.platforms.hardware import load_hardware


@dataclass(frozen=True, slots=True)
class PortSlot:
    cage: int  # 1-based front-panel cage
    sub: int | None  # breakout sub-port (0-based), None when not broken out
    breakout: int

    def name(self, nos: str, hardware: str) -> str:
        """The port's name on `nos` for a switch of model `hardware` (Switch.hardware)."""
        if nos == "sonic":
            return load_hardware(hardware).sonic_name(self.cage, self.sub, self.breakout)
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
