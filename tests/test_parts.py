"""Each link's parts by speed, reach and form factor (issue 37): the LinkX catalog (platforms/data/linkx.yaml)
chooses copper, or a module per twin-port switch cage, the NIC end's module and a fibre; the NIC cage is the
GPU server's; a part that does not fit a cage, or a link no part reaches, is one error that validate and bom
both give (model.parts.choose decides for both)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES, edited_copy

from netauto.bom import Line, bill_of_materials
from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.pipeline import resolve_cluster_model
from netauto.platforms import linkx, optics, racking

CLUSTER = EXAMPLES / "cluster-64" / "inventory"


def _copy(tmp_path: Path, name: str, keep_hall: bool = True, **edits: tuple[str, str]) -> Path:
    dst = edited_copy(CLUSTER, tmp_path / name, {stem: [edit] for stem, edit in edits.items()})
    if not keep_hall:
        (dst / "hall.yaml").unlink()
    return dst


def _bom(inv: Path) -> list[Line]:
    loaded = load_inventory(inv)
    return bill_of_materials(loaded, resolve_cluster_model(loaded))


def _count(lines: list[Line], network: str, category: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in lines:
        if x.network == network and x.category == category:
            out[x.part or x.item] = out.get(x.part or x.item, 0) + x.count
    return out


def _run(*args: str) -> tuple[int, str]:
    r = subprocess.run([sys.executable, "-m", "netauto", *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def _errors(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("error:")]


QSFP = ("compute: OSFP-twin-RHS", "compute: QSFP112")
RHS = ("compute: OSFP-twin-RHS", "compute: OSFP-RHS")


def test_dgx_h100_takes_flat_top_twin_port_modules_hgx_single_port_ones(tmp_path: Path) -> None:
    """In the hall the NIC cage is the GPU server's: a DGX H100's 4 flat-top twin-port cages take one module each,
    an HGX H100's 8 ConnectX-7/OSFP cards one flat-top single-port module each; the switches keep finned ones."""
    dgx = _count(_bom(CLUSTER), "compute", "transceiver")
    assert dgx == {"MMS4X00-NS": 768, "MMS4X00-NS-FLT": 64 * 4}, dgx
    hgx = _copy(tmp_path, "hgx", hall=("gpu_server: DGX-H100", "gpu_server: HGX-H100"), bom=RHS)
    got = _count(_bom(hgx), "compute", "transceiver")
    assert got == {"MMS4X00-NS": 768, "MMS4X00-NS400": 64 * 8}, got


def test_a_nic_cage_the_server_does_not_have_names_the_device_and_the_part(tmp_path: Path) -> None:
    """bom.nic_cages says OSFP-RHS, the hall's DGX H100 has flat-top twin-port cages: the single-port module
    would not fit; validate and bom say the same one line (exit 2)."""
    inv = _copy(tmp_path, "wrong", bom=RHS)
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert "su1-gpu01 (DGX-H100): MMS4X00-NS400" in e.message and "OSFP-twin-RHS" in e.message, e.message
    assert e.key == "bom.nic_cages.compute" and e.file is not None and e.file.name == "bom.yaml" and e.line, str(e)


