"""EVPN multihoming for a bonded network (`networks.<name>.bond_redundancy: evpn-mh`), the alternative to MLAG.

No Cumulus switch here: the rendered files are checked with NVIDIA's NVUE schema (nvueschema, every release),
ifupdown2 (`ifup -s`), FRR (`vtysh --dryrun`, `bgpd -C`) and the fabric rules (EVPN-01..04, CONS-01), and the
mutations below show each check fails when it should. The shipped examples stay MLAG (their goldens are the spec):
the EVPN-MH inventories are tmp copies of cluster-lab (one leaf group) and cluster-64 (two) with the key flipped.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES

from netauto.errors import InventoryError
from netauto.formats.nvue import parse_nvue
from netauto.inventory.loader import load_inventory
from netauto.model.mlag import ES_DF_PREFERENCE, MLAG_MAC_BASE, l2_vni, mac_str
from netauto.model.networks import resolve_cluster
from netauto.model.resolve import resolve
from netauto.pipeline import build_cluster, validate
from netauto.platforms.nos import cumulus_releases
from netauto.render.engine import render_cluster
from netauto.render.nvue import startup_yaml
from netauto.render.output import write_tree
from netauto.validate.external import available
from netauto.validate.nvue_schema import check

from _validate_helpers import FRR, IFACES, Tree, errors, has, show


def evpn_lab(tmp_path: Path, *, base: str = "cluster-lab", extra: str = "") -> Path:
    """A copy of an example inventory whose frontend network bonds its servers to EVPN-MH access pairs."""
    dst = tmp_path / f"evpn-{base}"
    shutil.copytree(EXAMPLES / base / "inventory", dst)
    f = dst / "networks.yaml"
    text = f.read_text()
    if base == "cluster-lab":
        text = text.replace("    default_route: true\n",
                            f"    default_route: true\n    host_routing: bond\n    bond_redundancy: evpn-mh\n{extra}")
    else:  # cluster-64: already `host_routing: bond` (MLAG): flip it and drop the peerlink
        text = text.replace("    host_routing: bond ", f"    host_routing: bond\n    bond_redundancy: evpn-mh\n{extra}    # ")
        text = text.replace(", peerlink_first: 59}", "}")
    f.write_text(text)
    return dst


def mlag_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "mlag-cluster-64"
    shutil.copytree(EXAMPLES / "cluster-64" / "inventory", dst)
    return dst


def _cluster(path: Path):
    loaded = load_inventory(path)
    return resolve_cluster(loaded, resolve(loaded))


@pytest.fixture(scope="module")
def c64(tmp_path_factory):
    return _cluster(evpn_lab(tmp_path_factory.mktemp("c64"), base="cluster-64"))


# ---------------------------------------------------------------- model
def test_model_segments_vteps_no_mlag(c64):
    fe = next(p for p in c64.networks if p.name == "frontend")
    leaves = [s for s in fe.fabric.switches if s.role == "leaf"]
    groups = sorted({s.su for s in leaves if s.su is not None})
    assert len(groups) == 2  # 80 servers, 40 per leaf group
    assert not [link for link in fe.fabric.links if link.kind == "mlag-peerlink"]
    for g in groups:
        a, b = sorted((s for s in leaves if s.su == g), key=lambda s: s.rail or 0)
        for n, sw in enumerate((a, b)):
            assert sw.mlag is None and not [i for i in sw.interfaces if i.kind == "peerlink"]
            assert sw.evpn is not None and sw.evpn.vtep is not None
            vtep = sw.evpn.vtep
            assert vtep.source == sw.loopback.split("/")[0]
            assert vtep.vlan_vni == {10: l2_vni(10, g)} == {10: 10000 + g}  # vlan * 1000 + group
            assert vtep.uplinks == [i.name for i in sw.fabric_ports] and len(vtep.uplinks) == 10
            assert vtep.peer == (b if sw is a else a).name
            assert sw.svi is not None and sw.svi.members[-1] == "vxlan48"
            assert sw.bgp.peer_groups and all(pg.name != "PEERLINK" for pg in sw.bgp.peer_groups)
            assert not [nb for nb in sw.bgp.neighbors if nb.interface.startswith("peerlink")]
            for bond in sw.bonds:
                es = bond.segment
                assert es is not None and bond.mlag_id == 0
                assert es.local_id == int(bond.name.removeprefix("bond"))  # local-id = the bond's number
                assert es.mac == mac_str(MLAG_MAC_BASE + g) == f"44:38:39:ff:00:{g:02x}"  # one MAC per group
                assert es.df_preference == ES_DF_PREFERENCE[n]  # NIC 0's switch is the preferred DF
        # both switches: the same segments (bond name, local id, MAC), the same gateway
        assert [(x.name, x.segment.local_id, x.segment.mac) for x in a.bonds] == \
            [(x.name, x.segment.local_id, x.segment.mac) for x in b.bonds]
        assert a.svi.vrr_address == b.svi.vrr_address and a.svi.vrr_mac == b.svi.vrr_mac
    for agg in (s for s in fe.fabric.switches if s.role != "leaf"):
        assert agg.evpn is not None and agg.evpn.vtep is None  # l2vpn-evpn only, no VTEP


def test_hosts_see_no_change(c64, tmp_path):
    """MLAG or EVPN-MH: every server's bond, address, gateway and routes are the same; so are the SVIs."""
    mlag = _cluster(mlag_copy(tmp_path))
    fe_e = next(p for p in c64.networks if p.name == "frontend").fabric
    fe_m = next(p for p in mlag.networks if p.name == "frontend").fabric
    assert [s.bond for s in fe_e.servers] == [s.bond for s in fe_m.servers]
    for sw in fe_m.switches:
        if sw.svi is not None:
            e = fe_e.switch(sw.name).svi
            assert (e.address, e.vrr_address, e.vrr_mac, e.vlan) == (sw.svi.address, sw.svi.vrr_address,
                                                                     sw.svi.vrr_mac, sw.svi.vlan)
            assert fe_e.switch(sw.name).bgp.connected_prefixes == sw.bgp.connected_prefixes  # group subnet in BGP


