"""Tenants on the compute fabric (inventory `tenants:`, docs/tenants.md): VNI allocation, refusals, the rendered
VRFs (NVUE schema of every release, FRR and ifupdown2 on the output), the route simulation per VRF (100% inside each
tenant, 0% between them) and one mutation per rule that must fail. The lab proof is tests/test_tenants_lab.py."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES

from netauto.errors import InventoryError
from netauto.formats.nvue import parse_nvue
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve_cluster
from netauto.model.tenants import hashed_vni
from netauto.pipeline import build_cluster, validate
from netauto.platforms.nos import cumulus_releases
from netauto.render.engine import render_cluster
from netauto.render.nvue import startup_yaml
from netauto.render.output import write_tree
from netauto.validate.external import available
from netauto.validate.nvue_schema import check

from _validate_helpers import FRR, IFACES, Tree, errors, has, show

EXAMPLE = EXAMPLES / "gpu-cloud-tenants" / "inventory"
TENANTS = """tenants:
  vni_pool: {first: 104000, last: 104999}
  route_target_asn: 65000
  members:
    acme: {servers: [gpu1, gpu2], description: "acme training"}
    globex: {servers: [gpu3, gpu4]}
"""


def copy_with(tmp_path: Path, tenants: str | None = None, old: str | None = None, new: str = "") -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(EXAMPLE, dst)
    f = dst / "fabric.yaml"
    text = f.read_text()
    head = text[:text.index("\ntenants:\n") + 1]  # `tenants:` is the file's last section
    text = head + (TENANTS if tenants is None else tenants)
    if old is not None:
        assert old in text
        text = text.replace(old, new)
        if "sonic" in new:  # SONiC has no adaptive routing (refused first otherwise)
            text = text.replace("adaptive_routing: true", "adaptive_routing: false")
    f.write_text(text)
    return dst


def vnis(path: Path) -> dict[str, int]:
    return {t.name: t.vni for t in resolve_cluster(load_inventory(path)).compute.tenants}


def members(*lines: str) -> str:
    return "tenants:\n  members:\n" + "".join(f"    {line}\n" for line in lines)


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(EXAMPLE)


# ---------------------------------------------------------------- the model
def test_model_vrfs_ports_evpn(cluster):
    fab = cluster.compute
    assert [(t.name, t.servers, t.vni_from) for t in fab.tenants] == [("acme", ["gpu1", "gpu2"], "hashed"),
                                                                       ("globex", ["gpu3", "gpu4"], "hashed")]
    for t in fab.tenants:
        assert t.vni == hashed_vni(t.name, 104000, 1000) and t.route_target == f"65000:{t.vni}"
    for sw in fab.switches:
        assert sw.evpn is not None and sw.evpn.vtep is None  # l2vpn-evpn on every underlay session
        if sw.role != "leaf":
            assert not sw.vrfs and sw.vxlan_source is None  # spines unaware of tenants
            continue
        assert [v.name for v in sw.vrfs] == ["acme", "globex"] and sw.vxlan_source == sw.loopback.split("/")[0]
        assert {i.peer_device: i.vrf for i in sw.host_ports} == {"gpu1": "acme", "gpu2": "acme", "gpu3": "globex",
                                                                 "gpu4": "globex"}
        assert sw.bgp.connected_prefixes == [] and sw.bgp.aggregates == []  # no host link in the default VRF


def test_adding_a_tenant_never_renumbers_another(tmp_path):
    before = vnis(copy_with(tmp_path / "a"))
    after = vnis(copy_with(tmp_path / "b", TENANTS.replace("    globex:", "    initech: {servers: [gpu4]}\n    globex:")
                           .replace("globex: {servers: [gpu3, gpu4]}", "globex: {servers: [gpu3]}")))
    assert after["acme"] == before["acme"] and after["globex"] == before["globex"] and len(set(after.values())) == 3
    reordered = vnis(copy_with(tmp_path / "c", members("globex: {servers: [gpu3, gpu4]}",
                                                       "acme: {servers: [gpu1, gpu2]}")))
    assert reordered == before  # the file's order decides nothing


def test_pinned_vni_kept(tmp_path):
    got = vnis(copy_with(tmp_path, members("acme: {servers: [gpu1, gpu2], vni: 104001}",
                                           "globex: {servers: [gpu3, gpu4]}")))
    assert got["acme"] == 104001


def _colliding_name(target: str) -> str:
    want = hashed_vni(target, 104000, 1000)
    return next(n for n in (f"t{i}" for i in range(100000)) if n != target and hashed_vni(n, 104000, 1000) == want)


@pytest.mark.parametrize("tenants,old,new,key,text", [
    (members("acme: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu2, gpu3, gpu4]}"), None, "",
     "tenants.members.globex.servers[0]", "server gpu2 is in two tenants"),
    # a VRF is a Linux netdev of the leaf: a tenant named after a port, `lo` or another tenant's L3VNI bridge would
    # be a second `iface` stanza of that name
    (members("swp1s0: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3, gpu4]}"), None, "",
     "tenants.members.swp1s0", "VRF swp1s0 would share its name with interface swp1s0 of leaf r0-leaf"),
    (members("lo: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3, gpu4]}"), None, "",
     "tenants.members.lo", "VRF lo would share its name with interface lo of leaf r0-leaf"),
    (members(f"br{hashed_vni('globex', 104000, 1000)}: {{servers: [gpu1, gpu2]}}", "globex: {servers: [gpu3, gpu4]}"),
     None, "", f"tenants.members.br{hashed_vni('globex', 104000, 1000)}", "would share its name with interface br"),
    (members("acme: {servers: [gpu1, gpu2, gpu1]}", "globex: {servers: [gpu3, gpu4]}"), None, "",
     "tenants.members.acme.servers[2]", "tenant acme: server gpu1 is listed twice"),
    (members("acme: {servers: [gpu1, gpu2], vni: 104001}", "globex: {servers: [gpu3, gpu4], vni: 104001}"), None, "",
     "tenants.members.globex.vni", "VNI collision"),
    (members("acme: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3]}"), None, "", "tenants.members",
     "gpu4 in no tenant"),
    (members("acme: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3, gpu4, gpu9]}"), None, "",
     "tenants.members.globex.servers[2]", "no GPU server named gpu9"),
    (None, "mode: p2p,", "mode: leaf-subnet,", "tenants", "p2p"),
    (None, "  fabric_link_speed: 400G\n", "  fabric_link_speed: 400G\n  mtu: {switch: 9040}\n", "tenants", "VXLAN"),
])
def test_bad_input_one_line(tmp_path, tenants, old, new, key, text):
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(copy_with(tmp_path, tenants, old, new)))
    assert exc.value.key == key and text in exc.value.message and exc.value.hint, exc.value.format()
    assert exc.value.exit_code == 2


@pytest.mark.parametrize("tenants,text", [
    (members("mgmt: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3, gpu4]}"), "cannot be a VRF name"),
    (members("a-very-long-tenant: {servers: [gpu1, gpu2]}", "globex: {servers: [gpu3, gpu4]}"), "cannot be a VRF name"),
    ("tenants:\n  route_target_asn: 70000\n  members:\n    acme: {servers: [gpu1, gpu2, gpu3, gpu4]}\n", "65535"),
    ("tenants:\n  vni_pool: {first: 105000, last: 104000}\n  members:\n    acme: {servers: [gpu1, gpu2, gpu3, gpu4]}\n",
     "below first"),
])
def test_schema_refusals_one_line_exit_2(tmp_path, tenants, text):
    """Through the CLI: one line naming the file and key, exit 2, no traceback."""
    import subprocess
    import sys

    inv = copy_with(tmp_path, tenants)
    r = subprocess.run([sys.executable, "-m", "netauto", "show", "model", "-i", str(inv)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and text in r.stderr and "tenants" in r.stderr, r.stderr


def test_hash_collision_refused_with_a_free_vni_to_pin(tmp_path):
    other = _colliding_name("acme")
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(copy_with(tmp_path, members("acme: {servers: [gpu1, gpu2]}",
                                                                   f"{other}: {{servers: [gpu3, gpu4]}}"))))
    assert "VNI collision" in exc.value.message and "pin `vni:" in (exc.value.hint or "")


def test_full_pool_hint_does_not_rehash_every_tenant(tmp_path):
    """A full pool: widening it changes `pool size` in every tenant's hash, so the hint must not offer it as the
    fix without saying so; pinning the new tenant outside the pool moves nobody."""
    tenants = ("tenants:\n  vni_pool: {first: 104000, last: 104000}\n  members:\n    acme: {servers: [gpu1, gpu2]}\n"
               "    globex: {servers: [gpu3, gpu4]}\n")
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(copy_with(tmp_path, tenants)))
    hint = exc.value.hint or ""
    assert "pin a `vni:` outside it" in hint and "renumbers every tenant" in hint, hint


def test_hash_collision_hint_never_renumbers_the_older_tenant(tmp_path):
    """A new tenant whose name hashes onto acme's VNI, written above acme in the file: the hint may not tell the
    operator to move acme (that renumbers a running tenant), and the VNI it offers is nobody's hashed VNI."""
    pool = "  vni_pool: {first: 104000, last: 104002}\n"
    acme = hashed_vni("acme", 104000, 3)
    new = next(n for n in (f"t{i}" for i in range(1000)) if hashed_vni(n, 104000, 3) == acme)
    # a third tenant, after both in the file, on the pool's first VNI that is not acme's
    spare = next(v for v in range(104000, 104003) if v != acme)
    third = next(n for n in (f"u{i}" for i in range(1000)) if hashed_vni(n, 104000, 3) == spare)
    tenants = (f"tenants:\n{pool}  members:\n    {new}: {{servers: [gpu3]}}\n    acme: {{servers: [gpu1, gpu2]}}\n"
               f"    {third}: {{servers: [gpu4]}}\n")
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(copy_with(tmp_path, tenants)))
    hint = exc.value.hint or ""
    assert new in exc.value.message and "acme" in exc.value.message, exc.value.format()
    assert "acme" in hint and new in hint and "new" in hint, hint  # the operator picks the new one, not the file
    assert f"vni: {spare}`" not in hint, hint  # {third} hashes there: pinning it would collide again


