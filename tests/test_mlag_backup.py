"""MLAG backup off the peerlink (issue 23 item 3): the OOB aggregation pair gets an eth0-to-eth0 cable in the
mgmt VRF for its backup IP (as the frontend pairs use eth0), and MLAG-02 refuses a backup IP that is the peer's
SVI (reachable only over the peerlink) on the OOB pair and on the frontend pairs."""

from __future__ import annotations

from pathlib import Path

from _validate_helpers import NVUE, Tree, show
from conftest import EXAMPLES

from netauto.formats import fastyaml
from netauto.inventory.loader import load_inventory
from netauto.pipeline import build, resolve_cluster_model, validate
from netauto.render.output import write_tree

CLUSTER = EXAMPLES / "cluster-64" / "inventory"
IFACES = "etc/network/interfaces"


def _tree(tmp_path: Path) -> Tree:
    built = build(CLUSTER)
    write_tree(built.artifacts, tmp_path / "out" / built.model.name, manifest=False)
    return Tree(tmp_path / "out", tmp_path / "configs", fabric=built.model.name)


def _mlag02(tree: Tree) -> list:
    result = validate(CLUSTER, configs=tree.root, external=False, simulate=False)
    return [f for f in result.findings if f.rule == "MLAG-02"], result


def test_every_rendered_mlag_pair_backs_up_over_eth0_not_the_peerlink():
    cluster = resolve_cluster_model(load_inventory(CLUSTER))
    pairs = [s for s in cluster.oob.switches if s.mlag] + [s for s in cluster.all_switches() if s.mlag]
    assert len(pairs) >= 4  # the OOB aggregation pair and the frontend access pairs
    svi_ips = {str(a).split("/")[0] for s in cluster.oob.switches for v in s.svis for a in (v.address,)}
    for sw in pairs:
        assert sw.mlag.backup_vrf == "mgmt", sw.name
        assert sw.mlag.backup_ip not in svi_ips, sw.name
    aggs = [s for s in cluster.oob.switches if s.mlag]
    assert {s.backup_address for s in aggs} == {"169.254.253.1/30", "169.254.253.2/30"}
    assert any(link.kind == "mlag-backup" and {link.a_port, link.b_port} == {"eth0"} for link in cluster.oob.links)


def test_rendered_fabric_passes_mlag02(tmp_path: Path):
    found, result = _mlag02(_tree(tmp_path))
    assert not found, show(result)


def test_oob_backup_on_the_peers_svi_is_refused(tmp_path: Path):
    """The old rendering: the backup IP was the peer's vlan SVI address, reachable only over the peerlink."""
    tree = _tree(tmp_path)
    peer = fastyaml.load(tree.path("oob-agg2", NVUE).read_text(), yaml12=True)[0]["set"]
    svi = next(n for n, node in peer["interface"].items() if node.get("type") == "svi")
    svi_ip = next(iter(peer["interface"][svi]["ip"]["address"])).split("/")[0]
    tree.nvue("oob-agg1", "mlag", "backup", value={svi_ip: {}})
    found, result = _mlag02(tree)
    assert [f.device for f in found] == ["oob-agg1"], show(result)
    assert "reachable only over the peerlink" in found[0].message and svi in found[0].message


def test_frontend_backup_on_the_peers_svi_is_refused(tmp_path: Path):
    tree = _tree(tmp_path)
    cluster = resolve_cluster_model(load_inventory(CLUSTER))
    sw = next(s for s in cluster.all_switches() if s.mlag and s.svi)
    peer = next(s for s in cluster.all_switches() if s.name == sw.mlag.peer)
    tree.nvue(sw.name, "mlag", "backup", value={peer.svi.address.split("/")[0]: {}})
    found, result = _mlag02(tree)
    assert sw.name in {f.device for f in found}, show(result)
