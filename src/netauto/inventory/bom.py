"""The inventory's `bom:` section: the inputs of `netauto bom` (netauto/bom.py)."""

from __future__ import annotations

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
