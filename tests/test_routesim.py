"""Offline BGP route simulation: full reachability, reduced ECMP, blackholes, drains."""

from __future__ import annotations

from pathlib import Path


from netauto.pipeline import render
from netauto.validate.files import FileSet
from netauto.validate.routesim import originated, build_graph, simulate
from netauto.validate.view import build_view

from _validate_helpers import FRR, IFACES, INVENTORY, NVUE, ROOT, Tree, has, rendered, render_to, show, tree  # noqa: F401

LEAF, LEAF3 = "su1-r0-leaf", "su1-r3-leaf"



def _view(inventory: Path):
    model, artifacts = render(inventory)
    return build_view(model, FileSet.from_artifacts(artifacts))


def test_clean_fabric_full_reachability_full_ecmp():
    sim = simulate(_view(INVENTORY))
    assert sim.findings == []
    assert sim.unreachable == 0 and sim.pairs == 8 * 7 and sim.sessions == 64
    assert set(sim.leaf_width.values()) == {(8, 8, 8)}  # 4 spines x 2 links


def test_leaves_originate_their_rail_block_only():
    view = _view(INVENTORY)
    nodes = build_graph(view, [])
    assert {str(n) for n in originated(nodes[LEAF])} == {"10.254.0.1/32", "10.0.0.0/24"}  # /31s summarised
    assert {str(n) for n in originated(nodes["spine1"])} == {"10.253.0.1/32"}


def test_leaf_subnet_fabric_with_disabled_port_is_clean():
    sim = simulate(_view(ROOT / "examples/2su-leaf-subnet/inventory"))
    assert sim.unreachable == 0
    assert [f for f in sim.findings if f.severity != "info"] == [], "\n".join(map(str, sim.findings))


def test_one_link_missing_reports_reduced_ecmp(tree: Tree):
    stanza = tree.path(LEAF, IFACES).read_text().split("iface swp33s0\n")[1].split("\n\n")[0]
    tree.replace(LEAF, IFACES, "iface swp33s0\n" + stanza, "iface swp33s0\n" + stanza + "\n    link-down yes")
    tree.replace(LEAF, NVUE, "spine1 swp1s0\n        link:\n          mtu: 9216\n          speed: 400G\n          fec: rs\n          state:\n            up: {}",
                 "spine1 swp1s0\n        link:\n          mtu: 9216\n          speed: 400G\n          fec: rs\n          state:\n            down: {}")
    result = tree.validate()
    assert has(result, "SIM-02", LEAF, "reduced ECMP: width 7 of 8 uplinks towards 7 rail subnet(s)"), show(result)
    assert result.sim.unreachable == 0 and result.sim.leaf_width[LEAF] == (7, 7, 8)
    assert result.sim.leaf_width["su1-r1-leaf"] == (8, 8, 8)  # spine1 still reaches su1-r0-leaf over its 2nd link
    assert not any(f.rule == "SIM-01" for f in result.findings)


def test_misconfigured_leaf_is_a_blackhole(tree: Tree):
    tree.replace(LEAF3, FRR, "ip prefix-list HOSTLINKS seq 10 permit 10.3.0.0/24 le 32",
                 "ip prefix-list HOSTLINKS seq 10 permit 10.30.0.0/24 le 32")
    result = tree.validate()
    assert has(result, "SIM-01", LEAF3, "blackhole: rail subnet 10.3.0.0/24 of su1-r3-leaf unreachable from 7 leaf(s)"), show(result)
    assert result.sim.unreachable == 7
    assert result.exit_code() == 1


def test_leaf_without_sessions_reaches_nothing(tree: Tree):
    tree.replace(LEAF, FRR, "router bgp 65101", "router bgp 65100")  # the spines' AS: eBGP sessions never come up
    result = tree.validate()
    assert has(result, "SIM-01", LEAF, "blackhole: reaches none of the other 7 leaves' rail subnets (no BGP session up)"), show(result)
    assert has(result, "SIM-01", LEAF, "rail subnet 10.0.0.0/24 of su1-r0-leaf unreachable from 7 leaf(s)"), show(result)


def test_drain_spine_keeps_reachability_with_reduced_width():
    sim = simulate(_view(INVENTORY), drain=["spine1"])
    assert sim.unreachable == 0
    assert set(sim.leaf_width.values()) == {(6, 6, 8)}
    assert all(f.severity == "info" for f in sim.findings)
    assert any("still full reachability" in n for n in sim.notes)


def test_drain_all_spines_still_reachable_via_lp0_paths():
    sim = simulate(_view(INVENTORY), drain=["spine1", "spine2", "spine3", "spine4"])
    assert sim.unreachable == 0  # GSHUT only de-prefers; with every spine drained the lp-0 paths are used
    assert set(sim.leaf_width.values()) == {(8, 8, 8)}


def test_three_tier_cross_pod_ecmp_and_loop_prevention(tmp_path: Path):
    import shutil

    import yaml

    inv = tmp_path / "inv"
    shutil.copytree(ROOT / "examples/10k-3tier/inventory", inv)
    for f in inv.glob("*.yaml"):
        data = yaml.safe_load(f.read_text())
        if "topology" in data:
            data["topology"].update(rails=2, servers_per_su=2, sus_per_pod=2, pods=2, spines_per_pod=2,
                                    super_spines_per_group=2, spine_super_spine_links=2, leaf_spine_links=1)
        if "servers" in data:
            data["servers"].update(nics=["rail0", "rail1"], rdma_devices=["mlx5_0", "mlx5_1"])
            if "pci" in data["servers"]:
                data["servers"]["pci"] = data["servers"]["pci"][:2]
        f.write_text(yaml.safe_dump(data, sort_keys=False))
    view = _view(inv)
    sim = simulate(view)
    assert sim.unreachable == 0 and sim.findings == [], "\n".join(map(str, sim.findings))
    assert set(sim.leaf_width.values()) == {(2, 2, 2)}
    # cut one leaf's uplink to spine 1 of its pod: leaves of that pod lose that spine towards it
    leaf = view.model.switches[-1]
    port = leaf.fabric_ports[0]
    view.switches[leaf.name].ports[port.name].up = False
    sim = simulate(view)
    assert sim.unreachable == 0
    assert any(f.rule == "SIM-02" and f.device == leaf.name and "width 1 of 2" in f.message for f in sim.findings)
    # same-pod leaves reach it only through the other spine: the cut spine cannot learn it back via the
    # super-spines (its own pod AS is already in the path)
    pod_peers = [s.name for s in view.model.switches if s.role == "leaf" and s.pod == leaf.pod and s.name != leaf.name]
    assert any(f.rule == "SIM-02" and f.device in pod_peers for f in sim.findings), "\n".join(map(str, sim.findings))
