"""Write rendered artifacts atomically: the whole tree (`build_tree`/`write_tree`). A few devices' files go
through `netauto.render.journal`; comparing with a reference tree is `netauto.render.compare`.

`write_tree` never writes into the existing output and never moves anything out of it: it builds the complete
new tree in a fresh temp folder beside it (same parent, so the same filesystem), hard-links the unchanged files
over from the old tree (same inode and mtime; a copy where links are impossible), writes the manifest last and
swaps the two folders with one atomic rename (renameat2 RENAME_EXCHANGE on Linux). So a render killed at any
instruction (SIGKILL, power loss after the journal commits) leaves the old tree or the new one, complete; a
failure at any point (a template error, a full disk, a permission) removes the temp folder and leaves the
previous tree as it was. Where RENAME_EXCHANGE is missing (not Linux, a filesystem without it) the swap is two
renames: a kill between them leaves no output folder but the old tree under `.NAME.old-*`, which the next render
puts back. Every render removes, under the lock, the temp folders a killed render left (`.NAME.tmp-*`,
`.NAME.old-*`: nobody else can be writing them while the lock is held). An fcntl lock on the parent folder serialises writers, so two renders
into one output folder take turns instead of mixing their files. Every file is created with
O_CREAT|O_EXCL|O_NOFOLLOW inside the temp folder, so a symlink planted in or beside the output is never
followed for writing.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from netauto.errors import OutputError
from netauto.private_files import shared_refusal
from netauto.render.artifact import Artifact
from netauto.render.fingerprint import dead_temp_names, manifest_of, stat_key
from netauto.render.tree_files import _create, _exchange, _make_dirs, _old_tree, _relpath, _unchanged


MANIFEST = ".netauto-manifest.json"
JOURNAL = ".netauto-journal"  # a committed update of a few devices' files (update_tree), rolled forward by settle
LOCK_TIMEOUT_S = 600.0  # a render of the 10k example takes seconds; ten minutes means a stuck writer


@dataclass
class WriteStats:
    written: int = 0
    unchanged: int = 0
    removed: int = 0
    files: int = 0
    skipped: bool = False  # inputs unchanged since the last render: nothing rendered at all


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _load_manifest(out_dir: Path) -> dict[str, Any]:
    try:
        data = manifest_of(out_dir)  # parsed once per process while its stat stays (3 MB at 10k); never mutated
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("files", {}), dict) else {}


_stat_key = stat_key  # one definition: netauto.render.fingerprint (stdlib only, the unchanged fast path)


def read_manifest(out_dir: Path) -> dict[str, Any]:
    """The manifest of the tree at `out_dir` ({} when there is none or it is unreadable)."""
    return _load_manifest(out_dir)


def changed_files(out_dir: Path, manifest: dict[str, Any]) -> list[str]:
    """The files of `manifest` whose size, mtime or mode on disk is not what it recorded (edited, removed)."""
    root = str(out_dir)
    return [rel for rel, e in manifest.get("files", {}).items()
            if not isinstance(e, dict) or _stat_key(f"{root}/{rel}") != e.get("stat")]


def shared_path(rel: str) -> OutputError:
    return OutputError(f"two rendered files share the path {rel!r} (fix: give the devices distinct names)")


def distinct_relpaths(arts: list[Artifact]) -> list[str]:
    """Each artifact's `device/path`; two at one path: OutputError, before anything is written."""
    rels = [_relpath(art) for art in arts]
    if len(set(rels)) != len(rels):
        raise shared_path(next(r for r in rels if rels.count(r) > 1))
    return rels


def _target(out_dir: Path) -> Path:
    """`out_dir` with its parent resolved; the folder itself must be a real folder (or absent), never a symlink,
    and no other user may swap it (`shared_refusal`: a /tmp/b made by another user first)."""
    out_dir = Path(os.path.abspath(out_dir))
    why = shared_refusal(out_dir)
    if why is not None:
        raise OutputError(f"{why}: another user could swap the rendered files there before they are deployed "
                          "(fix: render into a folder of your own, e.g. one `mktemp -d` made)")
    out_dir = out_dir.parent.resolve() / out_dir.name
    if out_dir.is_symlink():
        raise OutputError(f"{out_dir} is a symlink; netauto replaces the output folder as a whole and does not "
                          "follow it (fix: remove the symlink or pass the real folder with -o)")
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"{out_dir} exists and is not a folder (fix: remove it or choose another -o)")
    return out_dir


@contextmanager
def output_lock(parent: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """An exclusive fcntl lock on the folder that holds the output tree (released when the process ends)."""
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OutputError(f"{parent}: another netauto process has been writing here for "
                                      f"{timeout:.0f} s (fix: wait for it or stop it)") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)


class Row(NamedTuple):
    """What the manifest needs of one file of the new tree, never its content: all the pool's workers send back."""

    rel: str  # device/path
    sha: str
    mode: int
    owner: str | None
    stat: list[int] | None  # size, mtime, mode of the file in the new tree
    linked: bool  # unchanged: hard-linked from the old tree