# ---------------------------------------------------------------- rendered output
def test_nvue_every_release_schema_clean(cluster):
    fab = cluster.compute
    for release in cumulus_releases():
        for name in ("r0-leaf", "spine1"):
            sw = copy.copy(fab.switch(name))
            sw.cumulus_release = release
            problems = check(parse_nvue(startup_yaml(sw, fab)), release)
            assert not problems, f"{name} CL {release}: " + "; ".join(f"{'.'.join(p.path)}: {p.message}" for p in problems)


def test_nvue_tree(cluster):
    fab = cluster.compute
    sw = fab.switch("r0-leaf")
    tree = parse_nvue(startup_yaml(sw, fab))  # CL 5.15 spelling: `vrf` directly under the interface
    acme = next(t for t in fab.tenants if t.name == "acme")
    assert tree["interface"]["swp1s0"]["vrf"] == "acme" and tree["interface"]["swp2s0"]["vrf"] == "globex"
    assert tree["evpn"] == {"state": "enabled"}
    assert tree["nve"]["vxlan"]["encapsulation"] == {"dscp": {"action": "copy"}}
    assert tree["nve"]["vxlan"]["decapsulation"] == {"dscp": {"action": "preserve"}}
    vrf = tree["vrf"]["acme"]
    assert vrf["evpn"] == {"state": "enabled", "vni": {str(acme.vni): {}}}
    bgp = vrf["router"]["bgp"]
    assert bgp["route-import"]["from-evpn"]["route-target"] == {acme.route_target: {}}
    assert bgp["route-export"]["to-evpn"]["route-target"] == {acme.route_target: {}}
    assert bgp["address-family"]["ipv4-unicast"]["route-export"]["to-evpn"] == {"state": "enabled"}
    spine = parse_nvue(startup_yaml(fab.switch("spine1"), fab))
    assert set(spine["vrf"]) == {"default"} and "nve" not in spine and "evpn" not in spine
    assert spine["vrf"]["default"]["router"]["bgp"]["address-family"]["l2vpn-evpn"] == {"state": "enabled"}


