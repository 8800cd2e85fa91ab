"""The frontend's exit links (`networks.frontend.upstream.links`) as cables: one Link of kind "upstream" per link
(FabricModel.exit_links, built in model/border.py), read by `show cabling` (CSV/JSON), `bom`, `docs` and `plan`.

- the example's four links appear in each, far end = the inventory's `peer` / `peer_port`;
- the BOM counts the switch end by the aggregation switch's cage type and breakout (QSFP28 at 100G: an SR4
  module per port; at 50G the cage is split 2 ways, which optics.yaml has no module for: an error naming
  the cage, not a guess), the cable by bom.cable_length_m.frontend.upstream,
  and lists the router end as the site's (category "site"), never as a transceiver;
- mutations: a link removed from the inventory disappears from cabling, BOM and plan; a link added is exactly
  one cable to add and one aggregation switch whose config changes; a link moved to another cage is a move.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from test_border import copy_with as border_copy

from netauto.bom import bill_of_materials
from netauto.cli.app import cli
from netauto.docs.cluster import write_cluster_docs
from netauto.docs.topology import su_detail_dot
from netauto.growth import Cable, cable_plan, plan, to_text
from netauto.inventory.loader import load_inventory
from netauto.model.types import Link
from netauto.pipeline import resolve_cluster_model

CLUSTER = EXAMPLES / "cluster-64" / "inventory"
LINK1 = "{switch: 1, port: 63, address: 172.31.255.0/31, peer: site-rtr1, peer_port: Ethernet1/1}"
LINK4 = "{switch: 2, port: 64, address: 172.31.255.6/31, peer: site-rtr2, peer_port: Ethernet1/2}"
EXTRA = "{switch: 2, port: 62, address: 172.31.255.8/31, peer: site-rtr3, peer_port: Ethernet2/1}"
QSFP28_100G = "100G QSFP28 100GBASE-SR4"
SITE_100G = "100G port on a site router (the site's optic, not counted)"
EXAMPLE_ROWS = {
    ("fe-agg1", "swp63", "site-rtr1", "Ethernet1/1"), ("fe-agg1", "swp64", "site-rtr2", "Ethernet1/1"),
    ("fe-agg2", "swp63", "site-rtr1", "Ethernet1/2"), ("fe-agg2", "swp64", "site-rtr2", "Ethernet1/2"),
}


def copy_with(tmp: Path, name: str, *edits: tuple[str, str]) -> Path:
    return border_copy(tmp, *edits, dst=tmp / name)


def cluster_of(path: Path):
    loaded = load_inventory(path)
    return loaded, resolve_cluster_model(loaded)  # the resolved model: every link with its length


def bom_of(path: Path) -> dict[tuple[str, str, str, str], int]:
    loaded, cluster = cluster_of(path)
    return {(x.network, x.category, x.item, x.length): x.count for x in bill_of_materials(loaded, cluster)}


def upstream_rows(rows: list[dict[str, str]]) -> set[tuple[str, str, str, str]]:
    return {(r["a_device"], r["a_port"], r["b_device"], r["b_port"]) for r in rows if r["kind"] == "upstream"}


def show_cabling(path: Path, fmt: str) -> str:
    res = CliRunner().invoke(cli, ["show", "cabling", "-i", str(path), "--format", fmt])
    assert res.exit_code == 0, res.output
    return res.output


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("upcabling")


@pytest.fixture(scope="module")
def fewer(tmp):
    """The example without its last upstream link (fe-agg2 swp64 -> site-rtr2 Ethernet1/2)."""
    return copy_with(tmp, "fewer", (f"        - {LINK4}\n", ""))


@pytest.fixture(scope="module")
def more(tmp):
    """The example with one more upstream link: fe-agg2 cage 62 -> site-rtr3 Ethernet2/1."""
    return copy_with(tmp, "more", (f"        - {LINK4}\n", f"        - {LINK4}\n        - {EXTRA}\n"))


def test_model_exit_links_are_the_inventory_links():
    _, cluster = cluster_of(CLUSTER)
    fe = next(p for p in cluster.networks if p.name == "frontend").fabric
    assert {(l.a_device, l.a_port, l.b_device, l.b_port) for l in fe.exit_links} == EXAMPLE_ROWS
    assert {(l.kind, l.speed, l.network, l.enabled) for l in fe.exit_links} == {("upstream", "100G", "frontend", True)}
    # every exit link starts at the port the session uses, and is no fabric link (the lab and the rules read
    # FabricModel.links, whose both ends are devices of the model)
    ports = {(sw.name, p.interface) for sw in fe.switches if sw.bgp.upstream for p in sw.bgp.upstream.peers}
    assert {(l.a_device, l.a_port) for l in fe.exit_links} == ports
    assert not [l for l in fe.links if l.kind == "upstream"]
    assert [l for l in cluster.all_links() if l.kind == "upstream"] == fe.exit_links


def test_show_cabling_csv_and_json(fewer):
    rows = list(csv.DictReader(io.StringIO(show_cabling(CLUSTER, "csv"))))
    assert upstream_rows(rows) == EXAMPLE_ROWS
    assert {(r["speed"], r["state"], r["network"]) for r in rows if r["kind"] == "upstream"} == \
        {("100G", "enabled", "frontend")}
    assert upstream_rows(json.loads(show_cabling(CLUSTER, "json"))) == EXAMPLE_ROWS
    # mutation: the link removed from the inventory is gone from the cabling plan, nothing else changes
    fewer_rows = list(csv.DictReader(io.StringIO(show_cabling(fewer, "csv"))))
    assert upstream_rows(fewer_rows) == EXAMPLE_ROWS - {("fe-agg2", "swp64", "site-rtr2", "Ethernet1/2")}
    assert len(fewer_rows) == len(rows) - 1


def test_bom_switch_end_cable_and_site_end(fewer):
    bom = bom_of(CLUSTER)
    # SN4600C cage 63/64 is QSFP28 (optics.yaml), 1 x 100G: one SR4 module per link on the switch side only
    assert bom[("frontend", "transceiver", QSFP28_100G, "")] == (4 * 10 + 2 * 2) * 2 + 4 == 92
    assert bom[("frontend", "cable", "MPO-12 MMF OM4", "50 m")] == 4  # bom.cable_length_m.frontend.upstream: 50
    assert bom[("frontend", "site", SITE_100G, "")] == 4
    assert not [k for k in bom if k[1] == "transceiver" and "site" in k[2]]
    assert bom[("total", "transceiver", QSFP28_100G, "")] == 92 and bom[("total", "site", SITE_100G, "")] == 4
    # mutation: one link fewer, one module, one cable and one site port fewer
    less = bom_of(fewer)
    assert less[("frontend", "transceiver", QSFP28_100G, "")] == 91
    assert less[("frontend", "cable", "MPO-12 MMF OM4", "50 m")] == 3 and less[("frontend", "site", SITE_100G, "")] == 3


def test_bom_reads_the_port_breakout(tmp):
    """At 50G the SN4600C splits the QSFP28 cage 2 ways (platform.json 2x50G); optics.yaml has no module for a
    split QSFP28 cage, so the BOM names the cage and breakout instead of counting a 100G module per link."""
    from netauto.errors import NetautoError

    inv = copy_with(tmp, "fifty", ("      peer_asn: 64900 ", "      speed: 50G\n      peer_asn: 64900 "))
    loaded, cluster = cluster_of(inv)
    agg = next(p for p in cluster.networks if p.name == "frontend").fabric.switch("fe-agg1")
    ports = [i for i in agg.interfaces if i.kind == "upstream"]
    assert {(i.cage, i.breakout, i.subport, i.speed) for i in ports} == {(63, 2, 0, "50G"), (64, 2, 0, "50G")}
    with pytest.raises(NetautoError, match=r"fe-agg1 cage 63 \(QSFP28\): no module for 50G / 2x"):
        bill_of_materials(loaded, cluster)


def test_bom_without_an_upstream_cable_length_buys_the_fabric_length(tmp):
    """No bom.cable_length_m.frontend.upstream: the upstream links are fabric.cable_length_m long (100 m), for the
    bill as for everything else (model.cabling.link_length), not an error of the bill alone."""
    dst = tmp / "nolen"
    shutil.copytree(CLUSTER, dst)
    f = dst / "bom.yaml"
    f.write_text(f.read_text().replace(", upstream: 50}", "}"))
    bom = bom_of(dst)
    assert bom[("frontend", "cable", "MPO-12 MMF OM4", "100 m")] == 4 and ("frontend", "cable", "MPO-12 MMF OM4", "50 m") not in bom


def test_plan_one_more_upstream_link(more):
    p = plan(CLUSTER, more)
    assert [c.text() for c in p.add_cables] == ["fe-agg2 swp62 <-> site-rtr3 Ethernet2/1 (100G, frontend)"]
    assert not p.move_cables and not p.remove_cables and not p.add_devices and not p.remove_devices
    assert set(p.changed_configs) == {"fe-agg2"}
    delta = {(n, c, i, length): d for n, c, i, length, d in p.bom_delta if n == "frontend"}
    assert delta == {("frontend", "transceiver", QSFP28_100G, ""): 1, ("frontend", "cable", "MPO-12 MMF OM4", "50 m"): 1,
                     ("frontend", "site", SITE_100G, ""): 1}
    assert "cables to add: 1" in to_text(p)


def test_plan_one_upstream_link_fewer(fewer):
    p = plan(CLUSTER, fewer)
    assert [c.text() for c in p.remove_cables] == ["fe-agg2 swp64 <-> site-rtr2 Ethernet1/2 (100G, frontend)"]
    assert not p.add_cables and not p.move_cables and set(p.changed_configs) == {"fe-agg2"}


def test_plan_upstream_link_moved_to_another_cage(tmp):
    moved = copy_with(tmp, "moved", (LINK4, LINK4.replace("port: 64", "port: 62")))
    p = plan(CLUSTER, moved)
    assert [m.text() for m in p.move_cables] == ["site-rtr2 Ethernet1/2: from fe-agg2 swp64 to fe-agg2 swp62 (frontend)"]
    assert not p.add_cables and not p.remove_cables and set(p.changed_configs) == {"fe-agg2"}


def test_a_router_end_without_port_anchors_no_move():
    """Two links to one router without `peer_port`: the router end is (router, ""), which is no place a cable
    stays plugged in, so re-cabling the switch end is a remove and an add, never a move from the router."""
    old = [Cable.of(Link("fe-agg1", "swp63", "site-rtr1", "", "100G", "upstream", network="frontend"))]
    new = [Cable.of(Link("fe-agg2", "swp63", "site-rtr1", "", "100G", "upstream", network="frontend"))]
    added, moves, removed, kept = cable_plan(old, new)
    assert (len(added), moves, len(removed), kept) == (1, [], 1, 0)
    assert added[0].text() == "fe-agg2 swp63 <-> site-rtr1 (100G, frontend)"


def test_docs_of_the_frontend(tmp):
    _, cluster = cluster_of(CLUSTER)
    out = tmp / "docs"
    write_cluster_docs(cluster, out, svg=False)
    rows = list(csv.DictReader(io.StringIO((out / "frontend" / "cabling.csv").read_text())))
    assert upstream_rows(rows) == EXAMPLE_ROWS
    assert upstream_rows(list(csv.DictReader(io.StringIO((out / "cabling-cluster.csv").read_text())))) == EXAMPLE_ROWS
    md = (out / "frontend" / "fabric.md").read_text()
    assert "## Exit to the site network" in md and "4 upstream" in md
    assert "| fe-agg1 | swp63 | cage 63 | site-rtr1 | Ethernet1/1 | 100G | 172.31.255.0/31 | 172.31.255.1 | 64900 |" in md
    dot = (out / "frontend" / "topology.dot").read_text()
    assert "site-rtr1" in dot and 'site -- pod1_spines [label="4 x 100G"' in dot
    detail = su_detail_dot(next(p for p in cluster.networks if p.name == "frontend").fabric, 1)
    assert 'site -- "fe-agg1" [label="2 x 100G"' in detail and 'site -- "fe-agg2" [label="2 x 100G"' in detail
    # the networks without an exit have no such section and no site node
    assert "Exit to the site network" not in (out / "storage" / "fabric.md").read_text()
    assert "site --" not in (out / "storage" / "topology.dot").read_text()
