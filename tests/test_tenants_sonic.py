"""Tenants on SONiC leaves (examples/gpu-cloud-tenants-sonic: SONiC SN5600 rail leaves, Cumulus spines;
docs/tenants.md "SONiC leaves"): the config_db tables against SONiC's YANG models (yanglint), the SONiC frr.conf
through vtysh --dryrun / bgpd -C, the RoCE QoS through SONiC's own generator (sonic-cfggen) with the tenant tables
present, the route simulation per VRF and TEN-01/02 on config_db.json, and one mutation per refusal and rule."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, sonic_yang_models

from netauto.errors import InventoryError, NetautoError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve_cluster
from netauto.pipeline import build_cluster, validate
from netauto.platforms.vxlan import sonic_l3vni_vlan
from netauto.render.engine import render_cluster
from netauto.render.output import write_tree
from netauto.sonic.config_db import build_config_db
from netauto.sonic.tenants import TABLES, merge, tenant_tables
from netauto.validate import sonic_cfggen
from netauto.validate.external import available
from netauto.validate.sonic_yang import check_config_dbs

from _validate_helpers import Tree, errors, show

EXAMPLE = EXAMPLES / "gpu-cloud-tenants-sonic" / "inventory"
DB = "etc/sonic/config_db.json"
SFRR = "etc/sonic/frr/frr.conf"
LEAVES = ("r0-leaf", "r1-leaf")


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(EXAMPLE)


@pytest.fixture(scope="module")
def dbs(cluster):
    return {n: build_config_db(cluster.compute.switch(n), cluster.compute) for n in LEAVES}


@pytest.fixture(scope="module")
def tree(cluster, tmp_path_factory):
    out = tmp_path_factory.mktemp("rendered")
    write_tree(render_cluster(cluster), out / cluster.name, manifest=False)
    return out, cluster.name


def _t(cluster, name: str):
    return next(t for t in cluster.compute.tenants if t.name == name)


# ---------------------------------------------------------------- the model and the tables
def test_sonic_leaves_get_sonic_vrf_names(cluster):
    fab = cluster.compute
    for sw in fab.switches:
        if sw.role != "leaf":
            assert sw.nos == "cumulus" and not sw.vrfs  # the spines: Cumulus, unaware of tenants
            continue
        assert sw.nos == "sonic"
        assert [(v.name, v.tenant) for v in sw.vrfs] == [("Vrf_acme", "acme"), ("Vrf_globex", "globex")]
        assert {i.peer_device: i.vrf for i in sw.host_ports} == {"gpu1": "Vrf_acme", "gpu2": "Vrf_acme",
                                                                 "gpu3": "Vrf_globex", "gpu4": "Vrf_globex"}
        # no DSCP setting exists for a SONiC VXLAN tunnel: SAI's default (uniform) is what the model says
        assert (sw.vxlan_qos.encap_dscp, sw.vxlan_qos.decap_dscp) == ("uniform", "uniform")


def test_monitoring_tenant_label_is_the_tenant_not_sonics_vrf_name(cluster, monkeypatch):
    """A SONiC leaf's tenant port is in VRF Vrf_acme; its `tenant` label must still read acme, as the rail NICs' do
    (one label, one value per tenant). Nothing scrapes SONiC today (platforms.telemetry.SCRAPED_NOS), so the facts
    are built here as if it did."""
    from netauto.monitoring import facts as facts_mod
    from netauto.platforms import telemetry

    monkeypatch.setattr(telemetry, "SCRAPED_NOS", frozenset({"cumulus", "sonic"}))
    got = facts_mod.collect(cluster)
    owner = {s: t.name for t in cluster.compute.tenants for s in t.servers}
    host = [f.label_map for f in got.ports if f.label_map.get("kind") == "host" and f.label_map["device"].startswith("r")]
    assert host and all(p.get("tenant") == owner[p["peer"]] for p in host), host


def test_config_db_tenant_tables(cluster, dbs):
    sw = cluster.compute.switch("r0-leaf")
    db = dbs["r0-leaf"]
    acme, globex = _t(cluster, "acme"), _t(cluster, "globex")
    va, vg = f"Vlan{sonic_l3vni_vlan(acme.vni)}", f"Vlan{sonic_l3vni_vlan(globex.vni)}"
    assert db["VXLAN_TUNNEL"] == {"vtep": {"src_ip": sw.vxlan_source}}
    assert db["VXLAN_EVPN_NVO"] == {"nvo": {"source_vtep": "vtep"}}
    assert db["VRF"] == {"Vrf_acme": {"vni": str(acme.vni)}, "Vrf_globex": {"vni": str(globex.vni)}}
    assert db["VXLAN_TUNNEL_MAP"] == {f"vtep|map_{acme.vni}_{va}": {"vlan": va, "vni": str(acme.vni)},
                                      f"vtep|map_{globex.vni}_{vg}": {"vlan": vg, "vni": str(globex.vni)}}
    assert db["VLAN"] == {va: {"vlanid": va[4:]}, vg: {"vlanid": vg[4:]}} and "VLAN_MEMBER" not in db
    assert db["VLAN_INTERFACE"] == {va: {"vrf_name": "Vrf_acme"}, vg: {"vrf_name": "Vrf_globex"}}
    for i in sw.host_ports:
        assert db["INTERFACE"][i.name] == {"vrf_name": i.vrf} and f"{i.name}|{i.address}" in db["INTERFACE"]
    for i in sw.fabric_ports:  # the underlay stays in the default VRF
        assert db["INTERFACE"][i.name] == {"ipv6_use_link_local_only": "enable"}


def test_one_owner_per_row():
    db = {"VLAN": {"Vlan2872": {"vlanid": "2872"}}}
    with pytest.raises(NetautoError, match=r"VLAN\|Vlan2872 written twice"):
        merge(db, {"VLAN": {"Vlan2872": {"vlanid": "2872"}}}, "r0-leaf")


def test_spines_and_plain_leaves_get_no_tenant_tables(cluster):
    assert tenant_tables(cluster.compute.switch("spine1")) == {}


# ---------------------------------------------------------------- SONiC's YANG models (yanglint)
def test_config_dbs_pass_yanglint(dbs):
    if not available("yanglint"):
        pytest.skip("yanglint not installed")
    assert check_config_dbs(dbs, sonic_yang_models()) == {n: [] for n in LEAVES}


@pytest.mark.parametrize("mutate,text", [
    (lambda d: d["VRF"].update({"acme": {"vni": "5"}}), "Invalid VRF name"),  # SONiC's VRF names start with Vrf
    (lambda d: d["VRF"].update({"Vrf_a-much-too-long": {"vni": "5"}}), "interface name length"),
    (lambda d: d["INTERFACE"].update({"Ethernet0": {"vrf_name": "Vrf_nobody"}}), "Vrf_nobody"),  # leafref
    (lambda d: d["VXLAN_TUNNEL_MAP"].update({"vtep|map_x": {"vlan": "Vlan5000", "vni": "7"}}), "VXLAN_TUNNEL_MAP"),
    (lambda d: d["VXLAN_EVPN_NVO"]["nvo"].update(source_vtep="nowhere"), "VXLAN_EVPN_NVO"),
])
def test_yanglint_catches_a_broken_tenant_table(dbs, mutate, text):
    if not available("yanglint"):
        pytest.skip("yanglint not installed")
    db = copy.deepcopy(dbs["r0-leaf"])
    mutate(db)
    problems = check_config_dbs({"r0-leaf": db}, sonic_yang_models())["r0-leaf"]
    assert any(text in p for p in problems), problems


def test_no_dscp_setting_for_vxlan_in_sonics_models():
    """platforms.vxlan: SONiC's VXLAN tunnel has no DSCP leaf, and the TUNNEL table with dscp_mode is IP-in-IP only."""
    models = sonic_yang_models()
    vxlan = (models / "sonic-vxlan.yang").read_text()
    tunnel_list = vxlan[vxlan.index("list VXLAN_TUNNEL_LIST"):vxlan.index("container VXLAN_TUNNEL_MAP")]
    assert set(re.findall(r"leaf (\w+)", tunnel_list)) == {"name", "src_ip", "dst_ip", "ttl_mode"}
    tunnel = (models / "sonic-tunnel.yang").read_text()
    assert "dscp_mode" in tunnel and 'pattern "IPINIP";' in tunnel


