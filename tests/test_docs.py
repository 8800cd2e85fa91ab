"""`netauto docs`: the Markdown fabric document, the Graphviz topology (aggregate and per-SU) and the cabling CSV."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import EXAMPLES

from netauto.docs import aggregate_dot, cabling_csv, fabric_markdown, su_detail_dot, write_docs
from netauto.errors import NetautoError
from netauto.pipeline import build_model


def require_dot() -> str:
    path = shutil.which("dot")
    if not path:
        if os.environ.get("CI"):
            pytest.fail("dot missing in CI: .ci/run must install graphviz (apt-get install graphviz)")
        pytest.skip("graphviz `dot` not installed (apt-get install graphviz)")
    return path


@pytest.fixture(scope="module")
def two_su_model():
    return build_model(EXAMPLES / "2su-leaf-subnet" / "inventory")


def _section(md: str, title: str) -> str:
    return md.split(f"\n{title}\n", 1)[1].split("\n## ", 1)[0]


def test_markdown_has_devices_port_maps_rail_plan_and_qos(default_model):
    md = fabric_markdown(default_model, pictures=[("topology", "topology.svg")])
    assert md.startswith("# Fabric gpu-pod1\n")
    assert "![topology](topology.svg)" in md and "[cabling.csv](cabling.csv)" in md
    switches = _section(md, "## Switches")
    for sw in default_model.switches:
        row = (f"| {sw.name} | {sw.role} | cumulus 5.14 | {sw.pod} | {sw.su or '-'} | "
               f"{'-' if sw.rail is None else sw.rail} | {sw.bgp.asn} | {sw.loopback.split('/')[0]} | "
               f"{sw.mgmt_address.split('/')[0]} |")
        assert row in switches, row
    servers = _section(md, "## GPU servers")
    gpu = default_model.servers[0]
    assert f"| {gpu.name} | 1 | {gpu.mgmt_address.split('/')[0]} | " + " | ".join(r.address for r in gpu.rails) in servers
    # one port map per leaf, every port with its peer
    leaf = default_model.switch("su1-r3-leaf")
    ports = md.split("### su1-r3-leaf\n", 1)[1].split("\n### ", 1)[0]
    for iface in leaf.interfaces:
        assert f"| {iface.name} | " in ports and (iface.peer_device or "-") in ports
    assert "| swp1s0 | host | gpu01 | rail3 | 400G | 10.3.0.0/31 | up |" in ports
    assert "| swp33s0 | uplink | spine1 | swp4s0 | 400G | unnumbered | up |" in ports
    rails = _section(md, "## Rail plan")
    assert "| 0 | rail0 | mlx5_0 | 10.0.0.0/16 | su1-r0-leaf | 101 | 1001 |" in rails
    qos = _section(md, "## QoS profile")
    assert "DSCP 26 -> switch priority 3" in qos and "DSCP 48 -> switch priority 6" in qos
    assert "min 150000 B, max 1500000 B, probability 100 %" in qos
    assert "NVIDIA RoCE lossless default" in qos
    assert "| 6 | strict | - |" in qos
    assert "| leaf ports | 8 x 400G down, 8 x 400G up: 1:1 (non-blocking) |" in md


def test_markdown_of_two_su_example_shows_absent_server_and_disabled_port(two_su_model):
    md = fabric_markdown(two_su_model)
    assert "| GPU servers | 63 (32 per SU, 1 absent), 504 rail NICs |" in md
    assert "| 2 | 1 | 32 | su2-gpu32 |" in md
    assert "| swp16s1 | host | - | - | 400G |  | down (reserved) |" in md.split("### su2-r0-leaf\n", 1)[1]
    r7 = md.split("### su2-r7-leaf\n", 1)[1]
    # spine08 swp32s1 is disabled (bad optic): the leaf end shows the link is out of service
    row = next(line for line in r7.splitlines() if line.startswith("| swp48s1 |"))
    assert row.startswith("| swp48s1 | uplink | spine08 | swp32s1 | 400G | unnumbered | ")
    assert row.endswith(("| down (disabled) |", "| up (peer port disabled) |")), row
    assert "gateway 10.0.1.1/24 on vlan100" in md
    assert "tuned (differs from the NVIDIA default)" in md
    assert fabric_markdown(two_su_model) == md  # deterministic


def test_cabling_csv_matches_show_cabling(default_model):
    text = cabling_csv(default_model)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["a_device", "a_port", "b_device", "b_port", "speed", "kind", "state"]
    assert len(rows) - 1 == len(default_model.links)
    shown = subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "show", "cabling",
                            "--format", "csv", "-i", str(EXAMPLES.parent / "inventory")],
                           capture_output=True, text=True, check=True).stdout
    assert shown == text


def test_aggregate_view_groups_by_su_and_bundles_links(default_model, two_su_model):
    dot = aggregate_dot(default_model)
    assert "subgraph cluster_pod1" in dot and "subgraph cluster_su1" in dot
    assert 'pod1_spines -- su1_leaves [label="64 x 400G"' in dot  # 8 leaves x 4 spines x 2 links
    for r in range(8):
        assert f'su1_leaves:r{r}:s -- su1_servers [label="r{r}: 8 x 400G"' in dot
    dot2 = aggregate_dot(two_su_model)
    assert 'pod1_spines -- su2_leaves [label="255 x 400G\\n1 disabled"' in dot2
    assert "1 absent: su2-gpu32" in dot2


def test_aggregate_view_of_a_thousand_servers_stays_small():
    model = build_model(EXAMPLES / "10k-3tier" / "inventory") if (EXAMPLES / "10k-3tier").is_dir() else None
    if model is None:
        pytest.skip("examples/10k-3tier not present")
    assert len(model.servers) >= 1000
    dot = aggregate_dot(model)
    nodes = [line for line in dot.splitlines() if "[label=" in line and " -- " not in line]
    edges = [line for line in dot.splitlines() if " -- " in line]
    assert len(nodes) <= 40 and len(edges) <= 40, (len(nodes), len(edges))
    assert "per pod" in dot and "super_spines -- pod1_spines" in dot
    assert "32 groups x 4" in dot and "plane" not in dot  # the super-spine groups (plane: a compute plane's word)
    detail = su_detail_dot(model, 5)
    assert detail.count(" -- ") < 1000


def test_su_detail_lists_every_device_of_the_su(two_su_model):
    dot = su_detail_dot(two_su_model, 2)
    for name in [f"su2-r{r}-leaf" for r in range(8)] + [f"su2-gpu{k:02d}" for k in range(1, 32)]:
        assert f'"{name}" [label=' in dot
    assert '"su2-gpu32" [label="su2-gpu32\\n(absent)"' in dot
    assert '"spine08" -- "su2-r7-leaf" [color="#888888", style=dashed' in dot  # the disabled port
    with pytest.raises(KeyError):
        su_detail_dot(two_su_model, 3)


def test_netauto_docs_writes_svg_and_png_renders(tmp_path, default_model):
    dot = require_dot()
    out = tmp_path / "docs"
    proc = subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "docs",
                           "-i", str(EXAMPLES.parent / "inventory"), "-o", str(out), "--su", "1"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["cabling.csv", "fabric.md", "topology-su1.dot", "topology-su1.svg", "topology.dot", "topology.svg"]
    for svg in ("topology.svg", "topology-su1.svg"):
        root = ET.parse(out / svg).getroot()
        assert root.tag.endswith("svg")
        text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
        assert "su1-r0-leaf" in text and "spine" in text
    assert "![SU 1 detail](topology-su1.svg)" in (out / "fabric.md").read_text()
    png = tmp_path / "topology.png"
    subprocess.run([dot, "-Tpng", str(out / "topology.dot"), "-o", str(png)], check=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_docs_without_dot_and_unknown_su(tmp_path, default_model):
    result = write_docs(default_model, tmp_path / "d", svg=False)
    assert sorted(p.name for p in result.files) == ["cabling.csv", "fabric.md", "topology.dot"]
    assert "![topology (aggregate view)](topology.dot)" in (tmp_path / "d" / "fabric.md").read_text()
    with pytest.raises(NetautoError, match="no SU 7"):
        write_docs(default_model, tmp_path / "e", sus=[7], svg=False)