# ---------------------------------------------------------------- NVUE
def test_nvue_every_release_schema_clean(c64):
    fe = next(p for p in c64.networks if p.name == "frontend").fabric
    acc = fe.switch("fe-g2-acc1")
    agg = next(s for s in fe.switches if s.role != "leaf")
    for release in cumulus_releases():
        for sw in (acc, agg):
            sw = copy.copy(sw)
            sw.cumulus_release = release
            problems = check(parse_nvue(startup_yaml(sw, fe)), release)
            assert not problems, f"{sw.name} CL {release}: " + "; ".join(f"{'.'.join(p.path)}: {p.message}" for p in problems)


def test_nvue_tree(c64):
    fe = next(p for p in c64.networks if p.name == "frontend").fabric
    sw = fe.switch("fe-g2-acc1")  # NIC 1's switch of group 2, CL 5.14 spelling in the example
    tree = parse_nvue(startup_yaml(sw, fe))
    on = "on"
    assert tree["evpn"] == {"enable": on, "multihoming": {"enable": on}}
    assert tree["nve"] == {"vxlan": {"enable": on, "source": {"address": sw.loopback.split("/")[0]}, "arp-nd-suppress": on}}
    assert tree["bridge"]["domain"]["br_default"]["vlan"] == {"10": {"vni": {"10002": {}}}}
    assert tree["router"]["vrr"] == {"enable": on}
    assert "mlag" not in tree and "peerlink" not in tree["interface"] and "peerlink.4094" not in tree["interface"]
    bond = tree["interface"]["bond2"]
    assert "mlag" not in bond["bond"]
    assert bond["evpn"] == {"multihoming": {"segment": {"enable": on, "local-id": 2, "mac-address": "44:38:39:ff:00:02",
                                                        "df-preference": 32767}}}
    for up in sw.evpn.vtep.uplinks:
        assert tree["interface"][up]["evpn"] == {"multihoming": {"uplink": on}}
    assert "evpn" not in tree["interface"]["swp1"]  # a bond member is no uplink
    bgp = tree["vrf"]["default"]["router"]["bgp"]
    assert bgp["address-family"]["l2vpn-evpn"] == {"enable": on}
    assert all(pg["address-family"]["l2vpn-evpn"] == {"enable": on} for pg in bgp["peer-group"].values())
    agg = fe.switch("fe-agg1")
    atree = parse_nvue(startup_yaml(agg, fe))
    assert "evpn" not in atree and "nve" not in atree and "vrr" not in atree["router"]
    abgp = atree["vrf"]["default"]["router"]["bgp"]
    assert abgp["address-family"]["l2vpn-evpn"] == {"enable": on}
    fabric_groups = {name: pg for name, pg in abgp["peer-group"].items() if name != "UPSTREAM"}
    assert fabric_groups and all(pg["address-family"]["l2vpn-evpn"] == {"enable": on} for pg in fabric_groups.values())
    # the site routers (the frontend's exit) never get the EVPN address family: IPv4 unicast only
    assert "l2vpn-evpn" not in abgp["peer-group"].get("UPSTREAM", {}).get("address-family", {})