def test_vxlan_dscp_rendered_without_the_pfc_watchdog(tmp_path):
    """switchd.conf carries the VTEP's DSCP actions as well as the PFC watchdog keys: a fabric without the watchdog
    still needs `copy`/`preserve` (Cumulus's default is `derive`: the outer DSCP from the switch priority)."""
    inv = copy_with(tmp_path, old="\ntenants:\n", new="\nqos:\n  pfc_watchdog: {enabled: false}\ntenants:\n")
    cluster = build_cluster(inv)
    files = {(a.device, a.path): a.content for a in render_cluster(cluster)}
    switchd = files.get(("r0-leaf", "etc/cumulus/switchd.conf"))
    assert switchd is not None and "vxlan.def_encap_dscp_action = copy\n" in switchd, sorted(
        p for d, p in files if d == "r0-leaf")
    assert "vxlan.def_decap_dscp_action = preserve\n" in switchd and "pfc_watch" not in switchd, switchd
    assert ("spine1", "etc/cumulus/switchd.conf") not in files  # no VTEP, no watchdog: nothing to set


def test_ar_unchanged_by_tenants(cluster, tmp_path):
    """Adaptive routing, the QoS and the fabric ports are the same with and without tenants."""
    plain = copy_with(tmp_path, "")
    base = build_cluster(plain).compute.switch("r0-leaf")
    sw = cluster.compute.switch("r0-leaf")
    assert (sw.adaptive_routing, sw.qos) == (base.adaptive_routing, base.qos)
    assert [(i.name, i.adaptive_routing, i.mtu) for i in sw.interfaces] == \
        [(i.name, i.adaptive_routing, i.mtu) for i in base.interfaces]


