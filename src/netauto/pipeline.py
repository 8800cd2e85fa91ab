"""The one-way flow inventory -> model -> artifacts, as used by the CLI and by tests."""

from __future__ import annotations

from pathlib import Path

from netauto.inventory.loader import load_inventory
from netauto.model import resolve
from netauto.model.cluster import ClusterModel
from netauto.model.planes import resolve_cluster
from netauto.model.types import FabricModel
from netauto.render.engine import Artifact, render_cluster


def build_model(inventory: Path | str) -> FabricModel:
    return resolve(load_inventory(inventory))


def build_cluster(inventory: Path | str) -> ClusterModel:
    """The compute fabric and every plane, OOB network and server group beside it."""
    loaded = load_inventory(inventory)
    return resolve_cluster(loaded, resolve(loaded))


def render(inventory: Path | str, templates: Path | None = None) -> tuple[FabricModel, list[Artifact]]:
    """The compute model and the files of every device of the cluster (compute fabric, planes, BMCs)."""
    cluster = build_cluster(inventory)
    return cluster.compute, list(render_cluster(cluster, templates))
