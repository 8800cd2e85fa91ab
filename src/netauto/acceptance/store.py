"""RESULTS/: a 0700 folder of 0600 files (test output can carry host details)."""

from __future__ import annotations

import os
from pathlib import Path

from netauto.private_files import private_dir


def results_dir(path: Path) -> Path:
    """RESULTS made 0700; another user's folder (or a link, or one in a folder others may write) is refused."""
    private_dir(path, own=True)
    return path


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` as 0600 (replacing a file; never following a symlink planted there)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)
