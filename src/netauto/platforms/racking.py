"""Size and power of switches and GPU servers (data/racking.yaml): what a rack's U and power budget hold."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from netauto.platforms.datafile import load_cached
from netauto.platforms.optics import optics

DATA = Path(__file__).resolve().parent / "data" / "racking.yaml"


@dataclass(frozen=True, slots=True)
class Equipment:
    model: str
    u: int
    power_kw: float
    nic_cage: str = ""


def switch(model: str) -> Equipment | None:
    e = load_cached(DATA)["switches"].get(model)
    return Equipment(model, int(e["u"]), float(e["power_kw"])) if e else None


def server(model: str) -> Equipment | None:
    e = load_cached(DATA)["servers"].get(model)
    return Equipment(model, int(e["u"]), float(e["power_kw"]), str(e["nic_cage"])) if e else None


def server_models() -> list[str]:
    return list(load_cached(DATA)["servers"])


def switch_models() -> list[str]:
    return list(load_cached(DATA)["switches"])


def longest_cable_m() -> int:
    """The longest cable class of the bill (optics.yaml length_classes): a link inside the hall longer than it
    has no part (netauto bom) and is refused (netauto.model.cabling), the same limit for both."""
    return int(max(optics()["length_classes"]))