# ---------------------------------------------------------------- validate: real validators, per-VRF simulation
def test_validates_clean_with_frr_and_ifupdown2():
    external = available("vtysh") and available("ifup")
    result = validate(EXAMPLE, external=external)
    assert not [f for f in result.findings if f.severity == "error"], show(result)
    if external:
        assert any(n.startswith("ran: frr") for n in result.notes) and any(n.startswith("ran: ifupdown2") for n in result.notes)
    notes = [n for n in result.notes if n.startswith("tenant ")]
    assert notes == [
        "tenant acme: 100% of 8 leaf-VRF-to-host-link pairs inside the tenant reachable, 0% of 8 to other tenants",
        "tenant acme: 100% of 4 leaf-VRF-to-own-prefix pairs reachable, 0% of 4 to other tenants' prefixes "
        "(overlapping ones too)",
        "tenant globex: 100% of 8 leaf-VRF-to-host-link pairs inside the tenant reachable, 0% of 8 to other tenants",
        "tenant globex: 100% of 4 leaf-VRF-to-own-prefix pairs reachable, 0% of 4 to other tenants' prefixes "
        "(overlapping ones too)",
    ], result.notes


@pytest.fixture(scope="module")
def tree(cluster, tmp_path_factory):
    out = tmp_path_factory.mktemp("rendered")
    write_tree(render_cluster(cluster), out / cluster.name, manifest=False)
    return out, cluster.name


def _rt(cluster, name: str) -> str:
    return next(t.route_target for t in cluster.compute.tenants if t.name == name)


def _vni(cluster, name: str) -> int:
    return next(t.vni for t in cluster.compute.tenants if t.name == name)


