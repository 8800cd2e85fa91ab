"""A cable-length error names the file, line and key that set the length, with a fix that fits it (issue 40,
items 2 and 6): a bom run length is not a long-haul link between sites, and validate and `netauto bom` agree
on a link longer than any patch cable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.bom import bill_of_materials
from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.pipeline import resolve_cluster_model

CLUSTER = EXAMPLES / "cluster-64" / "inventory"


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(src, dst)
    return dst


def test_headroom_budget_names_the_bom_run_that_set_the_length(tmp_path: Path) -> None:
    inv = _copy(CLUSTER, tmp_path)
    (inv / "hall.yaml").unlink()  # in a hall the racks set the length, not the bom run
    bom = inv / "bom.yaml"
    bom.write_text(bom.read_text().replace("compute: {server-leaf: 30, leaf-spine: 50}",
                                           "compute: {server-leaf: 30, leaf-spine: 5000}"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert e.key == "bom.cable_length_m.compute.leaf-spine", str(e)
    assert e.file is not None and e.file.name == "bom.yaml" and e.line == 10, str(e)
    assert "bom.cable_length_m.compute.leaf-spine" in (e.hint or "") and "long_haul" not in (e.hint or ""), e.hint
    assert "5000" in str(e)


def test_headroom_budget_of_a_site_link_keeps_the_long_haul_fix(tmp_path: Path) -> None:
    inv = _copy(EXAMPLES / "multi-profile" / "inventory", tmp_path)
    f = inv / "fabric.yaml"
    f.write_text(f.read_text().replace('site_distance_m: {"1-2": 10000}', 'site_distance_m: {"1-2": 40000}'))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    assert err.value.key == "cabling.site_distance_m.1-2" and "long_haul: lossy-ecn" in (err.value.hint or "")


def test_one_20_km_link_validate_and_bom_agree(tmp_path: Path) -> None:
    """validate accepts one 20 km link (its headroom fits); the bill says what it cannot count, never fails."""
    inv = _copy(DEFAULT_INVENTORY, tmp_path)
    f = inv / "features.yaml"
    f.write_text(f.read_text() + 'cabling:\n  links: {"su1-r0-leaf:swp33s0": 20000}\n')
    loaded = load_inventory(inv)
    cluster = resolve_cluster_model(loaded)  # what validate resolves
    lines = bill_of_materials(loaded, cluster)
    far = [x for x in lines if "20000 m" in x.item and x.network == "compute"]
    assert len(far) == 1 and far[0].category == "site" and "cabling.links" in far[0].item, far
    assert far[0].count == 1


def test_bom_of_the_two_site_example() -> None:
    """The shipped two-site example (10 km between the sites) has a bill."""
    loaded = load_inventory(EXAMPLES / "multi-profile" / "inventory")
    lines = bill_of_materials(loaded, resolve_cluster_model(loaded))
    far = [x for x in lines if x.category == "site" and x.network == "compute"]
    assert far and all("10000 m" in x.item for x in far)
