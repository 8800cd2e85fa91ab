"""A few devices' files replaced in a rendered tree through a roll-forward journal (`netauto render` after a
small edit): `update_tree` stages the changed files and commits them with one rename, `settle` applies a
committed journal, `complete_update` lets a reader of the tree finish one a killed render left. The whole-tree
writer and its guarantees are `netauto.render.output`'s; docs/security.md, "Output folder", says how a journaled
update weakens the whole-tree guarantee for small changes.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from netauto.errors import OutputError
from netauto.render.engine import Artifact
from netauto.render.output import (JOURNAL, MANIFEST, WriteStats, _digest, _load_manifest, distinct_relpaths,
                                   _remove_dead, _stat_key, _target, output_lock)
from netauto.render.tree_files import _create


def update_tree(arts: list[Artifact], devices: set[str], out_dir: Path, fingerprint: str,
                expected: str) -> WriteStats | None:
    """Replace the files of `devices` in the tree at `out_dir` by `arts` (a device of `devices` without
    artifacts is removed); every other device's files stay as they are, untouched. The tree must be the one
    whose manifest says `expected` (else None: the caller writes the whole tree with `write_tree`).

    Cost scales with the changed files: the changed files and the new manifest are written into a temp folder
    beside the tree (plus the list of renames and removals), which becomes `OUT/.netauto-journal` with one
    rename: the commit point. `settle` then applies it (removals, renames into place, the manifest last) and
    drops it. Killed before the commit: the old tree, whole (the temp folder is removed by the next render).
    Killed after: the old files plus a committed journal, which the next render, or any reader calling
    `complete_update`, rolls forward to the new tree, whole; `fingerprint.tree_matches` is False until then.
    """
    out_dir = _target(out_dir)
    rels = distinct_relpaths(arts)
    stats = WriteStats()
    step = "lock the output folder"
    try:
        with output_lock(out_dir.parent):
            out_dir = _target(out_dir)
            step = "remove what a killed render left"
            _remove_dead(out_dir, background=True)
            settle(out_dir)
            manifest = _load_manifest(out_dir)
            if not out_dir.is_dir() or manifest.get("fingerprint") != expected:
                return None
            old: dict[str, Any] = manifest.get("files", {})
            files = {rel: e for rel, e in old.items() if rel.split("/", 1)[0] not in devices}
            step = "create a temp folder"
            stage = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
            try:
                moves: list[tuple[str, str]] = []
                for art, rel in zip(arts, rels):
                    data = art.content.encode()
                    entry: dict[str, Any] = {"sha": _digest(data), "mode": f"{art.mode:04o}", "owner": art.owner}
                    was = old.get(rel)
                    if (isinstance(was, dict) and was.get("sha") == entry["sha"] and was.get("mode") == entry["mode"]
                            and was.get("stat") is not None and _stat_key(out_dir / rel) == was["stat"]):
                        entry["stat"] = was["stat"]
                        stats.unchanged += 1
                    else:
                        step = f"write {rel}"
                        entry["stat"] = _create(str(stage / str(len(moves))), data, art.mode)
                        moves.append((str(len(moves)), rel))
                        stats.written += 1
                    files[rel] = entry
                removes = sorted(rel for rel in old if rel.split("/", 1)[0] in devices and rel not in files)
                stats.removed, stats.files = len(removes), len(files)
                step = f"write {MANIFEST}"
                _create(str(stage / MANIFEST), json.dumps({"fingerprint": fingerprint, "files": files},
                                                          sort_keys=True).encode(), 0o644)
                _create(str(stage / "ops.json"), json.dumps({"moves": moves, "removes": removes}).encode(), 0o600)
                step = "commit the update"
                os.rename(stage, out_dir / JOURNAL)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
            step = "apply the committed update (the next render completes it)"
            settle(out_dir)
    except OSError as exc:
        raise OutputError(f"{out_dir}: cannot {step}: {exc.strerror or exc}; the previous output is unchanged "
                          "or its committed update is completed by the next render (fix: check the folder's "
                          "permissions and free space)") from None
    return stats


def settle(out_dir: Path) -> bool:
    """Roll a committed update (`OUT/.netauto-journal`) forward; the caller holds the output lock. Every step
    can run again after a kill: a file already moved is skipped, the manifest goes last, the journal is then
    renamed out of the tree in one step and removed. True when there was one."""
    journal = out_dir / JOURNAL
    if not os.path.lexists(journal):
        return False
    if journal.is_symlink() or not journal.is_dir():
        raise OutputError(f"{journal} is not netauto's update journal (fix: remove it and render again)")
    try:
        ops = json.loads((journal / "ops.json").read_text())
        moves, removes = ops["moves"], ops["removes"]
    except (OSError, ValueError, KeyError, TypeError):
        raise OutputError(f"{journal}: unreadable update journal (fix: remove {out_dir} and render again)") from None
    root = str(out_dir)
    for rel in removes:
        _remove_path(root, rel)
    for name, rel in moves:
        staged = f"{journal}/{name}"
        if not os.path.lexists(staged):
            continue  # moved before a kill
        _real_parents(root, rel)
        if os.path.isdir(f"{root}/{rel}") and not os.path.islink(f"{root}/{rel}"):
            shutil.rmtree(f"{root}/{rel}")
        os.rename(staged, f"{root}/{rel}")
    if os.path.lexists(journal / MANIFEST):
        os.rename(journal / MANIFEST, out_dir / MANIFEST)
    dead = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
    os.rename(journal, dead)  # out of the tree in one step, then removed (or by the next render, if killed)
    shutil.rmtree(dead, ignore_errors=True)
    return True


def complete_update(out_dir: Path) -> None:
    """For readers of a rendered tree (deploy, validate --configs): finish an update a killed render committed,
    so what they read is one whole render."""
    out_dir = Path(os.path.abspath(out_dir))
    if os.path.lexists(out_dir / JOURNAL):
        with output_lock(out_dir.parent):
            settle(out_dir)


def _remove_path(root: str, rel: str) -> None:
    """Remove `root/rel` (never following a symlink) and the folders it leaves empty below the device folder."""
    path = f"{root}/{rel}"
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    parent = rel.rpartition("/")[0]
    while parent:
        try:
            os.rmdir(f"{root}/{parent}")
        except OSError:
            break
        parent = parent.rpartition("/")[0]


def _real_parents(root: str, rel: str) -> None:
    """Make every folder above `root/rel` a real folder: missing ones created, anything else (a symlink
    planted in the tree, a file) replaced, so the rename never lands outside the tree."""
    folder = ""
    for part in rel.split("/")[:-1]:
        folder = f"{folder}/{part}" if folder else part
        path = f"{root}/{folder}"
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            os.mkdir(path, 0o755)
            continue
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(path)
            os.mkdir(path, 0o755)
