"""`hall:` — the data hall: rows of racks, each rack's height and power budget, what each device weighs in U and
kW, where devices stand (a policy or explicit racks), and the distances a cable runs between two racks.

`netauto.model.hall` places every device of the cluster in a rack (`netauto plan racks` shows it) and gives
each link a length from the places of its two ends (`netauto.model.cabling`: after `cabling.links` and the
distance between sites, before `bom.cable_length_m`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict
from netauto.inventory.strings import Name

RACK = re.compile(r"^([A-Z])(\d{2})$")  # row letter, position in the row from 01: A01, B14
ROW = re.compile(r"^[A-Z]$")


def rack_name(row: int, position: int) -> str:
    """Rack name of a 0-based row and position: row 0 position 0 is A01."""
    return f"{chr(ord('A') + row)}{position + 1:02d}"


class Equipment(Strict):
    """A device's size and power where the platform data has none (storage nodes, CPU servers) or the operator
    measured their own."""

    u: int = Field(ge=1, le=20)
    power_kw: float = Field(gt=0, le=100)


class Hall(Strict):
    rows: int = Field(ge=1, le=26)  # rows A, B, ...
    racks_per_row: int = Field(ge=1, le=99)
    rack_u: int = Field(default=42, ge=4, le=60)  # usable rack units per rack
    power_kw: float = Field(gt=0, le=200)  # power budget per rack
    # budgets that differ from power_kw: a row letter (A) or a rack (B07) -> kW; a rack's own entry wins over
    # its row's (a hall of 10 kW and 20 kW racks)
    rack_power_kw: dict[str, float] = {}
    # metres: between the fronts of two neighbouring rows, between two neighbouring racks of a row, from a device
    # up to the cable tray (once per end) and the slack added to every cable
    row_pitch_m: float = Field(default=2.4, gt=0, le=50)
    rack_width_m: float = Field(default=0.6, gt=0, le=5)
    vertical_m: float = Field(default=2.0, ge=0, le=20)
    slack_m: float = Field(default=2.0, ge=0, le=50)
    # a patch panel per rack: every server cable runs through one (adds `patch_m` to each such cable)
    patch_m: float = Field(default=0, ge=0, le=50)
    gpu_server: Name = "DGX-H100"  # a model of platforms/data/racking.yaml (servers)
    # server group (server_groups key), switch or GPU server model -> its size and power (overrides the
    # platform data)
    models: dict[Name, Equipment] = {}
    # device name -> rack (e.g. spine1: E07): explicit places; every other device follows the policy
    place: dict[Name, str] = {}
    # spines-central: spines and other top switches in the racks nearest the middle of the hall, each SU's
    # servers in neighbouring racks and its leaves beside them
    policy: Literal["spines-central"] = "spines-central"

    @field_validator("rack_power_kw")
    @classmethod
    def _budgets(cls, value: dict[str, float]) -> dict[str, float]:
        for where, kw in value.items():
            if not (ROW.fullmatch(where) or RACK.fullmatch(where)):
                raise SchemaValueError(f"{where!r} is not a row (a letter, e.g. A) or a rack (e.g. B07)")
            if not 0 < kw <= 200:
                raise SchemaValueError(f"{where}: {kw} kW is not a budget from 0 to 200 kW")
        return value

    def budget_kw(self, row: int, position: int) -> float:
        """The power budget of one rack: its own entry in rack_power_kw, its row's, or power_kw."""
        name = rack_name(row, position)
        return self.rack_power_kw.get(name, self.rack_power_kw.get(name[0], self.power_kw))

    @field_validator("place")
    @classmethod
    def _place(cls, value: dict[str, str]) -> dict[str, str]:
        for device, rack in value.items():
            if not RACK.fullmatch(rack):
                raise SchemaValueError(f"{device}: {rack!r} is not a rack (row letter and two digits, e.g. A01)")
        return value
