"""write_tree: all-or-nothing, unchanged files untouched (inode and mtime), changed files rewritten, modes exact."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, ROOT

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
    for sw in model.switches:  # FRR's own files as Debian's frr package has them: not world-readable
        assert modes[f"{sw.name}/etc/frr/frr.conf"] == modes[f"{sw.name}/etc/frr/daemons"] == 0o640
    assert {modes[f"{a.device}/{a.path}"] for a in arts} <= {0o600, 0o640, 0o644, 0o755}
    assert all(modes[f"{a.device}/{a.path}"] == a.mode for a in arts)
    manifest = json.loads((out / ".netauto-manifest.json").read_text())["files"]
    assert all(manifest[f"{a.device}/{a.path}"]["mode"] == f"{a.mode:04o}" for a in arts)  # render records the intent
    assert all(manifest[f"{a.device}/{a.path}"]["owner"] == a.owner for a in arts)
    assert {a.owner for a in arts if a.path in ("etc/frr/frr.conf", "etc/frr/daemons")} == {"frr:frr"}


# ------------------------------------------------------------------------------------------------ faults and races
from netauto.errors import OutputError  # noqa: E402
from netauto.render.fingerprint import tree_matches  # noqa: E402
from netauto.render.output import MANIFEST  # noqa: E402


@pytest.mark.parametrize("device,path", [("../escaped", "etc/frr/frr.conf"), ("leaf1", "/etc/passwd"),
                                         ("leaf1", "etc/../../../escaped"), ("leaf1", "etc//frr.conf"),
                                         ("..", "x"), ("leaf1", "etc/frr\0x")])
def test_path_outside_the_output_is_refused(tmp_path, device, path):
    out = tmp_path / "build" / "fab"
    write_tree(artifacts("v1"), out)
    before = tree_state(tmp_path)
    with pytest.raises(OutputError, match="refusing to write"):
        write_tree([*artifacts("v2"), Artifact(device, path, "owned\n")], out)
    assert tree_state(tmp_path) == before
    assert not list(tmp_path.rglob("escaped")) and not (tmp_path / "build" / "x").exists()


def test_symlink_planted_at_the_old_fixed_temp_name_is_not_followed(tmp_path):
    """The old writer wrote `.frr.conf.netauto-tmp` beside each changed file: a symlink there overwrote its target."""
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (out / "leaf1/etc/frr/.frr.conf.netauto-tmp").symlink_to(victim)
    (out / f".{MANIFEST}.netauto-tmp").symlink_to(victim)
    write_tree(artifacts("v2"), out)
    assert victim.read_text() == "precious\n"
    assert (out / "leaf1/etc/frr/frr.conf").read_text() == "hostname leaf1\n! v2\n"


def test_symlink_in_the_tree_is_replaced_not_written_through(tmp_path):
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    victim = tmp_path / "victim"
    victim.write_text("hostname leaf1\n! v1\n")  # same bytes as the rendered file: must not count as unchanged
    frr = out / "leaf1/etc/frr/frr.conf"
    frr.unlink()
    frr.symlink_to(victim)
    stats = write_tree(artifacts("v1"), out)
    assert not frr.is_symlink() and frr.read_text() == "hostname leaf1\n! v1\n"
    assert victim.read_text() == "hostname leaf1\n! v1\n"
    assert stats.written == 2  # a device folder holding a symlink is never reused: both its files are new


def test_output_folder_symlink_and_foreign_folder_are_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine\n")
    link = tmp_path / "fab"
    link.symlink_to(elsewhere)
    with pytest.raises(OutputError, match="is a symlink"):
        write_tree(artifacts(), link)
    with pytest.raises(OutputError, match="holds files but no .netauto-manifest.json"):
        write_tree(artifacts(), elsewhere)
    assert [p.name for p in elsewhere.iterdir()] == ["keep.txt"]


def test_concurrent_writers_take_turns(tmp_path):
    """Threads writing different trees into one folder: no error, and the survivor is one whole tree whose
    manifest describes exactly its files (the old writer raised `Directory not empty`/FileNotFoundError and
    could leave one render's files under another's manifest)."""
    import threading

    out = tmp_path / "fab"
    sets = {f"t{i}": [Artifact(a.device, a.path, a.content.replace("v1", f"t{i}") + f"# {i}\n" * i, a.mode)
                      for a in artifacts("v1")] + [Artifact(f"only{i}", "etc/x", f"{i}\n")] for i in range(6)}
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(sets))

    def writer(tag: str) -> None:
        try:
            barrier.wait()
            for _ in range(5):
                write_tree(sets[tag], out, fingerprint=tag)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(tag,)) for tag in sets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    manifest = json.loads((out / MANIFEST).read_text())
    tag = manifest["fingerprint"]
    expected = {f"{a.device}/{a.path}": a.content.encode() for a in sets[tag]}
    assert {rel: p.read_bytes() for rel, p in rendered_files(out).items()} == expected
    assert tree_matches(out, tag)
    assert leftovers(tmp_path, out) == []


def test_concurrent_cli_renders_of_two_inventories(tmp_path):
    """Two inventories of the same fabric rendered at once into one -o, by separate processes: every run
    succeeds, the tree is one whole render, and `render` reports "up to date" only for the inventory that made it."""
    import subprocess
    import sys

    from conftest import ROOT

    inv_a = tmp_path / "a"
    inv_b = tmp_path / "b"
    shutil.copytree(DEFAULT_INVENTORY, inv_a)
    shutil.copytree(DEFAULT_INVENTORY, inv_b)
    feats = inv_b / "features.yaml"
    feats.write_text(feats.read_text().replace("min_threshold: 150000", "min_threshold: 160000"))
    out = tmp_path / "build"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}

    def start(inv: Path) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(out)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    procs = [start(inv) for inv in (inv_a, inv_b, inv_a, inv_b)]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    for code, stdout, stderr in results:
        assert code == 0 and "Traceback" not in stderr, stdout + stderr
    model, arts_a = render(inv_a)
    _, arts_b = render(inv_b)
    tree = {rel: p.read_bytes() for rel, p in rendered_files(out / model.name).items()}
    as_a = {f"{a.device}/{a.path}": a.content.encode() for a in arts_a}
    as_b = {f"{a.device}/{a.path}": a.content.encode() for a in arts_b}
    assert tree in (as_a, as_b) and as_a != as_b
    winner, loser = (inv_a, inv_b) if tree == as_a else (inv_b, inv_a)
    again = [subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(out)],
                            env=env, capture_output=True, text=True, timeout=300).stdout for inv in (winner, loser)]
    assert "up to date" in again[0], again
    assert "up to date" not in again[1] and "rendered" in again[1], again


# ---- a full disk: the error is one line, and the previous tree (or nothing) is what remains
def _enospc_after(monkeypatch, files: int) -> None:
    """Make the file writer fail with ENOSPC after `files` files, as a full disk does."""
    import errno

    from netauto.render import output

    real = output._create
    count = {"n": 0}

    def create(path, data, mode):
        count["n"] += 1
        if count["n"] > files:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data, mode)

    monkeypatch.setattr(output, "_create", create)


@pytest.mark.parametrize("after", [0, 2, 5])
def test_disk_full_while_updating_keeps_the_previous_tree(tmp_path, monkeypatch, after):
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    age(out)
    before = tree_state(out)
    new = [Artifact(a.device, a.path, a.content.replace("v1", "v2") + "changed\n", a.mode) for a in artifacts()]
    _enospc_after(monkeypatch, after)
    with pytest.raises(OutputError, match=r"No space left on device \(ENOSPC\); the previous output is unchanged"):
        write_tree(new, out)
    assert tree_state(out) == before
    assert leftovers(tmp_path, out) == []


@pytest.mark.parametrize("files", [0, 1])
def test_disk_full_after_moving_unchanged_folders_moves_them_back(tmp_path, monkeypatch, files):
    """One device changes: the other device folders are moved into the new tree by rename; a full disk at the
    changed file (files=0) or at the manifest (files=1, after the moves) must leave the old tree whole."""
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    age(out)
    before = tree_state(out)
    _enospc_after(monkeypatch, files)
    with pytest.raises(OutputError, match=r"\(ENOSPC\); the previous output is unchanged"):
        write_tree(artifacts("v2"), out)
    assert tree_state(out) == before
    assert leftovers(tmp_path, out) == []


def test_update_links_unchanged_device_folders(tmp_path):
    """The unchanged devices' files are hard-linked, not rebuilt (same inode and mtime), and the old tree's folders
    are never moved out of place: the folder the old tree held is only replaced by the one exchange."""
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    files = {rel: os.lstat(out / rel) for rel in (f"{a.device}/{a.path}" for a in artifacts())}
    stats = write_tree(artifacts("v2"), out)
    for rel, before in files.items():
        after = os.lstat(out / rel)
        if rel == "leaf1/etc/frr/frr.conf":  # the one changed file
            assert after.st_ino != before.st_ino
        else:
            assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), rel
    assert (stats.written, stats.unchanged, stats.removed) == (1, 4, 0)
    assert json.loads((out / MANIFEST).read_text())["files"].keys() == {f"{a.device}/{a.path}" for a in artifacts()}
    assert tree_matches(out, None)  # the manifest's stats describe the linked files too


def test_next_render_removes_what_a_killed_render_left(tmp_path):
    """Temp and old-tree folders of a dead render are removed by the next render (under its lock)."""
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    dead = [tmp_path / ".fab.tmp-abcd1234", tmp_path / ".fab.old-xyz_9876"]
    for folder in dead:
        (folder / "leaf1").mkdir(parents=True)
        (folder / "leaf1" / "junk").write_text("x")
    other = tmp_path / ".fabric.tmp-abcd1234"  # another output's name: not ours
    other.mkdir()
    write_tree(artifacts("v2"), out)
    assert not any(folder.exists() for folder in dead) and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".fabric.tmp-abcd1234", "fab"]


def test_killed_fallback_swap_is_put_back(tmp_path):
    """Without RENAME_EXCHANGE the swap is two renames; a kill between them leaves the old tree under .NAME.old-*,
    which the next render restores before it compares (so unchanged files are still linked, not rewritten)."""
    out = tmp_path / "fab"
    write_tree(artifacts("v1"), out)
    os.rename(out, tmp_path / ".fab.old-abcd1234")
    stats = write_tree(artifacts("v2"), out)
    assert (stats.written, stats.unchanged) == (1, 4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fab"]


@pytest.fixture
def small_fs(tmp_path):
    """A real 256 KiB tmpfs (root only), unmounted afterwards."""
    import subprocess

    mnt = tmp_path / "small"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the injected ENOSPC tests cover the logic)")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {proc.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(mnt: Path, leave: int) -> None:
    """Fill the filesystem until only about `leave` bytes are free."""
    st = os.statvfs(mnt)
    free = st.f_bavail * st.f_frsize
    (mnt / "filler").write_bytes(b"\0" * max(0, free - leave))


def test_real_disk_full_fresh_render_is_one_line_and_leaves_nothing(small_fs, capsys, monkeypatch):
    """The shipped fabric (104 files, >= 4 KiB each on tmpfs) does not fit in 256 KiB: exit 2, one line."""
    from test_bad_input import run_in_process

    code, stdout, stderr = run_in_process(["render", "-i", str(DEFAULT_INVENTORY), "-o", str(small_fs / "build")],
                                          capsys, monkeypatch)
    assert code == 2, stdout + stderr
    assert "Traceback" not in stdout + stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert "No space left on device (ENOSPC)" in stderr and "(fix: free space" in stderr, stderr
    assert not (small_fs / "build").exists()  # the folder the failed first render created is gone too


def test_real_disk_full_while_updating_keeps_the_previous_tree(small_fs):
    out = small_fs / "fab"
    write_tree(artifacts("v1"), out)
    age(out)
    before = tree_state(out)
    _fill(small_fs, 16 * 1024)
    new = [Artifact(a.device, a.path, a.content.replace("v1", "v2") + "x" * 8192, a.mode) for a in artifacts()]
    with pytest.raises(OutputError, match=r"No space left on device \(ENOSPC\)"):
        write_tree(new, out)
    assert tree_state(out) == before
    assert leftovers(small_fs, out) == ["filler"]
    (small_fs / "filler").unlink()
    write_tree(new, out)  # with room again, the update goes through
    assert (out / "leaf1/etc/frr/frr.conf").read_text().startswith("hostname leaf1\n! v2\n")


def test_fingerprint_covers_every_module_render_imports(tmp_path, monkeypatch):
    """A changed module in render's import closure outside the old list (monitoring's rules, netutil, the part
    chooser the resolver runs) forces a re-render; a change to validate/ or bom.py (not imported by render) does
    not."""
    import netauto
    from netauto.render import fingerprint as fp

    real = Path(netauto.__file__).resolve().parent
    fake = tmp_path / "netauto"
    shutil.copytree(real, fake, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fp.netauto, "__file__", str(fake / "__init__.py"))
    before = fp.render_fingerprint(DEFAULT_INVENTORY, None)
    for changed in (fake / "monitoring" / "rules.py", fake / "netutil" / "ip.py", fake / "model" / "parts.py"):
        text = changed.read_text()
        changed.write_text(text + "\n# changed\n")
        assert fp.render_fingerprint(DEFAULT_INVENTORY, None) != before, changed
        changed.write_text(text)
    for unused in (fake / "validate" / "runner.py", fake / "bom.py"):
        unused.write_text(unused.read_text() + "\n# changed\n")
    assert fp.render_fingerprint(DEFAULT_INVENTORY, None) == before


def test_one_answer_to_is_the_tree_current():
    """render.fingerprint.tree_matches, under its one name: no alias kept for tests (issue #35 item 5)."""
    import netauto
    from netauto.render import output

    assert not hasattr(output, "tree_is_current")
    src = Path(netauto.__file__).resolve().parent
    assert not [p for p in src.rglob("*.py") if re.search(r"\btree_is_current\b", p.read_text())]


def test_netauto_render_is_not_up_to_date_after_a_monitoring_rule_changes(tmp_path):
    """The command, end to end, on a copy of the package (as an upgrade of netauto that changes only
    monitoring/): a changed rule module re-renders; a changed validate/ module stays "up to date"."""
    import subprocess
    import sys

    import netauto

    (tmp_path / "src").mkdir()
    package = tmp_path / "src" / "netauto"
    shutil.copytree(Path(netauto.__file__).resolve().parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "templates", tmp_path / "templates")  # the checkout's layout: render.fingerprint
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "PYTHONDONTWRITEBYTECODE": "1"}

    def render() -> str:
        done = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(DEFAULT_INVENTORY), "-o",
                               str(tmp_path / "out")], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert render().startswith("rendered ")
    assert "is up to date" in render()
    rules = package / "monitoring" / "rules.py"
    rules.write_text(rules.read_text() + "\n# changed\n")
    assert render().startswith("rendered "), "a changed monitoring rule module left the output 'up to date'"
    runner = package / "validate" / "runner.py"
    runner.write_text(runner.read_text() + "\n# changed\n")
    assert "is up to date" in render()