def test_qsfp112_nics_take_multimode_optics_and_their_reach(tmp_path: Path) -> None:
    """ConnectX-7/QSFP112 cards: the catalog's QSFP112 module is multimode (MMA1Z00-NS400), so the leaf cages
    facing them take the multimode twin-port MMA4Z00-NS and MMF fibres; the spine-facing cages stay single mode.
    A 60 m run is beyond the multimode 50 m: an error naming both ends and the run's key."""
    inv = _copy(tmp_path, "qsfp", keep_hall=False, bom=QSFP)
    lines = _bom(inv)
    assert _count(lines, "compute", "transceiver") == {"MMS4X00-NS": 16 * 16 + 8 * 32, "MMA4Z00-NS": 16 * 16,
                                                       "MMA1Z00-NS400": 64 * 8}
    assert _count(lines, "compute", "cable") == {"MFP7E10-N030": 512, "MFP7E30-N050": 512}
    far = _copy(tmp_path, "far", keep_hall=False, bom=QSFP)
    f = far / "bom.yaml"
    f.write_text(f.read_text().replace("compute: {server-leaf: 30,", "compute: {server-leaf: 60,"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(far))
    e = err.value
    assert re.search(r"su\d-r\d-leaf:swp\d+s\d - su\d-gpu\d+:rail\d: 60 m, longer than the reach of any part that fits "
                     r"their cages \(OSFP-twin-IHS to QSFP112: 50 m\)", e.message), e.message
    assert e.key == "bom.cable_length_m.compute.server-leaf" and e.file is not None and e.file.name == "bom.yaml"


def test_short_runs_take_copper(tmp_path: Path) -> None:
    """3 m to ConnectX-7/OSFP cards: one DAC splitter per leaf cage (two servers); 2 m between a leaf's cage and
    its spine's: one twin-port DAC per pair of cages; no transceiver on either."""
    inv = _copy(tmp_path, "dac", keep_hall=False, bom=RHS)
    f = inv / "bom.yaml"
    f.write_text(f.read_text().replace("compute: {server-leaf: 30, leaf-spine: 50}", "compute: {server-leaf: 3, leaf-spine: 2}"))
    lines = _bom(inv)
    assert _count(lines, "compute", "cable") == {"MCP7Y00-N003": 16 * 16, "MCP4Y10-N002": 16 * 16}
    assert _count(lines, "compute", "transceiver") == {}


def test_a_leaf_far_from_its_server_is_out_of_reach_a_far_spine_takes_500_m_optics(tmp_path: Path) -> None:
    """A 300 m leaf-spine run takes the 500 m twin-port module (MMS4X00-NM) in the cage at each end; a leaf placed
    three rows (35 m apart) from its server is beyond the 100 m of any module the server's DGX cage takes (at 35 m
    the frontend's 25G links stay within 25GBASE-SR's 100 m, optics.yaml reach: the rail link is the one refused)."""
    wide = _copy(tmp_path, "wide", keep_hall=False, bom=("bom:\n", 'cabling:\n  links: {"spine1:swp1s0": 300}\nbom:\n'))
    got = _count(_bom(wide), "compute", "transceiver")
    assert got["MMS4X00-NM"] == 2 and got["MMS4X00-NS"] == 768 - 2, got
    far = _copy(tmp_path, "far", hall=("  row_pitch_m: 2.4 ", "  row_pitch_m: 35 "))
    f = far / "hall.yaml"
    f.write_text(f.read_text() + "  place: {su1-r0-leaf: D20}\n")
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(far))
    e = err.value
    assert re.search(r"su1-r0-leaf:swp\d+s\d - su\d-gpu\d+:rail0: \d+ m between their racks, longer than the reach of "
                     r"any part that fits their cages \(OSFP-twin-IHS to OSFP-twin-RHS: 100 m\)", e.message), e.message
    assert e.key == "hall" and e.file is not None and e.file.name == "hall.yaml"


def test_validate_and_bom_agree(tmp_path: Path) -> None:
    """The same inputs: both accept, or both refuse with the same line (model.parts.choose decides for both)."""
    cases = {
        "ok": _copy(tmp_path, "ok", keep_hall=False, bom=QSFP),
        "form": _copy(tmp_path, "form", bom=RHS),
        "reach": _copy(tmp_path, "reach", keep_hall=False, bom=QSFP),
    }
    f = cases["reach"] / "bom.yaml"
    f.write_text(f.read_text().replace("compute: {server-leaf: 30,", "compute: {server-leaf: 60,"))
    # no hall and no bom: section, one link's length stated: the stated defaults' parts must reach it
    cases["link"] = tmp_path / "link"
    shutil.copytree(DEFAULT_INVENTORY, cases["link"])
    f = cases["link"] / "features.yaml"
    f.write_text(f.read_text() + 'cabling:\n  links: {"su1-r0-leaf:swp1s0": 150}\n')
    for name, inv in cases.items():
        v_code, v_out = _run("validate", "-i", str(inv), "--no-external", "--no-simulate")
        b_code, b_out = _run("bom", "-i", str(inv))
        assert (v_code, _errors(v_out)) == (b_code, _errors(b_out)), (name, v_out[-600:], b_out[-600:])
        assert (v_code == 0) == (name == "ok"), (name, v_out[-600:])
        assert "Traceback" not in v_out + b_out
        if name == "link":
            assert "cabling.links.su1-r0-leaf:swp1s0: su1-r0-leaf:swp1s0 - gpu01:rail0: 150 m" in v_out, v_out[-400:]


