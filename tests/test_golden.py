"""Golden configs: every shipped fabric re-renders byte for byte (`netauto diff` is clean), and a change
of intent shows up as exactly the expected lines."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES, GOLDEN, ROOT, shipped_inventories

from netauto.inventory.loader import load_inventory
from netauto.pipeline import build_model, render
from netauto.render.compare import compare_tree

FABRICS = shipped_inventories()
IDS = [p.parent.name if p.parent != ROOT else p.name for p in FABRICS]
TWO_SU = EXAMPLES / "2su-leaf-subnet" / "inventory"
QOS_FEATURES = "etc/cumulus/datapath/qos/qos_features.conf"
STARTUP = "etc/nvue.d/startup.yaml"


def summary(diff) -> str:
    parts = [f"only rendered: {p}" for p in diff.missing[:5]] + [f"only in golden: {p}" for p in diff.extra[:5]]
    parts += [text[:1500] for text in list(diff.changed.values())[:3]]
    return "\n".join(parts) + "\n(run `netauto diff`, review, then `netauto golden update`)"


@pytest.mark.parametrize("inv", FABRICS, ids=IDS)
def test_golden_configs_are_up_to_date(inv):
    name = load_inventory(inv).inventory.fabric.name
    if not (GOLDEN / name).is_dir():
        pytest.skip(f"{name} ships without golden configs (scale example)")
    model, artifacts = render(inv)
    diff = compare_tree(artifacts, GOLDEN / model.name)
    assert diff.clean, summary(diff)


def with_ecn_min_threshold(inv: Path, dst: Path, value: int) -> int:
    """Copy an inventory, set qos.ecn.min_threshold; returns the previous value."""
    shutil.copytree(inv, dst)
    hits = []
    for f in sorted(dst.glob("*.y*ml")):
        text = f.read_text()
        m = re.search(r"\bmin_threshold: (\d+)", text)
        if m:
            hits.append(int(m.group(1)))
            f.write_text(text[: m.start(1)] + str(value) + text[m.end(1):])
    assert len(hits) == 1, f"expected one qos.ecn.min_threshold in {inv}, found {hits}"
    return hits[0]


def added_removed(diff_text: str) -> tuple[list[str], list[str]]:
    lines = diff_text.splitlines()[2:]  # skip ---/+++ headers
    return ([ln[1:] for ln in lines if ln.startswith("+")], [ln[1:] for ln in lines if ln.startswith("-")])


@pytest.mark.parametrize("inv", [DEFAULT_INVENTORY, TWO_SU], ids=["gpu-pod1", "gpu-2su"])
def test_ecn_threshold_change_shows_up_as_the_qos_lines(inv, tmp_path):
    new = 120000
    copy = tmp_path / "inventory"
    old = with_ecn_min_threshold(inv, copy, new)
    assert old != new
    was_default = build_model(inv).switches[0].qos.is_nvidia_default
    model, artifacts = render(copy)
    diff = compare_tree(artifacts, GOLDEN / model.name)
    assert not diff.missing and not diff.extra

    switches = {sw.name for sw in model.switches if sw.nos == "cumulus"}
    assert switches
    expected = {f"{sw}/{QOS_FEATURES}" for sw in switches} | {f"{sw}/{STARTUP}" for sw in switches}
    assert set(diff.changed) == expected, sorted(set(diff.changed) ^ expected)[:10]  # no host file changes

    for sw in switches:
        added, removed = added_removed(diff.changed[f"{sw}/{QOS_FEATURES}"])
        assert removed == [f"ecn_red.ROCE_ECN.min_threshold_bytes = {old}"]
        assert added == [f"ecn_red.ROCE_ECN.min_threshold_bytes = {new}"]

        added, removed = added_removed(diff.changed[f"{sw}/{STARTUP}"])
        assert f"              min-threshold: {new}" in added
        assert not model.switch(sw).qos.is_nvidia_default
        if not was_default:
            # a tuned profile already spelled out: only the threshold line changes
            assert removed == [f"              min-threshold: {old}"] * len(removed)
            assert added == [f"              min-threshold: {new}"] * len(removed)
        else:
            # the NVIDIA default profile was implicit (`qos roce` alone): the tuned profile is now spelled out
            assert removed == []
            assert "      congestion-control:" in added and "      egress-queue-mapping:" in added
            assert "      traffic-pool:" in added  # RoCE's priority in the lossless pool, spelled out
