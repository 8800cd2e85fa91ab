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


def test_cluster_network_switches_carry_their_network_fabric_name():
    cl = build(ROOT / "examples/cluster-lab/inventory")
    targets = build_targets(cl.cluster, cl.artifacts)
    for t in targets.values():
        found = {MARKER: None, **{p: a.content.encode() for p, a in t.files.items()}}
        assert identity.check_found(t, found, adopt=False).fabric in t.fabric_names


# ------------------------------------------------------------- issue 33 item 10: an id a rename cannot forge
def test_a_renamed_copy_of_another_inventory_is_refused_by_the_recorded_id(tmp_path):
    """The lab's devices were deployed from inventory A (its marker records A's id). Another fabric's inventory,
    copied and renamed to A's name, has the same name but not that id: refused in one line naming the recorded
    id and the fix; A itself, and --adopt, pass."""
    import shutil

    lab_inv, copy_inv = tmp_path / "lab", tmp_path / "copy"
    fresh = shutil.ignore_patterns(identity.ID_FILE)  # a lab run records one in the shipped inventories
    shutil.copytree(DEFAULT_INVENTORY, lab_inv, ignore=fresh)
    shutil.copytree(MIXED, copy_inv, ignore=fresh)
    fabric = copy_inv / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("gpu-mixed", "gpu-pod1"))
    lab_id, made = identity.record_id(lab_inv)
    assert made and identity.record_id(lab_inv) == (lab_id, False)
    assert (lab_inv / "fabric-id").read_text() == lab_id + "\n"

    lab = build(lab_inv)
    lab_targets = build_targets(lab.cluster, lab.artifacts)
    identity.attach_id(lab_targets, lab_inv, lab_id)
    device = lab_targets["spine2"]
    on_device = {**_files(lab_targets, "spine2", lab),
                 MARKER: marker_text("gpu-pod1", lab_id).encode()}  # what the confirmed push wrote
    assert identity.write_cmd(device).count(f"id={lab_id}") == 1
    assert identity.check_found(device, on_device, adopt=False).fabric_id == lab_id

    copy = build(copy_inv)
    assert copy.cluster.name == "gpu-pod1"
    copy_targets = build_targets(copy.cluster, copy.artifacts)
    identity.attach_id(copy_targets, copy_inv, identity.read_id(copy_inv))  # never deployed: no id yet
    with pytest.raises(identity.ForeignDevice) as exc:
        identity.check_found(copy_targets["spine2"], on_device, adopt=False)
    msg = str(exc.value)
    assert "\n" not in msg and f"id {lab_id}" in msg and "no fabric id yet" in msg
    assert "deploy from the inventory that recorded" in msg and "--adopt" in msg
    other_id, _ = identity.record_id(copy_inv)  # its own first deploy
    identity.attach_id(copy_targets, copy_inv, other_id)
    with pytest.raises(identity.ForeignDevice, match=f"belongs to fabric gpu-pod1 id {lab_id} .* with id {other_id}"):
        identity.check_found(copy_targets["spine2"], on_device, adopt=False)
    assert identity.check_found(copy_targets["spine2"], on_device, adopt=True).fabric_id == lab_id


def test_a_marker_without_an_id_is_judged_by_name_and_a_bad_id_file_is_one_line(tmp_path):
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(DEFAULT_INVENTORY, inv, ignore=shutil.ignore_patterns(identity.ID_FILE))
    built = build(inv)
    targets = build_targets(built.cluster, built.artifacts)
    identity.attach_id(targets, inv, identity.record_id(inv)[0])
    legacy = {**_files(targets, "spine1", built), MARKER: marker_text("gpu-pod1").encode()}  # `lab up`'s marker
    assert identity.check_found(targets["spine1"], legacy, adopt=False).fabric_id is None
    (inv / "fabric-id").write_text("root:$6$secret:19000:0:99999:7:::\n")
    with pytest.raises(identity.InventoryIdError) as exc:
        identity.read_id(inv)
    assert "not a fabric id" in str(exc.value) and "$6$" not in str(exc.value) and exc.value.exit_code == 2
