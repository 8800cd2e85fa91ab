"""Rendering: resolved model -> per-device files, laid out by on-device path."""

from netauto.render.engine import Artifact, render_fabric

__all__ = ["Artifact", "render_fabric"]
