"""The inventory's `bom:` section: the inputs of `netauto bom` (netauto/bom.py)."""

from __future__ import annotations

from pydantic import field_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict
from netauto.inventory.strings import Name


class Bom(Strict):
    """Inputs of `netauto bom`: the platform of each switch role per network, the NIC cage per network and the
    cable length per network and link kind (metres; rounded up to a length class). Platforms and cage facts:
    src/netauto/platforms/data/optics.yaml."""

    # Deprecated: the switch models come from the model (fabric.switch_hardware, networks.<name>.switch_hardware,
    # oob.hardware). An old inventory's entry that agrees is a warning, one that contradicts an inventory error.
    platforms: dict[Name, dict[Name, Name]] | None = None  # network -> role -> model
    nic_cages: dict[Name, Name]  # network -> cage of the server NICs on it (OSFP, SFP28, RJ45)
    cable_length_m: dict[Name, dict[Name, int]]  # network -> link kind -> metres

    @field_validator("cable_length_m")
    @classmethod
    def _runs(cls, value: dict[Name, dict[Name, int]]) -> dict[Name, dict[Name, int]]:
        """A run is a link's length for its PFC headroom too (model.cabling.link_length): the range NVUE takes."""
        for net, runs in value.items():
            for kind, metres in runs.items():
                if not 1 <= metres <= 100000:
                    raise SchemaValueError(f"{net}.{kind}: {metres} m outside 1..100000 (NVUE qos pfc cable-length range)")
        return value