# ---------------------------------------------------------------- SONiC's generator: the QoS with tenants present
def test_sonic_generator_keeps_pfc_and_ecn_on_the_roce_queue(cluster, dbs, tree):
    kit = sonic_cfggen.find_kit(dev=True).found
    if kit is None:
        pytest.skip("sonic-cfggen kit not found (scripts/get-sonic-cfggen)")
    sw = cluster.compute.switch("r0-leaf")
    db = dbs["r0-leaf"]
    assert "VRF" in db and "VXLAN_TUNNEL" in db
    folder = f"usr/share/sonic/device/{db['DEVICE_METADATA']['localhost']['platform']}/{sw.hwsku}"
    base = tree[0] / tree[1] / "r0-leaf"
    qos = sonic_cfggen.render(kit, "qos", db, template_text=(base / folder / "qos.json.j2").read_text())
    buffers = sonic_cfggen.render(kit, "buffers", db, template_text=(base / folder / "buffers.json.j2").read_text())
    roce_tc = int(qos["DSCP_TO_TC_MAP"]["ROCE"]["26"])
    for i in sw.host_ports:  # the tenants' server ports: lossless on the RoCE class, ECN-marking its queue
        assert str(roce_tc) in qos["PORT_QOS_MAP"][i.name]["pfc_enable"].split(","), i.name
        assert qos["QUEUE"][f"{i.name}|{roce_tc}"]["wred_profile"] == "ROCE_ECN"
        assert buffers["BUFFER_PG"][f"{i.name}|{roce_tc}"]["profile"].startswith("pg_lossless_")
    assert qos["WRED_PROFILE"]["ROCE_ECN"]["ecn"] == "ecn_all"
    assert {t: db[t] for t in qos} == qos  # SONiC regenerates exactly netauto's QoS tables next to the tenants'


