"""One rendered file of one device: what every renderer returns (render.device's per-device files, the
cluster-wide ones of render.kubernetes and render.monitoring) and every writer, validator and pusher reads.
A module of its own, so the renderers beside the engine import it without importing the engine."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Artifact"]


@dataclass(frozen=True, slots=True)
class Artifact:
    device: str
    path: str  # on-device path without the leading slash, e.g. "etc/frr/frr.conf"
    content: str
    mode: int = 0o644
    owner: str | None = "root:root"  # user:group it must have on the device; None: not netauto's to set