# ---------------------------------------------------------------- the whole cluster, with the real validators
@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    return evpn_lab(tmp_path_factory.mktemp("lab"))


def test_lab_validates_clean_with_ifupdown2_and_frr(lab):
    external = available("vtysh") and available("ifup")
    result = validate(lab, external=external)
    assert not [f for f in result.findings if f.severity == "error"], show(result)
    if external:
        assert any(n.startswith("ran: frr") for n in result.notes) and any(n.startswith("ran: ifupdown2") for n in result.notes)
    sim = next(n for n in result.notes if n.startswith("frontend: route simulation"))
    assert "2 BGP sessions up" in sim and "full reachability" in sim, sim  # one uplink per access switch, no peerlink
    arts = {(a.device, a.path): a.content for a in render_cluster(build_cluster(lab))}
    frr = arts[("fe-acc0", FRR)]
    assert "interface bond2\n evpn mh es-df-pref 50000\n evpn mh es-id 2\n evpn mh es-sys-mac 44:38:39:ff:00:01\nexit\n" in frr
    assert "interface swp49\n evpn mh uplink\nexit\n" in frr
    assert " address-family l2vpn evpn\n  neighbor SPINE activate\n  advertise-all-vni\n exit-address-family\n" in frr
    assert "PEERLINK" not in frr
    agg = arts[("fe-agg1", FRR)]
    assert " address-family l2vpn evpn\n  neighbor LEAF activate\n exit-address-family\n" in agg and "advertise-all" not in agg
    ifaces = arts[("fe-acc0", IFACES)]
    assert "    vxlan-local-tunnelip 10.251.0.1\n" in ifaces and "clag" not in ifaces and "peerlink" not in ifaces
    assert "auto vxlan48\niface vxlan48\n    bridge-vlan-vni-map 10=10001\n    bridge-vids 10\n    bridge-learning off\n" in ifaces
    assert "    bridge-ports bond1 bond2 bond3 vxlan48\n" in ifaces and "    es-sys-mac 44:38:39:ff:00:01\n" in ifaces


def test_two_groups_route_simulation_and_network_rules(tmp_path):
    """cluster-64 with the key flipped: two leaf groups, ten uplinks per access switch, two aggregation switches.
    The group subnets are still announced by both switches of each group in IPv4 unicast: every access switch
    reaches the other group's subnet (the route simulation), the cross-network rules (PLANE-xx) stay clean."""
    result = validate(evpn_lab(tmp_path, base="cluster-64"), external=False)
    assert not [f for f in result.findings if f.severity == "error"], show(result)
    sim = next(n for n in result.notes if n.startswith("frontend: route simulation"))
    assert "40 BGP sessions up" in sim and "8 leaf-to-rail-subnet pairs" in sim and "full reachability" in sim, sim
    assert any("PLANE-01" in n for n in result.notes), result.notes


@pytest.fixture(scope="module")
def lab_tree(lab, tmp_path_factory):
    out = tmp_path_factory.mktemp("rendered")
    cluster = build_cluster(lab)
    write_tree(render_cluster(cluster), out / cluster.name, manifest=False)
    return out, cluster.name


def _broken(lab_tree, tmp_path) -> Tree:
    out, name = lab_tree
    return Tree(out, tmp_path / "configs", fabric=name)


