"""`netauto init`'s starter grows (issue 40 item 3): a second SU adds devices and renames none, the starter
has storage, OOB and Kubernetes options that render and validate, and `netauto plan` tells a rename from a move."""

from __future__ import annotations

from pathlib import Path

import pytest

from netauto.growth import plan, to_text
from netauto.inventory.starter import StarterOptions, write_starter
from netauto.pipeline import build_cluster, validate


def _starter(tmp_path: Path, name: str, **kw: object) -> Path:
    inv = tmp_path / name / "inventory"
    write_starter(inv, StarterOptions("fab", **kw))  # type: ignore[arg-type]
    return inv


def test_a_second_su_adds_devices_and_moves_nothing(tmp_path: Path) -> None:
    one, two = _starter(tmp_path, "one"), _starter(tmp_path, "two", sus=2)
    cluster = build_cluster(two)  # no duplicate device name
    assert len(cluster.compute.servers) == 8
    p = plan(one, two)
    assert not p.remove_devices and not p.move_cables and not p.remove_cables and not p.renames, to_text(p)
    assert len(p.add_devices) == 8 + 4  # a leaf per rail and 4 servers
    assert all(d.startswith("su2-") for d in p.add_devices), p.add_devices


def test_plan_tells_a_rename_from_a_move(tmp_path: Path) -> None:
    """The issue's case: the servers renamed by a naming change are renames, their cables stay."""
    new = _starter(tmp_path, "new")
    old = _starter(tmp_path, "old")
    topo = old / "topology.yaml"
    topo.write_text(topo.read_text().replace('server: "su{su}-gpu{index:02d}"', 'server: "gpu{index:02d}"'))
    p = plan(old, new)
    assert p.renames == {f"gpu{i:02d}": f"su1-gpu{i:02d}" for i in range(1, 5)}, p.renames
    assert not p.add_devices and not p.remove_devices
    assert not p.add_cables and not p.move_cables and not p.remove_cables, to_text(p)
    assert p.kept_cables == len(build_cluster(new).all_links())
    assert "devices renamed (same place, same cables): 4" in to_text(p)


@pytest.mark.parametrize("kw", [
    {"storage": 2, "oob": True, "kubernetes": "vf", "sus": 2},
    {"storage": 1, "kubernetes": "pf", "nos": "sonic"},
])
def test_starter_options_render_and_validate(tmp_path: Path, kw: dict[str, object]) -> None:
    inv = _starter(tmp_path, "opts", **kw)
    cluster = build_cluster(inv)
    assert [p.name for p in cluster.networks] == ["storage"] and len(cluster.groups) == kw["storage"]
    assert (cluster.oob is not None) == bool(kw.get("oob"))
    assert cluster.kubernetes is not None
    assert cluster.compute.host_link_mode == ("leaf-subnet" if kw["kubernetes"] == "vf" else "p2p")
    result = validate(inv, external=False, simulate=True)
    errors = [f for f in result.findings if f.severity in ("error", "warning")]
    assert not errors, [(f.rule, f.device, f.message) for f in errors]