# ---------------------------------------------------------------- validate: FRR, per-VRF simulation, TEN-01/02
def test_validates_clean_per_vrf():
    external = available("vtysh")
    result = validate(EXAMPLE, external=external)
    assert not [f for f in result.findings if f.severity == "error"], show(result)
    if external:
        assert any(n.startswith("ran: frr on SONiC") for n in result.notes), result.notes
    assert [n for n in result.notes if n.startswith("tenant ")] == [
        "tenant acme: 100% of 8 leaf-VRF-to-host-link pairs inside the tenant reachable, 0% of 8 to other tenants",
        "tenant acme: 100% of 4 leaf-VRF-to-own-prefix pairs reachable, 0% of 4 to other tenants' prefixes "
        "(overlapping ones too)",
        "tenant globex: 100% of 8 leaf-VRF-to-host-link pairs inside the tenant reachable, 0% of 8 to other tenants",
        "tenant globex: 100% of 4 leaf-VRF-to-own-prefix pairs reachable, 0% of 4 to other tenants' prefixes "
        "(overlapping ones too)",
    ], result.notes


def test_mutations_fail(cluster, tree, tmp_path):
    acme, globex = _t(cluster, "acme"), _t(cluster, "globex")
    port = '"Ethernet0": {\n            "vrf_name": "Vrf_acme"\n        }'
    cases = [
        # a tenant port left in the default VRF (config_db INTERFACE without vrf_name): TEN-01 and SIM-04
        ("r1-leaf", DB, port, '"Ethernet0": {}', "TEN-01", "Ethernet0 (gpu1 of tenant acme) is in the default VRF"),
        ("r1-leaf", DB, port, '"Ethernet0": {}', "SIM-04", "tenant acme: VRF Vrf_acme does not reach 1"),
        # a tenant port in the other tenant's VRF: TEN-01 and a leak (SIM-05)
        ("r1-leaf", DB, port, '"Ethernet0": {\n            "vrf_name": "Vrf_globex"\n        }', "TEN-01",
         "is in VRF Vrf_globex, not in VRF Vrf_acme"),
        # a VNI collision in the SONiC frr.conf
        ("r0-leaf", SFRR, f"vrf Vrf_globex\n vni {globex.vni}\n", f"vrf Vrf_globex\n vni {acme.vni}\n", "TEN-02",
         "VNI collision"),
        # a leak: globex imports acme's route target
        ("r0-leaf", SFRR, f"  route-target import {globex.route_target}\n",
         f"  route-target import {globex.route_target}\n  route-target import {acme.route_target}\n", "SIM-05",
         "tenant leak: VRF Vrf_globex reaches"),
        # acme's host links never become type-5 routes on r1-leaf
        ("r1-leaf", SFRR, f"  advertise ipv4 unicast\n  route-target import {acme.route_target}\n",
         f"  route-target import {acme.route_target}\n", "SIM-04", "tenant acme"),
    ]
    for i, (device, rel, old, new, rid, text) in enumerate(cases):
        t = Tree(tree[0], tmp_path / f"m{i}", fabric=tree[1])
        t.replace(device, rel, old, new)
        result = t.validate(EXAMPLE)
        assert rid in errors(result) and any(text in f.message for f in result.findings if f.rule == rid), \
            (rid, text, show(result))


