"""The folders a rendered fabric holds beside its devices' folders: pseudo-devices, never a deploy, lab or verify
target. One registry for render (which writes them), validate (which counts devices without them) and the
naming check (model.naming.hostname refuses a device named like one of them, wherever the name is made)."""

from __future__ import annotations

from collections.abc import Iterable

KUBERNETES = "kubernetes"  # the pods' manifests (render.kubernetes), with an inventory `kubernetes:` section
MONITORING = "monitoring"  # Prometheus rules and their tests, prometheus.yml, the Grafana dashboard (netauto.monitoring)
BESIDE_DEVICES: dict[str, str] = {KUBERNETES: "the Kubernetes manifests",
                                  MONITORING: "the monitoring (Prometheus rules, Grafana dashboard)"}


def holds(name: str) -> str | None:
    """What the folder `name` beside the devices holds, or None: `name` may be a device's. Case-insensitive, as
    device names are (hostnames; a case-insensitive file system would merge the folders)."""
    return BESIDE_DEVICES.get(name.lower())


def device_folders(folders: Iterable[str]) -> list[str]:
    """The devices' folders among a rendered fabric's top-level `folders`."""
    return [f for f in folders if f not in BESIDE_DEVICES]
