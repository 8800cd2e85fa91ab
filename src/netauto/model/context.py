"""What every step of the resolver reads: the checked inventory, its sizes, hardware and server profiles."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from netauto.inventory.schema import Inventory
from netauto.inventory.servers import ServerProfile
from netauto.model.topology import Counts
from netauto.platforms import hardware as hw


class Where(Protocol):
    """Keyword arguments of an InventoryError pointing at a key path of the inventory."""

    def __call__(self, *path: str | int) -> dict[str, Any]: ...


class Source(Protocol):
    """A loaded inventory (LoadedInventory, or a network's derived inventory reporting at `networks.<name>`)."""

    @property
    def inventory(self) -> Inventory: ...

    def where(self, *path: str | int) -> dict[str, Any]: ...


@dataclass(slots=True)
class Context:
    inv: Inventory
    where: Where
    counts: Counts
    hardware: dict[str, hw.Hardware]  # switch model per role
    profiles: dict[str, ServerProfile]  # server models by profile name
    breakouts: dict[tuple[str, str], int] = field(default_factory=dict)  # (role, port group) -> ways, memo
    _lanes: dict[tuple[str, int, int | None, int], tuple[int, ...]] = field(default_factory=dict)  # memo

    def hw_for(self, role: str) -> hw.Hardware:
        return self.hardware[role]

    def lanes(self, role: str, cage: int, subport: int | None, breakout: int) -> list[int]:
        """The SerDes lanes of a port of the tier's hardware (a fresh list: each interface owns its own)."""
        key = (role, cage, subport, breakout)
        found = self._lanes.get(key)
        if found is None:
            found = self._lanes[key] = tuple(self.hardware[role].lanes(cage, subport, breakout))
        return list(found)
