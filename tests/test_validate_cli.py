"""`netauto validate` and `netauto batfish-snapshot` on the command line."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from netauto.cli.app import cli, load_commands

from _validate_helpers import FRR, INVENTORY, ROOT, Tree, rendered, render_to, tree  # noqa: F401

load_commands()



def run(*args: str):
    return CliRunner().invoke(cli, ["validate", "-i", str(INVENTORY), *args], catch_exceptions=False)


def main(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "netauto", *args], capture_output=True, text=True, cwd=ROOT)


def test_default_renders_and_is_clean():
    r = run("--no-external")
    assert r.exit_code == 0, r.output
    assert "OK gpu-pod1" in r.output and "0 error(s)" in r.output
    assert "skipped: real validators (--no-external)" in r.output


def test_configs_tree_with_errors_exits_1_table_json_junit(tree: Tree):
    tree.replace("su1-r3-leaf", FRR, "bgp router-id 10.254.0.4", "bgp router-id 10.254.0.5")
    r = run("--no-external", "--configs", str(tree.root))
    assert r.exit_code == 1
    assert "BGP-01" in r.output and "DRIFT-01" in r.output and "FAIL" in r.output
    r = run("--no-external", "--configs", str(tree.root), "--format", "json")
    data = json.loads(r.output)
    assert data["exit_code"] == 1 and data["summary"]["error"] >= 1
    f = next(f for f in data["findings"] if f["rule"] == "BGP-01" and f["device"] == "su1-r3-leaf")
    assert f["file"] == FRR and "router-id 10.254.0.5" in f["message"]
    assert any(f["rule"] == "DRIFT-01" and f["file"] == FRR and "10.254.0.4" in f["message"] for f in data["findings"])
    r = run("--no-external", "--configs", str(tree.root), "--format", "junit")
    suite = ET.fromstring(r.output)
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert any(n.startswith("BGP-01") for n in failed)
    assert int(suite.get("failures")) == len(failed)


def test_warnings_fail_only_with_strict(tree: Tree):
    tree.replace("spine1", FRR, "log syslog informational", "log syslog warnings")  # drift only: a warning
    assert run("--no-external", "--configs", str(tree.root)).exit_code == 0
    r = run("--no-external", "--configs", str(tree.root), "--strict")
    assert r.exit_code == 1 and "DRIFT-01" in r.output


def test_drain_reports_reachability_and_width():
    r = run("--no-external", "--drain", "spine2")
    assert r.exit_code == 0, r.output
    assert "still full reachability" in r.output and "su1-r0-leaf 6/8" in r.output


def _free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("args,text", [
    (["--configs", "/nonexistent/dir"], "no such folder"),
    (["--drain", "spine9"], "no such switch"),
    (["--format", "xml"], "Invalid value"),
    (["--batfish", f"127.0.0.1:{_free_port()}"], "no Batfish service"),
])
def test_bad_usage_exits_2(args: list[str], text: str):
    r = main("validate", "--no-external", *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert text in r.stdout + r.stderr


def test_configs_of_another_fabric_exit_2(tmp_path: Path):
    (tmp_path / "other").mkdir()
    r = main("validate", "--no-external", "--configs", str(tmp_path / "other"))
    assert r.returncode == 2 and "no rendered tree of fabric 'gpu-pod1'" in r.stderr


def test_missing_validator_is_reported_as_skipped(monkeypatch: pytest.MonkeyPatch):
    from netauto.validate import external
    from netauto.validate.findings import tool_finding

    def missing(files, **kw):  # noqa: ANN001, ANN003
        raise external.ToolMissing("vtysh")

    monkeypatch.setattr(external, "frr", missing)
    monkeypatch.setattr(external, "ifupdown2", lambda files, **kw: [])
    monkeypatch.setattr(external, "netplan_generate", lambda files, **kw: [
        tool_finding("netplan", "gpu01", str(files[0][1]), 3, "col 5: Error in network definition")])
    r = run("--format", "json", "--no-simulate")
    data = json.loads(r.output)
    assert any(n.startswith("skipped: vtysh not installed") for n in data["notes"])
    f = next(f for f in data["findings"] if f["rule"] == "EXT-netplan")
    assert f["device"] == "gpu01" and f["file"] == "etc/netplan/60-rails.yaml" and f["line"] == 3
    assert data["exit_code"] == 1


def test_batfish_snapshot(tmp_path: Path):
    r = CliRunner().invoke(cli, ["batfish-snapshot", "-i", str(INVENTORY), "-o", str(tmp_path / "snap")], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    snap = tmp_path / "snap"
    leaf = (snap / "configs" / "su1-r0-leaf.cfg").read_text().splitlines()
    assert leaf[0] == "su1-r0-leaf" and leaf[1] == "# This file describes the network interfaces"
    assert leaf.index("# ports.conf --") < leaf.index("frr version 8.4.3") < leaf.index("router bgp 65101")
    assert "auto swp33s0" in leaf[:leaf.index("# ports.conf --")]
    topo = json.loads((snap / "batfish" / "layer1_topology.json").read_text())
    edge = {"node1": {"hostname": "su1-r0-leaf", "interfaceName": "swp33s0"}, "node2": {"hostname": "spine1", "interfaceName": "swp1s0"}}
    assert edge in topo["edges"]
    assert len(topo["edges"]) == 2 * 64  # both directions of the 8 x 4 x 2 leaf-spine links


def test_missing_file_is_an_error(tree: Tree):
    tree.path("spine3", FRR).unlink()
    r = run("--no-external", "--configs", str(tree.root), "--format", "json")
    data = json.loads(r.output)
    assert r.exit_code == 1
    assert {(f["rule"], f["device"], f["file"]) for f in data["findings"] if f["severity"] == "error"} >= {
        ("DRIFT-01", "spine3", FRR), ("PARSE-01", "spine3", FRR)}


@pytest.mark.parametrize("inventory", [INVENTORY, ROOT / "examples/2su-leaf-subnet/inventory"])
def test_fast_yaml_reads_rendered_files_like_pyyaml(inventory: Path):
    import yaml

    from netauto.pipeline import render
    from netauto.formats import fastyaml

    _, artifacts = render(inventory)
    for art in artifacts:
        if art.path.endswith(".yaml") and art.device != "kubernetes":  # multi-document manifests: yaml.safe_load_all
            assert fastyaml.load(art.content) == yaml.safe_load(art.content), (art.device, art.path)


@pytest.mark.parametrize("text", [
    "a: &x 1\n", "a: |\n  block\n", "a: {b: 1}\n", "- set:\n    x: on\n    y: 'q # r'\n", "a:\n\tb: 1\n",
    "a: 1 # comment\n", "k: 'it''s'\n", "k: \"esc\\n\"\n", "l:\n- 1\n- x: 2\n  y: [a, 3]\n", "---\na: 1\n", "a: 0o17\nb: 1e3\n",
    "a: 017\nb: 0x1f\nc: 1:30\nd: 2001-12-14\ne: .inf\nf: 1.5e3\ng: 10.0.0.0/31\nh: 1.5e+3\ni: 400G\n", "y: n\nY: N\n",
])
def test_fast_yaml_falls_back_or_agrees(text: str):
    import yaml

    from netauto.formats import fastyaml

    def outcome(fn):  # noqa: ANN001, ANN202
        try:
            return fn(text)
        except yaml.YAMLError as exc:
            return type(exc).__name__

    assert outcome(fastyaml.load) == outcome(yaml.safe_load)



@pytest.mark.parametrize("text", ["a: &x 1\nb: *x\n", "a: &x [*x]\n", "- set: &s {router: {bgp: *s}}\n"])
def test_fast_yaml_refuses_aliases(text: str):
    """Rendered files have no aliases; a hand-edited one with aliases (an expansion bomb, a cycle) is an error."""
    import yaml

    from netauto.formats import fastyaml

    with pytest.raises(yaml.YAMLError, match="YAML alias"):
        fastyaml.load(text)