def _edit_db(t: Tree, device: str, change) -> None:  # noqa: ANN001
    path = t.path(device, DB)
    db = json.loads(path.read_text())
    change(db)
    path.write_text(json.dumps(db, indent=4, sort_keys=True) + "\n")


def _acme_map(db: dict) -> str:
    return next(k for k, v in db["VXLAN_TUNNEL_MAP"].items() if db["VLAN_INTERFACE"][v["vlan"]]["vrf_name"] == "Vrf_acme")


@pytest.mark.parametrize("change,rule,text", [
    # no EVPN NVO: vrforch has no EVPN VTEP, so no L3VNI at all on r1-leaf
    (lambda d: d.pop("VXLAN_EVPN_NVO"), "TEN-02", "no EVPN VTEP in config_db"),
    (lambda d: d.pop("VXLAN_EVPN_NVO"), "SIM-04", "tenant acme: VRF Vrf_acme does not reach"),
    # acme's VNI mapped to no VLAN: `config vrf add_vrf_vni_map` refuses it, vrforch brings no L3VNI up
    (lambda d: d["VXLAN_TUNNEL_MAP"].pop(_acme_map(d)), "TEN-02", "VRF Vrf_acme: config_db binds no L3VNI"),
    (lambda d: d["VXLAN_TUNNEL_MAP"].pop(_acme_map(d)), "SIM-04", "tenant acme"),
    # acme's L3VNI VLAN interface in globex's VRF
    (lambda d: d["VLAN_INTERFACE"][d["VXLAN_TUNNEL_MAP"][_acme_map(d)]["vlan"]].update(vrf_name="Vrf_globex"),
     "TEN-02", "VRF Vrf_acme: config_db binds no L3VNI"),
    # the VTEP sourced from an address nobody routes to
    (lambda d: d["VXLAN_TUNNEL"]["vtep"].update(src_ip="10.254.0.99"), "SIM-04", "tenant acme"),
])
def test_config_db_binding_mutations(tree, tmp_path, change, rule, text):
    t = Tree(tree[0], tmp_path / "b", fabric=tree[1])
    _edit_db(t, "r1-leaf", change)
    result = t.validate(EXAMPLE)
    assert rule in errors(result) and any(text in f.message for f in result.findings if f.rule == rule), show(result)


def test_asic_and_zebra_disagree(cluster, tree, tmp_path):
    acme = _t(cluster, "acme")
    t = Tree(tree[0], tmp_path / "z", fabric=tree[1])
    t.replace("r1-leaf", SFRR, f"vrf Vrf_acme\n vni {acme.vni}\n", "vrf Vrf_acme\n vni 104001\n")
    result = t.validate(EXAMPLE)
    assert any(f"config_db L3VNI {acme.vni}, frr.conf vni 104001" in f.message for f in result.findings
               if f.rule == "TEN-02"), show(result)


@pytest.mark.skipif(not available("vtysh"), reason="FRR vtysh not installed")
def test_frr_grammar_on_the_sonic_frr_conf(tree, tmp_path):
    t = Tree(tree[0], tmp_path / "g", fabric=tree[1])
    t.replace("r0-leaf", SFRR, "  advertise ipv4 unicast\n", "  advertise ipv4 unicst\n")
    t.replace("r1-leaf", SFRR, "vrf Vrf_acme\n vni ", "vrf Vrf_acme\n vnid ")
    result = t.validate(EXAMPLE, external=True)
    bad = [f for f in result.findings if f.severity == "error"]
    assert any(f.device == "r0-leaf" and "unicst" in f.message for f in bad), show(result)
    assert any(f.device == "r1-leaf" and "vnid" in f.message for f in bad), show(result)


