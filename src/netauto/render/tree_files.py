"""The file primitives of the output tree: paths that cannot leave it, files created without following a link or
replacing one, folders made once, an unchanged file found by its stat key, and the atomic swap of two folders
(renameat2 RENAME_EXCHANGE). netauto.render.output composes them into a whole-tree write, netauto.render.journal
into a few devices' update."""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from netauto.errors import OutputError
from netauto.render.artifact import Artifact
from netauto.render.fingerprint import stat_key as _stat_key


def _relpath(art: Artifact) -> str:
    """`device/path` of an artifact, refusing anything that would land outside the output folder."""
    rel = f"{art.device}/{art.path}"
    parts = rel.split("/")
    if rel.startswith("/") or "\0" in rel or "\\" in rel or any(p in ("", ".", "..") for p in parts):
        raise OutputError(f"refusing to write {rel!r}: the path leaves the output folder or is not a plain "
                          "relative path (device names are hostnames, file paths relative)")
    return rel



_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2: Any
try:
    _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
except (OSError, AttributeError):  # not glibc >= 2.28 / not Linux
    _renameat2 = None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two folders; False where the OS or filesystem cannot (the caller renames twice)."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _create(path: str, data: bytes, mode: int) -> list[int]:
    """Write a new file (never through a symlink, never over an existing one); its manifest stat key.

    Created with `mode` directly (the temp folder is 0700, so nobody else sees it before the swap); fchmod
    only where the umask took bits away. One open, write, fstat and close per file: the 10k example with its
    networks writes ~20,000 files."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        st = os.fstat(fd)
        if st.st_mode & 0o777 != mode:
            os.fchmod(fd, mode)
    finally:
        os.close(fd)
    return [st.st_size, st.st_mtime_ns, mode]


def _make_dirs(root: str, rel: str, made: set[str]) -> None:
    """Create `root/rel` and its missing parents below `root`, one mkdir each (`made`: those this process made).
    A folder another of the pool's workers made first is fine: `root` is the render's private temp folder
    (0700), so nobody else can have put anything there."""
    missing = []
    while rel and rel not in made:
        missing.append(rel)
        rel = rel.rpartition("/")[0]
    for folder in reversed(missing):
        try:
            os.mkdir(f"{root}/{folder}", 0o755)
        except FileExistsError:
            pass  # made by another worker (a server's compute and network files come from different parts)
        made.add(folder)


def write_files(artifacts: Iterable[Artifact], root: Path) -> None:
    """Create `artifacts` as new files under `root` (a private temp folder: validate's scratch tree), with their
    modes, never through a symlink or over an existing file. Not the output writer (`write_tree`)."""
    made: set[str] = set()
    base = str(root)
    os.makedirs(base, mode=0o700, exist_ok=True)
    for art in artifacts:
        rel = _relpath(art)
        folder = rel.rpartition("/")[0]
        if folder not in made:
            _make_dirs(base, folder, made)
        _create(f"{base}/{rel}", art.content.encode(), art.mode)


def _unchanged(old: str, data: bytes, sha: str, mode: int, entry: Any) -> list[int] | None:
    """The stat key of the old tree's file when it already holds `data` with `mode` (a regular file, not a
    symlink), else None. A hard link to it has the same stat key (size, mtime and mode belong to the inode)."""
    current = _stat_key(old)
    if current is None or current[2] != mode:
        return None
    if isinstance(entry, dict) and entry.get("stat") == current:
        return current if entry.get("sha") == sha else None
    if current[0] != len(data):
        return None
    try:
        with open(old, "rb") as handle:
            return current if handle.read() == data else None
    except OSError:
        return None


def _regular_files(root: Path) -> set[str] | None:
    """Paths (relative to `root`) of the regular files below it; None when anything else is there (a symlink,
    a fifo): such a folder is never reused, its files never compared or linked."""
    found: set[str] = set()
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():
                    return None
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), f"{prefix}{entry.name}/"))
                elif entry.is_file(follow_symlinks=False):
                    found.add(prefix + entry.name)
                else:
                    return None
    return found


def _old_tree(out_dir: Path) -> tuple[dict[str, set[str] | None], set[str]]:
    """The existing tree: top-level folder -> its regular files (None: not reusable), and top-level files."""
    folders: dict[str, set[str] | None] = {}
    files: set[str] = set()
    with os.scandir(out_dir) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders[entry.name] = _regular_files(Path(entry.path))
            else:
                files.add(entry.name)
    return folders, files
