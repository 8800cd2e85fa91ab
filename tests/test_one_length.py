"""One length per link (issue 37): the metres a link's PFC headroom (NVUE/SONiC cable length, the host's
cable_len) is sized for are the metres `netauto bom` buys its cable and parts for, whichever source gives them
(model.cabling.link_length: cabling.links, the sites, the hall, bom.cable_length_m, fabric.cable_length_m).
Before, an inventory without a hall and without a `bom:` run sized its buffers for fabric.cable_length_m while
the bill bought optics.yaml's default 30 m / 50 m runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, edited_copy

from netauto.bom import bill_of_materials, length_class
from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.cluster import ClusterModel
from netauto.pipeline import resolve_cluster_model

FIBRE = "MPO-12/APC SMF straight"


def _copy(tmp_path: Path, **edits: tuple[str, str]) -> Path:
    """The shipped inventory copied; edits: file stem -> (old, new) text replaced once (old must be there)."""
    return edited_copy(DEFAULT_INVENTORY, tmp_path / "inv", {stem: [edit] for stem, edit in edits.items()})


def _headroom_and_bill(inv: Path) -> tuple[ClusterModel, dict[tuple[str, str, str, str], int]]:
    loaded = load_inventory(inv)
    cluster = resolve_cluster_model(loaded)
    lines = bill_of_materials(loaded, cluster)
    return cluster, {(x.network, x.category, x.item, x.length): x.count for x in lines}


def _port_lengths(cluster: ClusterModel, kind: str) -> list[int]:
    """The metres each compute switch port of `kind` links sizes its PFC headroom for (the leaf end)."""
    sw = {s.name: s for s in cluster.compute.switches}
    return [sw[link.a_device].cable_of(sw[link.a_device].interface(link.a_port))
            for link in cluster.compute.links if link.kind == kind]


def _fibres(bill: dict[tuple[str, str, str, str], int]) -> dict[str, int]:
    return {length: n for (net, cat, item, length), n in bill.items() if (net, cat, item) == ("compute", "cable", FIBRE)}


def _assert_one_length(cluster: ClusterModel, bill: dict[tuple[str, str, str, str], int]) -> None:
    """Every compute link's fibre is bought in the length class of the metres its headroom is sized for, and
    every host NIC's cable_len is its leaf port's."""
    want: dict[str, int] = {}
    for kind in ("server-leaf", "leaf-spine"):
        for metres in _port_lengths(cluster, kind):
            want[length_class(metres)] = want.get(length_class(metres), 0) + 1
    assert _fibres(bill) == want
    sw = {s.name: s for s in cluster.compute.switches}
    for srv in cluster.compute.servers:
        for r in srv.rails:
            assert r.cable_length_m == sw[r.leaf].cable_of(sw[r.leaf].interface(r.leaf_port))


def test_without_hall_or_bom_runs_the_bill_buys_the_length_the_headroom_is_sized_for(tmp_path: Path) -> None:
    inv = _copy(tmp_path, fabric=("  cable_length_m: 100", "  cable_length_m: 70"))
    cluster, bill = _headroom_and_bill(inv)
    assert set(_port_lengths(cluster, "server-leaf")) == {70}  # fabric.cable_length_m sizes the headroom
    assert set(_fibres(bill)) == {"100 m"}  # ... and the bill buys a part reaching 70 m (not optics.yaml's 30 m)
    _assert_one_length(cluster, bill)


def test_changing_one_source_moves_headroom_and_bill_together(tmp_path: Path) -> None:
    """A mutation of each source in turn: fabric.cable_length_m, then a bom: run, then one link."""
    inv = _copy(tmp_path, fabric=("  cable_length_m: 100", "  cable_length_m: 20"))
    cluster, bill = _headroom_and_bill(inv)
    assert set(_port_lengths(cluster, "leaf-spine")) == {20} and set(_fibres(bill)) == {"20 m"}
    _assert_one_length(cluster, bill)

    (inv / "bom.yaml").write_text("bom:\n  nic_cages: {compute: OSFP}\n  cable_length_m:\n"
                                  "    compute: {server-leaf: 12}\n")
    cluster, bill = _headroom_and_bill(inv)
    assert set(_port_lengths(cluster, "server-leaf")) == {12}  # the bom run, for headroom too
    assert set(_port_lengths(cluster, "leaf-spine")) == {20}  # no run stated: fabric.cable_length_m, in the bill too
    _assert_one_length(cluster, bill)

    end = f"{cluster.compute.links[0].a_device}:{cluster.compute.links[0].a_port}"
    (inv / "cabling.yaml").write_text(f'cabling:\n  links: {{"{end}": 45}}\n')
    cluster, bill = _headroom_and_bill(inv)
    assert 45 in _port_lengths(cluster, cluster.compute.links[0].kind)
    assert _fibres(bill).get("50 m") == 1
    _assert_one_length(cluster, bill)


def test_a_fabric_length_no_part_reaches_is_refused_by_validate_as_by_bom(tmp_path: Path) -> None:
    """fabric.cable_length_m longer than any module that fits the cages: resolve (validate, render) refuses it
    as bom would, naming the key."""
    inv = _copy(tmp_path, fabric=("  cable_length_m: 100", "  cable_length_m: 400"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    assert err.value.key == "fabric.cable_length_m" and "longer than the reach" in err.value.message, str(err.value)


def test_the_nic_operator_templates_cable_len_is_the_longest_of_its_nics_links(tmp_path: Path) -> None:
    """The NIC operator's template sizes the headroom of every NIC it configures: the longest of their links
    (it used to be fabric.cable_length_m whatever the links' lengths)."""
    from netauto.model.kubernetes import resolve_kubernetes

    loaded = load_inventory(DEFAULT_INVENTORY)
    cluster = resolve_cluster_model(loaded)
    rail = cluster.compute.servers[0].rails[0]
    inv = _copy(tmp_path, fabric=("  cable_length_m: 100", "  cable_length_m: 40"))
    (inv / "cabling.yaml").write_text(f'cabling:\n  links: {{"{rail.leaf}:{rail.leaf_port}": 90}}\n')
    loaded = load_inventory(inv)
    cluster = resolve_cluster_model(loaded)
    k8s = resolve_kubernetes(loaded, cluster.compute)
    assert k8s is not None and k8s.templates
    kinds = {r.kind for r in cluster.compute.servers[0].rails if r.index == rail.index}
    profile = cluster.compute.servers[0].profile
    for t in k8s.templates:
        want = 90 if t.profile == profile and any(t.name.endswith(k) for k in kinds) else 40
        assert t.cable_len == want, (t.name, t.cable_len)


@pytest.mark.parametrize("metres", [0, -5, 100001])
def test_a_bom_run_outside_the_cable_length_range_is_refused(tmp_path: Path, metres: int) -> None:
    """A bom run sizes the headroom too: the range of the other length keys (1..100000, NVUE's)."""
    inv = _copy(tmp_path)
    (inv / "bom.yaml").write_text(f"bom:\n  nic_cages: {{compute: OSFP}}\n  cable_length_m:\n"
                                  f"    compute: {{server-leaf: {metres}}}\n")
    with pytest.raises(InventoryError) as err:
        load_inventory(inv)
    e = err.value
    assert e.exit_code == 2 and e.file is not None and e.file.name == "bom.yaml", str(e)
    assert "server-leaf" in e.message and "1..100000" in e.message, str(e)
