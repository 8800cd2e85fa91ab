"""write_tree: all-or-nothing, unchanged files untouched (inode and mtime), changed files rewritten, modes exact."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY

from netauto.pipeline import render
from netauto.render.engine import Artifact
from netauto.render.output import write_tree


def artifacts(tag: str = "v1") -> list[Artifact]:
    return [
        Artifact("leaf1", "etc/frr/frr.conf", f"hostname leaf1\n! {tag}\n"),
        Artifact("leaf1", "etc/network/interfaces", "auto lo\niface lo inet loopback\n"),
        Artifact("spine1", "etc/frr/frr.conf", "hostname spine1\n"),
        Artifact("gpu01", "etc/netplan/60-rails.yaml", "network:\n  version: 2\n", 0o600),
        Artifact("gpu01", "usr/local/sbin/netauto-roce-qos.sh", "#!/bin/sh\nexit 0\n", 0o755),
    ]


def failing(arts: list[Artifact], after: int) -> Iterator[Artifact]:
    """Yields `after` artifacts, then fails the way a template error half-way would."""
    for i, art in enumerate(arts):
        if i == after:
            raise RuntimeError("template exploded half-way")
        yield art


def rendered_files(out: Path) -> dict[str, Path]:
    """The rendered files (tool bookkeeping such as a manifest, named with a leading dot, is ignored)."""
    return {p.relative_to(out).as_posix(): p for p in out.rglob("*") if p.is_file() and not p.name.startswith(".")}


def tree_state(root: Path) -> dict[str, tuple]:
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            state[path.relative_to(root).as_posix()] = (
                path.read_bytes() if path.is_file() else None, st.st_mode, st.st_mtime_ns, st.st_ino)
    return state


def leftovers(parent: Path, out: Path) -> list[str]:
    """Anything that is neither the output tree nor inside it, or temp files inside it."""
    stray = [p.name for p in parent.iterdir() if p != out]
    if out.exists():
        stray += [p.relative_to(out).as_posix() for p in out.rglob("*") if "tmp" in p.name or "old" in p.name]
    return stray


def age(out: Path, seconds: int = 3600) -> None:
    """Push every file's mtime into the past, so a rewrite would be visible even on coarse clocks."""
    for path in rendered_files(out).values():
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns - seconds * 10**9, st.st_mtime_ns - seconds * 10**9))


def test_first_write_creates_every_file(tmp_path):
    out = tmp_path / "build" / "fab"
    stats = write_tree(artifacts(), out)
    files = rendered_files(out)
    assert sorted(files) == sorted(f"{a.device}/{a.path}" for a in artifacts())
    assert files["leaf1/etc/frr/frr.conf"].read_text() == "hostname leaf1\n! v1\n"
    assert (stats.files, stats.written, stats.unchanged) == (5, 5, 0)
    assert leftovers(out.parent, out) == []


@pytest.mark.parametrize("after", [0, 1, 3])
def test_error_half_way_leaves_previous_tree_intact(tmp_path, after):
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    age(out)
    before = tree_state(out)
    with pytest.raises(RuntimeError, match="half-way"):
        write_tree(failing(artifacts("v2"), after), out)
    assert tree_state(out) == before
    assert leftovers(tmp_path, out) == []


def test_error_half_way_into_a_new_folder_creates_nothing(tmp_path):
    out = tmp_path / "fab"
    with pytest.raises(RuntimeError):
        write_tree(failing(artifacts(), 2), out)
    assert not out.exists()
    assert leftovers(tmp_path, out) == []


def test_rerender_unchanged_keeps_inode_and_mtime(tmp_path):
    out = tmp_path / "fab"
    write_tree(artifacts(), out)
    age(out)
    before = {rel: p.stat() for rel, p in rendered_files(out).items()}
    stats = write_tree(artifacts(), out)
    after = {rel: p.stat() for rel, p in rendered_files(out).items()}
    assert sorted(after) == sorted(before)
    for rel in before:
        assert after[rel].st_ino == before[rel].st_ino, rel
        assert after[rel].st_mtime_ns == before[rel].st_mtime_ns, rel
    assert (stats.written, stats.unchanged) == (0, 5)
    assert leftovers(tmp_path, out) == []


def test_changed_file_is_rewritten_others_untouched(tmp_path):
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    age(out)
    before = {rel: p.stat() for rel, p in rendered_files(out).items()}
    stats = write_tree(artifacts("v2"), out)
    files = rendered_files(out)
    changed = "leaf1/etc/frr/frr.conf"
    assert files[changed].read_text() == "hostname leaf1\n! v2\n"
    assert files[changed].stat().st_mtime_ns > before[changed].st_mtime_ns
    for rel, path in files.items():
        if rel != changed:
            assert path.stat().st_ino == before[rel].st_ino, rel
            assert path.stat().st_mtime_ns == before[rel].st_mtime_ns, rel
    assert (stats.written, stats.unchanged) == (1, 4)
    assert leftovers(tmp_path, out) == []


def test_mode_change_alone_rewrites(tmp_path):
    out = tmp_path / "fab"
    write_tree(artifacts(), out)
    arts = [Artifact(a.device, a.path, a.content, 0o600) if a.device == "spine1" else a for a in artifacts()]
    stats = write_tree(arts, out)
    assert stat.S_IMODE((out / "spine1/etc/frr/frr.conf").stat().st_mode) == 0o600
    assert stats.written == 1


def test_file_no_longer_rendered_disappears(tmp_path):
    out = tmp_path / "fab"
    write_tree(artifacts(), out)
    write_tree([a for a in artifacts() if a.device != "spine1"], out)
    assert not any(rel.startswith("spine1/") for rel in rendered_files(out))


def test_modes_of_a_real_render(tmp_path):
    model, arts = render(DEFAULT_INVENTORY)
    out = tmp_path / model.name
    write_tree(arts, out)
    files = rendered_files(out)
    assert len(files) == len(arts)
    modes = {rel: stat.S_IMODE(p.stat().st_mode) for rel, p in files.items()}
    for server in model.servers:
        assert modes[f"{server.name}/etc/netplan/60-rails.yaml"] == 0o600
        assert modes[f"{server.name}/usr/local/sbin/netauto-roce-qos.sh"] == 0o755
        assert modes[f"{server.name}/etc/sysctl.d/90-gpu-rails.conf"] == 0o644
    for sw in model.switches:
        assert modes[f"{sw.name}/etc/frr/frr.conf"] == 0o644
    assert {modes[f"{a.device}/{a.path}"] for a in arts} <= {0o600, 0o644, 0o755}
    assert all(modes[f"{a.device}/{a.path}"] == a.mode for a in arts)
