"""`netauto plan`: growing the 64-server cluster to 128. With the spine layer built for the final size first,
nothing that stays is recabled and no leaf's config changes; growing the spine layer too moves every leaf
uplink, and the plan says so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES

from netauto.growth import Cable, cable_plan, plan, to_text

CLUSTER = EXAMPLES / "cluster-64" / "inventory"


def variant(tmp: Path, name: str, sus: int, spines: int, links: int) -> Path:
    dst = tmp / name
    shutil.copytree(CLUSTER, dst)
    (dst / "hall.yaml").unlink()  # the topology's growth alone (a hall of 80 racks holds 80 servers)
    f = dst / "topology.yaml"
    text = f.read_text()
    for old, new in (("  sus_per_pod: 2", f"  sus_per_pod: {sus}"), ("  spines_per_pod: 8", f"  spines_per_pod: {spines}"),
                     ("  leaf_spine_links: 4 ", f"  leaf_spine_links: {links} ")):
        assert old in text
        text = text.replace(old, new)
    f.write_text(text)
    return dst


@pytest.fixture(scope="module")
def inventories(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("growth")
    return {"64": variant(tmp, "a", 2, 8, 4), "64-final-spines": variant(tmp, "c", 2, 16, 2), "128": variant(tmp, "b", 4, 16, 2)}


def test_growth_with_final_spine_layer_moves_nothing(inventories):
    p = plan(inventories["64-final-spines"], inventories["128"])
    assert not p.move_cables and not p.remove_cables and not p.remove_devices
    assert {d for d in p.add_devices if d.startswith("su")} >= {f"su{s}-r{r}-leaf" for s in (3, 4) for r in range(8)}
    assert "su4-gpu32" in p.add_devices and "st-g4-leaf1" in p.add_devices and "oob-bmc-compute-3" in p.add_devices
    # leaves keep their config; the spines (new ports) and network spines/aggregation change
    assert not [d for d in p.changed_configs if d.endswith("-leaf") or "gpu" in d or d.startswith("stor")]
    assert {"spine1", "spine16", "st-spine1", "fe-agg1"} <= set(p.changed_configs)
    # 64 more servers x 8 rails + 32 new leaves x 32 uplinks; storage and frontend: 64 x 2 NICs each
    compute_added = sum(1 for c in p.add_cables if c.network == "compute")
    assert compute_added == 64 * 8 + 16 * 32
    assert sum(1 for c in p.add_cables if c.network == "storage" and c.b[1].startswith("stor")) == 128


def test_growth_of_the_spine_layer_is_shown_as_moves(inventories):
    p = plan(inventories["64"], inventories["128"])
    compute_moves = [m for m in p.move_cables if m.network == "compute"]
    # every uplink of the first 16 leaves is re-plugged, except su1-r0-leaf's first two (spine1 ports 1s0/1s1
    # in both plans)
    assert len(compute_moves) == 16 * 32 - 2
    assert all(m.stays[0].endswith("-leaf") for m in compute_moves)
    assert any(line.startswith("cables to move: ") and int(line.split(": ")[1]) >= 512 for line in to_text(p).splitlines())


def test_growth_to_128_with_the_spine_layer_it_has_moves_nothing(tmp_path):
    """docs/networks.md: 8 spines x 4 links already take 32 leaves, so 64 -> 128 servers adds and moves nothing."""
    p = plan(variant(tmp_path, "base", 2, 8, 4), variant(tmp_path, "same-spines", 4, 8, 4))
    assert not p.move_cables and not p.remove_cables and not p.remove_devices and not p.renames
    assert (len(p.add_devices), len(p.add_cables)) == (89, 1494)
    assert not [d for d in p.changed_configs if d.endswith("-leaf") or d.startswith("gpu")], p.changed_configs
    assert not [d for d in p.add_devices if d.startswith("spine")]


def test_cost_of_building_the_spine_layer_first(inventories):
    p = plan(inventories["64"], inventories["64-final-spines"])
    delta = {(n, c, i, length): d for n, c, i, length, d in p.bom_delta}
    assert delta[("compute", "switch", "SN5600 spine", "")] == 8  # 8 more spines now, same optics and fibres
    assert ("compute", "transceiver", "800G twin-port OSFP 2x400G DR8 (MMS4X00-NS)", "") not in delta


def test_cable_plan_move_add_remove():
    old = [Cable(("l1", "p1"), ("s1", "d1"), "400G", "compute"), Cable(("l1", "p2"), ("s2", "d1"), "400G", "compute")]
    new = [Cable(("l1", "p1"), ("s3", "d1"), "400G", "compute"), Cable(("l2", "p1"), ("s1", "d2"), "400G", "compute")]
    added, moves, removed, kept = cable_plan(old, new)
    assert [(m.stays, m.old_peer, m.new_peer) for m in moves] == [(("l1", "p1"), ("s1", "d1"), ("s3", "d1"))]
    assert [c.a for c in added] == [("l2", "p1")] and [c.a for c in removed] == [("l1", "p2")] and kept == 0


def test_nos_swap_moves_no_cable():
    """gpu-pod1 -> gpu-mixed swaps the leaves and spine4 from Cumulus to SONiC: every port gets a new name
    (swp36s0 -> Ethernet280) on the same cage and lanes, so no cable is added, moved or removed (issue 21: the
    plan listed the renamed ports as cables to move)."""
    from conftest import DEFAULT_INVENTORY

    p = plan(DEFAULT_INVENTORY, EXAMPLES / "mixed-sonic" / "inventory")
    assert (p.add_cables, p.move_cables, p.remove_cables) == ([], [], [])
    assert p.kept_cables == 128 and "su1-r0-leaf" in p.changed_configs


def test_a_real_move_is_still_a_move_under_new_names():
    """Places, not names: a cable whose leaf end changes cage is a move even when the NOS changes too."""
    old = [Cable(("leaf", "swp1s0"), ("gpu1", "rail0"), "400G", "compute", ("leaf", "cage 1 lanes 0-3"))]
    new = [Cable(("leaf", "Ethernet8"), ("gpu1", "rail0"), "400G", "compute", ("leaf", "cage 2 lanes 8-11"))]
    added, moves, removed, kept = cable_plan(old, new)
    assert not added and not removed and kept == 0
    assert [m.text() for m in moves] == ["gpu1 rail0: from leaf swp1s0 to leaf Ethernet8 (compute)"]
