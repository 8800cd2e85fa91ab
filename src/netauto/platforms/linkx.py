"""NVIDIA LinkX parts by form factor, media and reach (data/linkx.yaml): what fits a twin-port OSFP switch cage
and the cage at the other end of its links, and each part's number and bill text."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from netauto.platforms.datafile import load_cached

DATA = Path(__file__).resolve().parent / "data" / "linkx.yaml"


@dataclass(frozen=True, slots=True)
class Module:
    part: str
    form: str
    media: str
    reach_m: int
    item: str


@dataclass(frozen=True, slots=True)
class Copper:
    family: str
    kind: str  # DAC | ACC
    far: str  # form factor of the far end(s)
    split: int  # 1: one twin-port cage at the far end; 2: two single-port cages
    lengths: dict[float, str]  # metres -> ordering code
    item: str


def switch_form(cage_type: str) -> str | None:
    """Form factor of a switch cage type of optics.yaml, None when no LinkX part here serves it."""
    form = load_cached(DATA)["switch_cages"].get(cage_type)
    return str(form) if form else None


def nic_form(cage: str) -> str:
    """A bom.nic_cages / racking.yaml NIC cage as a form factor (older spellings mapped)."""
    return str(load_cached(DATA)["nic_aliases"].get(cage, cage))


def carries(speed: str) -> bool:
    """The catalog has parts for links at this speed."""
    return speed in load_cached(DATA)["speeds"]


def is_form(name: str) -> bool:
    return name in load_cached(DATA)["forms"]


def nic_cage(form: str) -> bool:
    """A server NIC cage may have this form (a finned twin-port OSFP is a switch cage only: `nic: false`)."""
    return bool(load_cached(DATA)["forms"].get(form, {}).get("nic", True))


def twin(form: str) -> bool:
    return int(load_cached(DATA)["forms"][form]["ports"]) == 2


def forms() -> list[str]:
    return list(load_cached(DATA)["forms"])


@cache
def modules() -> tuple[Module, ...]:
    return tuple(Module(part, str(m["form"]), str(m["media"]), int(m["reach_m"]), str(m["item"]))
                 for part, m in load_cached(DATA)["transceivers"].items())


@cache
def module(form: str, media: str, metres: int = 0) -> Module | None:
    """The module of a cage form on a medium with the shortest reach that covers `metres` (the longest-reaching
    one when none does), None when the catalog has none. Cached: every cage of a fabric asks the same few."""
    fits = sorted((m for m in modules() if m.form == form and m.media == media), key=lambda m: m.reach_m)
    return next((m for m in fits if m.reach_m >= metres), fits[-1] if fits else None)


def media() -> list[str]:
    """Media in order of preference (single mode first: the longest reach, the published plans' choice)."""
    return list(load_cached(DATA)["fibres"])


def fibre(media: str, splitter: bool) -> tuple[str, str]:
    """(family, bill item) of a crossover fibre."""
    f = load_cached(DATA)["fibres"][media]["splitter" if splitter else "straight"]
    return str(f["family"]), str(f["item"])


@cache
def coppers() -> tuple[Copper, ...]:
    return tuple(Copper(family, str(c["kind"]), str(c["far"]), int(c["split"]),
                        {float(k): str(v) for k, v in c["lengths"].items()}, str(c["item"]))
                 for family, c in load_cached(DATA)["copper"].items())


@cache
def parts_by_item() -> dict[str, str]:
    """Bill item -> part number (a module), or family (a fibre or copper cable, completed by its length)."""
    out = {m.item: m.part for m in modules()}
    out.update({c.item: c.family for c in coppers()})
    for kinds in load_cached(DATA)["fibres"].values():
        out.update({str(f["item"]): str(f["family"]) for f in kinds.values()})
    return out


def copper_part(item: str, metres: float) -> str:
    c = next(c for c in coppers() if c.item == item)
    return f"{c.family}-{c.lengths[metres]}"
