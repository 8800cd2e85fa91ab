"""The one-way flow inventory -> model -> artifacts, as used by the CLI and by tests."""

from __future__ import annotations

from pathlib import Path

from netauto.inventory.loader import load_inventory
from netauto.model import resolve
from netauto.model.types import FabricModel
from netauto.render.engine import Artifact, render_fabric


def build_model(inventory: Path | str) -> FabricModel:
    return resolve(load_inventory(inventory))


def render(inventory: Path | str, templates: Path | None = None) -> tuple[FabricModel, list[Artifact]]:
    model = build_model(inventory)
    return model, list(render_fabric(model, templates))