Write = Callable[[Artifact], Row]


@dataclass
class _Build:
    """A new tree being built in its temp folder, and what it may reuse of the old tree. `write` runs where the
    file is rendered (the pool's workers inherit this object when they are forked), so the rendered text never
    travels to the parent."""

    out_dir: Path
    root: str  # the temp folder
    old_root: str
    old_entries: dict[str, Any]
    old_folders: dict[str, set[str] | None]
    made: set[str] = field(default_factory=set)

    def write(self, art: Artifact) -> Row:
        """Put one rendered file in the new tree: hard-linked from the old tree when unchanged, else created."""
        rel = _relpath(art)
        step = f"write {rel}"
        try:
            data = art.content.encode()
            sha = _digest(data)
            device, _, local = rel.partition("/")
            folder = rel.rpartition("/")[0]
            if folder not in self.made:
                _make_dirs(self.root, folder, self.made)
            target = f"{self.root}/{rel}"
            old_files = self.old_folders.get(device)
            if old_files is not None and local in old_files:
                old = f"{self.old_root}/{rel}"
                current = _unchanged(old, data, sha, art.mode, self.old_entries.get(rel))
                if current is not None and _carry(old, target):
                    return Row(rel, sha, art.mode, art.owner, current, True)
            try:
                stat_key = _create(target, data, art.mode)
            except FileExistsError:
                raise shared_path(rel) from None
            return Row(rel, sha, art.mode, art.owner, stat_key, False)
        except OSError as exc:
            raise _write_error(self.out_dir, step, exc) from None


def _write_error(out_dir: Path, step: str, exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc)
    name = errno.errorcode.get(exc.errno or 0, "")
    fix = ("free space on that filesystem or render to another -o folder" if exc.errno in (errno.ENOSPC, errno.EDQUOT)
           else "check the folder's permissions and that it is on a writable filesystem")
    return OutputError(f"{out_dir}: cannot {step}: {reason}{f' ({name})' if name else ''}; the previous "
                       f"output is unchanged (fix: {fix})")


def write_tree(
    artifacts: Iterable[Artifact], out_dir: Path, fingerprint: str | None = None, manifest: bool = True
) -> WriteStats:
    """Write `artifacts` as the tree at `out_dir`, all or nothing (`build_tree`, written in this process). They
    are all in memory first, so a path that leaves the output or two files at one path are refused before the
    output's folder is touched."""
    arts = list(artifacts)
    distinct_relpaths(arts)
    return build_tree(lambda write: map(write, arts), out_dir, fingerprint, manifest)


def build_tree(produce: Callable[[Write], Iterable[Row]], out_dir: Path, fingerprint: str | None = None,
               manifest: bool = True) -> WriteStats:
    """Build the tree at `out_dir`, all or nothing; unchanged files keep their inode and timestamps.

    `produce(write)` renders the files and passes each to `write` as it is rendered (in this process or in the
    pool's workers), returning the rows `write` returned. `write` puts each file in a temp folder beside the old
    tree: hard-linked from the old tree when its content and mode are unchanged (the old tree is never
    touched), else created. Then the manifest is written from the rows and the two trees are swapped (see the
    module docstring). Any error while rendering or writing (a template, a full disk) removes the temp folder
    and leaves the previous output untouched. With `manifest=True` an existing non-empty folder is only
    replaced when it holds a netauto manifest (so a mistyped -o never replaces a folder netauto did not
    write); golden configs (`manifest=False`) have none.
    """
    out_dir = _target(out_dir)
    stats = WriteStats()
    step = "create the output folder"
    made = _missing_folders(out_dir.parent)
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        step = "lock the output folder"
        with output_lock(out_dir.parent):
            out_dir = _target(out_dir)  # again, under the lock
            step = "remove what a killed render left"
            _remove_dead(out_dir)
            exists = out_dir.exists()
            if exists and manifest and not (out_dir / MANIFEST).is_file() and any(out_dir.iterdir()):
                raise OutputError(f"{out_dir} holds files but no {MANIFEST}: netauto did not write it and will "
                                  "not replace it (fix: remove the folder or choose another -o)")
            step = "read the existing output"
            old_entries = _load_manifest(out_dir).get("files", {}) if exists else {}
            old_folders, old_top_files = _old_tree(out_dir) if exists else ({}, set())
            step = "create a temp folder"
            tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
            build = _Build(out_dir, str(tmp), str(out_dir), old_entries, old_folders)
            rows: Iterable[Row] = ()
            try:
                rows = produce(build.write)
                files: dict[str, Any] = {}
                modes: dict[int, str] = {}  # one string per mode and owner (300,000 files at 100k GPUs)
                owners: dict[str | None, str | None] = {}
                for row in rows:
                    if row.rel in files:  # written twice by one process: the second link or create failed
                        raise shared_path(row.rel)
                    mode = modes.get(row.mode) or modes.setdefault(row.mode, f"{row.mode:04o}")
                    files[row.rel] = {"sha": row.sha, "mode": mode, "owner": owners.setdefault(row.owner, row.owner),
                                      "stat": row.stat}  # intent: deploy/drift compare it
                    if row.linked:
                        stats.unchanged += 1
                    else:
                        stats.written += 1
                stats.files = len(files)
                if manifest:
                    step = f"write {MANIFEST}"
                    _create(str(tmp / MANIFEST), json.dumps({"fingerprint": fingerprint, "files": files},
                                                        sort_keys=True).encode(), 0o644)
                os.chmod(tmp, 0o755)
                old_all = {f"{d}/{f}" for d, fs in old_folders.items() for f in fs or ()} | old_top_files
                stats.removed = len({r for r in old_all - set(files) - {MANIFEST} if not r.startswith(JOURNAL + "/")})
                step = "swap the new tree in"
                _swap(tmp, out_dir, exists)
            except BaseException:
                close = getattr(rows, "close", None)
                if close is not None:
                    close()  # a pool's generator: its workers are stopped before their folder is removed
                shutil.rmtree(tmp, ignore_errors=True)
                raise
    except OSError as exc:
        _remove_empty(made)
        raise _write_error(out_dir, step, exc) from None
    except BaseException:
        _remove_empty(made)  # a failed render leaves no trace: not even the -o folder it created
        raise
    return stats


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and its ancestors that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:  # not empty (another process wrote there meanwhile) or gone: leave it
            return


