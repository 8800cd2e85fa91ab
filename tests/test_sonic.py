"""SONiC switches: config_db.json (built in Python, valid against SONiC's YANG models) and FRR
split-unified frr.conf, rendered from the same model as Cumulus and agreeing with it on every value that
matters (domain.md section 2; rules Q-01..Q-09, PFC-01/02, BGP-01..03)."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES, GOLDEN, require_tool, sonic_yang_models

from netauto.cli import main
from netauto.errors import InventoryError, NetautoError
from netauto.inventory.loader import load_inventory
from netauto.inventory.schema import NosPlan
from netauto.model.resolve import resolve
from netauto.model.types import FabricModel
from netauto.pipeline import render
from netauto.render.engine import Artifact, render_fabric
from netauto.render.file_tables import PLATFORMS
from netauto.render.compare import compare_tree
from netauto.sonic import hwsku
from netauto.sonic.config_db import build_config_db, dumps
from netauto.validate import sonic_yang
from netauto.validate.sonic_yang import (
    SonicYangError,
    check_artifacts,
    check_config_dbs,
    to_yang_json,
)

MIXED = EXAMPLES / "mixed-sonic" / "inventory"
TWO_SU = EXAMPLES / "2su-leaf-subnet" / "inventory"
CONFIG_DB = "etc/sonic/config_db.json"
SONIC_FRR = "etc/sonic/frr/frr.conf"


def sonic_models() -> Path:
    return sonic_yang_models()


def variant(inventory: Path, nos: str, *, leaf: str | None = None) -> tuple[FabricModel, list[Artifact]]:
    """The same fabric with every switch on `nos` (leaves on `leaf` if given). Per-device NOS overrides and port
    overrides are dropped, since port names differ per NOS."""
    loaded = load_inventory(inventory)
    inv = loaded.inventory
    devices = {k: v.model_copy(update={"nos": None}) for k, v in inv.overrides.devices.items()}
    any_sonic = "sonic" in (nos, leaf)
    inv = inv.model_copy(update={
        "fabric": inv.fabric.model_copy(update={"nos": NosPlan(default=nos, leaf=leaf)}),
        # AR is Cumulus-only in netauto and must be uniform: a fabric with SONiC runs without it
        "features": inv.features.model_copy(update={"adaptive_routing": inv.features.adaptive_routing
                                                    and not any_sonic}),
        "overrides": inv.overrides.model_copy(update={"devices": devices, "ports": []}),
    })
    model = resolve(dataclasses.replace(loaded, inventory=inv))
    return model, list(render_fabric(model))


def by_path(artifacts: list[Artifact], path: str) -> dict[str, str]:
    return {a.device: a.content for a in artifacts if a.path == path}


@pytest.fixture(scope="module")
def mixed():
    return render(MIXED)


@pytest.fixture(scope="module")
def two_su_sonic():
    """Leaf-subnet host links, 2x400G breakouts, 4-byte ASNs, non-default QoS: SONiC leaves, Cumulus spines."""
    return variant(TWO_SU, "cumulus", leaf="sonic")


# ------------------------------------------------------------------------------------- artifacts
def test_mixed_fabric_renders_each_nos_its_files(mixed):
    model, artifacts = mixed
    paths = {(a.device, a.path) for a in artifacts}
    sonic = [sw for sw in model.switches if sw.nos == "sonic"]
    assert {sw.name for sw in sonic} == {f"su1-r{r}-leaf" for r in range(8)} | {"spine4"}
    for sw in model.switches:
        files = {p for d, p in paths if d == sw.name}
        if sw.nos == "sonic":  # + the SKU templates `config qos reload` renders (netauto.sonic.qos_reload)
            sku_dir = "usr/share/sonic/device/x86_64-nvidia_sn5600-r0/ACS-SN5600"
            assert files == {CONFIG_DB, SONIC_FRR, f"{sku_dir}/qos.json.j2", f"{sku_dir}/buffers.json.j2"}
            assert sw.hwsku == "ACS-SN5600"
        else:
            assert "etc/frr/frr.conf" in files and "etc/nvue.d/startup.yaml" in files and CONFIG_DB not in files


def test_sonic_platform_is_registered_with_a_builder():
    specs = {s.path: s for s in PLATFORMS["sonic"]}
    assert specs[CONFIG_DB].builder is not None and specs[CONFIG_DB].template is None
    assert specs[SONIC_FRR].template == "sonic/frr.conf.j2"


def test_mixed_goldens_are_up_to_date(mixed):
    model, artifacts = mixed
    result = compare_tree(artifacts, GOLDEN / model.name)
    assert result.clean, (result.missing, result.extra, list(result.changed))


def test_config_db_json_is_stable(mixed):
    _, artifacts = mixed
    for device, text in by_path(artifacts, CONFIG_DB).items():
        assert text == json.dumps(json.loads(text), indent=4, sort_keys=True) + "\n", device
        assert all(isinstance(v, str) for v in _leaves(json.loads(text))), f"{device}: config_db values are strings"


def _leaves(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _leaves(v)
    else:
        yield obj


def test_device_metadata(mixed):
    model, artifacts = mixed
    dbs = by_path(artifacts, CONFIG_DB)
    for sw in model.switches:
        if sw.nos != "sonic":
            continue
        meta = json.loads(dbs[sw.name])["DEVICE_METADATA"]["localhost"]
        assert meta == {
            "hostname": sw.name, "bgp_asn": str(sw.bgp.asn),
            "type": {"leaf": "ToRRouter", "spine": "LeafRouter"}[sw.role],  # T0 / T1 (nos_sonic.yaml device_types)
            "docker_routing_config_mode": "split-unified", "buffer_model": "traditional",
            "default_pfcwd_status": "enable", "hwsku": "ACS-SN5600", "platform": "x86_64-nvidia_sn5600-r0",
        }


def test_ports_lanes_alias_and_l3(mixed):
    model, artifacts = mixed
    db = json.loads(by_path(artifacts, CONFIG_DB)["su1-r7-leaf"])
    # 400G on an SN5600 8 x 100G cage is half a 2x400G breakout (4 x 100G, a ConnectX-7 port), as in
    # sonic-buildimage Mellanox-SN5600-O128/port_config.ini: Ethernet0 lanes 0-3 etp1a, Ethernet4 lanes 4-7 etp1b
    assert db["PORT"]["Ethernet0"] == {
        "admin_status": "up", "alias": "etp1a", "description": "gpu01 rail7", "fec": "rs", "index": "1",
        "lanes": "0,1,2,3", "mtu": "9216", "speed": "400000"}
    assert db["PORT"]["Ethernet4"]["lanes"] == "4,5,6,7" and db["PORT"]["Ethernet4"]["description"] == "gpu02 rail7"
    assert db["PORT"]["Ethernet256"]["alias"] == "etp33a" and db["PORT"]["Ethernet256"]["lanes"] == "256,257,258,259"
    assert db["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "2x400G[200G,100G,50G,40G,25G,10G]"}
    for name, port in db["PORT"].items():
        assert len(port["lanes"].split(",")) * 100000 == int(port["speed"]), name  # 100G lanes everywhere
    assert db["PORT"]["Ethernet264"]["admin_status"] == "down"  # overrides.ports: bad optic
    fabric_ports = [i.name for i in model.switch("su1-r7-leaf").interfaces if i.kind == "fabric"]
    for name in fabric_ports:
        assert db["INTERFACE"][name] == {"ipv6_use_link_local_only": "enable"}
        assert not any(k.startswith(f"{name}|") for k in db["INTERFACE"])
    assert db["INTERFACE"]["Ethernet0"] == {} and db["INTERFACE"]["Ethernet0|10.7.0.0/31"] == {}
    assert db["LOOPBACK_INTERFACE"] == {"Loopback0": {}, "Loopback0|10.254.0.8/32": {}}
    assert "VLAN" not in db


def test_leaf_subnet_mode_uses_a_vlan_interface(two_su_sonic):
    model, artifacts = two_su_sonic
    leaf = model.switch("su2-r0-leaf")
    db = json.loads(by_path(artifacts, CONFIG_DB)[leaf.name])
    assert db["VLAN"] == {"Vlan100": {"vlanid": "100", "mtu": "9216"}}
    assert db["VLAN_INTERFACE"] == {"Vlan100": {}, f"Vlan100|{leaf.svi.address}": {}}
    assert sorted(db["VLAN_MEMBER"]) == sorted(f"Vlan100|{p}" for p in leaf.svi.members)
    assert len(db["VLAN_MEMBER"]) == 31  # su2-gpu32 is absent: its ports stay out of the VLAN
    host_ports = {i.name for i in leaf.interfaces if i.kind == "host"}
    assert not host_ports & {k.split("|")[0] for k in db["INTERFACE"]}  # VLAN members have no INTERFACE entry
    # 2x400G breakout of an 8-lane cage: Ethernet4 is the second half of cage 1
    assert db["PORT"]["Ethernet4"]["lanes"] == "4,5,6,7" and db["PORT"]["Ethernet4"]["alias"] == "etp1b"
    assert db["PORT"]["Ethernet0"]["alias"] == "etp1a"


def test_roce_qos_tables(mixed):
    _, artifacts = mixed
    db = json.loads(by_path(artifacts, CONFIG_DB)["su1-r0-leaf"])
    dscp = db["DSCP_TO_TC_MAP"]["ROCE"]
    assert len(dscp) == 64 and dscp["26"] == "3" and dscp["48"] == "6"  # never SONiC's default 26 -> TC1
    # the whole map, as Cumulus `qos roce` classifies: DSCP >> 3, then SP3 -> TC3, SP6 -> TC6, the rest -> TC0
    assert {k: v for k, v in dscp.items() if v != "0"} == {**{str(d): "3" for d in range(24, 32)},
                                                          **{str(d): "6" for d in range(48, 56)}}
    assert len(dscp) == 64
    assert db["TC_TO_QUEUE_MAP"]["ROCE"] == {str(i): str(i) for i in range(8)}
    assert db["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["3"] == "3" and db["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["6"] == "0"
    assert db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]["ROCE"] == {"3": "3"}
    assert db["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "ROCE"}
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3" == db["PORT_QOS_MAP"]["Ethernet0"]["pfcwd_sw_enable"]
    assert db["SCHEDULER"] == {"scheduler.tc0": {"type": "DWRR", "weight": "50"},
                               "scheduler.tc3": {"type": "DWRR", "weight": "50"},
                               "scheduler.tc6": {"type": "STRICT"}}
    assert db["QUEUE"]["Ethernet0|3"] == {"scheduler": "scheduler.tc3", "wred_profile": "ROCE_ECN"}
    assert db["QUEUE"]["Ethernet0|6"] == {"scheduler": "scheduler.tc6"}  # CNP: strict, no ECN, no PFC
    wred = db["WRED_PROFILE"]["ROCE_ECN"]
    assert wred["ecn"] == "ecn_all" and wred["green_min_threshold"] == "150000"
    assert wred["green_max_threshold"] == "1500000" and wred["green_drop_probability"] == "100"
    # fabric.cable_length_m is 100, not a row of ACS-SN5600's pg_profile_lookup.ini (5m, 40m, 300m): buffermgrd
    # would find no lossless profile ("No PG profile configured"), so the next row up is rendered explicitly
    assert db["CABLE_LENGTH"]["AZURE"]["Ethernet0"] == "300m"
    assert db["BUFFER_PG"]["Ethernet0|3"] == {"profile": "pg_lossless_400000_300m_profile"}
    assert db["BUFFER_PROFILE"]["pg_lossless_400000_300m_profile"] == {
        "pool": "ingress_lossless_pool", "size": "697344", "xon": "19456", "xoff": "677888", "dynamic_th": "0"}
    assert db["BUFFER_PG"]["Ethernet0|0"] == {"profile": "ingress_lossy_profile"}
    assert db["BUFFER_QUEUE"]["Ethernet0|3"] == {"profile": "egress_lossless_profile"}
    assert db["BUFFER_QUEUE"]["Ethernet0|0-2"] == db["BUFFER_QUEUE"]["Ethernet0|4-7"] == {"profile": "q_lossy_profile"}
    assert db["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "100"}
    assert db["PFC_WD"]["Ethernet0"] == {"action": "drop", "detection_time": "300", "restoration_time": "300"}
    # PFC/ECN/watchdog only on enabled ports, as on Cumulus (qos_ports)
    db7 = json.loads(by_path(artifacts, CONFIG_DB)["su1-r7-leaf"])
    assert "Ethernet264" not in db7["PORT_QOS_MAP"] and "Ethernet264" not in db7["PFC_WD"]


def test_sonic_frr_conf_is_the_cumulus_underlay_on_ethernet_names(mixed):
    _, artifacts = mixed
    conf = by_path(artifacts, SONIC_FRR)["su1-r0-leaf"]
    assert "service integrated-vtysh-config" in conf and "bgp bestpath as-path multipath-relax" in conf
    assert "neighbor Ethernet256 interface peer-group SPINE" in conf
    assert "match community GSHUT" in conf and "set as-path prepend 65101" in conf
    assert "network 10.254.0.1/32" in conf and "aggregate-address 10.0.0.0/24 summary-only" in conf
    assert not re.search(r"^ neighbor swp", conf, re.MULTILINE)  # Cumulus names only as peer descriptions


# ------------------------------------------------------------------------------------- Cumulus <-> SONiC agreement
def _kv(text: str) -> dict[str, str]:
    return dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line and not line.startswith("#"))


def _ifaces(text: str) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("iface "):
            current = out.setdefault(line.split()[1], {})
        elif line.startswith("    ") and current is not None:
            key, _, value = line.strip().partition(" ")
            current.setdefault(key, []).append(value)
    return out


def _frr(text: str) -> dict[str, object]:
    neighbors = dict(re.findall(r"^ neighbor (\S+) description (\S+ \S+)$", text, re.MULTILINE))
    groups = dict(re.findall(r"^ neighbor (\S+) interface peer-group (\S+)$", text, re.MULTILINE))
    return {
        "asn": re.search(r"^router bgp (\d+)$", text, re.MULTILINE).group(1),
        "router_id": re.search(r"^ bgp router-id (\S+)$", text, re.MULTILINE).group(1),
        "neighbors": {port: (groups[port], neighbors[port]) for port in groups},
        "networks": re.findall(r"^  (?:network|aggregate-address) (.+)$", text, re.MULTILINE),
        "policy": [ln for ln in text.splitlines() if ln.startswith(("route-map", " match", " set", "ip prefix", "bgp comm"))],
    }


def slots(model: FabricModel) -> dict[tuple[str, str], tuple[str, int, int | None]]:
    """(device, port name) -> (device, cage, sub-port): the NOS-independent name of every port."""
    return {(sw.name, i.name): (sw.name, i.cage, i.subport) for sw in model.switches for i in sw.interfaces}


def _peer(slot: dict, description: str) -> tuple[str, int, int | None]:
    return slot[tuple(description.split())]


def _cumulus_view(model: FabricModel, artifacts: list[Artifact], name: str) -> dict[str, object]:
    files = {a.path: a.content for a in artifacts if a.device == name}
    slot = slots(model)
    frr = _frr(files["etc/frr/frr.conf"])
    startup = files["etc/nvue.d/startup.yaml"]
    qos = _kv(files["etc/cumulus/datapath/qos/qos_features.conf"])
    ifaces = _ifaces(files["etc/network/interfaces"])
    ports = [i for i in model.switch(name).interfaces]
    dscp_sp = {int(d): int(re.search(r"cos_(\d)", k).group(1)) for k, v in qos.items()
               if k.endswith("priority_source.dscp") for d in v.strip("[]").split(",")}
    own = {int(k.split(".")[1].removeprefix("egr_queue_")) for k in qos if k.endswith("bw_percent")}
    own |= {int(p) for p in qos["pfc.ROCE_PFC.cos_list"].strip("[]").split(",")}
    return {
        "asn": {int(re.search(r"^ {8}autonomous-system: (\d+)$", startup, re.MULTILINE).group(1)), int(frr["asn"])},
        "router_id": {re.search(r"^ {8}router-id: (\S+)$", startup, re.MULTILINE).group(1), frr["router_id"]},
        "neighbors": {slot[name, p]: (g, _peer(slot, d)) for p, (g, d) in frr["neighbors"].items()},
        "networks": frr["networks"],
        "policy": frr["policy"],
        # DSCP -> switch priority from qos_features.conf; a priority without its own egress class (ETS weight,
        # PFC or strict) shares traffic class 0, as `qos roce`'s egress-queue-mapping has it
        "dscp": {d: p if p in own else 0 for d, p in dscp_sp.items()},
        "pfc": qos["pfc.ROCE_PFC.cos_list"].strip("[]"),
        "cable_length": int(qos["pfc.ROCE_PFC.cable_length"]),
        "ecn_classes": qos["ecn_red.ROCE_ECN.egress_queue_list"].strip("[]").split(","),
        "ecn": (qos["ecn_red.ROCE_ECN.min_threshold_bytes"], qos["ecn_red.ROCE_ECN.max_threshold_bytes"],
                qos["ecn_red.ROCE_ECN.probability"]),
        "ets": {k.split(".")[1].removeprefix("egr_queue_"): v for k, v in qos.items() if k.endswith("bw_percent")},
        "qos_ports": {slot[name, p] for p in qos["pfc.ROCE_PFC.port_set"].split(",")},
        "wd_ports": {slot[name, p] for p in qos["pfc_watchdog.pfc_wd_port_group.port_set"].split(",")},
        "mtu": {slot[name, i.name]: ifaces[i.name]["mtu"][0] for i in ports},
        "speed": {slot[name, i.name]: ifaces[i.name]["link-speed"][0] for i in ports},
        "fec": {slot[name, i.name]: ifaces[i.name].get("link-fec", [None])[0] for i in ports},
        "up": {slot[name, i.name]: "link-down" not in ifaces[i.name] for i in ports},
        "addresses": sorted(a for i in ports for a in ifaces[i.name].get("address", []))
        + sorted(a for svi in [model.switch(name).svi] if svi for a in ifaces[svi.name]["address"]),
        "loopback": ifaces["lo"]["address"],
    }


def _sonic_view(model: FabricModel, artifacts: list[Artifact], name: str) -> dict[str, object]:
    files = {a.path: a.content for a in artifacts if a.device == name}
    slot = slots(model)
    frr = _frr(files[SONIC_FRR])
    db = json.loads(files[CONFIG_DB])
    ports = db["PORT"]
    qmap = db["PORT_QOS_MAP"]
    any_port = next(p for p in qmap if p != "global")
    queues = {k.split("|")[1]: v for k, v in db["QUEUE"].items() if k.startswith(f"{any_port}|")}
    wred = db["WRED_PROFILE"][queues[str(model.switch(name).qos.roce_priority)]["wred_profile"]]
    dscp_map = db["DSCP_TO_TC_MAP"][qmap[any_port]["dscp_to_tc_map"]]
    # every queue has a scheduler; a queue nothing is classified into shares the default class's (queue 0's)
    assert set(queues) == {str(i) for i in range(8)}, name
    fed = set(dscp_map.values()) | {"0"}
    assert all(q["scheduler"] == queues["0"]["scheduler"] for tc, q in queues.items() if tc not in fed), name
    scheduler = {tc: db["SCHEDULER"][q["scheduler"]] for tc, q in queues.items() if tc in fed}
    return {
        "asn": {int(db["DEVICE_METADATA"]["localhost"]["bgp_asn"]), int(frr["asn"])},
        "router_id": {frr["router_id"]},
        "neighbors": {slot[name, p]: (g, _peer(slot, d)) for p, (g, d) in frr["neighbors"].items()},
        "networks": frr["networks"],
        "policy": frr["policy"],
        "dscp": {int(d): int(tc) for d, tc in dscp_map.items()},
        "pfc": qmap[any_port]["pfc_enable"],
        "cable_length": int(db["CABLE_LENGTH"]["AZURE"][any_port].removesuffix("m")),
        "ecn_classes": sorted(tc for tc, q in queues.items() if "wred_profile" in q),
        "ecn": (wred["green_min_threshold"], wred["green_max_threshold"], wred["green_drop_probability"]),
        "ets": {tc: s.get("weight", "0") for tc, s in scheduler.items()},
        "qos_ports": {slot[name, p] for p in qmap if p != "global"},
        "wd_ports": {slot[name, p] for p in db["PFC_WD"] if p != "GLOBAL"},
        "mtu": {slot[name, p]: v["mtu"] for p, v in ports.items()},
        "speed": {slot[name, p]: v["speed"] for p, v in ports.items()},
        "fec": {slot[name, p]: v.get("fec") for p, v in ports.items()},
        "up": {slot[name, p]: v["admin_status"] == "up" for p, v in ports.items()},
        "addresses": sorted(k.split("|")[1] for k in db["INTERFACE"] if "|" in k)
        + sorted(k.split("|")[1] for k in db.get("VLAN_INTERFACE", {}) if "|" in k),
        "loopback": [k.split("|")[1] for k in db["LOOPBACK_INTERFACE"] if "|" in k],
    }


@pytest.mark.parametrize("inventory", [DEFAULT_INVENTORY, TWO_SU], ids=["gpu-pod1", "gpu-2su"])
def test_cumulus_and_sonic_renderings_agree(inventory):
    """One intent, two NOSes: render the same fabric all-Cumulus and all-SONiC, read the values back out of
    the rendered files, and compare switch by switch (ports matched by front-panel cage and sub-port)."""
    cm, ca = variant(inventory, "cumulus")
    sm, sa = variant(inventory, "sonic")
    assert [s.name for s in cm.switches] == [s.name for s in sm.switches]
    for sw in cm.switches:
        cumulus, sonic = _cumulus_view(cm, ca, sw.name), _sonic_view(sm, sa, sw.name)
        assert len(cumulus["asn"]) == 1 and len(cumulus["router_id"]) == 1
        for key in cumulus:
            if key == "cable_length":  # SONiC sizes headroom for the SKU table's next row up (never shorter)
                assert sonic[key] >= cumulus[key], sw.name
                continue
            if key == "ecn_classes":  # SONiC marks only where WRED may drop non-ECT: the lossless queues
                lossless = cumulus["pfc"].split(",")  # (config_db.wred_queues; docs/sonic.md)
                assert sonic[key] == [c for c in cumulus[key] if c in lossless] and sonic[key], sw.name
                continue
            assert cumulus[key] == sonic[key], f"{sw.name}: {key} differs between Cumulus and SONiC"
        assert cumulus["neighbors"], sw.name


def test_mixed_fabric_neighbours_match_across_nos(mixed):
    """In the mixed fabric each session's two ends name each other, whatever NOS either end runs."""
    model, artifacts = mixed
    sessions = set()
    for sw in model.switches:
        path = SONIC_FRR if sw.nos == "sonic" else "etc/frr/frr.conf"
        conf = by_path(artifacts, path)[sw.name]
        for port, (_, desc) in _frr(conf)["neighbors"].items():
            peer, peer_port = desc.split()
            sessions.add(((sw.name, port), (peer, peer_port)))
    assert sessions and all((b, a) in sessions for a, b in sessions)