def test_the_fingerprint_parts_hold_every_module_render_loads():
    """Every netauto module a render loads (the render package, the resolver, the loader, then a render of the
    cluster example, which imports lazily too) lies in a part `fingerprint.render_parts` hashes."""
    import subprocess
    import sys

    from netauto.render import fingerprint

    code = ("import sys, netauto.render, netauto.model.resolve, netauto.inventory.loader, netauto.pipeline as p\n"
            f"p.render_files(p.build_cluster({str(ROOT / 'examples' / 'cluster-64' / 'inventory')!r}))\n"
            "print('\\n'.join(m for m in sys.modules if m.startswith('netauto')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    parts = set(fingerprint.render_parts(fingerprint.package_dir()))
    package = fingerprint.package_dir()
    outside = {m for m in loaded if m != "netauto" and m != "netauto.pipeline"
               and (m.split(".")[1] if (package / m.split(".")[1]).is_dir() else m.split(".")[1] + ".py") not in parts}
    # validate/ is imported by pipeline.py for `validate_build` (lazily: not by a render); nothing else
    assert {m for m in outside if not m.startswith("netauto.validate")} == set()


def test_fingerprint_covers_the_platform_data(tmp_path, monkeypatch):
    """A changed NOS or hardware fact (platforms/data) changes the rendered files, so it must force a re-render."""
    import netauto
    from netauto.render import fingerprint as fp

    real = Path(netauto.__file__).resolve().parent
    fake = tmp_path / "netauto"
    shutil.copytree(real, fake, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fp.netauto, "__file__", str(fake / "__init__.py"))
    before = fp.render_fingerprint(DEFAULT_INVENTORY, None)
    data = fake / "platforms" / "data" / "nos_cumulus.yaml"
    data.write_text(data.read_text() + "\n# changed\n")
    assert fp.render_fingerprint(DEFAULT_INVENTORY, None) != before
