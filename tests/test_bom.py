"""`netauto bom`: the 64-server cluster's bill of materials equals the hand count of the README, optics follow
the cage (one twin-port module per used cage whatever its breakout), splitters serve two links."""

from __future__ import annotations

import shutil

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.bom import bill_of_materials, cage_type, length_class, to_csv, to_markdown
from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve
from netauto.model.networks import resolve_cluster
from netauto.pipeline import resolve_cluster_model

CLUSTER = EXAMPLES / "cluster-64" / "inventory"


def bom_of(path):
    loaded = load_inventory(path)
    lines = bill_of_materials(loaded, resolve_cluster_model(loaded))  # the resolved model: every link's length
    return {(x.network, x.category, x.item, x.length): x.count for x in lines}


@pytest.fixture(scope="module")
def bom(tmp_path_factory):
    """The hand count with bom.yaml's run lengths: without hall.yaml (the hall's lengths: tests/test_hall.py)."""
    dst = tmp_path_factory.mktemp("bom") / "inv"
    shutil.copytree(CLUSTER, dst)
    (dst / "hall.yaml").unlink()
    return bom_of(dst)


TWIN = "800G twin-port OSFP 2x400G DR8 (MMS4X00-NS)"


def test_compute_hand_count(bom):
    # 16 leaves x (16 server cages + 16 uplink cages, 2 x 400G each) + 8 spines x 32 cages
    assert bom[("compute", "transceiver", TWIN, "")] == 16 * 32 + 8 * 32 == 768
    # DGX H100: 8 cluster NICs behind 4 flat-top twin-port cages, one module each (linkx.yaml, racking.yaml)
    assert bom[("compute", "transceiver", "800G twin-port OSFP 2x400G DR8 flat top (MMS4X00-NS-FLT)", "")] == 64 * 4
    assert not any(k[:3] == ("compute", "transceiver", "400G single-port OSFP DR4 (MMS4X00-NS400)") for k in bom)
    assert bom[("compute", "cable", "MPO-12/APC SMF straight", "30 m")] == 512  # one fibre per server link
    assert bom[("compute", "cable", "MPO-12/APC SMF straight", "50 m")] == 16 * 32  # leaf-spine links
    assert bom[("compute", "switch", "SN5600 leaf", "")] == 16 and bom[("compute", "switch", "SN5600 spine", "")] == 8


def test_storage_hand_count(bom):
    # 4 leaves x (10 cages of 4 x 200G + 10 cages of 2 x 400G) + 2 spines x 20 cages
    assert bom[("storage", "transceiver", TWIN, "")] == 4 * 20 + 2 * 20 == 120
    assert bom[("storage", "transceiver", "400G single-port OSFP DR4 (MMS4X00-NS400)", "")] == 80 * 2  # at 200G
    assert bom[("storage", "cable", "MPO-12/APC SMF 1:2 splitter", "30 m")] == 80 * 2 // 2  # a splitter: 2 NICs
    assert bom[("storage", "cable", "MPO-12/APC SMF straight", "50 m")] == 4 * 20


def test_frontend_and_oob_hand_count(bom):
    assert bom[("frontend", "transceiver", "25G SFP28 25GBASE-SR", "")] == 80 * 2 * 2  # both ends of 160 links
    # 4 x 10 uplinks and 2 pairs x 2 MLAG peerlinks, both ends; the 4 upstream links, the aggregation end only
    assert bom[("frontend", "transceiver", "100G QSFP28 100GBASE-SR4", "")] == (4 * 10 + 2 * 2) * 2 + 4 == 92
    assert bom[("frontend", "cable", "MPO-12 MMF OM4", "3 m")] == 2 * 2
    assert bom[("frontend", "cable", "MPO-12 MMF OM4", "50 m")] == 4  # to the site routers
    assert bom[("frontend", "site", "100G port on a site router (the site's optic, not counted)", "")] == 4
    assert bom[("frontend", "cable", "LC duplex MMF OM4", "5 m")] == 160
    # one access switch per block: compute, storage, frontend switch ports (24, 6, 6), GPU BMCs (64: 2),
    # storage BMCs (16): 6
    assert bom[("oob", "switch", "SN2201 oob-access", "")] == 1 + 1 + 1 + 2 + 1
    # + 1: the aggregation pair's MLAG backup cable, eth0 to eth0 (off the peerlink)
    assert bom[("oob", "cable", "Cat6 copper patch", "3 m")] == 36 + 80 + 1
    # each access switch: 2 uplinks on QSFP28 cages (QSA + SFP+); the aggregation ends are SFP28 cages (SFP+)
    assert bom[("oob", "transceiver", "10G SFP+ 10GBASE-SR in QSA adapter", "")] == 6 * 2
    assert bom[("oob", "transceiver", "10G SFP+ 10GBASE-SR", "")] == 6 * 2
    assert bom[("oob", "cable", "LC duplex MMF OM4", "20 m")] == 6 * 2


def test_fibre_lines_name_the_grade_the_reach_check_assumes(monkeypatch):
    """A multimode fibre line names optics.yaml's fibre_grade, the grade model.parts checks each link's reach on
    (an OM3 buyer would get links the check passed that do not reach); single mode and copper lines name none."""
    from netauto.platforms.optics import optics

    monkeypatch.setitem(optics(), "fibre_grade", "OM3")  # the one fact: the bill follows it
    bom = bom_of(CLUSTER)
    cables = {k[2] for k in bom if k[1] == "cable"}
    assert {"MPO-12 MMF OM3", "LC duplex MMF OM3"} <= cables
    assert not [c for c in cables if "MMF" in c and not c.endswith(" OM3")]
    assert "Cat6 copper patch" in cables and "MPO-12/APC SMF straight" in cables


