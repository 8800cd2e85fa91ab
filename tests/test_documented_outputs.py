"""What the tool prints says what it did (issue 40 item 5): `lab up` does not call rendered networks
unrendered, and `export ansible` counts every switch it wrote (the OOB switches too)."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner
from conftest import EXAMPLES

from netauto.cli.app import cli
from netauto.lab.networks import build_cluster_plan
from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster

CLUSTER = EXAMPLES / "cluster-64" / "inventory"


def test_lab_note_says_bonds_and_oob_are_rendered_but_not_labbed() -> None:
    cluster = build_cluster(CLUSTER)
    rendered = list(render_cluster(cluster))
    assert cluster.oob is not None and cluster.oob.switches[0].name in {a.device for a in rendered}
    assert any("bond" in a.content for a in rendered if a.device == cluster.compute.servers[0].name)
    plan = build_cluster_plan(cluster, rendered, "tnote")
    note = next(n for n in plan.notes if n.startswith("networks:"))
    assert "not rendered" not in note and "no configs rendered" not in note, note
    assert "frontend" in note and "OOB" in note and "rendered" in note, note


def test_lab_note_names_only_what_the_cluster_has() -> None:
    cluster = build_cluster(EXAMPLES / "cluster-lab" / "inventory")  # no bonds, no OOB network
    plan = build_cluster_plan(cluster, list(render_cluster(cluster)), "tnote")
    note = next(n for n in plan.notes if n.startswith("networks:"))
    assert "bond" not in note and "OOB" not in note, note


def test_export_ansible_counts_the_oob_switches(tmp_path: Path) -> None:
    out = tmp_path / "hosts.yml"
    res = CliRunner().invoke(cli, ["export", "ansible", "-i", str(CLUSTER), "-o", str(out)])
    assert res.exit_code == 0, res.output
    hosts = yaml.safe_load(out.read_text())["all"]["children"]
    oob = len(hosts["oob_switches"]["hosts"])
    cluster = build_cluster(CLUSTER)
    total = len(cluster.all_switches()) + oob
    assert oob > 0 and f"{total} switches ({oob} out-of-band)" in res.output, res.output


def test_docs_lists_the_network_files_under_their_folder(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["docs", "-i", str(CLUSTER), "-o", str(tmp_path / "out"), "--no-svg"])
    assert res.exit_code == 0, res.output
    assert "storage/fabric.md" in res.output and "frontend/cabling.csv" in res.output, res.output
    assert (tmp_path / "out" / "storage" / "fabric.md").is_file()


def test_per_su_picture_wraps_its_servers() -> None:
    """32 servers of an SU in rows as wide as its 8 leaves, not one row of 32 (a 5,396-point strip)."""
    import re

    from netauto.docs.topology import su_detail_dot

    dot = su_detail_dot(build_cluster(CLUSTER).compute, 1)
    rows = [re.findall(r'"(su1-gpu\d+)"', block) for block in re.findall(r"\{ rank=same;(.*?)\}", dot, re.S)]
    rows = [r for r in rows if r]
    assert [len(r) for r in rows] == [8, 8, 8, 8], rows


def test_getting_started_lists_every_file_render_writes_for_a_cumulus_leaf_and_a_server() -> None:
    """docs/getting-started.md "What is rendered per device": each on-device file of the shipped inventory's
    Cumulus leaf and GPU server is in the table (by its file name; a newcomer found switchd.conf, qos_infra.conf
    and the RoCE counters script and units missing)."""
    from conftest import DEFAULT_INVENTORY, ROOT

    text = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8").split("## What is rendered per device")[1]
    table = text.split("\n## ")[0]
    rendered = list(render_cluster(build_cluster(DEFAULT_INVENTORY)))
    missing = sorted({Path(a.path).name for a in rendered if a.device in {"su1-r0-leaf", "gpu01"}
                      and Path(a.path).name not in table and Path(a.path).stem not in table})
    assert not missing, missing
