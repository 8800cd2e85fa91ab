"""Inventory input a local attacker (or a slip) can hand netauto (issue 33): keys checked by full matches (item 13),
errors that never echo a file that is not an inventory, and one size guard after every expansion."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.pipeline import resolve_cluster_model

MULTI = EXAMPLES / "multi-profile" / "inventory"


def _inv(tmp_path: Path, src: Path, file: str, old: str, new: str) -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(src, dst)
    text = (dst / file).read_text()
    assert old in text, old
    (dst / file).write_text(text.replace(old, new))
    return dst


@pytest.mark.parametrize(("old", "new", "key"), [
    ('site_distance_m: {"1-2": 10000}', 'site_distance_m: {"1-2\\n": 10000}', "site_distance_m"),
    ('sites: {2: ["su2-*"]}', 'sites: {2: ["su2-*\\n"]}', "sites"),
    ('long_haul: lossless', 'links: {"su2-r0-leaf:swp33s0\\n": 5}\n  long_haul: lossless', "links"),
])
def test_cabling_keys_with_a_trailing_newline_are_refused(tmp_path, old, new, key):
    inv = _inv(tmp_path, MULTI, "fabric.yaml", old, new)
    with pytest.raises(InventoryError) as exc:
        load_inventory(inv)
    assert key in str(exc.value) and "fabric.yaml" in str(exc.value)


def test_lab_name_with_a_trailing_newline_is_refused():
    from netauto.lab.plan import check_name

    with pytest.raises(Exception, match="name"):
        check_name("lab1\n")


SECRET = "root:$6$s4lt$S3CRETHASHVALUEnotforthescreen:19000:0:99999:7:::"


@pytest.mark.parametrize("text", [
    f"{SECRET}\ndaemon:*:19000:0:99999:7:::\n",  # /etc/shadow: one mapping whose keys are its lines
    f"{SECRET}: x\n",
    "password: hunter2S3CRET\ntoken: abc\n",
])
def test_an_error_never_echoes_a_file_that_is_not_an_inventory(tmp_path, text, capsys, monkeypatch):
    from test_bad_input import run_in_process

    secret = tmp_path / "shadow"
    secret.write_text(text)
    code, out, err = run_in_process(["render", "-i", str(secret), "-o", str(tmp_path / "out")], capsys, monkeypatch)
    assert code == 2 and str(secret) in err and "not a netauto inventory" in err, err
    assert "S3CRET" not in out + err and "abc" not in err and len(err.strip().splitlines()) == 1


def test_a_misspelt_section_alone_in_a_file_still_gets_its_suggestion(tmp_path):
    inv = tmp_path / "inv"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    (inv / "zz.yaml").write_text("featurs: {}\n")
    with pytest.raises(InventoryError, match="did you mean 'features'"):
        load_inventory(inv)


def test_the_section_names_agree_with_the_schema():
    from netauto.inventory.files import SECTIONS
    from netauto.inventory.schema import Inventory

    assert sorted(SECTIONS) == sorted(Inventory.model_fields)


def test_server_groups_cannot_push_the_server_count_past_the_guard(tmp_path, monkeypatch):
    """30 groups of 4,096 (each schema-valid) make 122,960 servers: refused before they are made, naming
    server_groups; --allow-huge lets it through the guard."""
    from netauto.model import limits

    monkeypatch.delenv(limits.ALLOW_HUGE_ENV, raising=False)
    groups = "".join(f"  g{i}: {{count: 4096, naming: \"g{i}-{{index:04d}}\"}}\n" for i in range(30))
    inv = tmp_path / "inv"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    (inv / "zz-groups.yaml").write_text("server_groups:\n" + groups)
    with pytest.raises(InventoryError) as exc:
        resolve_cluster_model(load_inventory(inv))
    text = str(exc.value)
    assert "123,000 servers (bound 32,768)" in text or "servers (bound 32,768)" in text, text
    assert "server_groups" in text and "zz-groups.yaml" in text and "--allow-huge" in text


def test_networks_and_oob_are_held_to_the_same_guard(monkeypatch):
    from netauto.model import limits

    monkeypatch.delenv(limits.ALLOW_HUGE_ENV, raising=False)
    loaded = load_inventory(EXAMPLES / "cluster-64" / "inventory")
    cluster = resolve_cluster_model(loaded)
    compute = len(cluster.compute.switches)
    assert cluster.networks and cluster.oob  # the example has both
    monkeypatch.setattr(limits, "MAX_SWITCHES", compute + len(cluster.networks[0].fabric.switches) - 1)
    with pytest.raises(InventoryError, match=r"switches \(bound") as exc:
        resolve_cluster_model(load_inventory(EXAMPLES / "cluster-64" / "inventory"))
    assert "networks" in str(exc.value)
