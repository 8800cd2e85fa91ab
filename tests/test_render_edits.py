"""Device-local edits (netauto.render.edits): a drain re-resolves, renders and rewrites only the switches it
changes, before the CLI loads; the tree equals a cold render's byte for byte, the patched switch is the full
resolve's (pickle bytes), bad input and any other edit take the full path (same error line and exit code)."""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, ROOT
from test_output_incremental import _env, _manifest, _tree

from netauto import pipeline
from netauto.render import edits, incremental, store
from netauto.render.fingerprint import code_digest

CLUSTER_LAB = ROOT / "examples" / "cluster-lab" / "inventory"  # two networks: servers in three networks
MIXED_SONIC = ROOT / "examples" / "mixed-sonic" / "inventory"  # SONiC leaves (config_db, FRR)
# (inventory, file, text before, text after, the switches whose files change)
GSHUT = "features:\n  gshut: {drain: []}\n"  # cluster-lab lists no gshut: the starting point gets one
EDITS = {
    "drain-leaf": (DEFAULT_INVENTORY, "features.yaml", "drain: []", "drain: [su1-r3-leaf]", {"su1-r3-leaf"}),
    "drain-two": (DEFAULT_INVENTORY, "features.yaml", "drain: []", "drain: [su1-r3-leaf, su1-r5-leaf]",
                  {"su1-r3-leaf", "su1-r5-leaf"}),
    "drain-spine": (DEFAULT_INVENTORY, "features.yaml", "drain: []", "drain: [spine2]", {"spine2"}),
    "drain-sonic-leaf": (MIXED_SONIC, "features.yaml", "drain: []", "drain: [su1-r1-leaf]", {"su1-r1-leaf"}),
    "drain-networks-leaf": (CLUSTER_LAB, "fabric.yaml", "drain: []", "drain: [r1-leaf]", {"r1-leaf"}),
    "override-drain": (DEFAULT_INVENTORY, "features.yaml", "  devices: {}",
                       "  devices:\n    su1-r2-leaf: {drain: true}\n    spine3: {drain: false}", {"su1-r2-leaf"}),
    # spine4's override also sets its NOS (not in the table's entries) and stays drained through the edit
    "drain-beside-an-override": (MIXED_SONIC, "features.yaml", "drain: []", "drain: [su1-r1-leaf, spine4]",
                                 {"su1-r1-leaf"}),
}
RUN = ("import sys; from netauto.cli import main; sys.argv=['netauto', *sys.argv[1:]]\n"
       "try:\n    main()\nfinally:\n    print('cli-loaded', 'click' in sys.modules)\n"
       "    print('heavy', [m for m in ('pydantic', 'rich', 'netauto.inventory.schema', 'netauto.model.resolve') "
       "if m in sys.modules])")


