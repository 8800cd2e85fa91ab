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


def _refused(inv: Path) -> InventoryError:
    """What validate and `netauto bom` both resolve first refuses the inventory (one error, never a bill line)."""
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    return err.value


def test_a_rail_link_longer_than_its_parts_reach_is_refused_not_site_plant(tmp_path: Path) -> None:
    """A GPU server's rail link to its leaf is an in-hall run (same SU): cabling.links making it 800 m is refused
    with the reach of the parts that fit its cages, naming the entry's file, key and line; it was billed as the
    site's long-reach plant."""
    inv = _copy(CLUSTER, tmp_path)
    f = inv / "features.yaml"
    f.write_text(f.read_text() + 'cabling:\n  links: {"su1-gpu01:rail0": 800}\n')
    e = _refused(inv)
    assert e.key == "cabling.links.su1-gpu01:rail0" and e.file is not None and e.file.name == "features.yaml", str(e)
    assert e.line == len(f.read_text().splitlines()), str(e)
    assert "su1-gpu01:rail0" in str(e) and "800 m" in str(e) and "100 m" in str(e), str(e)
    assert "cabling.links" in (e.hint or "") and "at most 100 m" in (e.hint or ""), e.hint


def test_a_frontend_server_link_on_generic_optics_longer_than_any_cable_is_refused(tmp_path: Path) -> None:
    """A server link whose NIC end takes generic IEEE optics (no LinkX part) longer than any cable class."""
    inv = _copy(CLUSTER, tmp_path)
    f = inv / "features.yaml"
    f.write_text(f.read_text() + 'cabling:\n  links: {"su1-gpu01:fe0": 900}\n')
    e = _refused(inv)
    assert e.key == "cabling.links.su1-gpu01:fe0" and "900 m" in str(e) and "500 m" in str(e), str(e)


def test_a_server_in_another_site_than_its_leaf_is_refused(tmp_path: Path) -> None:
    """cabling.sites that puts SU 2's leaves in building 2 and its servers in building 1 makes their rail links
    10 km: refused (a server's link is in the hall), naming cabling.sites, not priced as the site's plant."""
    inv = _copy(EXAMPLES / "multi-profile" / "inventory", tmp_path)
    f = inv / "fabric.yaml"
    f.write_text(f.read_text().replace('sites: {2: ["su2-*"]}', 'sites: {2: ["su2-r*"]}'))
    e = _refused(inv)
    assert "10000 m" in str(e) and "su2-gpu" in str(e), str(e)
    assert "cabling.sites" in (e.hint or ""), e.hint


def test_a_server_bmc_link_longer_than_any_cable_is_refused(tmp_path: Path) -> None:
    """The OOB (management) link of a server is in the hall too."""
    inv = _copy(CLUSTER, tmp_path)
    f = inv / "features.yaml"
    f.write_text(f.read_text() + 'cabling:\n  links: {"su1-gpu01:bmc": 700}\n')
    e = _refused(inv)
    assert e.key == "cabling.links.su1-gpu01:bmc" and "700 m" in str(e), str(e)


@pytest.mark.parametrize("old,new,key", [
    # a bom run is a hall run of every link of its kind, rounded up to a length class: none is longer than 500 m
    ("compute: {server-leaf: 30, leaf-spine: 50}", "compute: {server-leaf: 30, leaf-spine: 800}",
     "bom.cable_length_m.compute.leaf-spine"),
])
def test_a_hall_run_between_switches_longer_than_any_cable_is_refused(tmp_path: Path, old: str, new: str,
                                                                       key: str) -> None:
    """Only a link between sites (cabling.sites) or one link's stated run (cabling.links) may be the site's
    long-reach plant; a bom run (the hall's runs of a link kind) longer than any cable is refused."""
    inv = _copy(CLUSTER, tmp_path)
    (inv / "hall.yaml").unlink()  # in a hall the racks set the length, not the bom run
    bom = inv / "bom.yaml"
    bom.write_text(bom.read_text().replace(old, new))
    e = _refused(inv)
    assert e.key == key and "800 m" in str(e) and "longer than any cable (500 m)" in str(e), str(e)
    assert "cabling.links" in (e.hint or "") and "cabling.sites" in (e.hint or ""), e.hint


def test_a_fabric_default_length_longer_than_any_cable_is_refused(tmp_path: Path) -> None:
    """fabric.cable_length_m is every other link's run: longer than any cable it is no site's plant either."""
    inv = _copy(DEFAULT_INVENTORY, tmp_path)
    f = inv / "fabric.yaml"
    assert "  cable_length_m: 100\n" in f.read_text()
    f.write_text(f.read_text().replace("  cable_length_m: 100\n", "  cable_length_m: 600\n", 1))
    e = _refused(inv)
    assert e.key == "fabric.cable_length_m" and "600 m" in str(e), str(e)