# ------------------------------------------------------------------------------------- real validators
def test_every_sonic_frr_conf_passes_vtysh_dryrun(mixed, two_su_sonic, tmp_path):
    vtysh = require_tool("vtysh")
    confs = {**{f"mixed/{d}": c for d, c in by_path(mixed[1], SONIC_FRR).items()},
             **{f"2su/{d}": c for d, c in by_path(two_su_sonic[1], SONIC_FRR).items()}}
    assert len(confs) == 9 + 16
    failures = []
    for i, (device, text) in enumerate(confs.items()):
        path = tmp_path / f"{i}.conf"
        path.write_text(text)
        proc = subprocess.run([vtysh, "--dryrun", "--inputfile", str(path)], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            failures.append(f"{device}: {proc.stdout}{proc.stderr}")
    assert not failures, "\n".join(failures)


def test_every_config_db_passes_yanglint(mixed, two_su_sonic):
    require_tool("yanglint")
    models = sonic_models()
    arts = [dataclasses.replace(a, device=f"mixed/{a.device}") for a in mixed[1]] + \
           [dataclasses.replace(a, device=f"2su/{a.device}") for a in two_su_sonic[1]]
    report = check_artifacts(arts, models)
    assert report.files == 9 + 16 and report.skipped is None
    assert report.ok, report.errors


def test_broken_config_dbs_fail_the_yang_check_readably(mixed):
    require_tool("yanglint")
    models = sonic_models()
    good = json.loads(by_path(mixed[1], CONFIG_DB)["su1-r0-leaf"])

    def broken(change):
        db = json.loads(json.dumps(good))
        change(db)
        return db

    results = check_config_dbs({
        "good": good,
        "pfc": broken(lambda db: db["PORT_QOS_MAP"]["Ethernet0"].update(pfc_enable="3,9")),
        "scheduler": broken(lambda db: db["QUEUE"]["Ethernet0|3"].update(scheduler="scheduler.nope")),
        "mtu": broken(lambda db: db["PORT"]["Ethernet8"].update(mtu="9300")),
    }, models)
    assert results["good"] == []
    assert results["pfc"] == [('PORT_QOS_MAP|Ethernet0 pfc_enable: Unsatisfied pattern - "3,9" does not conform '
                               'to "([0-7](,[0-7])*)?".')]
    assert len(results["scheduler"]) == 1
    assert results["scheduler"][0].startswith('QUEUE|Ethernet0|3 scheduler: Invalid leafref value "scheduler.nope"')
    assert results["mtu"] == ['PORT|Ethernet8 mtu: Unsatisfied range - value "9300" is out of the allowed range.']


def test_the_doc_example_config_db_validates_too():
    """The converter is not tailored to netauto's output: domain.md's validated leaf example passes."""
    require_tool("yanglint")
    example = Path(__file__).resolve().parents[2] / "shared" / "docs" / "examples" / "sonic-config_db.leaf.json"
    if not example.is_file():
        pytest.skip("shared/docs not present")
    assert check_config_dbs({"doc": json.loads(example.read_text())}, sonic_models()) == {"doc": []}


# ------------------------------------------------------------------------------------- converter (no tools)
def test_converter_shapes_tables_the_yang_way():
    db = {
        "DEVICE_METADATA": {"localhost": {"hostname": "x", "bgp_asn": "4200001001"}},
        "PORT": {"Ethernet0": {"lanes": "0,1", "speed": "400000", "mtu": "9216", "admin_status": "up"}},
        "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}},
        "DSCP_TO_TC_MAP": {"ROCE": {"26": "3"}},
        "TC_TO_QUEUE_MAP": {"ROCE": {"3": "3"}},
        "QUEUE": {"Ethernet0|3": {"scheduler": "s"}},
        "WRED_PROFILE": {"W": {"wred_green_enable": "true", "green_min_threshold": "150000"}},
        "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m"}},
        "MGMT_VRF_CONFIG": {"vrf_global": {"mgmtVrfEnabled": "true"}},
    }
    y = to_yang_json(db)
    assert y["sonic-device_metadata:sonic-device_metadata"]["DEVICE_METADATA"]["localhost"]["bgp_asn"] == 4200001001
    assert y["sonic-port:sonic-port"]["PORT"]["PORT_LIST"] == [
        {"name": "Ethernet0", "lanes": "0,1", "speed": 400000, "mtu": 9216, "admin_status": "up"}]
    assert y["sonic-interface:sonic-interface"]["INTERFACE"] == {
        "INTERFACE_LIST": [{"name": "Ethernet0"}],
        "INTERFACE_IPPREFIX_LIST": [{"name": "Ethernet0", "ip-prefix": "10.0.0.0/31"}]}
    assert y["sonic-dscp-tc-map:sonic-dscp-tc-map"]["DSCP_TO_TC_MAP"]["DSCP_TO_TC_MAP_LIST"] == [
        {"name": "ROCE", "DSCP_TO_TC_MAP": [{"dscp": "26", "tc": 3}]}]
    assert y["sonic-tc-queue-map:sonic-tc-queue-map"]["TC_TO_QUEUE_MAP"]["TC_TO_QUEUE_MAP_LIST"][0][
        "TC_TO_QUEUE_MAP"] == [{"tc": 3, "qindex": "3"}]
    assert y["sonic-queue:sonic-queue"]["QUEUE"]["QUEUE_LIST"] == [{"ifname": "Ethernet0", "qindex": "3", "scheduler": "s"}]
    wred = y["sonic-wred-profile:sonic-wred-profile"]["WRED_PROFILE"]["WRED_PROFILE_LIST"][0]
    assert wred["wred_green_enable"] is True and wred["green_min_threshold"] == "150000"  # uint64 stays a string
    assert y["sonic-cable-length:sonic-cable-length"]["CABLE_LENGTH"]["CABLE_LENGTH_LIST"] == [
        {"name": "AZURE", "CABLE_LENGTH": [{"port": "Ethernet0", "length": "5m"}]}]
    assert y["sonic-mgmt_vrf:sonic-mgmt_vrf"]["MGMT_VRF_CONFIG"] == {"vrf_global": {"mgmtVrfEnabled": True}}