def test_mutations_fail(cluster, tree, tmp_path):
    acme, globex = _rt(cluster, "acme"), _rt(cluster, "globex")
    cases = [
        # a tenant port outside its VRF: TEN-01, and the tenant's own VRFs lose it (SIM-04)
        ("r1-leaf", IFACES, "    address 10.1.0.0/31\n    vrf acme\n", "    address 10.1.0.0/31\n", "TEN-01",
         "default VRF"),
        ("r1-leaf", IFACES, "    address 10.1.0.0/31\n    vrf acme\n", "    address 10.1.0.0/31\n", "SIM-04",
         "does not reach 1"),
        # a VNI collision: globex's VRF on acme's L3VNI
        ("r0-leaf", FRR, f"vrf globex\n vni {_vni(cluster, 'globex')}\n", f"vrf globex\n vni {_vni(cluster, 'acme')}\n",
         "TEN-02", "VNI collision"),
        # a leak: globex imports acme's route target
        ("r0-leaf", FRR, f"  route-target import {globex}\n", f"  route-target import {globex}\n  route-target import {acme}\n",
         "SIM-05", "tenant leak: VRF globex reaches"),
        # acme's routes never become type-5 routes on r1-leaf: r0-leaf's acme misses them
        ("r1-leaf", FRR, f"  advertise ipv4 unicast\n  route-target import {acme}\n", f"  route-target import {acme}\n",
         "SIM-04", "tenant acme"),
    ]
    # the spines stop relaying l2vpn evpn (both of them): no leaf learns the other's type-5 routes
    spines_off = [("spine1", FRR, " address-family l2vpn evpn\n  neighbor LEAF activate\n", " address-family l2vpn evpn\n"),
                  ("spine2", FRR, " address-family l2vpn evpn\n  neighbor LEAF activate\n", " address-family l2vpn evpn\n")]
    t = Tree(tree[0], tmp_path / "spines", fabric=tree[1])
    for device, rel, old, new in spines_off:
        t.replace(device, rel, old, new)
    result = t.validate(EXAMPLE)
    assert {f.device for f in result.findings if f.rule == "SIM-04"} == {"r0-leaf", "r1-leaf"}, show(result)
    for device, rel, old, new, rid, text in cases:
        t = Tree(tree[0], tmp_path / f"{rid}-{text[:6]}", fabric=tree[1])
        t.replace(device, rel, old, new)
        result = t.validate(EXAMPLE)
        assert rid in errors(result) and any(text in f.message for f in result.findings if f.rule == rid), \
            (rid, text, show(result))


def test_leak_by_vrf_import_fails(cluster, tree, tmp_path):
    """FRR's VRF-to-VRF route leaking (`import vrf acme` in globex's ipv4 unicast; `bgpd -C` accepts it) hands globex
    acme's table on r0-leaf with no route target involved: r0-leaf's own acme ports and those acme learnt from r1-leaf.
    (A wildcard import `route-target import *:<vni>` is no other way in: bgpd 8.4 refuses it, "Malformed Route
    Target list".)"""
    globex = _rt(cluster, "globex")
    old = f" exit-address-family\n !\n address-family l2vpn evpn\n  advertise ipv4 unicast\n  route-target import {globex}\n"
    t = Tree(tree[0], tmp_path / "leak", fabric=tree[1])
    t.replace("r0-leaf", FRR, old, "  import vrf acme\n" + old)
    result = t.validate(EXAMPLE)
    leaks = [f.message for f in result.findings if f.rule == "SIM-05" and f.device == "r0-leaf"]
    assert any("VRF globex reaches 10.0.0.0/31 of tenant acme (r0-leaf" in m for m in leaks), show(result)
    assert any("VRF globex reaches 10.1.0.0/31 of tenant acme (r1-leaf" in m for m in leaks), show(result)


