"""The switches' cage facts and the bill's optics table (platforms/data/optics.yaml): which cage type each
front-panel cage of a switch platform is, and what goes into it. Read by the bill (netauto.bom), the part
chooser (netauto.model.parts) and the OOB model (a copper management cage)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from netauto.errors import NetautoError
from netauto.platforms.datafile import load_cached

DATA = Path(__file__).resolve().parent / "data" / "optics.yaml"


def optics() -> dict[str, Any]:
    return load_cached(DATA)


def cage_type(platform: str, cage: int) -> str:
    """The cage type (OSFP, QSFP28, RJ45, ...) of front-panel cage `cage` of switch platform `platform`."""
    spec = optics()["platforms"].get(platform)
    if spec is None:
        raise NetautoError(f"no cage facts for platform {platform!r} (known: {', '.join(optics()['platforms'])})")
    for span, kind in spec["cages"].items():
        lo, _, hi = str(span).partition("-")
        if int(lo) <= cage <= int(hi or lo):
            return kind
    raise NetautoError(f"platform {platform} has no cage {cage}")


def cage_entry(kind: str, breakout: int, speed: str) -> dict[str, Any] | None:
    """What one cage of type `kind` holds for a link at `speed` in a cage split `breakout` ways (optics.yaml
    `cages`: by breakout first, then by speed), None when the table has nothing for it."""
    table: dict[str, Any] = optics()["cages"].get(kind, {})
    entry: dict[str, Any] | None = table.get(f"{breakout}x") or table.get(speed)
    return entry


def _grade(phy: str | None) -> str | None:
    """The fibre grade a generic IEEE PHY's reach is read on (optics.yaml `fibre_grade`), None for a PHY whose
    reach takes no grade (copper) or a cage entry with no PHY (the twin-port cages: LinkX parts, single mode)."""
    if phy is None or not isinstance(optics()["reach"][phy]["reach_m"], dict):
        return None
    return str(optics()["fibre_grade"])


def reach(phy: str) -> tuple[int, str]:
    """(metres, medium) a generic IEEE PHY reaches (optics.yaml `reach`): a multimode one on the fibre grade
    netauto assumes (`fibre_grade`), a copper one on its cable."""
    entry = optics()["reach"][phy]
    grade = _grade(phy)
    if grade is not None:
        return int(entry["reach_m"][grade]), f"{grade} multimode"
    return int(entry["reach_m"]), str(entry["media"])


def fibre_item(entry: dict[str, Any]) -> str:
    """The bill's line for the fibre (or cable) of a cage entry (`cage_entry`): a multimode one names the grade
    its reach was checked on ("LC duplex MMF OM4"), so the bill buys the fibre the check assumed."""
    grade = _grade(entry.get("phy"))
    return f"{entry['fibre']} {grade}" if grade else str(entry["fibre"])
