"""Issue #12: configs the real switches accept. Switch hardware (cages, lanes, breakout), SONiC lossless buffers,
RoCE on another priority, ETS classes that something feeds, ECN without RED drop, leaf-subnet edge ports.

Facts checked here come from sonic-buildimage device/mellanox/x86_64-nvidia_sn5600-r0 (platform.json,
ACS-SN5600/pg_profile_lookup.ini, Mellanox-SN5600-O128/port_config.ini) and the CL RoCE page ("Change RoCE
Configuration": egress-queue-mapping and traffic-pool for a priority other than 3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve
from netauto.model.ports import slot
from netauto.platforms import hardware
from netauto.render.engine import render_fabric
from netauto.pipeline import validate

MIXED = EXAMPLES / "mixed-sonic" / "inventory"
NVUE = "etc/nvue.d/startup.yaml"
QOS = "etc/cumulus/datapath/qos/qos_features.conf"
CONFIG_DB = "etc/sonic/config_db.json"


def copy(src: Path, dst: Path, **edits: tuple[str, str]) -> Path:
    shutil.copytree(src, dst)
    for name, (old, new) in edits.items():
        f = dst / f"{name}.yaml"
        text = f.read_text()
        assert old in text, (name, old)
        f.write_text(text.replace(old, new))
    return dst


def files(inventory: Path) -> dict[tuple[str, str], str]:
    model = resolve(load_inventory(inventory))
    return {(a.device, a.path): a.content for a in render_fabric(model)}


def errors(result) -> list[str]:  # noqa: ANN001
    return [f"{f.rule} {f.device}: {f.message}" for f in result.findings if f.severity == "error"]


# ----------------------------------------------------------------------------------------------- hardware
def test_sn5600_facts():
    hw = hardware.load_hardware("SN5600")
    assert len(hw.cages) == 65 and hw.cages[64].lanes == tuple(range(504, 512)) and hw.cages[65].lanes == (512,)
    assert hw.breakout_for(1, 800000, where="x") == 1
    assert hw.breakout_for(1, 400000, where="x") == 2  # 4 x 100G: the ConnectX-7 400G shape
    assert hw.breakout_for(1, 200000, where="x") == 4
    assert hw.breakout_for(1, 400000, 50000, where="x") == 1  # 400G on 8 x 50G lanes, when stated
    assert hw.breakout_mode_name(1, 2) == "2x400G[200G,100G,50G,40G,25G,10G]"  # platform.json spelling
    sku = hardware.load_hwsku("ACS-SN5600")
    assert sku.cable_lengths(400000) == [5, 40, 300]
    assert sku.lossless_profile(400000, 100).name == "pg_lossless_400000_300m_profile"
    assert sku.lossless_profile(400000, 40).size == 303104 and sku.lossless_profile(400000, 301) is None
    o128 = hardware.load_hwsku("Mellanox-SN5600-O128")
    assert o128.default_breakout == 2 and o128.pg_profiles == sku.pg_profiles  # its lookup file links ACS-SN5600's


@pytest.mark.parametrize(("model", "cage", "breakout", "names", "lanes"), [
    # sonic-buildimage (snapshot 086b03bd) device/mellanox/...: names are Ethernet<platform.json key + lane offset>
    ("SN5600", 2, 1, ["Ethernet8"], [8, 9, 10, 11, 12, 13, 14, 15]),  # x86_64-nvidia_sn5600-r0/platform.json
    ("SN5600", 2, 2, ["Ethernet8", "Ethernet12"], [8, 9, 10, 11]),  # Mellanox-SN5600-O128/port_config.ini
    ("SN5600", 65, 1, ["Ethernet512"], [512]),
    ("SN4600C", 2, 1, ["Ethernet4"], [8, 9, 10, 11]),  # x86_64-mlnx_msn4600c-r0/platform.json: name != first lane
    ("SN4600C", 64, 1, ["Ethernet252"], [504, 505, 506, 507]),  # ACS-MSN4600C/port_config.ini
    ("SN4600C", 2, 2, ["Ethernet4", "Ethernet6"], [8, 9]),  # Mellanox-SN4600C-D48C40/port_config.ini (etp2a/etp2b)
    ("SN3420", 48, 1, ["Ethernet188"], [188]),  # x86_64-mlnx_msn3420-r0/platform.json: SFP28, one lane
    ("SN3420", 49, 1, ["Ethernet192"], [192, 193, 194, 195]),  # QSFP28
    ("SN3420", 49, 4, ["Ethernet192", "Ethernet193", "Ethernet194", "Ethernet195"], [192]),  # 4x25G children
])
def test_sonic_port_names_come_from_the_platform(model, cage, breakout, names, lanes):
    hw = hardware.load_hardware(model)
    subs = [None] if breakout == 1 else list(range(breakout))
    assert [hw.sonic_name(cage, s, breakout) for s in subs] == names
    assert hw.lanes(cage, subs[0], breakout) == lanes
    assert [slot(cage, breakout, i).name("sonic", model) for i in range(breakout)] == names  # the model's naming


def test_default_fabric_breaks_400g_cages_out_2x():
    model = resolve(load_inventory(DEFAULT_INVENTORY))
    leaf = model.switch("su1-r0-leaf")
    hosts = [i for i in leaf.interfaces if i.kind == "host"]
    assert [i.name for i in hosts[:3]] == ["swp1s0", "swp1s1", "swp2s0"]
    assert hosts[0].lanes == [0, 1, 2, 3] and hosts[1].lanes == [4, 5, 6, 7] and hosts[0].breakout == 2
    # two 400G NICs per cage: gpu01 and gpu02 share cage 1 (an 800G OSFP to 2 x 400G cable)
    assert (hosts[0].peer_device, hosts[1].peer_device) == ("gpu01", "gpu02")
    out = files(DEFAULT_INVENTORY)
    assert out[("su1-r0-leaf", "etc/cumulus/ports.conf")].splitlines()[3:5] == ["1=2x", "2=2x"]  # CL 5.4+ format
    nvue = yaml.safe_load(out[("su1-r0-leaf", NVUE)].split("\n", 2)[2])[0]["set"]["interface"]
    assert nvue["swp1"] == {"type": "swp", "link": {"breakout": {"2x": {"lanes-per-port": "4"}}}}
    assert nvue["swp1s0"]["link"]["speed"] == "400G" and "swp1" not in [k for k, v in nvue.items() if "description" in v]


def test_breakout_that_does_not_fit_the_speed_is_refused(tmp_path: Path):
    inv = copy(DEFAULT_INVENTORY, tmp_path / "inv",
               topology=("    downlinks: {first: 1}\n    uplinks: {first: 33}\n  spine",
                         "    downlinks: {first: 1, breakout: 1}\n    uplinks: {first: 33}\n  spine"))
    with pytest.raises(InventoryError) as exc:
        resolve(load_inventory(inv))
    text = str(exc.value)
    assert "topology.yaml:" in text and "ports.leaf.downlinks.breakout" in text
    assert "a 400G port takes 4 lanes, so the cage is a 2x breakout" in text and "lane_speed" in text


def test_lane_speed_states_400g_on_eight_lanes(tmp_path: Path):
    inv = copy(DEFAULT_INVENTORY, tmp_path / "inv",
               topology=("    downlinks: {first: 1}\n    uplinks: {first: 33}\n  spine",
                         "    downlinks: {first: 1, lane_speed: 50G}\n    uplinks: {first: 33}\n  spine"))
    leaf = resolve(load_inventory(inv)).switch("su1-r0-leaf")
    host = next(i for i in leaf.interfaces if i.kind == "host")
    assert (host.name, host.breakout, host.lanes) == ("swp1", 1, list(range(8)))


# ------------------------------------------------------------------------------------------ SONiC buffers
def test_every_pfc_priority_of_every_pfc_port_has_an_existing_lossless_profile():
    for inv in (MIXED,):
        for (dev, path), text in files(inv).items():
            if path != CONFIG_DB:
                continue
            db = json.loads(text)
            sku = hardware.load_hwsku(db["DEVICE_METADATA"]["localhost"]["hwsku"])
            for port, row in db["PORT_QOS_MAP"].items():
                if port == "global":
                    continue
                cable = int(db["CABLE_LENGTH"]["AZURE"][port].removesuffix("m"))
                assert cable in sku.cable_lengths(int(db["PORT"][port]["speed"])), (dev, port)
                for prio in row["pfc_enable"].split(","):
                    profile = db["BUFFER_PROFILE"][db["BUFFER_PG"][f"{port}|{prio}"]["profile"]]
                    assert profile["pool"] == "ingress_lossless_pool" and int(profile["xoff"]) > 0, (dev, port)
                    assert db["BUFFER_POOL"][profile["pool"]]["type"] == "ingress"


def test_cable_longer_than_the_sku_table_is_refused(tmp_path: Path):
    inv = copy(MIXED, tmp_path / "inv", fabric=("cable_length_m: 100", "cable_length_m: 400"))
    with pytest.raises(InventoryError) as exc:
        resolve(load_inventory(inv))
    text = str(exc.value)
    assert "fabric.yaml:" in text and "fabric.cable_length_m" in text and "5 m, 40 m, 300 m" in text


# ------------------------------------------------------------------------------ RoCE on another priority
def test_roce_on_priority_4_end_to_end(tmp_path: Path):
    inv = copy(MIXED, tmp_path / "inv", features=("roce: {dscp: 26, priority: 3}\n", "roce: {dscp: 26, priority: 4}\n"))
    qos = inv / "features.yaml"
    qos.write_text(qos.read_text().replace("ets: {0: 50, 3: 50}", "ets: {0: 50, 4: 50}"))
    model = resolve(load_inventory(inv))
    assert model.servers[0].qos.pfc_bitmap == "0,0,0,0,1,0,0,0" and model.servers[0].qos.pfc_priorities == [4]
    out = {(a.device, a.path): a.content for a in render_fabric(model)}
    spine = yaml.safe_load(out[("spine1", NVUE)].split("\n", 2)[2])[0]["set"]["qos"]
    assert spine["mapping"]["default-global"]["dscp"] == {"26": {"switch-priority": 4}}
    assert spine["egress-queue-mapping"]["default-global"]["switch-priority"]["4"] == {"traffic-class": 4}
    assert spine["egress-queue-mapping"]["default-global"]["switch-priority"]["3"] == {"traffic-class": 0}
    assert spine["traffic-pool"]["roce-lossless"]["switch-priority"] == {"4": {}}
    assert "4" not in spine["traffic-pool"]["default-lossy"]["switch-priority"]
    assert spine["pfc"]["default-global"]["switch-priority"] == {"4": {}}
    assert "pfc.ROCE_PFC.cos_list = [4]" in out[("spine1", QOS)]
    assert "traffic.cos_4.priority_source.dscp = [26,32,33,34,35,36,37,38,39]" in out[("spine1", QOS)]
    db = json.loads(out[("su1-r0-leaf", CONFIG_DB)])
    assert db["DSCP_TO_TC_MAP"]["ROCE"]["26"] == "4" and db["DSCP_TO_TC_MAP"]["ROCE"]["27"] == "0"
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "4"
    assert db["BUFFER_PG"]["Ethernet0|4"] == {"profile": "pg_lossless_400000_300m_profile"}
    assert "Ethernet0|3" not in db["BUFFER_PG"] and db["BUFFER_QUEUE"]["Ethernet0|4"]["profile"] == "egress_lossless_profile"
    assert "mlnx_qos" in out[("gpu01", "usr/local/sbin/netauto-roce-qos.sh")]
    assert "\nPFC=0,0,0,0,1,0,0,0\n" in out[("gpu01", "usr/local/sbin/netauto-roce-qos.sh")]  # mlnx_qos --pfc="$PFC"
    result = validate(inv, external=False)
    assert errors(result) == [], errors(result)


# ------------------------------------------------------------------------------------------------ ETS classes
def test_three_class_ets_without_classification_is_refused(tmp_path: Path):
    inv = copy(DEFAULT_INVENTORY, tmp_path / "inv", features=("ets: {0: 50, 3: 50}", "ets: {0: 10, 1: 10, 3: 80}"))
    with pytest.raises(InventoryError) as exc:
        resolve(load_inventory(inv))
    text = str(exc.value)
    assert "features.yaml:" in text and "qos.ets" in text
    assert "ets weights traffic class 1 but nothing is classified into it" in text
    assert "classes: {1: [<dscp>, ...]}" in text and "TCP and UDP cannot be told apart by DSCP alone" in text


def test_three_class_ets_with_a_dscp_class_works(tmp_path: Path):
    inv = copy(MIXED, tmp_path / "inv",
               features=("ets: {0: 50, 3: 50}", "ets: {0: 10, 1: 10, 3: 80}\n  classes: {1: [34]}"))
    out = files(inv)
    db = json.loads(out[("su1-r0-leaf", CONFIG_DB)])
    assert db["DSCP_TO_TC_MAP"]["ROCE"]["34"] == "1" and db["DSCP_TO_TC_MAP"]["ROCE"]["10"] == "1"  # 8-15: DSCP >> 3
    assert db["SCHEDULER"]["scheduler.tc1"] == {"type": "DWRR", "weight": "10"}
    nv = yaml.safe_load(out[("spine1", NVUE)].split("\n", 2)[2])[0]["set"]["qos"]
    assert nv["mapping"]["default-global"]["dscp"] == {"34": {"switch-priority": 1}}
    assert nv["egress-queue-mapping"]["default-global"]["switch-priority"]["1"] == {"traffic-class": 1}
    assert errors(validate(inv, external=False)) == []


# ---------------------------------------------------------------------------------------- ECN, L2 edge
def test_sonic_ecn_marks_on_the_lossless_queue_and_never_drops_plain_tcp():
    """SONiC marks only with the WRED colour enables on (sonic-buildimage issue 4545), which also WRED-drop
    non-ECT packets: the profile sits on the lossless RoCE queue only; the lossy TC0 (plain TCP) has none, where
    Cumulus `qos roce` marks ECN on it without RED drop."""
    out = files(MIXED)
    db = json.loads(out[("su1-r0-leaf", CONFIG_DB)])
    wred = db["WRED_PROFILE"]["ROCE_ECN"]
    assert wred["ecn"] == "ecn_all" and {wred[f"wred_{c}_enable"] for c in ("green", "yellow", "red")} == {"true"}
    assert db["QUEUE"]["Ethernet0|3"]["wred_profile"] == "ROCE_ECN"
    assert [k for k, q in db["QUEUE"].items() if k.startswith("Ethernet0|") and "wred_profile" in q] == ["Ethernet0|3"]
    assert "ecn_red.ROCE_ECN.red_enable = false" in out[("spine1", QOS)]


def test_leaf_subnet_host_ports_are_edge_ports_in_br_default():
    out = files(EXAMPLES / "2su-leaf-subnet" / "inventory")
    ifaces = out[("su1-r0-leaf", "etc/network/interfaces")]
    stanza = ifaces.split("iface swp1s0\n", 1)[1].split("\n\n", 1)[0]
    assert "bridge-access 100" in stanza and "mstpctl-portadminedge yes" in stanza and "mstpctl-bpduguard yes" in stanza
    assert "auto br_default\niface br_default\n" in ifaces and "vlan-raw-device br_default" in ifaces
    nvue = yaml.safe_load(out[("su1-r0-leaf", NVUE)].split("\n", 2)[2])[0]["set"]
    domain = nvue["interface"]["swp1s0"]["bridge"]["domain"]
    assert domain == {"br_default": {"access": 100, "stp": {"admin-edge": "enabled", "bpdu-guard": "enabled"}}}
    assert list(nvue["bridge"]["domain"]) == ["br_default"]