@pytest.mark.parametrize("keys,value,text", [
    # globex imports acme's route target in NVUE's startup.yaml only (the route simulation reads the Linux files)
    (("vrf", "globex", "router", "bgp", "route-import", "from-evpn", "route-target", "{acme}"), {},
     "VRF globex imports route target {acme} of tenant acme"),
    # globex exports acme's: globex's host links land in acme's VRFs
    (("vrf", "globex", "router", "bgp", "route-export", "to-evpn", "route-target", "{acme}"), {},
     "VRF globex exports route target {acme} of tenant acme"),
    # NVUE's VRF route leaking (`route-import from-vrf`, nvueschema VrfEntryRouterBgpAddressFamilyIpv4UnicastRouteImport)
    (("vrf", "globex", "router", "bgp", "address-family", "ipv4-unicast", "route-import", "from-vrf"),
     {"state": "enabled", "list": {"acme": {}}}, "VRF globex imports the routes of VRF acme"),
])
def test_nvue_route_target_leak_fails(cluster, tree, tmp_path, keys, value, text):
    """A leak written in NVUE's document alone: TEN-02 holds each tenant VRF to its own route target, in every view."""
    acme = _rt(cluster, "acme")
    t = Tree(tree[0], tmp_path / "nvleak", fabric=tree[1])
    t.nvue("r0-leaf", *[k.format(acme=acme) for k in keys], value=value)
    result = t.validate(EXAMPLE)
    assert has(result, "TEN-02", "r0-leaf", text.format(acme=acme)), show(result)


# CONS-02: NVUE owns the Linux files on a Cumulus switch (`nv config apply` rewrites frr.conf), and the route
# simulation reads frr.conf only: a VRF's route targets, VRF imports or L3VNI that startup.yaml alone says
# differently would route what no rule saw. One finding per divergence, in either file.
_RT = ("vrf", "{vrf}", "router", "bgp", "route-import", "from-evpn", "route-target")
_EXPORT = ("vrf", "{vrf}", "router", "bgp", "route-export", "to-evpn", "route-target")


@pytest.mark.parametrize("keys,value,delete,text", [
    # NVUE drops acme's own import: acme's leaves stop taking each other's type-5 routes (frr.conf still has it)
    ((*_RT, "{acme}"), None, True, "VRF acme route targets imported: frr.conf ['{acme}'], NVUE []"),
    # NVUE adds a route target of no tenant (TEN-02 knows only the tenants' route targets)
    ((*_RT, "65000:1"), {}, False, "VRF acme route targets imported: frr.conf ['{acme}'], NVUE ['65000:1', '{acme}']"),
    # NVUE exports none: acme's routes leave the leaf with no route target
    (_EXPORT, {}, False, "VRF acme route targets exported: frr.conf ['{acme}'], NVUE []"),
    # NVUE leaks acme's own table from a VRF frr.conf does not import
    (("vrf", "{vrf}", "router", "bgp", "address-family", "ipv4-unicast", "route-import", "from-vrf"),
     {"state": "enabled", "list": {"globex": {}}}, False, "VRF acme VRFs imported: frr.conf [], NVUE ['globex']"),
    # NVUE binds acme to another L3VNI
    (("vrf", "{vrf}", "evpn", "vni"), {"104001": {}}, False, "VRF acme L3VNI: frr.conf {vni}, NVUE 104001"),
])
def test_nvue_vrf_diverging_from_frr_is_a_finding(cluster, tree, tmp_path, keys, value, delete, text):
    acme, vni = _rt(cluster, "acme"), _vni(cluster, "acme")
    t = Tree(tree[0], tmp_path / "nv", fabric=tree[1])
    t.nvue("r0-leaf", *[k.format(vrf="acme", acme=acme) for k in keys], value=value, delete=delete)
    result = t.validate(EXAMPLE)
    assert has(result, "CONS-02", "r0-leaf", text.format(acme=acme, vni=vni)), show(result)


@pytest.mark.parametrize("old,new,text", [
    ("  route-target import {acme}\n", "", "VRF acme route targets imported: frr.conf [], NVUE ['{acme}']"),
    ("  route-target export {acme}\n", "  route-target export {acme}\n  route-target export 65000:1\n",
     "VRF acme route targets exported: frr.conf ['65000:1', '{acme}'], NVUE ['{acme}']"),
])
def test_frr_vrf_diverging_from_nvue_is_a_finding(cluster, tree, tmp_path, old, new, text):
    """The other file: frr.conf alone changed (what the route simulation reads) is the same finding."""
    acme = _rt(cluster, "acme")
    t = Tree(tree[0], tmp_path / "frr", fabric=tree[1])
    t.replace("r0-leaf", FRR, old.format(acme=acme), new.format(acme=acme))
    result = t.validate(EXAMPLE)
    assert has(result, "CONS-02", "r0-leaf", text.format(acme=acme)), show(result)