def test_converter_refuses_what_it_does_not_know():
    with pytest.raises(SonicYangError, match="NOT_A_TABLE has no YANG mapping"):
        to_yang_json({"NOT_A_TABLE": {"x": {}}})
    with pytest.raises(SonicYangError, match=r"QUEUE\|Ethernet0: key has 1 part"):
        to_yang_json({"QUEUE": {"Ethernet0": {}}})


def test_every_rendered_table_has_a_mapping(mixed, two_su_sonic):
    for _, artifacts in (mixed, two_su_sonic):
        for text in by_path(artifacts, CONFIG_DB).values():
            to_yang_json(json.loads(text))


def test_libyang_locations_map_back_to_config_db_names():
    loc = sonic_yang.config_db_location
    assert loc("/sonic-port-qos-map:sonic-port-qos-map/PORT_QOS_MAP/PORT_QOS_MAP_LIST[ifname='Ethernet0']/pfc_enable") \
        == "PORT_QOS_MAP|Ethernet0 pfc_enable"
    assert loc("/sonic-queue:sonic-queue/QUEUE/QUEUE_LIST[ifname='Ethernet0'][qindex='3']/scheduler") \
        == "QUEUE|Ethernet0|3 scheduler"
    assert loc("/sonic-port:sonic-port/PORT/PORT_LIST/lanes") == "PORT lanes"
    assert loc("/sonic-device_metadata:sonic-device_metadata/DEVICE_METADATA/localhost/hostname") \
        == "DEVICE_METADATA|localhost hostname"


