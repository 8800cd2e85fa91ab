"""The editor loop: `netauto render` with nothing changed answers from stats and hashes without loading the
inventory; after a small edit it re-renders and rewrites only the devices whose inputs changed, through a
journal; the result equals a cold full render byte for byte; a stale cache is never trusted."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, ROOT

from netauto.render import fingerprint
from netauto.render import file_tables, jinja_env, output
from netauto.render.engine import Artifact
from netauto.render.journal import complete_update, update_tree
from netauto.render.output import JOURNAL, MANIFEST, write_tree


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "XDG_CACHE_HOME": str(tmp / "cache"), "NO_COLOR": "1"}


def _render(tmp: Path, inv: Path, out: Path, *extra: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(out), *extra],
                          env=_env(tmp), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    return proc.stdout


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    found = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if name != MANIFEST:
                found[path.relative_to(root).as_posix()] = (path.read_bytes(), stat.S_IMODE(path.lstat().st_mode))
    return found


def _manifest(root: Path) -> dict:
    data = json.loads((root / MANIFEST).read_text())
    return {"fingerprint": data["fingerprint"],
            "files": {rel: {k: v for k, v in e.items() if k != "stat"} for rel, e in data["files"].items()}}


def test_the_stdlib_copies_agree_with_the_originals():
    from netauto.inventory.loader import inventory_files

    assert str(fingerprint.builtin_templates()) in jinja_env.environment(None).loader.searchpath  # one path
    assert fingerprint.MANIFEST == output.MANIFEST and fingerprint.JOURNAL == output.JOURNAL
    for inv in [DEFAULT_INVENTORY, *sorted((ROOT / "examples").glob("*/inventory"))]:
        assert fingerprint.inventory_files(inv) == inventory_files(inv), inv


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> tuple[Path, Path, Path]:
    """The shipped inventory rendered once (the editor's starting point): (tmp, inventory copy, output)."""
    tmp = tmp_path_factory.mktemp("incr")
    inv = tmp / "inv"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    _render(tmp, inv, tmp / "out")
    return tmp, inv, tmp / "out"


def test_unchanged_answers_before_the_cli_is_imported(shipped):
    tmp, inv, out = shipped
    code = ("import sys; from netauto.cli import main; sys.argv=['netauto','render','-i',sys.argv[1],'-o',sys.argv[2]];"
            "main(); heavy=[m for m in ('pydantic','jinja2','click','rich','netauto.model','netauto.cli.app') "
            "if m in sys.modules]; print('heavy', heavy)")
    proc = subprocess.run([sys.executable, "-c", code, str(inv), str(out)], env=_env(tmp), capture_output=True,
                          text=True, timeout=120)
    assert "is up to date" in proc.stdout and "heavy []" in proc.stdout, proc.stdout + proc.stderr
    for path in (tmp / "cache" / "netauto" / "render").iterdir():  # hashes and paths only, still private
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def _quick(tmp: Path, inv: Path, out: Path, monkeypatch) -> str | None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp / "cache"))
    return fingerprint.quick_render_check(["render", "-i", str(inv), "-o", str(out)])