def test_nvue_and_frr_vrfs_agree_on_the_rendered_tree(tree):
    """The rendered tree: no CONS-02 finding (the rule holds what both renderers write)."""
    result = validate(EXAMPLE, configs=tree[0], external=False)
    assert not [f for f in result.findings if f.rule == "CONS-02"], show(result)


@pytest.mark.parametrize("mtu,text", [
    (1500, "MTU 1500 below the hosts' MTU 9000"),  # the tenant's 9000-byte frames are dropped between leaves
    (9216, "MTU 9216 above the fabric MTU 9216 - 50"),  # the encapsulated frame would not fit the underlay
])
def test_vxlan_mtu_against_hosts_and_fabric(cluster, tree, tmp_path, mtu, text):
    """The L3VNI's VXLAN device carries the hosts' frames inside 50 bytes of VXLAN: read back in the Linux files and in
    NVUE's `nve vxlan mtu` (the inventory check alone misses a hand edit: DRIFT-01 is only a warning)."""
    vni = _vni(cluster, "acme")
    t = Tree(tree[0], tmp_path / "linux", fabric=tree[1])
    t.replace("r0-leaf", IFACES, f"    vxlan-id {vni}\n    vxlan-local-tunnelip 10.254.0.1\n    bridge-learning off\n"
              "    mtu 9166\n", f"    vxlan-id {vni}\n    vxlan-local-tunnelip 10.254.0.1\n    bridge-learning off\n"
              f"    mtu {mtu}\n")
    result = t.validate(EXAMPLE)
    assert has(result, "TEN-02", "r0-leaf", f"VXLAN device of VRF acme (VNI {vni}): {text}"), show(result)
    n = Tree(tree[0], tmp_path / "nvue", fabric=tree[1])
    n.nvue("r0-leaf", "nve", "vxlan", "mtu", value=mtu)
    result = n.validate(EXAMPLE)
    assert has(result, "TEN-02", "r0-leaf", f"VXLAN device of VRF acme (VNI {vni}): {text}"), show(result)


def test_vxlan_dscp_actions_read_back(tree, tmp_path):
    """The outer header must carry the inner DSCP (RoCE 26, CNP 48) for the spines to queue it losslessly: a VTEP
    set to `set` (a fixed DSCP) in switchd.conf or `derive` in NVUE (Cumulus's default: from the switch priority)
    is TEN-02, not only a DRIFT-01 warning."""
    t = Tree(tree[0], tmp_path / "linux", fabric=tree[1])
    t.replace("r0-leaf", "etc/cumulus/switchd.conf", "vxlan.def_encap_dscp_action = copy\n",
              "vxlan.def_encap_dscp_action = set\nvxlan.def_encap_dscp_value = 0\n")
    result = t.validate(EXAMPLE)
    assert has(result, "TEN-02", "r0-leaf", "VXLAN encapsulation DSCP action set, not copy"), show(result)
    n = Tree(tree[0], tmp_path / "nvue", fabric=tree[1])
    n.nvue("r0-leaf", "nve", "vxlan", "decapsulation", "dscp", "action", value="derive")
    result = n.validate(EXAMPLE)
    assert has(result, "TEN-02", "r0-leaf", "VXLAN decapsulation DSCP action derive, not preserve"), show(result)


def test_nvue_port_outside_vrf(tree, tmp_path):
    t = Tree(tree[0], tmp_path / "nv", fabric=tree[1])
    t.nvue("r0-leaf", "interface", "swp2s1", "vrf", value="acme")
    result = t.validate(EXAMPLE)
    assert has(result, "TEN-01", "r0-leaf", "swp2s1 (gpu4 of tenant globex) is in VRF acme"), show(result)


