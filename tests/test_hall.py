"""The physical plan (issue 37): the data hall's racks under their power budget (`hall:`, `netauto plan racks`),
each link's length from the racks of its ends feeding the PFC headroom, the SVG floor plan, the priced bill
and the cost of a growth, with the published plan's numbers: a 9 x 14 hall of 15 kW racks holds 126 of 128
H100 servers, the compute network of 64 servers costs 22,016,000 CNY, spine-first for 128 costs 1,872,000 more."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES, edited_copy

from netauto.bom import bill_of_materials
from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.pipeline import iter_files, resolve_cluster_model

CLUSTER = EXAMPLES / "cluster-64" / "inventory"
PRICES = """part,unit_price,currency
SN5600,208000,CNY
MMS4X00-NS,14500,CNY
MMS4X00-NS400,9800,CNY
MMA1Z00-NS400,7200,CNY
MFP7E30-N050,850,CNY
MFP7E20-N030,950,CNY
"""


def _copy(tmp_path: Path, name: str = "inv", **edits: tuple[str, str]) -> Path:
    """cluster-64 copied; edits: file stem -> (old, new) text replaced once (old must be there)."""
    return edited_copy(CLUSTER, tmp_path / name, {stem: [edit] for stem, edit in edits.items()})


def _run(*args: str) -> tuple[int, str]:
    """netauto as an operator runs it: (exit code, stdout then stderr)."""
    r = subprocess.run([sys.executable, "-m", "netauto", *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def test_a_9_by_14_hall_of_15_kw_racks_holds_126_of_128_h100_servers(tmp_path: Path) -> None:
    inv = _copy(tmp_path, topology=("  sus_per_pod: 2", "  sus_per_pod: 4"),
                hall=("  rows: 4\n  racks_per_row: 20", "  rows: 9\n  racks_per_row: 14"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert "holds 126 DGX-H100 servers" in e.message and "has 128" in e.message, e.message
    assert e.file is not None and e.file.name == "hall.yaml" and e.key == "hall.power_kw" and e.line, str(e)


def test_64_servers_in_the_9_by_14_hall_one_server_and_two_switches_per_rack(tmp_path: Path) -> None:
    inv = _copy(tmp_path, hall=("  rows: 4\n  racks_per_row: 20", "  rows: 9\n  racks_per_row: 14"))
    hall = resolve_cluster_model(load_inventory(inv)).hall
    for rack in hall.racks:
        assert rack.power_kw <= rack.budget_kw and rack.used_u <= rack.height_u, rack.name
        gpus = [d for d in rack.devices if d.model == "DGX-H100"]
        big = [d for d in rack.devices if d.model == "SN5600"]
        assert len(gpus) <= 1 and (not gpus or len(big) <= 2), (rack.name, rack.devices)
    # spines stand nearer the middle of the hall than the leaves
    def off_centre(name: str) -> float:
        r = hall.where[name]
        return abs(r.row - 4) * 4 + abs(r.position - 6.5)
    spines = [off_centre(f"spine{i}") for i in range(1, 9)]
    leaves = [off_centre(f"su{s}-r{r}-leaf") for s in (1, 2) for r in range(8)]
    assert max(spines) < sum(leaves) / len(leaves), (spines, leaves)


def test_plan_racks_table_csv_and_svg() -> None:
    code, out = _run("plan", "racks", "-i", str(CLUSTER))
    assert code == 0, out
    assert re.search(r"^A01  \d+/42U  [\d.]+/15 kW$", out, re.M), out[:300]
    assert out.rstrip().endswith("124 devices, 732.6 kW"), out[-200:]
    code, out = _run("plan", "racks", "-i", str(CLUSTER), "--format", "csv")
    rows = out.splitlines()
    assert code == 0 and rows[0] == "rack,u,device,model,size_u,power_kw" and len(rows) == 1 + 124
    code, out = _run("plan", "racks", "-i", str(CLUSTER), "--format", "svg")
    assert code == 0
    svg = ET.fromstring(out)
    rects = svg.findall(".//{http://www.w3.org/2000/svg}rect")
    assert len([r for r in rects if r.get("class") == "rack"]) == 4 * 20
    devices = [r.get("data-device") for r in rects if r.get("class") == "device"]
    assert len(devices) == len(set(devices)) == 124 and "spine1" in devices
    elevations = svg.findall(".//{http://www.w3.org/2000/svg}g[@class='elevation']")
    assert len(elevations) == len({row.split(",")[0] for row in rows[1:]})


def test_netauto_docs_draws_the_hall(tmp_path: Path) -> None:
    code, out = _run("docs", "-i", str(CLUSTER), "-o", str(tmp_path / "docs"), "--no-svg")
    assert code == 0 and "racks.svg" in out, out
    svg = ET.parse(tmp_path / "docs" / "racks.svg").getroot()
    devices = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "device"]
    assert len(devices) == 124
    assert len((tmp_path / "docs" / "racks.csv").read_text().splitlines()) == 1 + 124


def _spine1_nvue_lengths(inv: Path) -> list[int]:
    cluster = resolve_cluster_model(load_inventory(inv))
    for a in iter_files(cluster):
        if a.device == "spine1" and a.path == "etc/nvue.d/startup.yaml":
            return sorted({int(m) for m in re.findall(r"cable-length: (\d+)", a.content)})
    raise AssertionError("spine1 startup.yaml not rendered")


def _host_cable_len(inv: Path, server: str) -> list[int]:
    cluster = resolve_cluster_model(load_inventory(inv))
    return [r.cable_length_m for s in cluster.compute.servers if s.name == server for r in s.rails]


def test_moving_a_rack_changes_the_rendered_headroom(tmp_path: Path) -> None:
    """spine1 moved from the middle of the hall to its corner: its cables lengthen and its rendered PFC cable
    lengths (NVUE) with them; a leaf moved away from its servers lengthens the hosts' cable_len."""
    before = _spine1_nvue_lengths(CLUSTER)
    moved = _copy(tmp_path, hall=("  gpu_server: DGX-H100\n", "  gpu_server: DGX-H100\n  place: {spine1: D20, su1-r0-leaf: D19}\n"))
    after = _spine1_nvue_lengths(moved)
    assert before and after and max(after) > max(before), (before, after)
    assert max(_host_cable_len(moved, "su1-gpu01")) > max(_host_cable_len(CLUSTER, "su1-gpu01"))
    # cabling.links still overrides one link
    over = _copy(tmp_path, "over", bom=("bom:\n", 'cabling:\n  links: {"spine1:swp1s0": 77}\nbom:\n'))
    assert 77 in _spine1_nvue_lengths(over)


