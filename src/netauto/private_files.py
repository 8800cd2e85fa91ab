"""Files that can hold device content (deploy results, backups, drift/verify reports, --log-file): 0600, in
folders netauto creates 0700. Device content carries configuration and, before redaction misses a new syntax,
secrets; no other local user reads it. An existing folder the user chose keeps its mode, except a folder netauto
owns wholesale (a backup DIR), which is made 0700 when the user owns it."""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path, own: bool = False) -> None:
    """Create `path` and its missing parents 0700; `own`: also make an existing `path` of this user 0700."""
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
    if own and path.stat().st_uid == os.getuid():
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
