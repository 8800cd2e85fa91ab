"""Files that can hold device content (deploy results, backups, drift/verify reports, --log-file): 0600, in
folders netauto creates 0700. Device content carries configuration and, before redaction misses a new syntax,
secrets; no other local user reads it. An existing folder the user chose keeps its mode, except a folder netauto
owns wholesale (a backup DIR, acceptance RESULTS), which must be the user's own and is made 0700."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from netauto.errors import UsageError

FILE_MODE = 0o600
DIR_MODE = 0o700


def _not_own(path: Path) -> str | None:
    """Why netauto may not fill folder `path` (None: it may): it, or a folder it is in, lets another user plant a
    link or swap a file there. The folder: no link, this user's own. Its parent: writable by nobody else, or
    sticky (/tmp: others cannot rename what this user made)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        return f"{path}: a symbolic link"
    if st is not None and st.st_uid != os.geteuid():
        return f"{path}: owned by uid {st.st_uid}, not {os.geteuid()}"
    parent = path.parent
    while not parent.exists() and parent.parent != parent:
        parent = parent.parent
    pst = parent.stat()
    if pst.st_mode & stat.S_IWOTH and not pst.st_mode & stat.S_ISVTX:
        return f"{parent}: writable by others (mode {stat.S_IMODE(pst.st_mode):04o})"
    return shared_refusal(path)


def shared_refusal(path: Path) -> str | None:
    """Why another user could swap what netauto writes at `path` (None: nobody but this user and root can): the
    nearest existing folder is writable by others without the sticky bit, or an entry on the way (it, or a folder
    above it) sits in a folder every user may write (/tmp) and is a symbolic link or another user's (made there
    first: `render -o /tmp/b`). Checked on the path as given, before anything resolves a link in it."""
    path = Path(os.path.abspath(path))
    nearest = True
    for entry in [path, *path.parents]:
        if entry.parent == entry:
            break
        try:
            st = entry.lstat()
        except FileNotFoundError:
            continue
        if nearest and not stat.S_ISLNK(st.st_mode) and st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
            return f"{entry}: writable by others (mode {stat.S_IMODE(st.st_mode):04o})"
        nearest = False
        if not os.stat(entry.parent).st_mode & stat.S_IWOTH:
            continue
        if stat.S_ISLNK(st.st_mode):
            return f"{entry}: a symbolic link in {entry.parent}, a folder every user may write"
        if st.st_uid not in (os.geteuid(), 0):
            return f"{entry}: owned by uid {st.st_uid} in {entry.parent}, a folder every user may write"
    return None


def private_dir(path: Path, own: bool = False) -> None:
    """Create `path` and its missing parents 0700; `own`: `path` is a folder netauto fills (a backup DIR,
    acceptance RESULTS): refused (UsageError, exit 2) unless only this user can write it (`_not_own`), made 0700."""
    if own and (why := _not_own(path)) is not None:
        raise UsageError(f"{why}: netauto writes device content only into a folder no other user can write to "
                         f"(fix: choose a folder of your own, or a new one: netauto creates it 0700)")
    missing = []
    folder = path
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(mode=DIR_MODE, exist_ok=True)
        made.chmod(DIR_MODE)  # mkdir's mode is masked by the umask
    if own:
        path.chmod(DIR_MODE)


def write_private(path: Path, data: str | bytes) -> Path:
    """Write `path` 0600 (never readable by others, not even while written), replacing it atomically."""
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode() if isinstance(data, str) else data)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
    return path


def touch_private(path: Path) -> Path:
    """Make sure `path` exists and is 0600 (an append-only log opened afterwards keeps the mode)."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    return path