@pytest.mark.skipif(not available("vtysh"), reason="FRR vtysh not installed")
def test_frr_grammar_catches_a_misspelt_vrf_command(tree, tmp_path):
    t = Tree(tree[0], tmp_path / "g", fabric=tree[1])
    t.replace("r0-leaf", FRR, "  advertise ipv4 unicast\n", "  advertise ipv4 unicst\n")
    t.replace("r1-leaf", FRR, "vrf acme\n vni ", "vrf acme\n vnid ")  # zebra's node: bgpd -C skips it, vtysh checks it
    result = t.validate(EXAMPLE, external=True)
    bad = [f for f in result.findings if f.severity == "error"]
    assert any(f.device == "r0-leaf" and "unicst" in f.message for f in bad), show(result)
    assert any(f.device == "r1-leaf" and "vnid" in f.message for f in bad), show(result)


# ---------------------------------------------------------------- acceptance per tenant
def test_acceptance_never_crosses_tenants(cluster):
    """Each tenant's tests over its own servers only: a cross-tenant pair could never connect (the VRFs do not
    route between them). Without `tenants:` the same fabric pairs servers of both."""
    from dataclasses import replace as dc_replace

    from netauto.acceptance.planner import PlanOptions, build

    fab = cluster.compute
    owner = {s: t.name for t in fab.tenants for s in t.servers}
    plan = build(fab, PlanOptions(per_spine=True))
    tests = [t for r in plan.rounds for t in r.tests]
    assert tests
    for t in tests:
        if t.kind == "isolation":  # the probes that must fail to connect: tests/test_tenants_acceptance.py
            continue
        assert len({owner[e.server] for e in t.ends}) == 1, (t.id, [e.server for e in t.ends])
    assert {t.id for t in tests if t.phase == "nccl"} == {"all_reduce-acme-su1", "alltoall-acme-su1",
                                                          "all_reduce-globex-su1", "alltoall-globex-su1"}
    untenanted = build(dc_replace(fab, tenants=[]), PlanOptions(per_spine=True))
    assert any(len({owner[e.server] for e in t.ends}) > 1 for r in untenanted.rounds for t in r.tests)


# ---------------------------------------------------------------- monitoring labels by tenant
def test_monitoring_labels_by_tenant(cluster):
    """The intent series of a tenant's host ports and rail NICs carry `tenant`, and the alerts join it in (promtool's
    unit tests of the rendered rules assert an alert's labels: test_validates_clean_with_frr_and_ifupdown2 runs
    them); fabric ports and sessions belong to no tenant."""
    from netauto.monitoring.facts import collect
    from netauto.monitoring.rules import JOIN_LABELS

    facts = collect(cluster)
    owner = {s: t.name for t in cluster.compute.tenants for s in t.servers}
    nics = [f.label_map for f in facts.rail_nics]
    assert nics and all(n["tenant"] == owner[n["device"]] for n in nics)
    ports = [f.label_map for f in facts.ports]
    assert all(p.get("tenant") == owner[p["peer"]] for p in ports if p["kind"] == "host")
    assert all("tenant" not in p for p in ports if p["kind"] == "fabric")
    assert "tenant" in [x.strip() for x in JOIN_LABELS.split(",")]


def test_networks_shared_by_tenants_are_named(tmp_path):
    """Tenants isolate the compute fabric only: a storage or frontend network that connects servers of two tenants
    routes between them, so validate may not let the per-tenant "0% to other tenants" stand alone (TEN-03, a
    warning: a shared storage network can be a deliberate design, isolated by the storage system)."""
    inv = tmp_path / "cl"
    shutil.copytree(EXAMPLES / "cluster-lab" / "inventory", inv)
    plain = validate(inv, external=False)
    assert not [f for f in plain.findings if f.rule == "TEN-03"]
    with (inv / "fabric.yaml").open("a") as f:
        f.write("tenants:\n  members:\n    acme: {servers: [gpu1]}\n    globex: {servers: [gpu2]}\n")
    result = validate(inv, external=False)
    shared = {f.device: f.message for f in result.findings if f.rule == "TEN-03" and f.severity == "warning"}
    assert set(shared) == {"storage", "frontend"}, show(result)
    assert "connects servers of tenants acme (gpu1) and globex (gpu2)" in shared["storage"], shared
