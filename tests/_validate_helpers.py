"""Helpers for the validate tests: render a shipped fabric once, break a tmp copy, run validate --configs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from netauto.render.yaml_block import dump_set
from netauto.formats import fastyaml
from netauto.render.output import write_tree
from netauto.pipeline import build, validate
from netauto.validate.runner import Result

ROOT = Path(__file__).resolve().parent.parent
INVENTORY = ROOT / "inventory"
NVUE = "etc/nvue.d/startup.yaml"
FRR = "etc/frr/frr.conf"
IFACES = "etc/network/interfaces"
QOS = "etc/cumulus/datapath/qos/qos_features.conf"
AR = "etc/cumulus/switchd.d/adaptive_routing.conf"
NETPLAN = "etc/netplan/60-rails.yaml"


def render_to(inventory: Path, out: Path) -> Path:
    """What `netauto render` writes: every file of the cluster (its kubernetes/ manifests too)."""
    built = build(inventory)
    write_tree(built.artifacts, out / built.model.name, manifest=False)
    return out


class Tree:
    """A tmp copy of a rendered tree (OUT/<fabric>/<device>/...) to break file by file."""

    def __init__(self, src: Path, dst: Path, fabric: str = "gpu-pod1") -> None:
        shutil.copytree(src, dst)
        self.root = dst
        self.fabric = dst / fabric

    def path(self, device: str, rel: str) -> Path:
        return self.fabric / device / rel

    def replace(self, device: str, rel: str, old: str, new: str, count: int = 1) -> None:
        p = self.path(device, rel)
        text = p.read_text()
        assert old in text, f"{old!r} not in {device}/{rel}"
        p.write_text(text.replace(old, new, count))

    def nvue(self, device: str, *keys, value=None, delete: bool = False) -> None:  # noqa: ANN001
        """Set (or delete) one key of the switch's startup.yaml, keeping NVUE's list-of-`set` layout."""
        p = self.path(device, NVUE)
        docs = fastyaml.load(p.read_text(), yaml12=True)  # as NVUE reads it: `on` stays a string
        node = docs[0]["set"]
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        if delete:
            del node[keys[-1]]
        else:
            node[keys[-1]] = value
        p.write_text(dump_set(docs[0]["set"]))

    def validate(self, inventory: Path = INVENTORY, **kw) -> Result:  # noqa: ANN003
        kw.setdefault("external", False)
        return validate(inventory, configs=self.root, **kw)


def errors(result: Result) -> set[str]:
    return {f.rule for f in result.findings if f.severity == "error" and f.rule != "DRIFT-01"}


def has(result: Result, rule: str, device: str, text: str) -> bool:
    return any(f.rule == rule and f.device == device and text in f.message for f in result.findings)


def show(result: Result) -> str:
    return "\n".join(f"{f.severity} {f.rule} {f.device}: {f.message}" for f in result.findings)


# shared fixtures: a test module imports them by name (`from _validate_helpers import rendered, tree`)
@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """The default fabric rendered once per test module (OUT/<fabric>/...)."""
    return render_to(INVENTORY, tmp_path_factory.mktemp("rendered") / "out")


@pytest.fixture
def tree(rendered: Path, tmp_path: Path) -> Tree:
    """A fresh copy of the rendered tree, to break."""
    return Tree(rendered, tmp_path / "configs")
