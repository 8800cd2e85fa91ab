"""Compute planes (docs/compute-planes.md): every plane another compute fabric by the same builder; the 2-plane
example and a 4-plane variant rendered and validated; the refusals in one line; the cabling plan's plane column."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES

from netauto.model.compute_planes import plane_of
from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster
from netauto.validate.api import errors_for

TWO = EXAMPLES / "b300-2plane" / "inventory"


def _doc() -> dict:
    return yaml.safe_load((TWO / "fabric.yaml").read_text())


def _write(tmp_path: Path, doc: dict) -> Path:
    inv = tmp_path / "inventory"
    inv.mkdir()
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return inv


def four_plane(tmp_path: Path) -> Path:
    """The example as a quad-plane B300 (4 x 200G per ConnectX-8): 4 ports per NIC, a /17 per rail and plane."""
    doc = _doc()
    doc["topology"]["compute_planes"]["count"] = 4
    doc["fabric"]["host_link_speed"] = "200G"
    doc["topology"]["leaf_spine_links"] = 1  # 4 x 200G down, 2 x 400G up
    doc["addressing"]["host_links"]["rail_prefix_len"] = 17
    for nic in doc["servers"]["profiles"]["b300"]["nics"]:
        r = nic["rail"]
        bus = nic["pci"][:-1]  # a PF per plane: functions .0 .. .3 of the NIC
        nic["plane_ports"] = {p: {"name": f"r{r}p{p}", "rdma": f"mlx5_{4 * r + p - 1}", "pci": f"{bus}{p - 1}"}
                              for p in (2, 3, 4)}
        nic["rdma"] = f"mlx5_{4 * r}"
    return _write(tmp_path, doc)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "netauto", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def two():
    return build_cluster(TWO)


def _planes(cluster) -> list:
    return cluster.compute_fabrics()


def test_two_planes_are_two_whole_fabrics(two):
    p1, p2 = _planes(two)
    assert [len(p.switches) for p in (p1, p2)] == [10, 10]
    assert all(s.name.startswith("p1-") for s in p1.switches) and all(s.name.startswith("p2-") for s in p2.switches)
    assert [s.name for s in p1.servers] == [s.name for s in p2.servers]  # one server, on every plane
    # per-plane pools by formula: plane p takes part p of each pool; management addresses one after the other
    lo1 = {s.loopback.split("/")[0] for s in p1.switches}
    lo2 = {s.loopback.split("/")[0] for s in p2.switches}
    assert not lo1 & lo2
    mg = [s.mgmt_address for s in p1.switches + p2.switches]
    assert len(set(mg)) == 20 and all(m.endswith("/24") for m in mg)
    assert p1.servers[0].rails[0].ip.startswith("10.0.") and p2.servers[0].rails[0].ip.startswith("10.8.")
    tables = [r.table for p in (p1, p2) for r in p.servers[0].rails]
    assert len(set(tables)) == 16



def test_three_tier_planes_name_super_spines_by_group(tmp_path):
    """Spine j of every pod and its super-spines form group j (the word plane is the compute plane's): a three-tier
    two-plane fabric's super-spines are p<p>-group<j>-superspine<i>, in ansible group super_spine_group<j>."""
    from netauto.export.ansible import ansible_inventory

    doc = _doc()
    doc["topology"].update(pods=2, super_spines_per_group=2)
    doc["asns"] = {"leaf_base": 65101, "spine_base": 65050, "super_spine": 65000}
    doc["naming"].update(spine="pod{pod}-spine{index}", server="su{su}-gpu{index:02d}")
    inv = _write(tmp_path, doc)
    cluster = build_cluster(inv)
    for p, fab in enumerate(cluster.compute_fabrics(), start=1):
        supers = {s.name: s.group for s in fab.switches if s.role == "super_spine"}
        assert supers == {f"p{p}-group{j}-superspine{i}": j for j in (1, 2) for i in (1, 2)}, supers
        assert not [s.name for s in fab.switches if "plane" in s.name.removeprefix(f"p{p}-")]
    children = ansible_inventory(cluster, source=inv, render_out=tmp_path / "out")["all"]["children"]
    group2 = children["super_spine_group2"]["hosts"]
    assert sorted(group2) == ["p1-group2-superspine1", "p1-group2-superspine2", "p2-group2-superspine1",
                              "p2-group2-superspine2"]
    assert children["switches"]["children"]["super_spine"]["hosts"]["p2-group2-superspine1"]["netauto_group"] == 2

def test_no_link_joins_two_planes_and_each_port_on_one_plane(two):
    switch_plane = {s.name: plane_of(net) for net, fab in two.fabrics() for s in fab.switches}
    for link in two.all_links():
        ends = {switch_plane[d] for d in (link.a_device, link.b_device) if d in switch_plane}
        assert ends == {plane_of(link.network)}, link
    ports = [(s.name, r.nic) for fab in _planes(two) for s in fab.servers for r in s.rails]
    assert len(ports) == len(set(ports)) == 4 * 8 * 2


def test_nccl_spreads_over_every_plane_port(two):
    hca = two.compute.servers[0].nccl.ib_hca
    assert hca == "=" + ",".join(f"mlx5_{i}:1" for i in range(16))
    assert two.compute.servers[0].nccl.addr_range == "10.0.0.0/12"  # both planes' host links


def test_cabling_csv_plane_column():
    proc = _cli("show", "cabling", "-i", str(TWO), "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert rows and list(rows[0])[-1] == "plane"
    assert {r["plane"] for r in rows} == {"1", "2"}
    for r in rows:
        leaf = r["a_device"] if r["a_device"].startswith("p") else r["b_device"]
        assert leaf.startswith(f"p{r['plane']}-"), r


def test_two_planes_validate_clean(two):
    assert errors_for(two, list(render_cluster(two))) == []


def test_four_planes_render_and_validate(tmp_path):
    cluster = build_cluster(four_plane(tmp_path))
    fabs = _planes(cluster)
    assert len(fabs) == 4 and {len(f.switches) for f in fabs} == {10}
    arts = list(render_cluster(cluster))
    paths = {(a.device, a.path) for a in arts}
    for p in (2, 3, 4):
        assert ("b300-01", f"etc/netplan/61-compute-p{p}.yaml") in paths
    assert errors_for(cluster, arts, external=False) == []


def test_a_cable_between_planes_is_named(two, tmp_path):
    cluster = build_cluster(TWO)
    link = next(l for l in cluster.compute_planes[0].links if l.kind == "leaf-spine")
    link.b_device = "p1-spine1"  # a plane-2 leaf cabled to a plane-1 spine
    errors = errors_for(cluster, list(render_cluster(cluster)), external=False)
    assert any(e.startswith("PLANE-02") and "p1-spine1" in e and "compute-p2" in e for e in errors), errors


def test_qos_and_ar_identical_across_planes():
    cluster = build_cluster(TWO)
    for sw in cluster.compute_planes[0].switches:
        sw.adaptive_routing = False
    errors = errors_for(cluster, list(render_cluster(cluster)), external=False)
    assert any(e.startswith("CPLANE-01 p2-su1-r0-leaf") for e in errors), errors


@pytest.mark.parametrize(("edit", "key", "text"), [
    (lambda d: d["servers"]["profiles"]["b300"].update(nic_kind="connectx-7"), "servers.profiles.b300.nics[0]",
     "a ConnectX-7 cannot be split into 2 compute planes"),
    (lambda d: d["topology"]["compute_planes"].update(balancing="none"), "topology.compute_planes.balancing",
     "2 compute plane(s) with balancing 'none'"),
    (lambda d: d["servers"]["profiles"]["b300"]["nics"][1].pop("plane_ports"), "servers.profiles.b300.nics[1]",
     "rail 1 names its ports on planes none"),
    (lambda d: d["servers"]["profiles"]["b300"]["nics"][2]["plane_ports"][2].update(rdma="mlx5_0"),
     "servers.profiles.b300.nics[2]", "each NIC port is on exactly one plane"),
    # plane_ports with no compute_planes: the fabric would be one plane and the plane-2 ports silently dropped
    (lambda d: d["topology"].pop("compute_planes"), "servers.profiles.b300.nics[0]",
     "rail 0 names its ports on planes [2], but the fabric has one compute plane"),
    # two plane PFs at one PCI function: udev would give one device two names and the other plane no port
    (lambda d: d["servers"]["profiles"]["b300"]["nics"][1]["plane_ports"][2].update(pci="0000:03:00.1"),
     "servers.profiles.b300.nics[1]", "port '0000:03:00.1' is on plane 2 (rail 1) and also plane 2 (rail 0)"),
    (lambda d: d["servers"]["profiles"]["b300"]["nics"][0]["plane_ports"][2].update(pci="0000:03:00.0"),
     "servers.profiles.b300.nics[0]", "port '0000:03:00.0' is on plane 2 (rail 0) and also plane 1 (rail 0)"),
    (lambda d: d["topology"]["compute_planes"].update(balancing="hwplb"), "topology.compute_planes.balancing",
     "balancing hwplb is refused: its hosts' rail data path (switchdev e-switch with esw_multiport over the plane "
     "PFs, an OVS bridge per rail, xPlane) is NVIDIA's Spectrum-X Operator's"),
    (lambda d: (d["topology"]["compute_planes"].update(balancing="hwplb"),
                d["servers"]["profiles"]["b300"].update(nic_kind="connectx-7")), "servers.profiles.b300.nics[0]",
     "a ConnectX-7 cannot balance compute planes in the NIC (hwplb: NIC LAG over its plane ports); it runs: none"),
    (lambda d: d.update(tenants={"vni_pool": {"first": 104000, "last": 104999}, "route_target_asn": 65000,
                                 "members": {"acme": {"servers": ["b300-01"]}}}), "tenants",
     "not rendered for compute planes yet"),
])
def test_refused_in_one_line(tmp_path, edit, key, text):
    doc = _doc()
    edit(doc)
    proc = _cli("show", "cabling", "-i", str(_write(tmp_path, doc)))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert key in lines[0] and text in lines[0], lines[0]


STORAGE = {"storage": {
    "role": "storage", "qos": "lossless", "nos": "cumulus", "host_link_speed": "200G", "fabric_link_speed": "400G",
    "servers_per_leaf": 40, "spines": 2, "leaf_spine_links": 10, "table_base": 110, "rule_priority_base": 1100,
    "ports": {"leaf": {"cages": 64, "downlinks_first": 1, "downlinks_breakout": 4, "uplinks_first": 33,
                       "uplinks_breakout": 2},
              "spine": {"cages": 64, "downlinks_first": 1, "downlinks_breakout": 2, "uplinks_first": 33}},
    "naming": {"leaf": "st-g{group}-leaf{rail}", "spine": "st-spine{index}"},
    "addressing": {"leaf_loopbacks": "10.250.0.0/24", "spine_loopbacks": "10.250.1.0/24", "host_pool": "10.16.0.0/15",
                   "nic_prefix_len": 16, "leaf_prefix_len": 24, "switch_mgmt_pool": "192.168.202.0/24"},
    "asns": {"leaf_base": 65201, "spine": 65200},
    "attach": [{"servers": "compute", "nics": ["stor0", "stor1"], "rdma_devices": ["mlx5_16", "mlx5_17"],
                "pci": ["0000:29:00.0", "0000:aa:00.0"]}]}}


def test_a_network_table_inside_plane_2s_tables_is_refused(tmp_path):
    """Plane 2's rails take tables 109..116 (after plane 1's 101..108): a storage network at table_base 110 would put
    its NICs' routes into plane 2's rail 2 and 3 tables (one table, two ports' default routes)."""
    doc = _doc()
    doc["networks"] = STORAGE
    proc = _cli("show", "cabling", "-i", str(_write(tmp_path, doc)))
    assert proc.returncode == 2, proc.stdout[-300:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "networks.storage.table_base" in lines[0], proc.stderr
    assert "routing table 111 is also used by servers.table_base (compute plane 2)" in lines[0], lines[0]
    doc["networks"]["storage"]["table_base"] = 116  # after both planes' tables: accepted
    (tmp_path / "ok").mkdir()
    assert _cli("show", "cabling", "-i", str(_write(tmp_path / "ok", doc))).returncode == 0


@pytest.mark.parametrize(("attach", "value", "shown"), [
    ({"nics": ["r0p2", "stor1"]}, "r0p2", "NIC r0p2"),
    ({"rdma_devices": ["mlx5_1", "mlx5_17"]}, "mlx5_1", "RDMA device mlx5_1"),
    ({"pci": ["0000:03:00.1", "0000:aa:00.0"]}, "0000:03:00.1", "PCI address 0000:03:00.1"),
])
def test_a_network_nic_on_a_plane_2_port_is_named(tmp_path, attach, value, shown):
    """PLANE-07 on a fabric of planes: a storage NIC that is rail 0's plane-2 port (its name, RDMA device or PF) is
    refused as one on a plane-1 port is (GPUDirect Storage into plane 2, two QoS units on one port)."""
    doc = _doc()
    doc["networks"] = {"storage": {**STORAGE["storage"], "table_base": 120}}
    doc["networks"]["storage"]["attach"] = [{**doc["networks"]["storage"]["attach"][0], **attach}]
    cluster = build_cluster(_write(tmp_path, doc))
    errors = errors_for(cluster, list(render_cluster(cluster)), external=False)
    assert f"PLANE-07 b300-01: {shown} serves both the compute-p2 and the storage network" in " ".join(errors), errors


@pytest.mark.parametrize("path", ["etc/netplan/60-rails.yaml", "etc/netplan/61-compute-p2.yaml"])
def test_a_default_route_on_any_plane_port_is_named(tmp_path, path):
    """PLANE-05 on every plane: a hand-added default route on a plane-2 port sends the host's traffic into plane 2
    (only the frontend network carries it); plane 1's was named, plane 2's was a DRIFT warning only."""
    doc = _doc()
    doc["networks"] = {"storage": {**STORAGE["storage"], "table_base": 120}}
    cluster = build_cluster(_write(tmp_path, doc))
    arts = list(render_cluster(cluster))
    i = next(i for i, a in enumerate(arts) if (a.device, a.path) == ("b300-02", path))
    head, _, tail = arts[i].content.partition("      routes:\n")
    assert tail, arts[i].content
    via = tail.split("via: ", 1)[1].split()[0]
    arts[i] = replace(arts[i], content=f"{head}      routes:\n        - to: default\n          via: {via}\n{tail}")
    errors = errors_for(cluster, arts, external=False)
    assert any(e.startswith("PLANE-05 b300-02") and "installs a default route" in e and path in e
               for e in errors), errors


def test_an_absent_server_named_like_a_plane_is_absent_on_every_plane(tmp_path):
    """Servers named by pod (`p{pod}-gpu..`) start like a plane's switches (`p1-`): an override of such a server was
    taken for a plane-1 switch's and dropped from plane 2, so p1-gpu02 was absent on plane 1 and cabled on plane 2."""
    doc = _doc()
    doc["naming"]["server"] = "p{pod}-gpu{index:02d}"
    doc["overrides"] = {"devices": {"p1-gpu02": {"absent": True}}, "ports": []}
    cluster = build_cluster(_write(tmp_path, doc))
    for net, fab in cluster.fabrics():
        assert "p1-gpu02" not in {s.name for s in fab.servers}, net
        assert not [l for l in fab.links if "p1-gpu02" in (l.a_device, l.b_device) and l.enabled], net


def test_per_server_macs_of_every_plane_port(tmp_path):
    """servers.hosts.<server>.macs names ports of every plane: each plane's netplan matches its own ports by MAC
    (plane 1's MAC was refused by plane 2's build and the other way round); a name on no plane is still refused."""
    doc = _doc()
    doc["servers"]["hosts"] = {"b300-01": {"macs": {"r0p1": "b8:3f:d2:00:00:01", "r0p2": "b8:3f:d2:00:00:02"}}}
    cluster = build_cluster(_write(tmp_path, doc))
    text = {(a.device, a.path): a.content for a in render_cluster(cluster)}
    p1, p2 = (yaml.safe_load(text[("b300-01", f"etc/netplan/{f}.yaml")])["network"]["ethernets"]
              for f in ("60-rails", "61-compute-p2"))
    assert p1["r0p1"]["match"] == {"macaddress": "b8:3f:d2:00:00:01"} and "match" not in p1["r1p1"]
    assert p2["r0p2"]["match"] == {"macaddress": "b8:3f:d2:00:00:02"} and "match" not in p2["r1p2"]
    doc["servers"]["hosts"]["b300-01"]["macs"]["r9p9"] = "b8:3f:d2:00:00:03"
    (tmp_path / "bad").mkdir()
    proc = _cli("show", "cabling", "-i", str(_write(tmp_path / "bad", doc)))
    assert proc.returncode == 2 and "servers.hosts.b300-01.macs.r9p9" in proc.stderr, proc.stderr


@pytest.mark.parametrize(("edit", "text"), [
    ({"table: 109": "table: 101"}, "routing table 101 of r0p2 (compute-p2) is also r0p1's (compute)"),
    ({"priority: 1009": "priority: 1001"}, "rule priority 1001 of r0p2 (compute-p2) is also r0p1's (compute)"),
])
def test_a_plane_2_port_in_a_plane_1_table_is_named(two, edit, text):
    """HOST-02 reads one netplan file: plane 2's r0p2 routed through plane 1's table 101 (its plane-2 routes in r0p1's
    table, both `from` rules into it) was a DRIFT warning only."""
    arts = list(render_cluster(two))
    i = next(i for i, a in enumerate(arts) if (a.device, a.path) == ("b300-01", "etc/netplan/61-compute-p2.yaml"))
    content = arts[i].content
    for old, new in edit.items():
        assert old in content
        content = content.replace(old, new)
    arts[i] = replace(arts[i], content=content)
    errors = errors_for(two, arts, external=False)
    assert any(e.startswith("CPLANE-02 b300-01") and text in e and "61-compute-p2.yaml" in e for e in errors), errors


@pytest.mark.parametrize(("count", "speed", "text"), [
    (4, "400G", "a ConnectX-8 SuperNIC split into 4 compute planes has 200G ports; fabric.host_link_speed is 400G"),
    (2, "800G", "a ConnectX-8 SuperNIC split into 2 compute planes has 400G ports; fabric.host_link_speed is 800G"),
])
def test_host_links_faster_than_a_plane_port_are_refused(tmp_path, count, speed, text):
    """platforms/data/nics.yaml plane_port_speed (800G, 2 x 400G, 4 x 200G): a quad-plane fabric cabled at 400G
    per plane port validated clean although the NIC cannot run it."""
    inv = four_plane(tmp_path) if count == 4 else _write(tmp_path, _doc())
    doc = yaml.safe_load((inv / "fabric.yaml").read_text())
    doc["fabric"]["host_link_speed"] = speed
    doc["topology"]["leaf_spine_links"] = 2 if count == 4 else 4
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    proc = _cli("show", "cabling", "-i", str(inv))
    assert proc.returncode == 2, proc.stdout[-300:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "fabric.host_link_speed" in lines[0] and text in lines[0], proc.stderr


def test_hwplb_refusal_points_at_its_documented_boundary(tmp_path):
    """The hwplb refusal names the docs section that says what is missing, who owns the host side and with which
    sources; the section exists and carries them (a refusal pointing at nothing is no explanation)."""
    doc = _doc()
    doc["topology"]["compute_planes"]["balancing"] = "hwplb"
    proc = _cli("show", "cabling", "-i", str(_write(tmp_path, doc)))
    assert proc.returncode == 2, proc.stderr
    heading = "## Why hwplb is refused"
    assert f'docs/compute-planes.md, "{heading[3:]}"' in proc.stderr, proc.stderr
    page = (Path(__file__).parents[1] / "docs" / "compute-planes.md").read_text()
    assert heading in page.splitlines()
    section = page.split(heading, 1)[1].split("\n## ", 1)[0]
    for source in ("quick-start-hwplb.html", "Mellanox/network-operator-docs", "perNodeNetworkPrefix: 31",
                   "Mellanox/spectrum-x-operator", "internal/controller/flows.go",
                   "esw_multiport", "not verified"):
        assert source in section, source


def test_incremental_render_of_a_plane_2_edit_equals_a_cold_render(tmp_path):
    """An override of a plane-2 leaf re-renders that leaf (and what reads it) incrementally, byte for byte as a
    cold render: the compute planes are networks of the incremental renderer too."""
    from test_output_incremental import _manifest, _render, _tree

    inv = tmp_path / "inv"
    doc = _doc()
    inv.mkdir()
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    out = tmp_path / "out"
    _render(tmp_path, inv, out)
    before = _tree(out / "gpu-b300")
    doc["overrides"] = {"devices": {"p2-su1-r3-leaf": {"mgmt_ip": "192.168.200.99"}}}
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    line = _render(tmp_path, inv, out)
    cold = tmp_path / "cold"
    _render(tmp_path / "c", inv, cold)
    after = _tree(out / "gpu-b300")
    assert after == _tree(cold / "gpu-b300") and _manifest(out / "gpu-b300")["files"] == _manifest(cold / "gpu-b300")["files"]
    changed = {rel.split("/")[0] for rel in after if before.get(rel) != after[rel]}
    assert "p2-su1-r3-leaf" in changed and not any(d.startswith("p1-") for d in changed), changed
    assert "unchanged" in line, line


def test_ansible_and_bom_carry_every_plane(two):
    from netauto.export.ansible import ansible_inventory

    data = ansible_inventory(two, source=TWO, render_out=Path("/tmp/out"))
    children = data["all"]["children"]
    assert sorted(children["compute_plane2"]["hosts"]) == sorted(s.name for s in two.compute_planes[0].switches)
    assert len(children["switches"]["children"]["leaf"]["hosts"]) == 16
    files = {f["path"] for f in children["gpu_servers"]["hosts"]["b300-01"]["netauto_files"]}
    assert "etc/netplan/61-compute-p2.yaml" in files and "etc/netplan/60-rails.yaml" in files
    proc = _cli("bom", "-i", str(TWO))
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    per = {(r["network"], r["item"]): r["count"] for r in rows if r["category"] == "switch"}
    assert per[("compute", "SN5600 leaf")] == per[("compute-p2", "SN5600 leaf")] == "8"
    assert per[("total", "SN5600 leaf")] == "16"


def test_draining_a_plane_1_spine_touches_plane_1_only(tmp_path):
    """features.gshut.drain names a plane-1 spine: only plane-1 devices' files change (the drain list reaches
    each plane's build filtered by the plane's name prefix)."""
    doc = _doc()
    base = {(a.device, a.path): a.content for a in render_cluster(build_cluster(_write(tmp_path, doc)))}
    doc.setdefault("features", {})["gshut"] = {"drain": ["p1-spine1"]}
    (tmp_path / "d").mkdir()
    drained = {(a.device, a.path): a.content for a in render_cluster(build_cluster(_write(tmp_path / "d", doc)))}
    changed = {dev for key, text in drained.items() if base.get(key) != text for dev in [key[0]]}
    switches = {d for d in changed if d.startswith(("p1-", "p2-"))}
    assert "p1-spine1" in switches and all(d.startswith("p1-") for d in switches), changed


def test_fabric_docs_of_every_plane(tmp_path):
    proc = _cli("docs", "-i", str(TWO), "-o", str(tmp_path / "docs"), "--no-svg")
    assert proc.returncode == 0, proc.stderr
    p2 = (tmp_path / "docs" / "compute-p2" / "fabric.md").read_text()
    assert "p2-su1-r0-leaf" in p2 and "p1-su1-r0-leaf" not in p2
    cables = (tmp_path / "docs" / "cabling-cluster.csv").read_text()
    assert "p2-spine1" in cables and "p1-spine1" in cables


def test_deploy_targets_group_every_plane(two):
    """deploy/verify/drain's targets: each plane's switches in their SU and pod groups and network_compute-p<p>, so
    `--limit network=compute-p2` picks plane 2 only; a plane-1 spine's drain waits on plane-1 leaves only."""
    from netauto.deploy.run import select
    from netauto.deploy.targets import build_targets

    targets = build_targets(two, list(render_cluster(two)))
    p1, p2 = two.compute_fabrics()
    assert set(select(targets, "network=compute-p2,&switches")) == {s.name for s in p2.switches}
    assert set(select(targets, "network=compute,&switches")) == {s.name for s in p1.switches}
    assert set(select(targets, "su_1,&role_leaf")) == {s.name for f in (p1, p2) for s in f.switches if s.role == "leaf"}
    assert set(targets["p1-spine1"].facing) == {s.name for s in p1.switches if s.role == "leaf"}
    assert set(targets["p2-spine1"].facing) == {s.name for s in p2.switches if s.role == "leaf"}