def test_every_catalog_part_has_a_source_and_unchecked_ones_say_why() -> None:
    from netauto.platforms.datafile import load_yaml

    data = load_yaml(linkx.DATA)
    for section in ("transceivers", "copper"):
        for part, entry in data[section].items():
            assert entry.get("source") and isinstance(entry.get("checked"), bool), part
            assert entry["checked"] or entry.get("why"), part
    for model in racking.server_models():
        server = racking.server(model)
        assert server is not None and linkx.is_form(server.nic_cage), (model, server)
    sized = load_yaml(racking.DATA)
    for section in ("switches", "servers"):
        for model, entry in sized[section].items():
            assert entry.get("source") and (entry["checked"] is True or entry.get("why")), model



def test_every_generic_part_has_a_reach_with_a_source_on_the_assumed_fibre_grade() -> None:
    """Every generic cage entry (optics.yaml `cages`, not a twin-port OSFP cage LinkX serves) names its IEEE PHY,
    and every PHY a reach (the fibre grade netauto assumes for multimode, one figure for copper) with a source;
    no reach reaches past the longest cable (a link that long is refused for the cable first)."""
    data = optics.optics()
    assert data["fibre_grade"] == "OM4"
    for kind, speeds in data["cages"].items():
        for speed, entry in speeds.items():
            assert linkx.switch_form(kind) or entry.get("phy") in data["reach"], (kind, speed)
    for phy, entry in data["reach"].items():
        assert entry.get("source") and (entry["checked"] is True or entry.get("why")), phy
        metres, medium = optics.reach(phy)
        assert 0 < metres <= racking.longest_cable_m() and medium, phy
    assert optics.reach("25GBASE-SR") == (100, "OM4 multimode") and optics.reach("1000BASE-T") == (100, "Cat6")


def test_every_bom_line_carries_its_part_number(tmp_path: Path) -> None:
    """The plain CSV and the Markdown carry the part column too (the priced CSV's first six columns)."""
    inv = _copy(tmp_path, "csv", keep_hall=False, bom=RHS)
    code, out = _run("bom", "-i", str(inv))
    rows = [r.split(",") for r in out.splitlines() if r.startswith(("network,", "compute,"))]
    assert code == 0 and rows[0] == ["network", "category", "item", "length", "count", "part"], out[:300]
    parts = {r[-1] for r in rows[1:]}
    assert {"SN5600", "MMS4X00-NS", "MMS4X00-NS400", "MFP7E30-N030", "MFP7E30-N050"} <= parts, parts
    code, md = _run("bom", "-i", str(inv), "--format", "markdown")
    assert code == 0 and "| category | item | length | count | part |" in md and "| MFP7E30-N050 |" in md, md[:500]