@pytest.mark.parametrize(("place", "expect"), [
    ("{" + ", ".join(f"spine{i}: A01" for i in range(1, 9)) + ", su1-r0-leaf: A01}",
     r"rack A01: su1-r0-leaf \(1.72 kW, 2U\) does not fit: 13.76 of 15 kW and 16 of 42U used"),
    ("{spine1: Z01}", r"no rack Z01 in a hall of 4 rows x 20"),
    ("{spine99: A01}", r"hall.place names spine99"),
])
def test_a_place_that_does_not_fit_names_the_rack_and_the_numbers(tmp_path: Path, place: str, expect: str) -> None:
    inv = _copy(tmp_path, hall=("  gpu_server: DGX-H100\n", f"  gpu_server: DGX-H100\n  place: {place}\n"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    assert re.search(expect, err.value.message), err.value.message
    assert err.value.file is not None and err.value.file.name == "hall.yaml" and err.value.line, str(err.value)


def test_schema_errors_name_file_and_line(tmp_path: Path) -> None:
    inv = _copy(tmp_path, hall=("  power_kw: 15\n", "  power_kw: -3\n"))
    code, out = _run("plan", "racks", "-i", str(inv))
    assert code == 2 and "hall.yaml:9" in out and "hall.power_kw" in out and "Traceback" not in out, out


def test_plan_racks_without_a_hall_and_plan_without_its_inventories() -> None:
    code, out = _run("plan", "racks", "-i", str(DEFAULT_INVENTORY))
    assert code == 2 and out.startswith(f"error: {DEFAULT_INVENTORY}: the inventory has no hall: section"), out
    code, out = _run("plan")
    assert code == 2 and "give both --from and --to" in out, out


def test_a_hall_link_longer_than_any_cable_fails_validate_and_bom_alike(tmp_path: Path) -> None:
    inv = _copy(tmp_path, hall=("  rows: 4\n", "  rows: 26\n"))
    f = inv / "hall.yaml"
    f.write_text(f.read_text().replace("  row_pitch_m: 2.4 ", "  row_pitch_m: 50 "))  # spines 12 rows away
    outs = [_run("validate", "-i", str(inv), "--no-external", "--no-simulate"), _run("bom", "-i", str(inv))]
    for code, out in outs:
        assert code == 2, out
        assert re.search(r"\S+:\S+ - \S+:\S+: \d+ m between their racks, longer than any cable \(500 m\)", out), out


def _priced(tmp_path: Path, inv: Path) -> dict[tuple[str, str], str]:
    prices = tmp_path / "prices.csv"
    prices.write_text(PRICES)
    code, out = _run("bom", "-i", str(inv), "--prices", str(prices), "--format", "csv")
    assert code == 0, out
    rows = [r.split(",") for r in out.splitlines() if "," in r and not r.startswith("WARNING")]
    assert rows[0][-3:] == ["part", "unit_price", "total"]
    return {(r[0], r[1]): r[-1] for r in rows if r[1] == "cost"}


def test_the_compute_network_of_64_servers_costs_22016000_cny(tmp_path: Path) -> None:
    """24 switches, 768 twin-port and 512 single-port modules and 1,024 fibres of 50 m (bom.yaml's runs, no hall).
    The plan's 512 single-port NIC modules are those of ConnectX-7/OSFP PCIe cards (OSFP-RHS, an HGX server); the
    example's DGX H100 takes 256 flat-top twin-port ones instead (test_dgx_h100_takes_flat_top_twin_port_modules)."""
    inv = _copy(tmp_path, bom=("compute: {server-leaf: 30, leaf-spine: 50}", "compute: {server-leaf: 50, leaf-spine: 50}"))
    f = inv / "bom.yaml"
    f.write_text(f.read_text().replace("compute: OSFP-twin-RHS", "compute: OSFP-RHS"))
    (inv / "hall.yaml").unlink()
    costs = _priced(tmp_path, inv)
    assert costs[("compute", "cost")] == "22016000", costs
    assert float(costs[("total", "cost")]) > 22016000  # the storage network's priced parts add to it
    loaded = load_inventory(inv)
    compute = [x for x in bill_of_materials(loaded, resolve_cluster_model(loaded)) if x.network == "compute"]
    assert all(x.part for x in compute), "every compute line has a part number"
    counts: dict[str, int] = {}
    for x in compute:
        counts[x.part] = counts.get(x.part, 0) + x.count
    # the plan's part counts, each: 24 switches, 768 twin-port, 512 single-port modules, 1,024 fibres of 50 m
    assert counts == {"SN5600": 24, "MMS4X00-NS": 768, "MMS4X00-NS400": 512, "MFP7E30-N050": 1024}, counts


def test_a_total_that_leaves_unpriced_lines_out_says_so(tmp_path: Path) -> None:
    """The shipped example's DGX H100 modules (MMS4X00-NS-FLT) are not in the plan's price file: its compute
    total is a partial sum and its row says how many lines it leaves out; a fully priced network's does not."""
    prices = tmp_path / "prices.csv"
    prices.write_text(PRICES)
    code, out = _run("bom", "-i", str(CLUSTER), "--prices", str(prices), "--format", "csv")
    assert code == 0, out
    rows = {r.split(",")[0]: r.split(",")[2] for r in out.splitlines() if ",cost," in r}
    assert re.fullmatch(r"total \(CNY; [1-9]\d* unpriced line\(s\) left out\)", rows["compute"]), rows
    inv = _copy(tmp_path, bom=("compute: {server-leaf: 30, leaf-spine: 50}", "compute: {server-leaf: 50, leaf-spine: 50}"))
    f = inv / "bom.yaml"
    f.write_text(f.read_text().replace("compute: OSFP-twin-RHS", "compute: OSFP-RHS"))
    (inv / "hall.yaml").unlink()
    code, out = _run("bom", "-i", str(inv), "--prices", str(prices), "--format", "csv")
    rows = {r.split(",")[0]: r.split(",")[2] for r in out.splitlines() if ",cost," in r}
    assert rows["compute"] == "total (CNY)", rows


def test_laying_out_128_spine_first_costs_1872000_cny_of_switches(tmp_path: Path) -> None:
    old = _copy(tmp_path, "old")
    new = _copy(tmp_path, "new", topology=("  spines_per_pod: 8\n  leaf_spine_links: 4", "  spines_per_pod: 16\n  leaf_spine_links: 2"),
                networks=("    spines: 2\n    leaf_spine_links: 10", "    spines: 3\n    leaf_spine_links: 10"))
    for inv in (old, new):
        (inv / "hall.yaml").unlink()
    prices = tmp_path / "prices.csv"
    prices.write_text(PRICES)
    code, out = _run("plan", "--from", str(old), "--to", str(new), "--prices", str(prices))
    assert code == 0, out
    line = out.strip().splitlines()[-1]
    # 8 compute + 1 storage SN5600 spines; the storage spine's 40 new links: 40 modules and 40 fibres
    assert "switch +1,872,000" in line and "transceiver +580,000" in line and "cable +34,000" in line, line
    assert line.startswith("cost of the growth: +2,486,000 CNY"), line


@pytest.mark.parametrize(("text", "expect"), [
    ("part,price\n", "first row must be part,unit_price,currency"),
    ("part,unit_price,currency\nSN5600,lots,CNY\n", "not a number"),
    ("part,unit_price,currency\nSN5600,1,CNY\nMMS4X00-NS,2,USD\n", "more than one currency"),
    ("part,unit_price,currency\n$(reboot),1,CNY\n", "not a part number"),
])
def test_a_bad_price_file_is_one_line_naming_the_row(tmp_path: Path, text: str, expect: str) -> None:
    prices = tmp_path / "prices.csv"
    prices.write_text(text)
    code, out = _run("bom", "-i", str(CLUSTER), "--prices", str(prices))
    assert code == 2 and expect in out and "prices.csv" in out and "Traceback" not in out, out


def _sonic_cable_lengths(inv: Path) -> set[str]:
    cluster = resolve_cluster_model(load_inventory(inv))
    for a in iter_files(cluster):
        if a.device == "su1-r0-leaf" and a.path == "etc/sonic/config_db.json":
            return set(json.loads(a.content)["CABLE_LENGTH"]["AZURE"].values())
    raise AssertionError("su1-r0-leaf config_db.json not rendered")


def test_hall_lengths_reach_sonic_cable_length(tmp_path: Path) -> None:
    """A SONiC leaf's CABLE_LENGTH takes the hall's lengths (rounded up to its HWSKU's headroom table rows)
    instead of the fabric's one 100 m default."""
    inv = tmp_path / "sonic"
    shutil.copytree(EXAMPLES / "mixed-sonic" / "inventory", inv)
    before = _sonic_cable_lengths(inv)
    (inv / "hall.yaml").write_text("hall:\n  rows: 2\n  racks_per_row: 8\n  power_kw: 15\n  gpu_server: DGX-H100\n")
    after = _sonic_cable_lengths(inv)
    assert before == {"300m"} and after == {"5m", "40m"}, (before, after)


def test_mixed_10_and_20_kw_racks_hold_the_128_servers_15_kw_racks_cannot(tmp_path: Path) -> None:
    """The published plan: at about 10 kW per H100 server (hall.models), a 9 x 14 hall of 15 kW racks holds 126
    servers; the same hall with two rows of 20 kW racks (two servers each) and the rest at 10 kW holds all 128,
    and every rack stays within its own budget."""
    grow = ("  sus_per_pod: 2", "  sus_per_pod: 4")
    plan = "  models:\n    DGX-H100: {u: 8, power_kw: 10.0}\n"
    flat = _copy(tmp_path, "flat", topology=grow, hall=("  models:\n", plan))
    f = flat / "hall.yaml"
    f.write_text(f.read_text().replace("  rows: 4\n  racks_per_row: 20", "  rows: 9\n  racks_per_row: 14"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(flat))
    assert "holds 126 DGX-H100 servers" in err.value.message, err.value.message
    mixed = _copy(tmp_path, "mixed", topology=grow, hall=("  models:\n", plan))
    f = mixed / "hall.yaml"
    f.write_text(f.read_text().replace("  rows: 4\n  racks_per_row: 20", "  rows: 9\n  racks_per_row: 14")
                 .replace("  power_kw: 15\n", "  power_kw: 10\n  rack_power_kw: {A: 20, B: 20}\n"))
    hall = resolve_cluster_model(load_inventory(mixed)).hall
    assert hall is not None
    budgets = {r.name: r.budget_kw for r in hall.racks}
    assert budgets["A01"] == budgets["B14"] == 20 and budgets["C01"] == budgets["I14"] == 10
    gpus = {r.name: sum(d.model == "DGX-H100" for d in r.devices) for r in hall.racks}
    assert sum(gpus.values()) == 128 and gpus["A01"] == 2 and max(gpus[n] for n in gpus if n[0] > "B") == 1
    assert all(r.power_kw <= r.budget_kw for r in hall.racks)
    from netauto.racks import to_svg, to_table

    assert "10 / 20 kW racks" in to_svg(hall) and "\nA01  16/42U  20/20 kW\n" in "\n" + to_table(hall)


def test_a_rack_budget_naming_no_row_or_rack_is_refused(tmp_path: Path) -> None:
    inv = _copy(tmp_path, hall=("  power_kw: 15\n", "  power_kw: 15\n  rack_power_kw: {Q: 20}\n"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    assert "rack_power_kw" in (err.value.key or "") and "Q" in err.value.message, str(err.value)


def test_a_growth_priced_without_its_bill_is_refused_not_zero(tmp_path: Path) -> None:
    """Without a bom: section on both sides no bill delta is computed: four more spines are not '+0 CNY'."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(DEFAULT_INVENTORY, old)
    shutil.copytree(DEFAULT_INVENTORY, new)
    f = new / "topology.yaml"
    f.write_text(f.read_text().replace("spines_per_pod: 4", "spines_per_pod: 8").replace("leaf_spine_links: 2 ", "leaf_spine_links: 1 "))
    prices = tmp_path / "prices.csv"
    prices.write_text(PRICES)
    code, out = _run("plan", "--from", str(old), "--to", str(new), "--prices", str(prices))
    assert code == 2 and "cost of the growth" not in out and "Traceback" not in out, out
    assert re.search(r"^error: .*no bill-of-materials delta.*bom: section", out, re.M), out


def test_oob_cables_take_their_length_from_the_hall_too(tmp_path: Path) -> None:
    """The OOB switches stand in the hall like every device: a BMC cable from su1-gpu01 (A01) to its access
    switch eight racks away is not the bom's 3 m run, and the bill buys it at its hall length; cabling.links
    still overrides one OOB link (it was accepted and ignored)."""
    loaded = load_inventory(CLUSTER)
    cluster = resolve_cluster_model(loaded)
    assert cluster.oob is not None and cluster.hall is not None
    for link in cluster.oob.links:
        assert (link.length_from, link.length_m) == ("hall", cluster.hall.length_m(link.a_device, link.b_device)), link
    cat6 = {x.length: x.count for x in bill_of_materials(loaded, cluster)
            if x.network == "oob" and x.item == "Cat6 copper patch"}
    assert len(cat6) > 1 and sum(cat6.values()) == sum(1 for x in cluster.oob.links if x.speed == "1G"), cat6
    bmc = next(x for x in cluster.oob.links if x.b_device == "su1-gpu01")
    over = _copy(tmp_path, bom=("bom:\n", f'cabling:\n  links: {{"{bmc.a_device}:{bmc.a_port}": 42}}\nbom:\n'))
    loaded = load_inventory(over)
    cluster = resolve_cluster_model(loaded)
    assert cluster.oob is not None
    got = next(x for x in cluster.oob.links if x.b_device == "su1-gpu01")
    assert (got.length_m, got.length_from) == (42, "cabling.links"), got
    assert any(x.network == "oob" and x.length == "50 m" for x in bill_of_materials(loaded, cluster))


def test_the_capacity_check_counts_what_a_rack_holds(tmp_path: Path) -> None:
    """42.9 kW racks hold three 14.3 kW servers (the placement fits them); 42.9 // 14.3 is 2.0 in floating point,
    and the capacity check refused 64 servers in 22 such racks as 'holds 44'."""
    inv = _copy(tmp_path, hall=("  models:\n", "  models:\n    DGX-H100: {u: 8, power_kw: 14.3}\n"))
    f = inv / "hall.yaml"
    f.write_text(f.read_text().replace("  rows: 4\n  racks_per_row: 20", "  rows: 2\n  racks_per_row: 22")
                 .replace("  power_kw: 15\n", "  power_kw: 14\n  rack_power_kw: {A: 42.9}\n"))
    hall = resolve_cluster_model(load_inventory(inv)).hall
    assert hall is not None
    gpus = {r.name: sum(d.model == "DGX-H100" for d in r.devices) for r in hall.racks}
    assert sum(gpus.values()) == 64 and gpus["A01"] == 3 and all(r.power_kw <= r.budget_kw for r in hall.racks)


def test_a_hall_too_short_for_its_servers_names_the_rack_height(tmp_path: Path) -> None:
    """4U racks hold no 8U server at any power: the error points at hall.rack_u and says to raise it, not at
    the power budget (which holds one server a rack)."""
    inv = _copy(tmp_path, hall=("  rack_u: 42\n", "  rack_u: 4\n"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert "holds 0 DGX-H100 servers" in e.message and e.key == "hall.rack_u", str(e)
    assert "hall.rack_u" in (e.hint or ""), e.hint


def test_a_device_larger_than_any_rack_says_so_not_every_rack_is_full(tmp_path: Path) -> None:
    """A 20U storage node in 16U racks, or a 16 kW one under 15 kW budgets, fits no rack however empty: the
    error names the device, its size and the largest rack, not 'every rack is full'."""
    inv = _copy(tmp_path, "tall", hall=("    storage: {u: 2, power_kw: 1.5}", "    storage: {u: 20, power_kw: 1.5}"))
    f = inv / "hall.yaml"
    f.write_text(f.read_text().replace("  rack_u: 42\n", "  rack_u: 16\n"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert re.search(r"20U.*taller than any rack \(16U\)", e.message) and "every rack is full" not in e.message, str(e)
    assert e.key == "hall.models.storage", str(e)
    hot = _copy(tmp_path, "hot", hall=("    storage: {u: 2, power_kw: 1.5}", "    storage: {u: 2, power_kw: 16}"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(hot))
    e = err.value
    assert re.search(r"16 kW.*more than any rack's budget \(15 kW\)", e.message), str(e)
    assert e.key == "hall.models.storage", str(e)


@pytest.mark.parametrize("key", ["DGX-H10", "SN560", "storag"])
def test_a_model_figure_naming_nothing_is_refused_not_ignored(tmp_path: Path, key: str) -> None:
    """hall.models keys a server group, a switch model of the cluster or hall.gpu_server: a typo of the GPU
    server's or a switch's model was ignored and the platform figure used in its place."""
    inv = _copy(tmp_path, hall=("  models:\n", f"  models:\n    {key}: {{u: 8, power_kw: 10.0}}\n"))
    with pytest.raises(InventoryError) as err:
        resolve_cluster_model(load_inventory(inv))
    e = err.value
    assert e.key == f"hall.models.{key}" and key in e.message and e.line, str(e)
