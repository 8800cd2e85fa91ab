"""NVUE spelling per Cumulus release: `enable: on` up to 5.14, `state: enabled` from 5.15."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NvueSpelling:
    enable: str
    on: str
    off: str


LEGACY = NvueSpelling(enable="enable", on="on", off="off")
MODERN = NvueSpelling(enable="state", on="enabled", off="disabled")


def release_tuple(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def spelling_for(release: str) -> NvueSpelling:
    return MODERN if release_tuple(release)[:2] >= (5, 15) else LEGACY
