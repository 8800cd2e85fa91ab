"""The one composition (netauto.pipeline): validate and the deploy gate work on the model and the files they
are handed, the rules read their settings from the model, and library code leaves the GC alone."""

from __future__ import annotations

import gc
from dataclasses import replace
from pathlib import Path

import pytest

from netauto import pipeline
from netauto.validate.api import errors_for
from netauto.validate.runner import validate_cluster

ROOT = Path(__file__).resolve().parent.parent
INVENTORY = ROOT / "inventory"
LEAF = "su1-r0-leaf"
FRR = "etc/frr/frr.conf"


@pytest.fixture(scope="module")
def built() -> pipeline.Build:
    return pipeline.build(INVENTORY)


def _importers(name: str) -> set[str]:
    """The modules of src/netauto that import `name` (a dotted module, or module.attribute)."""
    import ast

    src = ROOT / "src" / "netauto"
    found = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if name in names:
                found.add(path.relative_to(src).as_posix())
    return found


def test_only_the_pipeline_composes_load_and_resolve():
    """The loader and the one resolver entry (model.resolve) are imported by pipeline.py alone; the steps of
    the resolver (compute fabric, networks, cabling lengths) by model.resolve alone, so `cabling:` is applied
    once, to the whole cluster."""
    assert _importers("netauto.inventory.loader.load_inventory") == {"pipeline.py"}
    assert _importers("netauto.model.resolve") == {"pipeline.py"}
    assert _importers("netauto.model.networks.resolve_cluster") == {"model/resolve.py"}
    assert _importers("netauto.model.cabling.apply") | {
        p for p in _importers("netauto.model.cabling") if "cabling.apply(" in (ROOT / "src" / "netauto" / p).read_text()
    } == {"model/resolve.py"}


def test_the_render_session_owns_the_render_composition():
    """`netauto render` goes through render.session, opened and handed its cluster by the pipeline (the CLI asks
    pipeline.render_session / render_into; the session imports nothing above render/): outside render/ no module
    imports the device keys, the journaled update or the kept state (cli/quick's drain fast path asks
    render.local_edit, pipeline's read-back finishes a killed render's journal)."""
    for name in ("netauto.render.incremental", "netauto.render.store", "netauto.render.journal.update_tree"):
        assert {p for p in _importers(name) if not p.startswith("render/")} == set(), name
    assert {p for p in _importers("netauto.render.local_edit") if not p.startswith("render/")} == {"cli/quick.py"}
    assert _importers("netauto.render.session") | _importers("netauto.render.session.RenderSession") | \
        _importers("netauto.render.session.render_tree") == {"pipeline.py"}
    assert _importers("netauto.pipeline.render_session") == _importers("netauto.pipeline.render_into") == {"cli/core.py"}
    assert not {p for p in _importers("netauto.pipeline") if p.startswith("render/")}  # also `from netauto import pipeline`


def test_oversubscription_is_read_from_the_model(built: pipeline.Build):
    """TOPO-02 reads the resolved model's oversubscription (no patching of the view from the inventory):
    the shipped 1:1 fabric is clean at 1.0 and every leaf fails when the model allows only 0.5:1."""
    assert built.model.oversubscription == 1.0
    clean = validate_cluster(built.cluster, built.artifacts, external=False, simulate=False)
    assert not [f for f in clean.findings if f.rule == "TOPO-02"]
    built.model.oversubscription = 0.5
    try:
        strict = validate_cluster(built.cluster, built.artifacts, external=False, simulate=False)
    finally:
        built.model.oversubscription = 1.0
    topo = {f.device for f in strict.findings if f.rule == "TOPO-02" and f.severity == "error"}
    assert LEAF in topo and "the inventory allows 0.5:1" in next(
        f.message for f in strict.findings if f.rule == "TOPO-02" and f.device == LEAF)


def test_resolver_sets_oversubscription_from_topology(tmp_path: Path):
    import shutil

    inv = tmp_path / "inventory"
    shutil.copytree(INVENTORY, inv)
    topo = inv / "topology.yaml"
    topo.write_text(topo.read_text().replace("pods: 1", "pods: 1\n  oversubscription: 2"))
    assert pipeline.build_model(inv).oversubscription == 2.0


def test_deploy_gate_checks_the_files_it_is_handed(built: pipeline.Build):
    """The deploy gate validates exactly the artifacts about to be pushed, not a second render: a broken
    frr.conf in the handed artifacts is an error naming the leaf; the untouched build has none."""
    assert errors_for(built.cluster, built.artifacts, external=False) == []
    broken = [replace(a, content=a.content.replace("router bgp", "router bgp 4294967296 !", 1))
              if (a.device, a.path) == (LEAF, FRR) else a for a in built.artifacts]
    assert broken != built.artifacts
    errors = errors_for(built.cluster, broken, external=False)
    assert errors and any(LEAF in e for e in errors), errors


def test_validate_leaves_the_gc_alone(built: pipeline.Build):
    before = (gc.isenabled(), gc.get_threshold())
    validate_cluster(built.cluster, built.artifacts, external=False, simulate=True)
    assert (gc.isenabled(), gc.get_threshold()) == before