def _carry(old: str, new: str) -> bool:
    """Hard-link an unchanged file of the old tree into the new one; False where the filesystem refuses."""
    try:
        os.link(old, new, follow_symlinks=False)
        return True
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
            raise
        return False  # another filesystem, a file owned by someone else, no hard links: the caller copies


def _remove_dead(out_dir: Path, background: bool = False) -> None:
    """Remove the temp folders of killed renders of `out_dir` (the caller holds the lock, so no live render
    owns one); where a killed fallback swap left no output folder, put the old tree back first. `background`:
    a large one goes to `_discard`'s background `rm` (a swapped-out tree whose own background `rm` is still
    running looks dead too: a journaled update, a drain seconds after a full render, must not wait for it)."""
    dead = dead_temp_names(out_dir)
    if not os.path.lexists(out_dir):
        for name in sorted(dead):
            if ".old-" in name and os.path.isfile(out_dir.parent / name / MANIFEST):
                os.rename(out_dir.parent / name, out_dir)
                dead.remove(name)
                break
    for name in dead:
        if background:
            _discard(out_dir.parent / name)
        else:
            shutil.rmtree(out_dir.parent / name, ignore_errors=True)


def remove_dead(out_dir: Path) -> None:
    """What killed renders of `out_dir` left beside it, removed under the output lock (a render that finds its
    tree up to date writes nothing, but still cleans up: a render killed right after its swap left the old tree
    as a temp folder). Nothing there: no lock taken (an up-to-date render stays a read)."""
    out_dir = _target(out_dir)
    if not dead_temp_names(out_dir):
        return
    with output_lock(out_dir.parent):
        _remove_dead(out_dir, background=True)


def _swap(tmp: Path, out_dir: Path, exists: bool) -> None:
    """Put the finished tree `tmp` at `out_dir`; remove the old tree afterwards."""
    if not exists:
        os.rename(tmp, out_dir)
        return
    if _exchange(tmp, out_dir):
        _discard(tmp)  # now holds the old tree
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
    os.rename(out_dir, old)  # onto the empty placeholder: a unique name nobody else can have taken
    try:
        os.rename(tmp, out_dir)
    except BaseException:
        os.rename(old, out_dir)
        raise
    _discard(old)


BACKGROUND_REMOVAL_ENTRIES = 512  # top-level folders of an old tree above which it is removed in the background


def _discard(old: Path) -> None:
    """Remove the old tree after the swap. A large one (the 10k example: ~1,700 device folders, ~10,000
    sub-folders; rmdir is slow on a busy disk) is left to a detached `rm -rf`, so the render returns without
    waiting; its name is a dead render's temp name, so the next render removes it if that `rm` was killed too."""
    try:
        with os.scandir(old) as entries:
            large = sum(1 for _ in entries) > BACKGROUND_REMOVAL_ENTRIES
    except OSError:
        return
    if large:
        try:  # sh backgrounds rm and exits at once: nothing to reap later, rm is re-parented to init
            subprocess.run(["sh", "-c", 'rm -rf -- "$1" </dev/null >/dev/null 2>&1 &', "sh", str(old)],
                           check=True, start_new_session=True, timeout=30)
            return
        except (OSError, subprocess.SubprocessError):
            pass
    shutil.rmtree(old, ignore_errors=True)
