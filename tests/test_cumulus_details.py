"""Issue 23 item 5, the smaller Cumulus items: AR link-utilization threshold on in both views (NVUE's global
switch is off by default: the per-port threshold did nothing there), Cumulus's default FRR daemon modules
(-M cumulus_mlag -M snmp) kept, with the lab dropping only modules its FRR lacks, and the ports.conf comment
stating each breakout the switch really has."""

from __future__ import annotations

from pathlib import Path

from _validate_helpers import Tree, has, rendered, show, tree  # noqa: F401  (fixtures)
from conftest import EXAMPLES

from netauto.formats import fastyaml
from netauto.formats.kv import parse_kv
from netauto.lab.adapt import adapt_daemons
from netauto.pipeline import render

LEAF = "su1-r0-leaf"
NVUE = "etc/nvue.d/startup.yaml"
DAEMONS = "etc/frr/daemons"


def test_nvue_turns_the_ar_link_utilization_threshold_on_like_the_linux_files(tree: Tree):
    doc = fastyaml.load(tree.path(LEAF, NVUE).read_text(), yaml12=True)[0]["set"]
    assert doc["router"]["adaptive-routing"]["link-utilization-threshold"] in ("on", "enabled")
    ar = parse_kv(tree.path(LEAF, "etc/cumulus/switchd.d/adaptive_routing.conf").read_text())
    assert ar["adaptive_routing.link_utilization_threshold_disabled"] == "FALSE"


def test_cons01_catches_the_threshold_off_in_one_view(tree: Tree):
    tree.nvue(LEAF, "router", "adaptive-routing", "link-utilization-threshold", delete=True)
    result = tree.validate()
    assert has(result, "CONS-01", LEAF, "link-utilization threshold: Linux files on, NVUE off"), show(result)


def test_daemons_keep_cumulus_default_modules(tree: Tree):
    kv = parse_kv(tree.path(LEAF, DAEMONS).read_text())
    assert "-M cumulus_mlag -M snmp" in kv["zebra_options"] and "-M snmp" in kv["bgpd_options"]


def test_lab_drops_only_the_modules_its_frr_lacks(tmp_path: Path):
    (tmp_path / "zebra_cumulus_mlag.so").write_text("")
    text = 'zebra_options="  -M cumulus_mlag -M snmp -A 127.0.0.1 -s 90000000"\nbgpd_options="   -M snmp -A 127.0.0.1"\n'
    out, notes = adapt_daemons(text, tmp_path)
    assert 'zebra_options="  -M cumulus_mlag -A 127.0.0.1 -s 90000000"' in out
    assert 'bgpd_options="   -A 127.0.0.1"' in out and len(notes) == 2


def test_ports_conf_comment_states_every_breakout_of_the_switch():
    _, artifacts = render(EXAMPLES / "cluster-64" / "inventory")
    ports = {a.device: a.content for a in artifacts if a.path == "etc/cumulus/ports.conf"}
    storage_leaf = ports["st-g1-leaf0"]
    assert "8 / 4 = 2 lanes per 200G port" in storage_leaf  # 4x200G host ports
    assert all("4x" not in line or "200G" in storage_leaf for line in storage_leaf.splitlines())
    assert "200G" not in ports["spine1"]