def test_schema_files_load_imports_first():
    models = sonic_models()
    order = [p.stem for p in sonic_yang.schema_files(models)]
    assert order.index("sonic-device_metadata") < order.index("sonic-port") < order.index("sonic-interface")
    assert len(order) == len(set(order)) == len(list(models.glob("*.yang")))
    closure = [p.stem for p in sonic_yang.schema_files(models, ["sonic-queue"])]
    assert closure[-1] == "sonic-queue" and "sonic-scheduler" in closure and "sonic-vlan" not in closure
    assert closure.index("sonic-device_metadata") < closure.index("sonic-port")
    with pytest.raises(SonicYangError, match="missing the YANG module sonic-nope.yang"):
        sonic_yang.schema_files(models, ["sonic-nope"])


def test_bad_models_dir_is_a_clear_error(mixed, tmp_path):
    with pytest.raises(SonicYangError, match="no sonic-types.yang"):
        check_config_dbs({"x": {"PORT": {}}}, tmp_path, yanglint="/bin/true")


# ------------------------------------------------------------------------------------- HWSKU data and errors
def test_hwsku_port_map_is_shipped_data():
    assert "ACS-SN5600" in hwsku.available()
    sku = hwsku.load("ACS-SN5600")
    assert sku.asic == "spectrum-4" and len(sku.cages) == 65
    assert sku.port(33, None, 1, 400000, device="d", name="Ethernet256").lanes == ",".join(map(str, range(256, 264)))
    four = sku.port(2, 3, 4, 200000, device="d", name="Ethernet14")
    assert (four.lanes, four.alias, four.index) == ("14,15", "etp2d", 2)
    with pytest.raises(NetautoError, match="no front-panel cage 66"):
        sku.port(66, None, 1, 400000, device="d", name="Ethernet520")
    with pytest.raises(NetautoError, match="800G x 2 exceeds or does not fit cage 1"):
        sku.port(1, 0, 2, 800000, device="d", name="Ethernet0")


