"""`cabling:` — how long every cable is, where the sites are, and what a long-haul link between sites does.

The length of a link feeds the PFC headroom of both its ports (`netauto.model.cabling`): a lossless port must
buffer what its peer sends in the round trip of the cable after it asked for a pause. Lengths come, most
specific first, from `links` (one link, by either end `device:port`), the distance between the sites of its
two ends (`site_distance_m` per site pair, else `fabric.sites.max_distance_km`), `bom.cable_length_m`
(network -> link kind: the run lengths the bill of materials counts), and `fabric.cable_length_m`.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import field_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict

_END = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[A-Za-z0-9][A-Za-z0-9_./-]*$")
_PAIR = re.compile(r"^(\d{1,2})-(\d{1,2})$")
_GLOB = re.compile(r"^[A-Za-z0-9_.*?\[\]-]+$")


class Cabling(Strict):
    # site number (2..fabric.sites.count) -> device-name patterns (fnmatch) of the devices there; others: site 1
    sites: dict[int, list[str]] = {}
    # "1-2" -> fibre metres between those two sites (default: fabric.sites.max_distance_km)
    site_distance_m: dict[str, int] = {}
    # "device:port" (either end) -> metres of that one link
    links: dict[str, int] = {}
    # a link between two sites: keep it lossless (PFC headroom for its length, refused when the switch's
    # lossless pool cannot hold it) or run it lossy with ECN only (no PFC on its ports)
    long_haul: Literal["lossless", "lossy-ecn"] = "lossless"

    @field_validator("sites")
    @classmethod
    def _sites(cls, value: dict[int, list[str]]) -> dict[int, list[str]]:
        for site, patterns in value.items():
            if not 2 <= site <= 16:
                raise SchemaValueError(f"site {site}: sites are numbered 2..16 here (every other device is in site 1)")
            for p in patterns:
                if not _GLOB.fullmatch(p):
                    raise SchemaValueError(f"site {site}: {p!r} is not a device-name pattern (letters, digits, . _ - * ? [])")
        return value

    @field_validator("site_distance_m")
    @classmethod
    def _pairs(cls, value: dict[str, int]) -> dict[str, int]:
        for key, metres in value.items():
            m = _PAIR.fullmatch(key)
            if not m or m.group(1) == m.group(2):
                raise SchemaValueError(f"{key!r} is not a pair of two sites (\"1-2\")")
            if not 1 <= metres <= 100000:
                raise SchemaValueError(f"{key}: {metres} m outside 1..100000 (NVUE qos pfc cable-length range)")
        return value

    @field_validator("links")
    @classmethod
    def _links(cls, value: dict[str, int]) -> dict[str, int]:
        for key, metres in value.items():
            if not _END.fullmatch(key):
                raise SchemaValueError(f"{key!r} is not a link end (device:port, e.g. su1-r1-leaf:swp33s0)")
            if not 1 <= metres <= 100000:
                raise SchemaValueError(f"{key}: {metres} m outside 1..100000 (NVUE qos pfc cable-length range)")
        return value