def _cli(tmp: Path, inv: Path, out: Path) -> tuple[subprocess.CompletedProcess[str], bool]:
    """`netauto render` as `python -m netauto` runs it; (the process, whether the full CLI loaded)."""
    proc = subprocess.run([sys.executable, "-c", RUN, "render", "-i", str(inv), "-o", str(out)], env=_env(tmp),
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stderr.replace("SystemExit", ""), proc.stderr
    return proc, "cli-loaded True" in proc.stdout


def _start(tmp: Path, inventory: Path) -> tuple[Path, Path, str]:
    """A copy of `inventory` rendered cold: (inventory copy, output folder, fabric folder name)."""
    inv = tmp / "inv"
    shutil.copytree(inventory, inv)
    if inventory == CLUSTER_LAB:
        _edit(inv, "fabric.yaml", "features:\n", GSHUT)
    if inventory == MIXED_SONIC:  # a drained switch whose override says more than `drain`
        _edit(inv, "features.yaml", "spine4: {nos: sonic}", "spine4: {nos: sonic, drain: true}")
    out = tmp / "out"
    proc, full = _cli(tmp, inv, out)
    assert proc.returncode == 0 and full, proc.stdout + proc.stderr
    return inv, out, next(p.name for p in out.iterdir() if not p.name.startswith("."))


def _edit(inv: Path, file: str, old: str, new: str) -> None:
    path = inv / file
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _cold(tmp: Path, inv: Path, fabric: str) -> Path:
    """A full render of `inv` with a cache of its own."""
    copy = tmp / "cold-inv"
    shutil.copytree(inv, copy)
    out = tmp / "cold"
    proc, _ = _cli(tmp / "cold-cache", copy, out)
    assert proc.returncode == 0, proc.stderr
    return out / fabric


def _same_tree(mine: Path, cold: Path) -> None:
    assert _tree(mine) == _tree(cold)  # every file: bytes and mode
    assert _manifest(mine)["files"] == _manifest(cold)["files"]


def _target(out: Path, fabric: str) -> Path:
    return out / fabric


def _full_keyed(inv: Path) -> tuple[incremental.Keyed, dict[str, str]]:
    cluster = pipeline.build_cluster(inv)
    keyed = incremental.keyed_devices(cluster, code_digest(None))
    return keyed, incremental.device_keys(cluster, code_digest(None), keyed)


@pytest.mark.parametrize("name", sorted(EDITS))
def test_a_drain_rerenders_only_its_switches_and_equals_a_cold_render(tmp_path, monkeypatch, name):
    inventory, file, old, new, drained = EDITS[name]
    inv, out, fabric = _start(tmp_path, inventory)
    before = _tree(out / fabric)
    _edit(inv, file, old, new)
    proc, full = _cli(tmp_path, inv, out)
    assert proc.returncode == 0 and not full, proc.stdout + proc.stderr  # answered before the CLI loaded
    assert "heavy []" in proc.stdout, proc.stdout  # nor the schema, pydantic or the resolver
    after = _tree(out / fabric)
    _same_tree(out / fabric, _cold(tmp_path, inv, fabric))
    assert {rel.split("/")[0] for rel in after if before.get(rel) != after[rel]} == drained
    assert f"{len(after)} files (" in proc.stdout and "removed) -> " in proc.stdout
    # the patched switches are the full resolve's (pickle bytes), the keys the full path's, for every device
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    keyed, keys = _full_keyed(inv)
    manifest = json.loads((out / fabric / ".netauto-manifest.json").read_text())
    state = store.load(out / fabric, manifest["fingerprint"])
    assert state is not None
    for device in drained:
        assert state.parts(device) == keyed.parts[device]
        assert pickle.loads(keyed.parts[device][0].payload).bgp.graceful_shutdown
    assert incremental.load_keys(out / fabric, manifest["fingerprint"]) == keys
    # undrain: back to the first tree, through the same path
    _edit(inv, file, new, old)
    proc, full = _cli(tmp_path, inv, out)
    assert proc.returncode == 0 and not full, proc.stderr
    assert _tree(out / fabric) == before
    assert "up to date" in _cli(tmp_path, inv, out)[0].stdout


@pytest.mark.parametrize("name", sorted(EDITS))
def test_a_drain_touches_only_the_devices_it_patches(tmp_path, name):
    """The declaration of the kind, proven on the full resolve: the keys that change are exactly the patched
    switches', and the cluster-wide groups' (monitoring/, kubernetes/) only when the kind says it touches them."""
    inventory, file, old, new, drained = EDITS[name]
    inv = tmp_path / "inv"
    shutil.copytree(inventory, inv)
    if inventory == CLUSTER_LAB:
        _edit(inv, "fabric.yaml", "features:\n", GSHUT)
    if inventory == MIXED_SONIC:
        _edit(inv, "features.yaml", "spine4: {nos: sonic}", "spine4: {nos: sonic, drain: true}")
    loaded = pipeline.load(inv)
    cluster = pipeline.resolve_cluster_model(loaded)
    _, keys = _full_keyed(inv)
    from netauto.model.consistency import override_drained

    facts = edits.drain_facts(cluster, override_drained(loaded.inventory))
    _edit(inv, file, old, new)
    edit = edits.edit_of(loaded.data, pipeline.load(inv).data, facts)
    assert edit is not None and edit.patches
    _, after = _full_keyed(inv)
    changed = {device for device in keys if keys[device] != after[device]}
    assert changed == set(edit.patches) | set(edit.touches) == drained
    assert not set(incremental.CLUSTER_WIDE) & changed


def test_draining_a_name_that_does_not_exist_fails_as_the_full_path_does(tmp_path):
    inv, out, fabric = _start(tmp_path, DEFAULT_INVENTORY)
    before = _tree(out / fabric)
    _edit(inv, "features.yaml", "drain: []", "drain: [su1-r3-leef]")
    proc, full = _cli(tmp_path, inv, out)
    cold, _ = _cli(tmp_path / "fresh", inv, tmp_path / "fresh-out")  # no cache, no tree: the full path
    assert full and proc.returncode == cold.returncode == 2
    assert proc.stderr == cold.stderr and "no such switch 'su1-r3-leef'" in proc.stderr
    assert "su1-r3-leaf" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1  # did you mean
    assert _tree(out / fabric) == before


@pytest.mark.parametrize("old,new", [("drain: []", "drain: [gpu01]"),  # a server: the full path refuses it
                                     ("drain: []", "drain: spine2"),  # not a list
                                     ("drain: []", "drain: [7]"),
                                     ("  devices: {}", "  devices:\n    spine9: {drain: true}"),  # no such device
                                     ("  devices: {}", "  devices:\n    spine2: {drain: maybe}"),
                                     # not true or false: the schema refuses 1 (no coercion), as the cold run does
                                     ("  devices: {}", "  devices:\n    su1-r2-leaf: {drain: 1}")])
def test_drain_input_the_schema_or_checks_refuse_goes_the_full_path(tmp_path, old, new):
    inv, out, fabric = _start(tmp_path, DEFAULT_INVENTORY)
    _edit(inv, "features.yaml", old, new)
    proc, full = _cli(tmp_path, inv, out)
    cold, _ = _cli(tmp_path / "fresh", inv, tmp_path / "fresh-out")
    assert full and proc.returncode == cold.returncode == 2 and proc.stderr == cold.stderr, proc.stderr


@pytest.mark.parametrize("edits", [
    [("drain: []", "drain: [spine2]"), ("honour: true", "honour: false")],  # every switch's route maps
    [("  devices: {}", "  devices:\n    su1-r2-leaf: {drain: true, mgmt_ip: 192.168.200.99}")],  # more than drain
    [("  devices: {}", "  devices:\n    su1-r2-leaf: {}")],  # an entry without drain
], ids=["with-honour", "override-with-mgmt-ip", "empty-override"])
def test_an_edit_outside_the_table_goes_the_full_path(tmp_path, edits):
    inv, out, fabric = _start(tmp_path, DEFAULT_INVENTORY)
    for old, new in edits:
        _edit(inv, "features.yaml", old, new)
    proc, full = _cli(tmp_path, inv, out)
    assert proc.returncode == 0 and full, proc.stderr
    _same_tree(out / fabric, _cold(tmp_path, inv, fabric))


def test_a_comment_edit_rewrites_nothing_but_the_manifest(tmp_path):
    inv, out, fabric = _start(tmp_path, DEFAULT_INVENTORY)
    before = _tree(out / fabric)
    _edit(inv, "features.yaml", "drain: []", "drain: []  # none today")
    proc, full = _cli(tmp_path, inv, out)
    assert proc.returncode == 0 and not full and "(0 written" in proc.stdout, proc.stdout + proc.stderr
    assert _tree(out / fabric) == before
    assert "up to date" in _cli(tmp_path, inv, out)[0].stdout


@pytest.mark.parametrize("damage", ["deleted", "corrupt", "hand-edited"])
def test_without_a_trustworthy_cache_or_tree_the_full_path_runs(tmp_path, damage):
    inv, out, fabric = _start(tmp_path, DEFAULT_INVENTORY)
    cache = tmp_path / "cache" / "netauto" / "render"
    if damage == "deleted":
        shutil.rmtree(cache)
    elif damage == "corrupt":
        index = json.loads(next(cache.glob("state-*.json")).read_text())
        offset = index["devices"]["su1-r3-leaf"][0][3][0]  # the pickle of the switch the edit drains
        data = Path(index["data"])
        blob = bytearray(data.read_bytes())
        blob[offset + 10] ^= 0xFF
        data.write_bytes(bytes(blob))
    else:
        next(p for p in sorted((out / fabric / "spine1").rglob("*")) if p.is_file()).write_text("hand edit\n")
    _edit(inv, "features.yaml", "drain: []", "drain: [su1-r3-leaf]")
    proc, full = _cli(tmp_path, inv, out)
    assert proc.returncode == 0 and full, proc.stderr
    _same_tree(out / fabric, _cold(tmp_path, inv, fabric))
    for path in cache.iterdir():  # hashes and pickles, private
        assert path.stat().st_mode & 0o777 == 0o600, path


def test_the_cluster_wide_keys_do_not_depend_on_the_hash_seed(tmp_path):
    """The kubernetes/ and monitoring/ keys hash the inventory's pydantic models, whose set of given fields
    pickles in hash-seed order: two processes must still agree (else every render re-renders both)."""
    code = ("import sys; from netauto import pipeline; from netauto.render import incremental as i;"
            "k = i.device_keys(pipeline.build_cluster(sys.argv[1]), 'c'); print([k[w] for w in i.CLUSTER_WIDE])")
    runs = {subprocess.run([sys.executable, "-c", code, str(DEFAULT_INVENTORY)], capture_output=True, text=True,
                           check=True, env={**_env(tmp_path), "PYTHONHASHSEED": seed}).stdout for seed in "123"}
    assert len(runs) == 1, runs


def test_a_drain_does_not_wait_for_the_removal_of_a_swapped_out_tree(tmp_path, monkeypatch):
    """A full render over a tree leaves the old one (under a temp name) to a background `rm`; the journaled
    update of a drain right after hands what looks dead to a background `rm` too instead of removing it itself
    (at 10k that was tens of seconds on a busy disk)."""
    from netauto.render import journal, output

    inv, out, fabric = _start(tmp_path, DEFAULT_INVENTORY)
    old = out / f".{fabric}.tmp-abcd1234"  # what output._discard leaves to its background rm
    (old / "many").mkdir(parents=True)
    for i in range(output.BACKGROUND_REMOVAL_ENTRIES + 1):
        (old / f"d{i}").mkdir()
    removed: list[str] = []
    real = shutil.rmtree
    monkeypatch.setattr(shutil, "rmtree", lambda path, *a, **k: (removed.append(str(path)), real(path, *a, **k)))
    manifest = json.loads((out / fabric / ".netauto-manifest.json").read_text())
    assert journal.update_tree([], set(), out / fabric, manifest["fingerprint"], manifest["fingerprint"])
    monkeypatch.undo()
    assert str(old) not in removed  # handed to the background rm
    _edit(inv, "features.yaml", "drain: []", "drain: [spine2]")
    proc, full = _cli(tmp_path, inv, out)
    assert proc.returncode == 0 and not full, proc.stderr
    _same_tree(out / fabric, _cold(tmp_path, inv, fabric))
