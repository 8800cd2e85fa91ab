"""RESULTS/: a 0700 folder of 0600 files (test output can carry host details)."""

from __future__ import annotations

import os
from pathlib import Path


def results_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_uid == os.getuid():
        path.chmod(0o700)
    return path


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` as 0600 (replacing a file; never following a symlink planted there)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)