def test_totals_add_up(bom):
    for (net, cat, item, length), n in bom.items():
        if net == "total":
            assert n == sum(v for (k, c, i, l), v in bom.items() if k != "total" and (c, i, l) == (cat, item, length))
    assert bom[("total", "switch", "SN5600 leaf", "")] == 16 + 4


def test_cage_facts_and_length_classes():
    assert cage_type("SN3420", 48) == "SFP28" and cage_type("SN3420", 49) == "QSFP28"
    assert cage_type("SN2201", 1) == "RJ45"
    assert length_class(30) == "30 m" and length_class(31) == "50 m" and length_class(1) == "1 m"


def test_csv_and_markdown(bom):
    loaded = load_inventory(CLUSTER)
    lines = bill_of_materials(loaded, resolve_cluster_model(loaded))  # the resolved model: every link's length
    text = to_csv(lines)
    assert text.splitlines()[0] == "network,category,item,length,count,part"
    md = to_markdown(lines, "gpu-cluster64")
    assert "## storage" in md and "| transceiver | 800G twin-port OSFP 2x400G DR8 (MMS4X00-NS) |  | 120 |" in md


def _with_old_platforms(tmp_path, frontend_spine: str):
    dst = tmp_path / "inv"
    shutil.copytree(CLUSTER, dst)
    f = dst / "bom.yaml"
    f.write_text(f.read_text().replace("bom:\n", "bom:\n  platforms:\n    compute: {leaf: SN5600, spine: SN5600}\n"
                                       f"    frontend: {{leaf: SN3420, spine: {frontend_spine}}}\n"
                                       "    oob: {oob-access: SN2201, oob-aggregation: SN3420}\n"))
    return dst


def test_switch_models_come_from_the_model(tmp_path):
    # one source: the model's switch hardware (here oob.hardware) decides the BOM's switch lines and cage types
    dst = tmp_path / "inv"
    shutil.copytree(CLUSTER, dst)
    f = dst / "networks.yaml"
    f.write_text(f.read_text().replace("hardware: {access: SN2201, aggregation: SN3420}",
                                       "hardware: {access: SN2201, aggregation: SN4600C}"))
    b = bom_of(dst)
    assert b[("oob", "switch", "SN4600C oob-aggregation", "")] == 2 and ("oob", "switch", "SN3420 oob-aggregation", "") not in b
    # an SN4600C cage is QSFP28: the aggregation ends of the 12 uplinks take an SFP+ in a QSA adapter now
    assert b[("oob", "transceiver", "10G SFP+ 10GBASE-SR in QSA adapter", "")] == 12 + 12
    loaded = load_inventory(CLUSTER)
    cluster = resolve_cluster(loaded, resolve(loaded))
    fe = next(p for p in cluster.networks if p.name == "frontend").fabric
    assert {sw.hardware for sw in fe.switches if sw.role == "spine"} == {"SN4600C"}  # what the BOM counted


def test_old_bom_platforms_agreeing_is_a_warning(tmp_path, caplog):
    with caplog.at_level("WARNING", logger="netauto.bom"):
        assert bom_of(_with_old_platforms(tmp_path, "SN4600C")) == bom_of(CLUSTER)
    assert "bom.platforms is deprecated" in caplog.text and "bom.yaml:5" in caplog.text


def test_old_bom_platforms_contradicting_the_model_is_an_inventory_error(tmp_path):
    with pytest.raises(InventoryError) as exc:
        bom_of(_with_old_platforms(tmp_path, "SN5600"))
    e = exc.value
    assert e.exit_code == 2 and e.key == "bom.platforms.frontend.spine" and e.file.name == "bom.yaml"
    assert "SN5600" in e.message and "SN4600C" in e.message and "networks.frontend.switch_hardware" in e.message
    assert "delete bom.platforms" in (e.hint or "")


def test_shipped_inventory_without_bom_section_uses_the_stated_defaults(caplog):
    """The shipped inventory has no `bom:` section (issue 21: `netauto bom` used to exit 2 on it): the NIC cages
    of optics.yaml apply, said once on stderr, the cables are bought for the links' one length
    (fabric.cable_length_m here, issue 37: the length the headroom is sized for), and the counts follow the model."""
    loaded = load_inventory(DEFAULT_INVENTORY)
    assert loaded.inventory.bom is None
    model = resolve(loaded)
    with caplog.at_level("WARNING", logger="netauto.bom"):
        lines = bill_of_materials(loaded, resolve_cluster(loaded, model))
    assert any("no bom: section" in r.getMessage() and "fabric.cable_length_m (100 m" in r.getMessage() for r in caplog.records)
    got = {(x.network, x.category, x.item, x.length): x.count for x in lines}
    server_links = [l for l in model.links if l.kind == "server-leaf"]
    uplinks = [l for l in model.links if l.kind == "leaf-spine"]
    assert got[("compute", "transceiver", "400G single-port OSFP DR4 (MMS4X00-NS400)", "")] == len(server_links)
    assert got[("compute", "cable", "MPO-12/APC SMF straight", "100 m")] == len(server_links) + len(uplinks)
    used_cages = {(l.a_device, l.a_port.rsplit("s", 1)[0]) for l in model.links} | \
        {(l.b_device, l.b_port.rsplit("s", 1)[0]) for l in uplinks}
    assert got[("compute", "transceiver", TWIN, "")] == len(used_cages)