def _copy_inventory(src: Path, dst: Path, edit) -> Path:
    dst.mkdir()
    for f in src.glob("*.yaml"):
        (dst / f.name).write_text(f.read_text())
    edit(dst)
    return dst


def test_unknown_hwsku_names_the_inventory_key(tmp_path):
    def edit(d: Path):
        f = d / "fabric.yaml"
        f.write_text(f.read_text().replace("sonic_hwsku: ACS-SN5600", "sonic_hwsku: ACS-SN9999"))

    inv = _copy_inventory(MIXED, tmp_path / "inv", edit)
    with pytest.raises(InventoryError) as exc:
        render(inv)
    text = str(exc.value)
    assert "fabric.yaml:" in text and "fabric.sonic_hwsku" in text and "ACS-SN9999" in text and "ACS-SN5600" in text


def test_unknown_per_device_hwsku_names_the_override(tmp_path):
    def edit(d: Path):
        f = d / "features.yaml"
        f.write_text(f.read_text().replace("spine4: {nos: sonic}", "spine4: {nos: sonic, hwsku: Foo-1}"))

    inv = _copy_inventory(MIXED, tmp_path / "inv", edit)
    with pytest.raises(InventoryError, match=r"features.yaml:\d+: overrides.devices.spine4.hwsku: .*'Foo-1'"):
        render(inv)


