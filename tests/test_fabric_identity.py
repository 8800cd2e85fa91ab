"""A device belongs to one fabric (netauto.deploy.identity): the marker or the rendered files' headers name it;
another fabric's device, or nobody's with content where netauto writes, is refused unless --adopt."""

from __future__ import annotations

import pytest
from conftest import DEFAULT_INVENTORY, ROOT

from netauto.deploy import identity
from netauto.deploy.targets import Access, build_targets
from netauto.errors import NetautoError
from netauto.formats.fabric_marker import MARKER, header_fabric, marker_text, parse_marker
from netauto.pipeline import build

MIXED = ROOT / "examples/mixed-sonic/inventory"


@pytest.fixture(scope="module")
def pod1():
    built = build(DEFAULT_INVENTORY)
    return built, build_targets(built.cluster, built.artifacts)


def _files(targets, device: str, built) -> dict[str, bytes | None]:
    """What a device pushed by `built` holds: its rendered files, no marker yet."""
    t = targets[device]
    return {MARKER: None, **{p: a.content.encode() for p, a in t.files.items()}}


def test_marker_round_trip_and_headers_of_every_text_format(pod1):
    assert parse_marker(marker_text("gpu-pod1").encode()) == "gpu-pod1"
    built, targets = pod1
    named = {header_fabric(a.content.encode()) for t in targets.values() for a in t.files.values()}
    assert named - {None} == {"gpu-pod1"}


def test_own_device_passes_another_fabric_is_refused_and_adopt_overrides(pod1):
    built, targets = pod1
    spine = targets["spine2"]
    own = _files(targets, "spine2", built)
    assert identity.check_found(spine, own, adopt=False).fabric == "gpu-pod1"
    mixed = build(MIXED)
    theirs = build_targets(mixed.cluster, mixed.artifacts)["spine2"]
    with pytest.raises(identity.ForeignDevice, match=r"spine2 belongs to fabric gpu-pod1 \(/etc/.*\), not gpu-mixed"):
        identity.check_found(theirs, own, adopt=False)
    assert identity.check_found(theirs, own, adopt=True).fabric == "gpu-pod1"
    # the marker wins over the headers
    marked = {**own, MARKER: marker_text("gpu-mixed").encode()}
    assert identity.check_found(theirs, marked, adopt=False).where == MARKER
    with pytest.raises(identity.ForeignDevice):
        identity.check_found(spine, marked, adopt=False)


def test_no_fabric_with_content_is_refused_fresh_device_is_not(pod1):
    _, targets = pod1
    spine = targets["spine1"]
    path = sorted(spine.files)[0]  # NVUE mode: /etc/nvue.d/startup.yaml, as NVUE itself writes it
    factory = {MARKER: None, path: b"- set:\n    system:\n      hostname: cumulus\n"}
    with pytest.raises(identity.ForeignDevice, match=f"names no netauto fabric but holds {path}"):
        identity.check_found(spine, factory, adopt=False)
    assert identity.check_found(spine, factory, adopt=True).fabric is None
    assert identity.check_found(spine, {MARKER: None}, adopt=False).fabric is None


def test_an_environment_of_another_fabric_refuses_the_inventory():
    mixed = build(MIXED)
    lab = Access(addresses={}, fabric="gpu-pod1")
    with pytest.raises(NetautoError, match="runs fabric gpu-pod1, the inventory is fabric gpu-mixed: refused"):
        build_targets(mixed.cluster, mixed.artifacts, lab)


def test_cluster_plane_switches_carry_their_plane_fabric_name():
    cl = build(ROOT / "examples/cluster-lab/inventory")
    targets = build_targets(cl.cluster, cl.artifacts)
    for t in targets.values():
        found = {MARKER: None, **{p: a.content.encode() for p, a in t.files.items()}}
        assert identity.check_found(t, found, adopt=False).fabric in t.fabric_names