# ---------------------------------------------------------------- refusals: one line, exit 2
def _copy(tmp_path: Path, old: str, new: str) -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(EXAMPLE, dst)
    f = dst / "fabric.yaml"
    text = f.read_text()
    assert old in text
    f.write_text(text.replace(old, new))
    return dst


@pytest.mark.parametrize("edits,key,text", [
    # Vrf_ + a 12-character name is 16 characters: over SONiC's IFNAMSIZ
    ([("    globex:\n", "    globex-lab-x:\n")], "tenants.members.globex-lab-x",
     "would be Vrf_globex-lab-x, longer than SONiC's 15 characters"),
    # 104001 and 106001 both map to L3VNI VLAN 2001
    ([("    acme:\n", "    acme:\n      vni: 104001\n"), ("    globex:\n", "    globex:\n      vni: 106001\n")],
     "tenants.members.globex", "need the same L3VNI VLAN 2001"),
])
def test_sonic_refusals(tmp_path, edits, key, text):
    inv = _copy(tmp_path, *edits[0])
    for old, new in edits[1:]:
        f = inv / "fabric.yaml"
        f.write_text(f.read_text().replace(old, new))
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(inv))
    assert exc.value.key == key and text in exc.value.message and exc.value.hint, exc.value.format()
    r = subprocess.run([sys.executable, "-m", "netauto", "show", "model", "-i", str(inv)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and text in r.stderr, r.stderr
    assert len([line for line in r.stderr.splitlines() if line.strip()]) <= 2, r.stderr


def test_l3vni_vlan_clash_hint_never_renumbers_the_older_tenant(tmp_path):
    """Two hashed tenants on one L3VNI VLAN (a pool wider than 2000): the file's order says nothing about which is
    new, so the hint names both (pinning the older one would renumber a running tenant)."""
    from netauto.model.tenants import hashed_vni

    acme = hashed_vni("acme", 104000, 4000)
    new = next(n for n in (f"t{i}" for i in range(100000)) if (hashed_vni(n, 104000, 4000) - acme) % 2000 == 0
               and hashed_vni(n, 104000, 4000) != acme)
    inv = _copy(tmp_path, "    globex:\n", f"    {new}:\n")
    f = inv / "fabric.yaml"
    f.write_text(f.read_text().replace("vni_pool: {first: 104000, last: 104999}", "vni_pool: {first: 104000, last: 107999}"))
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(inv))
    assert "same L3VNI VLAN" in exc.value.message, exc.value.format()
    assert "acme" in (exc.value.hint or "") and new in (exc.value.hint or ""), exc.value.format()


def test_same_tenant_names_fit_cumulus(tmp_path):
    """The name limit is SONiC's: the same 12-character tenant on Cumulus leaves is fine."""
    inv = _copy(tmp_path, "    globex:\n", "    globex-lab-x:\n")
    f = inv / "fabric.yaml"
    f.write_text(f.read_text().replace("nos: {default: cumulus, leaf: sonic}", "nos: {default: cumulus}"))
    fab = resolve_cluster(load_inventory(inv)).compute
    assert "globex-lab-x" in [v.name for v in fab.switch("r0-leaf").vrfs]


def test_config_db_is_json_stable(tree):
    text = (tree[0] / tree[1] / "r0-leaf" / DB).read_text()
    assert json.dumps(json.loads(text), indent=4, sort_keys=True) + "\n" == text


# ---------------------------------------------------------------- deploy: the `config replace` target
def test_deploy_target_over_a_factory_db_is_yang_valid(dbs):
    """deploy/sonic_db owns the tenant tables it renders: over each leaf's factory CONFIG_DB (tests/sonic_factory.py)
    the target holds them as rendered, and passes yanglint before the switch's GCU would see it."""
    if not available("yanglint"):
        pytest.skip("yanglint not installed")
    from sonic_factory import after_breakout, factory_config_db

    from netauto.deploy import sonic_db, sonic_preflight

    for device, intent in dbs.items():
        running = after_breakout(factory_config_db(intent["DEVICE_METADATA"]["localhost"]["hwsku"]), intent)
        target = sonic_db.target_config(running, intent)
        assert sonic_db.differences(target, intent) == []
        for table in TABLES:
            assert target[table] == intent[table], (device, table)
        assert sonic_preflight.check_target(device, running, intent, sonic_yang_models())[0].startswith(
            "config_db target valid"), device