def test_any_changed_input_is_not_up_to_date(shipped, monkeypatch):
    tmp, inv, out = shipped
    assert _quick(tmp, inv, out, monkeypatch)
    assert fingerprint.quick_render_check(["render", "-i", str(inv), "-o", str(out), "--help"]) is None
    feats = inv / "features.yaml"
    text = feats.read_text()
    st = feats.stat()
    feats.write_text(text.replace("min_threshold: 150000", "min_threshold: 150001"))  # same size
    os.utime(feats, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime: content is hashed, not trusted
    assert _quick(tmp, inv, out, monkeypatch) is None
    feats.write_text(text)
    assert _quick(tmp, inv, out, monkeypatch)
    (inv / "extra.yaml").write_text("{}\n")  # a new inventory file
    assert _quick(tmp, inv, out, monkeypatch) is None
    (inv / "extra.yaml").unlink()
    rendered = next(p for p in (out / "gpu-pod1").rglob("frr.conf"))
    before = rendered.read_bytes()
    rendered.write_bytes(before + b"! edited by hand\n")  # an output file edited: render puts it back
    assert _quick(tmp, inv, out, monkeypatch) is None
    rendered.write_bytes(before)


def test_a_changed_code_file_with_the_same_stat_is_hashed_again(tmp_path, monkeypatch):
    """The code-hash cache is keyed by size, mtime, ctime and inode: an edit that keeps size and mtime still
    changes ctime, so the code is hashed again."""
    import netauto

    real = Path(netauto.__file__).resolve().parent
    fake = tmp_path / "src" / "netauto"
    shutil.copytree(real, fake, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    monkeypatch.setattr(fingerprint.netauto, "__file__", str(fake / "__init__.py"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(fingerprint, "RACY_S", 0.0)  # stamp at once (the files were just copied)
    first = fingerprint.code_digest(None)
    assert fingerprint.code_digest(None) == first  # from the cache now
    for target in (fake / "platforms" / "data" / "nos_cumulus.yaml", tmp_path / "templates" / "cumulus" / "frr.conf.j2"):
        st = target.stat()
        data = target.read_bytes()
        target.write_bytes(data[:-1] + (b"#" if data[-1:] != b"#" else b"!"))
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert fingerprint.code_digest(None) != first, target
        target.write_bytes(data)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert fingerprint.code_digest(None) == first


# ---------------------------------------------------------------- incremental == cold, byte for byte
def _edit(inv: Path, old: str, new: str) -> None:
    feats = inv / "features.yaml"
    text = feats.read_text()
    assert old in text
    feats.write_text(text.replace(old, new, 1))


OVERRIDE = ("  devices: {}", "  devices:\n    su1-r3-leaf: {mgmt_ip: 192.168.200.99}")  # a leaf + scrape targets
SERVER = ("  devices: {}", "  devices:\n    gpu02: {mgmt_ip: 192.168.201.99}")
DRAIN = ("drain: []", "drain: [spine2]")
FABRIC_WIDE = ("min_threshold: 150000", "min_threshold: 160000")


@pytest.mark.parametrize("edit,most", [(OVERRIDE, 20), (SERVER, 20), (DRAIN, 6), (FABRIC_WIDE, None)],
                         ids=["leaf-override", "server-override", "drain", "fabric-wide"])
def test_incremental_equals_a_cold_render(tmp_path, edit, most):
    inv = tmp_path / "inv"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    out = tmp_path / "out"
    _render(tmp_path, inv, out)
    before = _tree(out / "gpu-pod1")
    _edit(inv, *edit)
    line = _render(tmp_path, inv, out)
    cold = tmp_path / "cold"
    shutil.copytree(inv, tmp_path / "inv2")
    _render(tmp_path / "c", tmp_path / "inv2", cold)  # its own cache: a full render
    after = _tree(out / "gpu-pod1")
    assert after == _tree(cold / "gpu-pod1")  # files, bytes, modes
    mine, theirs = _manifest(out / "gpu-pod1"), _manifest(cold / "gpu-pod1")
    assert mine["files"] == theirs["files"]
    changed = {rel for rel in after if before.get(rel) != after[rel]}
    assert changed
    written = int(line.split("(")[1].split(" written")[0])
    assert written == len(changed | (set(before) - set(after))), line
    total = len(after)
    if most is None:  # a fabric-wide setting: everything that changed is rewritten, by the full path
        assert f"{total} files ({written} written, {total - written} unchanged" in line, line
        assert {rel.split("/")[0] for rel in changed} >= {f"su1-r{i}-leaf" for i in range(8)}
    else:  # only the edited devices' files were rendered and compared
        assert written <= most and f"{total - written} unchanged" not in line, line
    assert "up to date" in _render(tmp_path, inv, out)


def test_template_overrides_render_incrementally_and_count_in_the_keys(tmp_path):
    """With --templates the changed devices render in the sandbox like a full render; editing an override
    template changes every key that uses it (code_digest covers the folder): the result equals a cold render."""
    inv = tmp_path / "inv"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    over = tmp_path / "over" / "cumulus"
    over.mkdir(parents=True)
    shutil.copy(ROOT / "templates" / "cumulus" / "frr.conf.j2", over / "frr.conf.j2")
    out = tmp_path / "out"
    args = ("--templates", str(tmp_path / "over"))
    _render(tmp_path, inv, out, *args)
    _edit(inv, *DRAIN)
    assert " 0 unchanged" not in _render(tmp_path, inv, out, *args)
    (over / "frr.conf.j2").write_text((over / "frr.conf.j2").read_text() + "! override\n")
    line = _render(tmp_path, inv, out, *args)
    assert "(12 written" in line, line  # every switch's frr.conf, nothing else
    _render(tmp_path / "c", inv, tmp_path / "cold", *args)
    assert _tree(out / "gpu-pod1") == _tree(tmp_path / "cold" / "gpu-pod1")


def test_a_file_edited_by_hand_in_an_unchanged_device_is_restored(shipped):
    tmp, inv, out = shipped
    target = out / "gpu-pod1" / "spine1" / "etc" / "frr" / "frr.conf"
    good = target.read_bytes()
    target.write_bytes(b"hostname owned\n")
    _edit(inv, *DRAIN)
    try:
        line = _render(tmp, inv, out)
        assert target.read_bytes() == good, line
    finally:
        _edit(inv, DRAIN[1], DRAIN[0])
        _render(tmp, inv, out)


# ---------------------------------------------------------------- the journal
def _arts(tag: str) -> list[Artifact]:
    return [
        Artifact("leaf1", "etc/frr/frr.conf", f"hostname leaf1\n! {tag}\n", 0o640),
        Artifact("leaf1", "etc/network/interfaces", "auto lo\n"),
        Artifact("spine1", "etc/frr/frr.conf", "hostname spine1\n"),
        Artifact("gpu01", "etc/netplan/60-rails.yaml", "network:\n  version: 2\n", 0o600),
    ]


NEW = [Artifact("leaf1", "etc/frr/frr.conf", "hostname leaf1\n! v2\n", 0o640),  # changed
       Artifact("leaf1", "etc/new/file", "new\n"),  # added (interfaces: removed)
       Artifact("gpu02", "etc/netplan/60-rails.yaml", "network: {}\n", 0o600)]  # a new device; spine1 removed
NEW_DEVICES = {"leaf1", "spine1", "gpu02"}


def _expected() -> dict[str, tuple[bytes, int]]:
    kept = [a for a in _arts("v1") if a.device not in NEW_DEVICES]
    return {f"{a.device}/{a.path}": (a.content.encode(), a.mode) for a in kept + NEW}


def test_update_tree_writes_only_the_named_devices(tmp_path):
    out = tmp_path / "fab"
    write_tree(_arts("v1"), out, "old")
    gpu = os.lstat(out / "gpu01/etc/netplan/60-rails.yaml")
    assert update_tree(NEW, NEW_DEVICES, out, "new", expected="other") is None  # not the tree it was told of
    stats = update_tree(NEW, NEW_DEVICES, out, "new", expected="old")
    assert stats is not None and (stats.written, stats.removed, stats.files) == (3, 2, 4)
    assert _tree(out) == _expected()
    after = os.lstat(out / "gpu01/etc/netplan/60-rails.yaml")
    assert (after.st_ino, after.st_mtime_ns) == (gpu.st_ino, gpu.st_mtime_ns)  # untouched
    assert not (out / "spine1").exists() and not (out / "leaf1/etc/network").exists()
    assert fingerprint.tree_matches(out, "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fab"]


def test_update_tree_never_writes_through_a_planted_symlink(tmp_path):
    out = tmp_path / "fab"
    write_tree(_arts("v1"), out, "old")
    victim = tmp_path / "victim"
    victim.mkdir()
    shutil.rmtree(out / "leaf1" / "etc" / "frr")
    (out / "leaf1" / "etc" / "frr").symlink_to(victim)
    update_tree(NEW, NEW_DEVICES, out, "new", expected="old")
    assert list(victim.iterdir()) == []
    assert _tree(out) == _expected()


CHILD = r"""
import os, signal, sys
import netauto.render.journal as out
from netauto.render.engine import Artifact
step, n = sys.argv[2], int(sys.argv[3])
owner = next(m for m in (out, out.os, out.shutil, out.tempfile) if hasattr(m, step))
real, calls = getattr(owner, step), [0]
def patched(*args, **kwargs):
    calls[0] += 1
    if calls[0] == n:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
setattr(owner, step, patched)
new = [Artifact(*a) for a in %r]
out.update_tree(new, %r, out.Path(sys.argv[1]), "new", "old")
""" % ([(a.device, a.path, a.content, a.mode) for a in NEW], NEW_DEVICES)


@pytest.mark.parametrize("step,n", [("_create", 1), ("_create", 4), ("rename", 1), ("rename", 2), ("rename", 4),
                                    ("_remove_path", 1), ("_remove_path", 2), ("_real_parents", 2),
                                    ("mkdtemp", 2), ("rmtree", 1)])
def test_killed_update_is_old_or_completed_to_new(tmp_path, step, n):
    """SIGKILL at any step of update_tree: the tree is the old one, whole, or a committed journal that a reader
    (complete_update) or the next render rolls forward to the new one, whole."""
    out = tmp_path / "fab"
    write_tree(_arts("v1"), out, "old")
    old = _tree(out)
    run = subprocess.run([sys.executable, "-c", CHILD, str(out), step, str(n)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert run.returncode in (0, -signal.SIGKILL), run.stderr[-2000:]
    if (out / JOURNAL).exists():
        assert not fingerprint.tree_matches(out, "new") and not fingerprint.tree_matches(out, "old")
        complete_update(out)
    state = _tree(out)
    stamp = json.loads((out / MANIFEST).read_text())["fingerprint"]
    assert (state, stamp) in ((old, "old"), (_expected(), "new")), (run.returncode, sorted(state))
    if run.returncode == 0 or step in ("rmtree",):
        assert stamp == "new"
    write_tree(_arts("v3"), out, "v3")  # the next render cleans up after the dead one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fab"]


def test_a_template_reading_other_devices_forces_the_full_render(monkeypatch):
    """The keys hold a device and its network's settings only; a builder or template that reads the network's
    device or link lists is stopped (NeedsWholeFabric), so the caller renders everything instead of trusting a
    key that misses an input."""
    import dataclasses

    from netauto.pipeline import build_cluster
    from netauto.render import incremental

    cluster = build_cluster(DEFAULT_INVENTORY)
    leaf = cluster.compute.switches[-1].name
    assert incremental.render_devices(cluster, {leaf}, set())  # the shipped templates read no other device
    peeking = dataclasses.replace(file_tables.CUMULUS[0], builder=lambda sw, fabric: f"{len(fabric.switches)}\n")
    monkeypatch.setitem(file_tables.PLATFORMS, "cumulus", (peeking,))
    with pytest.raises(incremental.NeedsWholeFabric):
        incremental.render_devices(cluster, {leaf}, set())
    lookup = dataclasses.replace(file_tables.CUMULUS[0], builder=lambda sw, fabric: fabric.switch("spine1").name)
    monkeypatch.setitem(file_tables.PLATFORMS, "cumulus", (lookup,))
    with pytest.raises(incremental.NeedsWholeFabric):
        incremental.render_devices(cluster, {leaf}, set())


def test_validate_configs_reads_a_killed_update_rolled_forward(tmp_path):
    """`validate --configs` (pipeline.configs_files) finishes a committed journal before reading: it reads the new
    render whole, never the half-applied tree (FileSet.from_dir skips dot-folders such as the journal)."""
    from netauto.pipeline import configs_files

    journals = 0
    for step, n in (("rename", 2), ("rename", 4), ("_remove_path", 1), ("_real_parents", 2)):
        out = tmp_path / step / str(n) / "fab"
        write_tree(_arts("v1"), out, "old")
        subprocess.run([sys.executable, "-c", CHILD, str(out), step, str(n)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        if not (out / JOURNAL).exists():
            continue
        journals += 1
        files = configs_files(out.parent, "fab")
        assert not (out / JOURNAL).exists()
        assert {f"{d}/{p}": (files.get(d, p) or "").encode() for d, p in files.paths()} == {
            rel: content for rel, (content, _mode) in _expected().items()}
    assert journals, "no kill point left a committed journal"


def test_configs_tree_limits_allow_a_large_intent_file_only(tmp_path, monkeypatch):
    """A --configs tree refuses a file above 16 MiB (not a rendered config), except the monitoring's intent rules,
    which state every design fact (~20 MB on the 10k-GPU example, ~200 MB at 100,000 GPUs)."""
    from netauto.render import compare as out_mod
    from netauto.validate.files import BadInput, FileSet

    monkeypatch.setattr(out_mod, "MAX_REFERENCE_FILE_BYTES", 1024)
    monkeypatch.setattr(out_mod, "MAX_INTENT_BYTES", 4096)
    fab = tmp_path / "fab"
    (fab / "monitoring/prometheus").mkdir(parents=True)
    (fab / "monitoring/prometheus/netauto-intent.rules.yml").write_text("x" * 2048)
    assert len(FileSet.from_dir(fab).get("monitoring", "prometheus/netauto-intent.rules.yml") or "") == 2048
    (fab / "leaf1").mkdir()
    (fab / "leaf1/big.conf").write_text("x" * 2048)
    with pytest.raises(BadInput, match="larger than"):
        FileSet.from_dir(fab)


def test_a_folder_added_to_the_cluster_wide_list_is_rendered_and_tracked(tmp_path, monkeypatch):
    """render.cluster_wide is the one list of the folders no device owns: a group added there is written by the
    full render (render.engine) and, when its inputs change, re-rendered by the incremental path alone (nothing
    else rewritten); dropped from the list, its folder goes (incrementally too), as a removed device's does."""
    from netauto import pipeline
    from netauto.render import cluster_wide, session

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    version = ["1"]

    def extra_parts(cluster):
        return [lambda: [Artifact("extra-wide", "x.txt", f"{cluster.name} {version[0]}\n")]]

    extra = cluster_wide.Group("extra-wide", extra_parts, lambda cluster: (version[0],))
    monkeypatch.setattr(cluster_wide, "GROUPS", (*cluster_wide.GROUPS, extra))
    inv, out = tmp_path / "inv", tmp_path / "out"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    pipeline.render_into(pipeline.render_session(inv, out, None))
    target = out / "gpu-pod1"
    before = _tree(target)
    assert before["extra-wide/x.txt"][0] == b"gpu-pod1 1\n"

    def whole(*_args, **_kwargs):
        raise AssertionError("the whole tree was rendered, not the changed group")

    monkeypatch.setattr(session, "render_tree", whole)
    version[0] = "2"
    pipeline.render_into(pipeline.render_session(inv, out, None))
    after = _tree(target)
    assert {rel for rel in after if before.get(rel) != after[rel]} == {"extra-wide/x.txt"}
    assert after["extra-wide/x.txt"][0] == b"gpu-pod1 2\n" and set(after) == set(before)

    monkeypatch.setattr(cluster_wide, "GROUPS", tuple(g for g in cluster_wide.GROUPS if g is not extra))
    pipeline.render_into(pipeline.render_session(inv, out, None))
    assert _tree(target) == {rel: v for rel, v in before.items() if not rel.startswith("extra-wide/")}
    assert not (target / "extra-wide").exists()


def test_the_cluster_wide_list_names_every_folder_beside_the_devices():
    """The folders model.folders reserves (naming refuses them, validate skips them) are the ones render writes."""
    from netauto.model import folders
    from netauto.render import cluster_wide

    assert [g.folder for g in cluster_wide.GROUPS] == list(folders.BESIDE_DEVICES)
    assert len({g.key for g in cluster_wide.GROUPS}) == len(cluster_wide.GROUPS)
