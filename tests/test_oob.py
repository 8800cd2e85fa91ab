"""The OOB network's own switches (netauto.model.oob, netauto.render.nvue.oob_document, netauto.validate.oob).

The shipped example (examples/cluster-64) renders SN2201 access switches and an SN3420 MLAG aggregation pair
whose VLANs, gateways and port descriptions come from the model; every OOB rule has a mutation of the rendered
files that breaks it; inventory mistakes are one-line errors naming the key.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from ipaddress import IPv4Interface, IPv4Network
from pathlib import Path

import pytest
from conftest import EXAMPLES

from netauto.deploy.limit import groups_for
from netauto.deploy.targets import Access, build_targets
from netauto.errors import InventoryError
from netauto.formats.nvue import parse_nvue
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve
from netauto.model.networks import resolve_cluster
from netauto.pipeline import build, build_cluster
from netauto.platforms.hardware import load_hardware
from netauto.platforms.nos import cumulus_releases, nvue_spelling
from netauto.render.engine import render_cluster
from netauto.render.nvue import oob_document
from netauto.render.yaml_block import dump_set
from netauto.validate.files import FileSet
from netauto.validate.nvue_schema import check
from netauto.validate.oob import check_oob

CLUSTER = EXAMPLES / "cluster-64" / "inventory"
NVUE = "etc/nvue.d/startup.yaml"
IFACES = "etc/network/interfaces"
FRR = "etc/frr/frr.conf"


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(CLUSTER)


@pytest.fixture()
def files(cluster):
    return FileSet.from_artifacts(render_cluster(cluster))


def oob_switch(cluster, name):
    return next(s for s in cluster.oob.switches if s.name == name)


def edited(files: FileSet, device: str, old: str, new: str, count: int = 1) -> FileSet:
    text = files.get(device, NVUE)
    assert text is not None and old in text, (device, old)
    out = {d: dict(per) for d, per in files.files.items()}
    out[device][NVUE] = text.replace(old, new, count)
    return FileSet(out)


def rules(found, prefix):
    return [f for f in found if f.rule.startswith(prefix)]


# ---------------------------------------------------------------- platform data
def test_sn2201_platform_data():
    """sonic-buildimage x86_64-nvidia_sn2201-r0/platform.json: 48 RJ45 (Ethernet0-47, one lane each, 1G) and
    4 QSFP28 cages (Ethernet48/52/56/60, 4 lanes from 192, 100G and 10G)."""
    hw = load_hardware("SN2201")
    assert sorted(hw.cages) == list(range(1, 53))
    assert hw.cages[1].lanes == (0,) and hw.cages[48].lanes == (188,) and hw.cages[49].lanes == (192, 193, 194, 195)
    assert [hw.sonic_name(c, None, 1) for c in (1, 48, 49, 52)] == ["Ethernet0", "Ethernet47", "Ethernet48", "Ethernet60"]
    assert hw.cages[1].modes == {1: (1000,)} and hw.cages[49].max_speed_mbps == 100_000
    hw.port(1, None, 1, 1000, where="t")  # 1G on RJ45
    hw.port(49, None, 1, 10_000, where="t")  # 10G SFP+ in a QSA
    with pytest.raises(Exception, match="exceeds or does not fit"):
        hw.port(1, None, 1, 10_000, where="t")


# ---------------------------------------------------------------- the model of the shipped example
def test_one_vlan_per_pool_with_the_model_gateways(cluster):
    """BMCs, the OOB switches, then each network: the gateway is what the devices already point to."""
    vlans = {v.network: v for v in cluster.oob.vlans}
    assert [(v.vlan, v.network) for v in cluster.oob.vlans] == [
        (100, "bmc"), (101, "oob"), (102, "compute"), (103, "storage"), (104, "frontend")]
    fe = {sw.mgmt_gateway for p in cluster.networks if p.name == "frontend" for sw in p.fabric.switches}
    assert fe == {"192.168.203.1"} and vlans["frontend"].gateway == "192.168.203.1"
    assert {b.gateway for b in cluster.oob.bmcs} == {vlans["bmc"].gateway}
    assert vlans["compute"].gateway == cluster.compute.switches[0].mgmt_gateway
    assert vlans["oob"].pool == cluster.oob.switch_pool and vlans["oob"].gateway == "192.168.211.1"


def test_access_ports_in_the_vlan_of_what_is_plugged_in(cluster):
    vlans = {v.network: v.vlan for v in cluster.oob.vlans}
    net_of = {sw.name: net for net, fab in cluster.fabrics() for sw in fab.switches}
    ends = {(lk.a_device, lk.a_port): (lk.b_device, lk.b_port) for lk in cluster.oob.links if lk.kind == "oob-access"}
    checked = 0
    for sw in cluster.oob.switches:
        if sw.role != "oob-access":
            continue
        for iface in sw.interfaces:
            if iface.kind != "host":
                continue
            dev, port = ends[(sw.name, iface.name)]
            assert iface.description == f"{dev} {port}"
            assert iface.access_vlan == (vlans["bmc"] if port == "bmc" else vlans[net_of[dev]])
            checked += 1
        (bond,) = sw.bonds
        assert bond.members == ["swp49", "swp50"] and bond.mlag_id == 0
        assert bond.trunk_vlans == sw.vlans and vlans["oob"] in sw.vlans
        assert [s.address for s in sw.svis] == [sw.mgmt_address]
    assert checked == len(ends) == 116  # every cabled end (24 + 6 + 6 switch ports, 64 + 16 BMCs)
    # layout: blocks: each access switch carries its own block's VLAN and the OOB switches' VLAN
    assert oob_switch(cluster, "oob-sw-frontend-1").vlans == [vlans["oob"], vlans["frontend"]]


def test_aggregation_pair(cluster):
    agg1, agg2 = (oob_switch(cluster, n) for n in ("oob-agg1", "oob-agg2"))
    access = [s for s in cluster.oob.switches if s.role == "oob-access"]
    assert agg1.mlag.peer == "oob-agg2" and agg2.mlag.peer == "oob-agg1"
    assert agg1.mlag.peerlink_members == ["swp59", "swp60"]  # SN3420: the last two QSFP28 cages
    assert agg1.mlag.mac_address == agg2.mlag.mac_address and agg1.mlag.priority < agg2.mlag.priority
    # the backup runs over the pair's own eth0 cable (mgmt VRF), never over the peer's SVI (issue 23 item 3)
    assert agg1.mlag.backup_ip == "169.254.253.2" and agg1.mlag.backup_vrf == "mgmt"
    assert agg1.mgmt_address == "192.168.211.2/24"
    # one MLAG bond per access switch, the same id on both, trunking what that access switch carries
    for agg in (agg1, agg2):
        assert len(agg.bonds) == len(access)
        by_desc = {b.description.split()[0]: b for b in agg.bonds}
        for acc in access:
            assert by_desc[acc.name].trunk_vlans == acc.vlans
    assert [(b.name, b.mlag_id) for b in agg1.bonds] == [(b.name, b.mlag_id) for b in agg2.bonds]
    assert ("bond7", 7) in [(b.name, b.mlag_id) for b in agg1.bonds]  # bmc-storage after 3 reserved compute slots
    # an SVI per pool: VRR = the pool's gateway, .2/.3 own, on no device's address
    taken = {IPv4Interface(b.address).ip for b in cluster.oob.bmcs}
    taken |= {IPv4Interface(sw.mgmt_address).ip for sw in cluster.all_switches()}
    taken |= {IPv4Interface(s.mgmt_address).ip for s in access}
    for n, agg in enumerate((agg1, agg2)):
        assert [s.vlan for s in agg.svis] == [v.vlan for v in cluster.oob.vlans]
        for svi, v in zip(agg.svis, cluster.oob.vlans):
            net = IPv4Network(v.pool)
            assert svi.vrr_address == f"{v.gateway}/{net.prefixlen}"
            assert IPv4Interface(svi.address).ip == net.network_address + 2 + n
            assert IPv4Interface(svi.address).ip not in taken
    assert not agg1.routes  # no site uplink in the example: no route at all


def test_rendered_documents_pass_the_nvue_schema_of_every_release(cluster):
    for release in cumulus_releases():
        nv = nvue_spelling(release)
        for sw in cluster.oob.switches:
            problems = check(parse_nvue(dump_set(oob_document(sw, nv))), release)
            assert not problems, (release, sw.name, problems[:3])


def test_rendered_startup_yaml(files):
    acc = files.get("oob-sw-storage-1", NVUE)
    assert "description: st-spine1 eth0" in acc and "access: 103" in acc and "admin-edge: on" in acc
    # 1000BASE-T ports: speed by auto-negotiation, never forced; the 10G uplinks keep their speed
    tree = parse_nvue(acc)
    assert "speed" not in tree["interface"]["swp1"]["link"] and tree["interface"]["swp49"]["link"]["speed"] == "10G"
    assert "192.168.211.13/24: {}" in acc and "192.168.211.1: {}" in acc  # SVI + static default
    agg = files.get("oob-agg1", NVUE)
    tree = parse_nvue(agg)
    assert tree["interface"]["vlan104"]["ip"]["vrr"]["address"] == {"192.168.203.1/24": {}}
    assert tree["interface"]["bond2"]["bond"]["mlag"] == {"id": 2}
    assert set(tree["interface"]["bond2"]["bridge"]["domain"]["br_default"]["vlan"]) == {"101", "103"}
    assert "router" not in tree and "vrf" not in tree  # no routing protocol, no route
    assert tree["bridge"]["domain"]["br_default"]["stp"] == {"priority": 4096}  # the pair is the STP root
    assert "stp" not in parse_nvue(acc)["bridge"]["domain"]["br_default"]
    # both views like every Cumulus switch; frr.conf + daemons only where there is a static route
    assert set(files.files["oob-agg1"]) == {NVUE, IFACES}
    assert set(files.files["oob-sw-storage-1"]) == {NVUE, IFACES, FRR, "etc/frr/daemons"}


def test_rendered_linux_files(files):
    acc = files.get("oob-sw-storage-1", IFACES)
    assert "iface swp1\n    alias st-spine1 eth0\n    bridge-access 103\n    mstpctl-portadminedge yes\n" in acc
    assert "link-speed 1000\n" not in acc and "link-speed 10000\n" in acc  # autoneg ports, as in startup.yaml
    assert "bond-slaves swp49 swp50" in acc and "clag-id" not in acc  # the access switch is no MLAG pair
    assert "bridge-ports swp1 " in acc and " uplink\n" in acc
    # static routes in linux-files mode: FRR staticd (CL "Static Routing", vtysh tab), no protocol daemon
    assert "ip route 0.0.0.0/0 192.168.211.1\n" in files.get("oob-sw-storage-1", FRR)
    assert "bgpd=no" in files.get("oob-sw-storage-1", "etc/frr/daemons")
    agg = files.get("oob-agg1", IFACES)
    assert "iface peerlink.4094\n    clagd-peer-ip linklocal\n" in agg and "    clag-id 2\n" in agg
    assert "address-virtual 00:00:5e:00:01:01 192.168.203.1/24" in agg and "mstpctl-treeprio 4096" in agg


def test_linux_files_disagreeing_with_nvue_is_cons_01(cluster, files):
    text = files.get("oob-agg2", IFACES)
    out = {d: dict(per) for d, per in files.files.items()}
    assert "    address 192.168.203.3/24\n" in text and "iface swp7\n" in text
    out["oob-agg2"][IFACES] = text.replace("    address 192.168.203.3/24\n", "    address 192.168.203.9/24\n") \
        .replace("iface swp7\n    alias oob-bmc-storage-1 swp50\n    mtu 9216", "iface swp7\n    alias oob-bmc-storage-1 swp50\n    mtu 1500")
    found = rules(check_oob(cluster, FileSet(out)), "CONS-01")
    assert {f.device for f in found} == {"oob-agg2"}
    assert any("SVIs" in f.message and "192.168.203.9/24" in f.message for f in found)
    assert any(f.message.startswith("swp7 mtu") for f in found)


@pytest.mark.parametrize(("mode", "pushed"), [("nvue", {"/" + NVUE}),
                                             ("linux-files", {"/" + IFACES, "/" + FRR, "/etc/frr/daemons"})])
def test_deploy_pushes_the_oob_files_of_the_mode(cluster, mode, pushed):
    targets = build_targets(cluster, render_cluster(cluster), cumulus_mode=mode)
    assert targets["oob-sw-compute-1"].cumulus_mode == mode and set(targets["oob-sw-compute-1"].files) == pushed


# ---------------------------------------------------------------- validate: clean, then one mutation per rule
def test_example_oob_validates_clean(cluster, files):
    assert check_oob(cluster, files) == []


def test_port_in_the_wrong_vlan(cluster, files):
    bad = edited(files, "oob-sw-storage-1", "access: 103", "access: 104")  # st-spine1 eth0 in the frontend VLAN
    found = rules(check_oob(cluster, bad), "OOB-01")
    assert any(f.device == "oob-sw-storage-1" and "not on the uplink bond" in f.message for f in found)
    assert any(f.device == "oob-agg1" and "st-spine1 eth0" in f.message and "no SVI" in f.message for f in found)


def test_vlan_missing_on_the_aggregation_trunk(cluster, files):
    text = files.get("oob-agg2", NVUE)
    start = text.index("      bond2:")
    block = text[start:text.index("      bond3:")]
    bad = edited(files, "oob-agg2", block, block.replace("                '103': {}\n", ""))
    found = rules(check_oob(cluster, bad), "OOB-01")
    assert found and all(f.device == "oob-agg2" and "VLAN 103" in f.message for f in found)


def test_pool_without_a_gateway(cluster, files):
    bad = edited(files, "oob-agg1", "              192.168.203.1/24: {}", "              192.168.203.99/24: {}")
    found = rules(check_oob(cluster, bad), "OOB-02")
    assert found and {f.device for f in found} == {"oob-agg1"}
    assert "gateway 192.168.203.1" in found[0].message and "VLAN 104" in found[0].message


def test_svi_address_on_a_device(cluster, files):
    bad = edited(files, "oob-agg2", "192.168.210.3/24: {}", "192.168.210.10/24: {}")  # su1-gpu01's BMC
    found = rules(check_oob(cluster, bad), "OOB-03")
    assert [f.device for f in found] == ["oob-agg2"] and "su1-gpu01 bmc" in found[0].message


def test_routing_on_an_oob_switch(cluster, files):
    bad = edited(files, "oob-agg1", "\n    mlag:\n", "\n    router:\n      bgp:\n        autonomous-system: 65000\n    mlag:\n")
    found = rules(check_oob(cluster, bad), "OOB-04")
    assert [f.device for f in found] == ["oob-agg1"] and "bgp" in found[0].message
    bad = edited(files, "oob-sw-compute-1", "0.0.0.0/0:", "10.0.0.0/8:")
    found = check_oob(cluster, bad)
    assert any(f.rule == "OOB-04" and "10.0.0.0/8" in f.message for f in found)
    assert any(f.rule == "OOB-02" and f.device == "oob-sw-compute-1" for f in found)  # and its default is gone


def test_unknown_nvue_key_is_nvue_01(cluster, files):
    bad = edited(files, "oob-sw-compute-1", "lacp-rate: fast", "lacp-speed: fast")
    found = rules(check_oob(cluster, bad), "NVUE-01")
    assert found and found[0].device == "oob-sw-compute-1" and "lacp-speed" in found[0].message and found[0].line


def test_validate_cli_runs_the_oob_rules(tmp_path):
    """`netauto validate` on the example: the OOB rules ran and found nothing."""
    out = subprocess.run([sys.executable, "-m", "netauto", "validate", "-i", str(CLUSTER), "--no-external",
                          "--no-simulate"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "OOB-01..04 on the 8 OOB switches" in out.stdout


# ---------------------------------------------------------------- inventory options and mistakes
def copy_with(tmp_path: Path, edits: list[tuple[str, str, str]]) -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(CLUSTER, dst)
    for name, old, new in edits:
        f = dst / name
        text = f.read_text()
        assert old in text, (name, old)
        f.write_text(text.replace(old, new, 1))
    return dst


def resolve_all(path: Path):
    loaded = load_inventory(path)
    return resolve_cluster(loaded, resolve(loaded))


SITE = ("networks.yaml", "  aggregation: 2\n",
        "  aggregation: 2\n  site_uplink: {port: 49, speed: 100G, addresses: [10.9.0.0/31, 10.9.0.2/31], "
        "gateways: [10.9.0.1, 10.9.0.3]}\n")


def test_site_uplink_routed_port_and_static_default(tmp_path):
    c = resolve_all(copy_with(tmp_path, [SITE]))
    agg2 = oob_switch(c, "oob-agg2")
    port = next(i for i in agg2.interfaces if i.name == "swp49")
    assert port.address == "10.9.0.2/31" and port.access_vlan is None
    assert [(r.to, r.via) for r in agg2.routes] == [("0.0.0.0/0", "10.9.0.3")]
    files = FileSet.from_artifacts(render_cluster(c))
    tree = parse_nvue(files.get("oob-agg2", NVUE))
    assert tree["vrf"]["default"]["router"]["static"] == {"0.0.0.0/0": {"via": {"10.9.0.3": {}}}}
    assert tree["interface"]["swp49"]["ip"]["address"] == {"10.9.0.2/31": {}}
    assert check_oob(c, files) == []  # CONS-01 too: the routed port in the Linux files is the one in NVUE
    assert not check(tree, "5.14")
    assert "iface swp49\n    alias " in (ifaces := files.get("oob-agg2", IFACES)) and "address 10.9.0.2/31\n" in ifaces
    assert "ip route 0.0.0.0/0 10.9.0.3\n" in files.get("oob-agg2", FRR)


@pytest.mark.parametrize("edit, key, words", [
    (("networks.yaml", "  aggregation: 2\n", "  aggregation: 2\n  peerlink_first: 3\n"), "oob.peerlink_first",
     "cage 3 is both the downlink to oob-sw-frontend-1 and the MLAG peerlink"),
    (("networks.yaml", "  aggregation: 2\n", "  aggregation: 2\n  site_uplink: {port: 59, addresses: [10.9.0.0/31, "
      "10.9.0.2/31], gateways: [10.9.0.1, 10.9.0.3]}\n"), "oob.site_uplink.port", "MLAG peerlink and the site uplink"),
    (("networks.yaml", "  aggregation: 2\n", "  aggregation: 2\n  site_uplink: {port: 58, addresses: [10.9.0.0/31], "
      "gateways: [10.9.0.1]}\n"), "oob.site_uplink.addresses", "1 site uplink address(es) for 2"),
    (("addressing.yaml", "    switch_pool: 192.168.200.0/24\n",
      "    switch_pool: 192.168.200.0/24\n    gateway_switch: 192.168.200.2\n"), "oob",
     "compute pool's gateway 192.168.200.2 is an OOB aggregation switch's own address"),
    (("networks.yaml", "  uplink_speed: 10G", "  uplink_speed: 200G"), "oob.uplink_speed", "200G"),
])
def test_inventory_mistakes_name_the_key(tmp_path, edit, key, words):
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path, [edit]))
    e = exc.value
    assert e.exit_code == 2 and e.key == key and words in e.message, (e.key, e.message)


def test_site_uplink_gateway_outside_its_link_is_a_schema_error(tmp_path):
    inv = copy_with(tmp_path, [("networks.yaml", "  aggregation: 2\n", "  aggregation: 2\n  site_uplink: {port: 58, "
                                "addresses: [10.9.0.0/31, 10.9.0.2/31], gateways: [10.9.0.1, 10.9.9.9]}\n")])
    out = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "site_uplink" in out.stderr and "10.9.9.9" in out.stderr and "networks.yaml" in out.stderr


def test_single_aggregation_switch_has_no_mlag(tmp_path):
    c = resolve_all(copy_with(tmp_path, [("networks.yaml", "  aggregation: 2\n", "  aggregation: 1\n")]))
    (agg,) = [s for s in c.oob.switches if s.role == "oob-aggregation"]
    assert agg.mlag is None and all(b.mlag_id == 0 for b in agg.bonds)
    assert not any(i.kind == "peerlink" for i in agg.interfaces)
    files = FileSet.from_artifacts(render_cluster(c))
    assert check_oob(c, files) == []


# ---------------------------------------------------------------- deploy targets
def test_deploy_targets_network_oob():
    built = build(CLUSTER)
    targets = build_targets(built.cluster, built.artifacts)
    t = targets["oob-agg1"]
    assert t.networks == ["oob"] and t.cumulus_mode == "nvue" and list(t.files) == ["/" + NVUE]
    assert t.host == "192.168.211.2" and t.asn is None and t.expected_sessions == 0
    assert groups_for(t.kind, t.role, t.nos, t.su, t.pod, t.networks) == [
        "switches", "role_oob_aggregation", "nos_cumulus", "network_oob"]
    assert targets["oob-sw-compute-1"].host == "192.168.211.12"
    # a lab does not run the OOB network: its switches are skipped, never connected to
    addresses = {name: t.host for name, t in targets.items() if not name.startswith("oob-")}
    lab = build_targets(built.cluster, built.artifacts, Access(addresses=addresses))
    assert lab["oob-agg1"].skip_reason and lab["oob-agg1"].host == ""


def test_ansible_export_groups_the_oob_switches(cluster, tmp_path):
    """`oob_switches` beside `switches` (no fabric playbook acts on them) and `network_oob`; their files as
    render writes them (startup.yaml and the Linux view; tests/test_render_device.py holds every device's)."""
    from netauto.export.ansible import ansible_inventory

    data = ansible_inventory(cluster, source=CLUSTER, render_out=tmp_path)["all"]["children"]
    names = {s.name for s in cluster.oob.switches}
    assert set(data["oob_switches"]["hosts"]) == names == set(data["network_oob"]["hosts"])
    assert not names & {h for role in data["switches"]["children"].values() for h in role["hosts"]}
    hv = data["oob_switches"]["hosts"]["oob-agg2"]
    assert hv["ansible_host"] == "192.168.211.3" and hv["netauto_role"] == "oob_aggregation"
    assert [f["dest"] for f in hv["netauto_files"]][:2] == ["/" + NVUE, "/etc/network/interfaces"]
