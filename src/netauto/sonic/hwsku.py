"""SONiC HWSKU port maps, kept as data: `hwsku/<HWSKU>.yaml` next to this module (shipped in the wheel)."""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from netauto.errors import NetautoError

HWSKU_DIR = Path(__file__).resolve().parent / "hwsku"


@dataclass(frozen=True, slots=True)
class Cage:
    number: int
    lanes: tuple[int, ...]
    alias: str
    max_speed_mbps: int


@dataclass(frozen=True, slots=True)
class PortInfo:
    lanes: str  # "0,1,2,3"
    alias: str
    index: int  # front-panel cage number


@dataclass(frozen=True, slots=True)
class Hwsku:
    name: str
    platform: str
    asic: str
    lanes_per_cage: int
    breakouts: tuple[int, ...]
    buffer_pools: dict[str, dict[str, object]]
    cages: dict[int, Cage]

    def port(self, cage: int, subport: int | None, breakout: int, speed_mbps: int, *, device: str, name: str) -> PortInfo:
        """Lanes and alias of one logical port: a whole cage, or sub-port `subport` of a `breakout`-way split."""
        found = self.cages.get(cage)
        if found is None:
            raise NetautoError(f"{device} {name}: HWSKU {self.name} has no front-panel cage {cage} "
                               f"(cages 1-{max(self.cages)}); lower ports.<role>.cages or pick another HWSKU")
        if breakout not in self.breakouts or len(found.lanes) % breakout:
            raise NetautoError(f"{device} {name}: HWSKU {self.name} cannot split cage {cage} "
                               f"({len(found.lanes)} lanes) {breakout} ways (supported: {list(self.breakouts)})")
        if speed_mbps * breakout > found.max_speed_mbps:
            raise NetautoError(f"{device} {name}: {speed_mbps // 1000}G x {breakout} exceeds cage {cage} of HWSKU "
                               f"{self.name} ({found.max_speed_mbps // 1000}G)")
        if breakout == 1:
            return PortInfo(",".join(map(str, found.lanes)), found.alias, cage)
        width = len(found.lanes) // breakout
        sub = subport or 0
        lanes = found.lanes[sub * width : (sub + 1) * width]
        return PortInfo(",".join(map(str, lanes)), f"{found.alias}{string.ascii_lowercase[sub]}", cage)


def available() -> list[str]:
    return sorted(p.stem for p in HWSKU_DIR.glob("*.yaml"))


@cache
def load(name: str) -> Hwsku:
    path = HWSKU_DIR / f"{name}.yaml"
    if not path.is_file():
        raise NetautoError(f"unknown SONiC HWSKU {name!r} (known: {', '.join(available())}); "
                           f"add a port map as {HWSKU_DIR}/{name}.yaml")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    default_max = int(data["max_speed_mbps"])
    cages = {
        int(n): Cage(int(n), tuple(int(lane) for lane in c["lanes"]), str(c["alias"]),
                     int(c.get("max_speed_mbps", default_max)))
        for n, c in data["cages"].items()
    }
    return Hwsku(
        name=str(data["hwsku"]), platform=str(data["platform"]), asic=str(data["asic"]),
        lanes_per_cage=int(data["lanes_per_cage"]), breakouts=tuple(int(b) for b in data["breakouts"]),
        buffer_pools={k: dict(v) for k, v in data["buffer_pools"].items()}, cages=cages,
    )