def test_pfc_watchdog_beyond_sonic_range_is_refused():
    model, _ = variant(DEFAULT_INVENTORY, "sonic")
    sw = model.switches[0]
    sw.qos.pfc_watchdog_robustness = 60  # 100 ms x 60 = 6 s > SONiC's 5000 ms
    with pytest.raises(NetautoError, match="exceeds SONiC's 5000 ms"):
        build_config_db(sw, model)


def test_dumps_is_sorted_and_indented():
    assert dumps({"b": {"y": "1", "x": "2"}, "a": {}}) == '{\n    "a": {},\n    "b": {\n        "x": "2",\n        "y": "1"\n    }\n}\n'


# ------------------------------------------------------------------------------------- CLI
def run(args: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["netauto", *map(str, args)])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


def test_check_sonic_says_when_it_is_skipped(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("NETAUTO_SONIC_YANG_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no fetched models either
    code, out, _ = run(["check-sonic", "-i", MIXED], capsys, monkeypatch)
    assert code == 0 and "SKIPPED" in out and "9 etc/sonic/config_db.json" in out and "--sonic-yang" in out
    code, out, _ = run(["check-sonic", "-i", MIXED, "--require"], capsys, monkeypatch)
    assert code == 1 and "SKIPPED" in out
    monkeypatch.setattr(sonic_yang, "yanglint_path", lambda: None)
    code, out, _ = run(["check-sonic", "-i", MIXED, "--sonic-yang", tmp_path], capsys, monkeypatch)
    assert code == 0 and "SKIPPED" in out and "libyang-tools" in out
    code, out, _ = run(["check-sonic", "-i", DEFAULT_INVENTORY], capsys, monkeypatch)
    assert code == 0 and "no SONiC switches" in out


def test_check_sonic_validates_the_mixed_example(capsys, monkeypatch):
    require_tool("yanglint")
    code, out, _ = run(["check-sonic", "-i", MIXED, "--sonic-yang", sonic_models()], capsys, monkeypatch)
    assert code == 0 and "ok 9 SONiC" in out


def test_check_sonic_reports_errors_per_device(capsys, monkeypatch):
    require_tool("yanglint")
    import netauto.cli.sonic as cli_sonic

    real = cli_sonic.render

    def bad_render(inventory):
        model, artifacts = real(inventory)
        out = []
        for a in artifacts:
            if a.device == "su1-r3-leaf" and a.path == CONFIG_DB:
                a = dataclasses.replace(a, content=a.content.replace('"mtu": "9216"', '"mtu": "9300"', 1))
            out.append(a)
        return model, out

    monkeypatch.setattr(cli_sonic, "render", bad_render)
    code, out, err = run(["check-sonic", "-i", MIXED, "--sonic-yang", sonic_models()], capsys, monkeypatch)
    assert code == 1 and "1 of 9" in out
    assert "su1-r3-leaf/etc/sonic/config_db.json: PORT|Ethernet" in err and "9300" in err


def test_queue_index_ranges_join_consecutive_indices():
    from netauto.sonic.config_db import _ranges

    assert _ranges([0, 1, 2, 4, 5]) == ["0-2", "4-5"]
    assert _ranges([0, 1, 2, 5, 6, 7]) == ["0-2", "5-7"]  # lossy queues around lossless 3, 4
    assert _ranges([3]) == ["3"] and _ranges([1, 3]) == ["1", "3"]
    assert _ranges([]) == []


def test_device_type_per_tier_takes_the_first_the_sku_has_buffer_defaults_for():
    """leaf ToRRouter (T0), spine LeafRouter (T1); a super-spine is a SpineRouter (T2) only on a SKU with T2
    buffer defaults, else a LeafRouter; a SKU with none of a tier's is an error naming what it has."""
    from netauto.platforms.hardware import BufferDefaults
    from netauto.sonic.config_db import device_type

    sku = hwsku.load("ACS-SN5600")
    model = render(MIXED)[0]
    leaf, spine = model.switch("su1-r0-leaf"), model.switch("spine4")
    assert (device_type(leaf, sku), device_type(spine, sku)) == ("ToRRouter", "LeafRouter")
    top = dataclasses.replace(spine, role="super_spine")
    assert device_type(top, sku) == "LeafRouter"
    t2 = dataclasses.replace(sku, buffer_defaults={**sku.buffer_defaults, "t2": BufferDefaults(5, {})})
    assert device_type(top, t2) == "SpineRouter"
    t0_only = dataclasses.replace(sku, buffer_defaults={"t0": sku.buffer_defaults["t0"]})
    with pytest.raises(NetautoError, match=r"spine4: HWSKU ACS-SN5600 has buffer defaults for t0 only, none for a "
                                           r"spine \(LeafRouter\)"):
        device_type(spine, t0_only)