MUTATIONS = [
    # (device, file, old, new, rule, text in the finding)
    ("fe-acc1", FRR, " evpn mh es-id 2\n", " evpn mh es-id 7\n", "EVPN-01", "bond2"),
    ("fe-acc1", FRR, " evpn mh es-sys-mac 44:38:39:ff:00:01\n", " evpn mh es-sys-mac 44:38:39:ff:00:09\n", "EVPN-01", "segment"),
    ("fe-acc0", IFACES, "    es-sys-mac 44:38:39:ff:00:01\n", "    es-sys-mac 44:38:39:ff:00:02\n", "EVPN-01", "LACP system MAC"),
    ("fe-acc0", FRR, "interface bond3\n evpn mh es-df-pref 50000\n evpn mh es-id 3\n evpn mh es-sys-mac 44:38:39:ff:00:01\n",
     "interface bond3\n", "EVPN-01", "no Ethernet Segment"),
    ("fe-acc0", FRR, "interface swp49\n evpn mh uplink\n", "interface swp49\n", "EVPN-02", "no EVPN-MH uplink"),
    ("fe-agg1", FRR, " address-family l2vpn evpn\n  neighbor LEAF activate\n", " address-family l2vpn evpn\n",
     "EVPN-03", "l2vpn evpn"),
    ("fe-acc1", FRR, "  advertise-all-vni\n", "", "EVPN-03", "advertise-all-vni"),
    ("fe-acc1", IFACES, "bridge-vlan-vni-map 10=10001", "bridge-vlan-vni-map 10=10002", "EVPN-04", "VNI"),
    ("fe-acc0", IFACES, "    vxlan-local-tunnelip 10.251.0.1\n", "    vxlan-local-tunnelip 10.251.0.9\n", "EVPN-04", "tunnel source"),
    ("fe-acc0", IFACES, "    bond-lacp-rate 1\n", "    bond-lacp-rate 1\n    clag-id 1\n", "EVPN-04", "MLAG settings"),
]


@pytest.mark.parametrize("device,rel,old,new,rid,text", MUTATIONS, ids=[m[4] + "-" + m[5][:12] for m in MUTATIONS])
def test_mutations_fail(lab, lab_tree, tmp_path, device, rel, old, new, rid, text):
    t = _broken(lab_tree, tmp_path)
    t.replace(device, rel, old, new)
    result = t.validate(lab)
    assert rid in errors(result) and has(result, rid, device, text), show(result)


def test_nvue_and_linux_files_must_agree(lab, lab_tree, tmp_path):
    """CONS-01: a segment local-id changed in startup.yaml only; NVUE-01: a misspelt EVPN key."""
    t = _broken(lab_tree, tmp_path)
    t.nvue("fe-acc1", "interface", "bond1", "evpn", "multihoming", "segment", "local-id", value=5)
    t.nvue("fe-acc0", "interface", "swp49", "evpn", "multihoming", "uplinks", value="on")
    result = t.validate(lab)
    assert has(result, "CONS-01", "fe-acc1", "EVPN-MH segments"), show(result)
    assert has(result, "NVUE-01", "fe-acc0", "uplinks"), show(result)


@pytest.mark.skipif(not available("vtysh"), reason="FRR vtysh not installed")
def test_frr_grammar_catches_a_misspelt_mh_command(lab, lab_tree, tmp_path):
    t = _broken(lab_tree, tmp_path)
    t.replace("fe-acc0", FRR, " evpn mh es-id 1\n", " evpn mh es-idd 1\n")
    result = t.validate(lab, external=True)
    assert any(f.device == "fe-acc0" and "es-idd" in f.message for f in result.findings if f.severity == "error"), show(result)


# ---------------------------------------------------------------- bad input: one line, file, key, fix, exit 2
@pytest.mark.parametrize("extra,old,new,key,text", [
    ("    nos: sonic\n", None, None, "networks.frontend.bond_redundancy", "Cumulus only"),
    ("", "uplinks_first: 49}", "uplinks_first: 49, peerlink_first: 59}", "networks.frontend.ports", "no peerlink"),
    ("", "    host_routing: bond\n", "    host_routing: l3\n", "networks.frontend.bond_redundancy", "server bonds only"),
    ("", "    mtu: 1500\n", "    mtu: 9200\n", "networks.frontend.mtu", "VXLAN"),
])
def test_bad_input(tmp_path, extra, old, new, key, text):
    inv = evpn_lab(tmp_path, extra=extra)
    if old is not None:
        f = inv / "networks.yaml"
        body = f.read_text()
        assert old in body
        f.write_text(body.replace(old, new, 1))
    with pytest.raises(InventoryError) as exc:
        _cluster(inv)
    e = exc.value
    assert e.exit_code == 2 and e.key == key and text in str(e), (e.key, str(e))
    assert e.file.name == "networks.yaml" and e.line and e.hint