def test_a_finned_switch_form_is_no_nic_cage(tmp_path: Path) -> None:
    """Finned twin-port OSFP (OSFP-twin-IHS) is the air-cooled switch cage's form; no server NIC cage takes it
    (the DGX H100's are flat-top): bom.nic_cages saying so bought 1,024 finned MMS4X00-NS, 256 of them for
    NIC cages they do not fit. validate and bom refuse it alike, naming the key."""
    inv = _copy(tmp_path, "ihs", keep_hall=False, bom=("compute: OSFP-twin-RHS", "compute: OSFP-twin-IHS"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert "OSFP-twin-IHS" in e.message and "switch cage" in e.message, e.message
    assert e.key == "bom.nic_cages.compute" and e.file is not None and e.file.name == "bom.yaml" and e.line, str(e)
    assert "OSFP-twin-RHS" in (e.hint or ""), e.hint


def test_a_default_nic_cage_no_part_fits_is_refused_by_validate_as_by_bom(tmp_path: Path) -> None:
    """No hall, no bom: section, no stated run: the parts were not chosen at resolve ('every run is a default the
    parts reach'), but the default NIC cage of a lossy network is SFP28, and a lossy storage network's 200G
    links out of SN5600 cages have no part for it: bom refused, validate passed. Now both refuse."""
    inv = _copy(tmp_path, "lossy", keep_hall=False, networks=("    qos: lossless ", "    qos: lossy "))
    (inv / "bom.yaml").unlink()
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert "no LinkX part fits both a OSFP-twin-IHS cage" in e.message and "SFP28 cage" in e.message, e.message
    assert "OSFP-twin-IHS" not in (e.hint or "") and "bom.nic_cages.storage" in (e.hint or ""), e.hint
    v_code, v_out = _run("validate", "-i", str(inv), "--no-external", "--no-simulate")
    b_code, b_out = _run("bom", "-i", str(inv))
    assert (v_code, _errors(v_out)) == (b_code, _errors(b_out)) and v_code == 2, (v_out[-600:], b_out[-600:])


STORAGE_100G = [  # the storage network at 100G on SN4600C (QSFP28 cages): no LinkX part, optics.yaml's generic optics
    ("    host_link_speed: 200G       # 2 x 200G per server\n    fabric_link_speed: 400G",
     "    switch_hardware: {leaf: SN4600C, spine: SN4600C}\n    host_link_speed: 100G\n    fabric_link_speed: 100G"),
    ("      leaf: {cages: 64, downlinks_first: 1, downlinks_breakout: 4, uplinks_first: 33, uplinks_breakout: 2}\n"
     "      spine: {cages: 64, downlinks_first: 1, downlinks_breakout: 2, uplinks_first: 33}",
     "      leaf: {cages: 64, downlinks_first: 1, uplinks_first: 41}\n      spine: {cages: 64, downlinks_first: 1, uplinks_first: 64}"),
    ("    servers_per_leaf: 40 ", "    servers_per_leaf: 20 "),
    ("    spines: 2\n    leaf_spine_links: 10 ", "    spines: 4\n    leaf_spine_links: 5 "),
]


def _storage_100g(tmp_path: Path, name: str, nic: str) -> Path:
    inv = edited_copy(CLUSTER, tmp_path / name, {"bom": [("storage: OSFP-RHS ", f"storage: {nic} ")],
                                                  "networks": list(STORAGE_100G)})
    (inv / "hall.yaml").unlink()
    return inv


def test_a_nic_cage_with_no_module_at_its_speed_is_refused_by_validate_as_by_bom(tmp_path: Path) -> None:
    """100G storage NICs stated as SFP28: optics.yaml has no 100G module for an SFP28 cage. bom failed with a
    line naming no file, key or fix, validate passed; now both refuse it with bom.nic_cages.storage."""
    inv = _storage_100g(tmp_path, "sfp28", "SFP28")
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert re.search(r"st-g\d-leaf\d:swp\d+ - stor\d+:ens1f\dnp\d: no 100G module for the SFP28 NIC cage", e.message), e.message
    assert e.key == "bom.nic_cages.storage" and e.file is not None and e.file.name == "bom.yaml" and e.line, str(e)
    assert "QSFP28" in (e.hint or ""), e.hint
    v_code, v_out = _run("validate", "-i", str(inv), "--no-external", "--no-simulate")
    b_code, b_out = _run("bom", "-i", str(inv))
    assert (v_code, _errors(v_out)) == (b_code, _errors(b_out)) and v_code == 2, (v_out[-600:], b_out[-600:])


def test_qsfp28_nics_take_100g_sr4_modules(tmp_path: Path) -> None:
    """ConnectX-6 class QSFP28 NICs at 100G: one 100GBASE-SR4 QSFP28 module per NIC port (IEEE 802.3bm, the
    switch side's module): 80 servers x 2 NIC links and 8 leaves x 4 spines x 5 uplinks, a module at each end."""
    got = _count(_bom(_storage_100g(tmp_path, "q28", "QSFP28")), "storage", "transceiver")
    assert got["100G QSFP28 100GBASE-SR4"] == 2 * 80 * 2 + 2 * 8 * 4 * 5, got  # both ends of 160 + 160 links


def test_without_a_bom_section_a_default_nic_cage_with_no_module_is_refused_too(tmp_path: Path) -> None:
    """No bom: section: the storage network's default cage (optics.yaml defaults: OSFP on a lossless network) has
    no 100G module; validate refuses it as bom does, naming the key to add."""
    inv = _storage_100g(tmp_path, "nobom", "QSFP28")
    (inv / "bom.yaml").unlink()
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    assert "no 100G module for the OSFP NIC cage" in err.value.message, str(err.value)
    assert "bom.nic_cages.storage" in (err.value.hint or "") and "QSFP28" in (err.value.hint or ""), err.value.hint


def test_an_oob_port_names_its_cage_only_as_swp_and_ascii_digits() -> None:
    """One reading of an OOB switch's port name for the part check, the bill and the OOB model (model.oob)."""
    from netauto.model.oob import oob_cage

    assert oob_cage("swp12") == 12
    assert [oob_cage(p) for p in ("eth0", "12", "swp", "swp1s0", "swp\u00b2", "swp\u0661")] == [None] * 6
