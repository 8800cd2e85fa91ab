"""Cable length per link, PFC headroom per port (issue 23 item 1): the two-site example carries headroom for its
10 km links in NVUE and in the Linux files, validate catches a long link's headroom hand-edited back to 100 m,
SONiC refuses a cable beyond its SKU table, and a design whose headroom cannot fit the lossless pool is refused
or run lossy with ECN only, as the inventory chooses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from _validate_helpers import NVUE, QOS, Tree, show
from conftest import EXAMPLES

from netauto.errors import InventoryError
from netauto.formats import fastyaml
from netauto.inventory.loader import load_inventory
from netauto.pipeline import build, resolve_cluster_model, validate
from netauto.platforms import hardware
from netauto.render.output import write_tree

MULTI = EXAMPLES / "multi-profile" / "inventory"
LONG_LEAF, SPINE = "su2-r1-leaf", "spine1"


def _inv(tmp_path: Path, old: str = "", new: str = "") -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(MULTI, dst)
    f = dst / "fabric.yaml"
    if old:
        text = f.read_text()
        assert old in text, old
        f.write_text(text.replace(old, new))
    return dst


def _rendered(inv: Path, out: Path) -> Tree:
    built = build(inv)
    write_tree(built.artifacts, out / built.model.name, manifest=False)
    return Tree(out, out.parent / "configs", fabric=built.model.name)


def _nvue(tree: Tree, device: str) -> dict:
    return fastyaml.load(tree.path(device, NVUE).read_text(), yaml12=True)[0]["set"]


def test_links_between_the_sites_get_their_length_and_nothing_else_does():
    cluster = resolve_cluster_model(load_inventory(MULTI))
    lengths = {(link.a_device, link.b_device): (link.length_m, link.length_from) for link in cluster.compute.links}
    assert lengths[(LONG_LEAF, SPINE)] == (10000, "sites")
    assert lengths[("su1-r1-leaf", SPINE)] == (100, "fabric")
    assert all(v == (100, "fabric") for (a, b), v in lengths.items() if a.startswith("su1-") or b.startswith("su1-"))
    spine = cluster.compute.switch(SPINE)
    long_ports = [i.name for i in spine.interfaces if i.cable_length_m == 10000]
    assert len(long_ports) == 8 and all(i.pfc for i in spine.interfaces if i.enabled)


def test_two_site_example_carries_headroom_for_its_long_links(tmp_path: Path):
    tree = _rendered(MULTI, tmp_path / "out")
    nv = _nvue(tree, SPINE)
    profile = nv["qos"]["pfc"]["cable-10000m"]
    assert profile["cable-length"] == 10000 and set(profile["switch-priority"]) == {"3"}
    long_ports = sorted(p for p, node in nv["interface"].items()
                        if (node.get("qos") or {}).get("pfc", {}).get("profile") == "cable-10000m")
    assert len(long_ports) == 8
    leaf = _nvue(tree, LONG_LEAF)
    assert all(leaf["interface"][p]["qos"]["pfc"]["profile"] == "cable-10000m"
               for p, node in leaf["interface"].items() if "to spine" in str(node.get("description")))
    qos = tree.path(SPINE, QOS).read_text()
    assert "pfc.ROCE_PFC_10000M.cable_length = 10000" in qos and "pfc.ROCE_PFC.cable_length = 100\n" in qos
    assert not _nvue(tree, "su1-r1-leaf")["qos"].get("pfc")  # one site: qos roce's 100 m stays


def test_validate_fails_when_a_long_links_headroom_is_hand_edited_back_to_100m(tmp_path: Path):
    tree = _rendered(MULTI, tmp_path / "out")
    assert not [f for f in validate(MULTI, configs=tree.root, external=False, simulate=False).findings
                if f.rule.startswith("BUF")]
    tree.nvue(SPINE, "qos", "pfc", "cable-10000m", "cable-length", value=100)
    tree.replace(LONG_LEAF, QOS, "pfc.ROCE_PFC_10000M.cable_length = 10000", "pfc.ROCE_PFC_10000M.cable_length = 100")
    result = validate(MULTI, configs=tree.root, external=False, simulate=False)
    buf = [f for f in result.findings if f.rule == "BUF-02"]
    assert {f.device for f in buf} == {SPINE, LONG_LEAF}, show(result)
    assert all("sized for 100 m, its cable is 10000 m" in f.message for f in buf)


def test_headroom_beyond_the_pool_is_refused_naming_the_switch_and_the_choice(tmp_path: Path):
    inv = _inv(tmp_path, 'site_distance_m: {"1-2": 10000}', 'site_distance_m: {"1-2": 40000}')
    with pytest.raises(InventoryError) as exc:
        resolve_cluster_model(load_inventory(inv))
    text = str(exc.value)
    assert "spine1" in text and "headroom budget" in text and "cabling.long_haul" in text
    assert "fabric.yaml:" in text


def test_lossy_ecn_long_haul_runs_the_long_links_without_pfc_but_with_ecn(tmp_path: Path):
    inv = _inv(tmp_path, 'site_distance_m: {"1-2": 10000}', 'site_distance_m: {"1-2": 40000}')
    text = (inv / "fabric.yaml").read_text().replace("long_haul: lossless ", "long_haul: lossy-ecn")
    (inv / "fabric.yaml").write_text(text)
    tree = _rendered(inv, tmp_path / "out")
    qos = tree.path(SPINE, QOS).read_text()
    assert "cable_length = 40000" not in qos
    pfc_ports = next(line for line in qos.splitlines() if line.startswith("pfc.ROCE_PFC.port_set"))
    ecn_ports = next(line for line in qos.splitlines() if line.startswith("ecn_red.ROCE_ECN.port_set"))
    assert "swp5s0" not in pfc_ports and "swp5s0" in ecn_ports
    nv = _nvue(tree, SPINE)
    assert nv["interface"]["swp5s0"]["qos"]["pfc"]["profile"] == "lossy-long-haul"
    assert nv["qos"]["pfc"]["lossy-long-haul"]["tx"] == "disable"
    result = validate(inv, configs=tree.root, external=False, simulate=False)
    assert not [f for f in result.findings if f.severity == "error" and f.rule != "DRIFT-01"], show(result)


def test_sonic_refuses_a_long_haul_cable_beyond_its_sku_table(tmp_path: Path):
    inv = _inv(tmp_path, "nos: {default: cumulus}", "nos: {default: sonic}")
    text = (inv / "fabric.yaml").read_text().replace("adaptive_routing: true", "adaptive_routing: false")
    (inv / "fabric.yaml").write_text(text)
    with pytest.raises(InventoryError) as exc:
        resolve_cluster_model(load_inventory(inv))
    text = str(exc.value)
    assert "10000 m of cable" in text and "5 m, 40 m, 300 m" in text and "cabling.site_distance_m" in text


def test_headroom_beyond_the_table_adds_the_round_trip_in_flight():
    sku = hardware.load_hwsku("ACS-SN5600")
    assert sku.headroom_bytes(400000, 100) == 697344  # the 300 m row
    # 9700 m more fibre at 400 Gb/s: 2 x 9700 m x 5 ns/m x 50 bytes/ns = 4.85 MB on top of the 300 m row
    assert sku.headroom_bytes(400000, 10000) == 697344 + 4_850_000


@pytest.mark.parametrize("release", ["5.6", "5.14", "5.15", "5.18"])
def test_per_port_pfc_profiles_are_nvue_schema_keys_of_every_release(tmp_path: Path, release: str):
    inv = _inv(tmp_path, 'cumulus_release: "5.14"', f'cumulus_release: "{release}"')
    tree = _rendered(inv, tmp_path / "out")
    result = validate(inv, configs=tree.root, external=False, simulate=False)
    assert not [f for f in result.findings if f.rule == "NVUE-01"], show(result)


def test_validate_fails_when_the_rendered_headroom_no_longer_fits_the_lossless_pool(tmp_path: Path):
    tree = _rendered(MULTI, tmp_path / "out")
    tree.nvue(SPINE, "qos", "pfc", "cable-10000m", "cable-length", value=40000)  # 8 ports x ~20.5 MB
    result = validate(MULTI, configs=tree.root, external=False, simulate=False)
    pool = [f for f in result.findings if f.rule == "BUF-03"]
    assert [f.device for f in pool] == [SPINE], show(result)
    assert "headroom budget" in pool[0].message and str(158229504 - 52161690) in pool[0].message


def test_sonic_long_haul_run_lossy_has_no_pfc_and_a_table_cable_length(tmp_path: Path):
    import json

    inv = _inv(tmp_path, "nos: {default: cumulus}", "nos: {default: sonic}")
    text = (inv / "fabric.yaml").read_text().replace("adaptive_routing: true", "adaptive_routing: false")
    (inv / "fabric.yaml").write_text(text.replace("long_haul: lossless ", "long_haul: lossy-ecn"))
    built = build(inv)
    db = json.loads(next(a.content for a in built.artifacts if a.device == SPINE and a.path.endswith("config_db.json")))
    spine = built.cluster.compute.switch(SPINE)
    long_ports = [i.name for i in spine.interfaces if i.cable_length_m == 10000]
    assert len(long_ports) == 8
    for p in long_ports:
        assert "pfc_enable" not in db["PORT_QOS_MAP"][p] and db["CABLE_LENGTH"]["AZURE"][p] == "300m"
        assert db["BUFFER_PG"][f"{p}|0"] == {"profile": "ingress_lossy_profile"} and f"{p}|3" not in db["BUFFER_PG"]
    short = next(i.name for i in spine.interfaces if i.enabled and i.cable_length_m == 100)
    assert db["PORT_QOS_MAP"][short]["pfc_enable"] == "3"


@pytest.mark.parametrize(("old", "new", "text"), [
    ('site_distance_m: {"1-2": 10000}', 'site_distance_m: {"1-2": 10000}\n  links: {"su9-r1-leaf:swp33s0": 50}',
     "no link ends at su9-r1-leaf:swp33s0"),
    ('sites: {2: ["su2-*"]}', 'sites: {2: ["su3-*"]}', "pattern 'su3-*' matches no device"),
    ('sites: {2: ["su2-*"]}', 'sites: {3: ["su2-*"]}', "site 3 but fabric.sites.count is 2"),
])
def test_cabling_typos_are_refused(tmp_path: Path, old: str, new: str, text: str):
    inv = _inv(tmp_path, old, new)
    with pytest.raises(InventoryError) as exc:
        resolve_cluster_model(load_inventory(inv))
    assert text in str(exc.value) and "fabric.yaml:" in str(exc.value)


def test_the_budget_follows_the_buffer_defaults_sonic_picks_for_the_switch():
    """A SONiC leaf is a ToRRouter (buffers_defaults_t0.j2: ingress lossy pool 67737959 on the SN5600), so less of
    the buffer is left for headroom than on a spine (t1: 52161690); Cumulus switches keep the T1 figure."""
    from netauto.model.cabling import headroom_budget, switch_sku
    from netauto.pipeline import build_model

    model = build_model(EXAMPLES / "mixed-sonic" / "inventory")
    leaf, sonic_spine, cumulus_spine = (model.switch(n) for n in ("su1-r0-leaf", "spine4", "spine1"))
    assert (leaf.nos, sonic_spine.nos, cumulus_spine.nos) == ("sonic", "sonic", "cumulus")
    sku = switch_sku(leaf)
    assert headroom_budget(leaf, sku) == 158229504 - 67737959
    assert headroom_budget(sonic_spine, sku) == headroom_budget(cumulus_spine, switch_sku(cumulus_spine)) == 158229504 - 52161690


CLUSTER64 = EXAMPLES / "cluster-64" / "inventory"


def _cluster64(tmp_path: Path, cabling: str) -> Path:
    dst = tmp_path / "c64"
    shutil.copytree(CLUSTER64, dst)
    f = dst / "fabric.yaml"
    text = f.read_text().replace("  cable_length_m: 100\n", "  cable_length_m: 100\n  sites: {count: 2, max_distance_km: 10}\n", 1)
    f.write_text(text + cabling)
    return dst


def test_cabling_names_a_network_link_and_a_network_site(tmp_path: Path):
    """One resolver applies `cabling:` once, to every network: a storage link's length and a storage site are
    accepted (the compute-only resolver refused them with "no link ends at" / "matches no device")."""
    inv = _cluster64(tmp_path, 'cabling:\n  links: {"st-g1-leaf0:swp33s0": 70}\n  sites: {2: ["st-*"]}\n'
                               '  site_distance_m: {"1-2": 90}\n')
    cluster = resolve_cluster_model(load_inventory(inv))
    storage = next(p for p in cluster.networks if p.name == "storage")
    lengths = {(end, link.length_m) for link in storage.fabric.cables()
               for end in (f"{link.a_device}:{link.a_port}", f"{link.b_device}:{link.b_port}")}
    assert ("st-g1-leaf0:swp33s0", 70) in lengths
    assert any(link.length_from == "sites" and link.length_m == 90 for link in storage.fabric.cables())  # st-* at 2
    assert all(link.length_from != "sites" for link in cluster.compute.links)


def test_a_network_links_length_reaches_its_switchs_files(tmp_path: Path):
    """The storage leaf's port named in `cabling.links` gets its own PFC group at that length, in both Cumulus
    views (qos_features.conf, NVUE startup.yaml), not the fabric's default."""
    from netauto.render import jinja_env
    from netauto.render.device import device_files, networks

    cluster = resolve_cluster_model(load_inventory(_cluster64(tmp_path, 'cabling:\n  links: {"st-g1-leaf0:swp33s0": 70}\n')))
    row = next(n for n in networks(cluster) if n.label == "network:storage")
    leaf = next(sw for sw in row.fabric.switches if sw.name == "st-g1-leaf0")
    files = {a.path: a.content for a in device_files(jinja_env.environment(None), row, leaf)}
    qos = files["etc/cumulus/datapath/qos/qos_features.conf"]
    assert "pfc.ROCE_PFC_70M.port_set = swp33s0\n" in qos and "pfc.ROCE_PFC_70M.cable_length = 70\n" in qos
    (doc,) = [d for d in yaml.safe_load(files["etc/nvue.d/startup.yaml"]) if "set" in d]
    assert doc["set"]["interface"]["swp33s0"]["qos"]["pfc"] == {"profile": "cable-70m"}
    assert doc["set"]["qos"]["pfc"]["cable-70m"]["cable-length"] == 70
