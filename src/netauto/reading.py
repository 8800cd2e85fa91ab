"""One bounded reader for files that come from outside (a reference or --configs tree, acceptance results and
their plan): a file is read only up to a bound, never as a whole, and anything else than a regular file is
refused, so a planted 3 GB file, /dev/zero behind a link or a FIFO costs one clear line, not memory or a hang."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from netauto.errors import NetautoError, OutputError


def read_bounded(path: Path, limit: int, error: type[NetautoError] = OutputError,
                 fix_unreadable: str = "check the folder's permissions",
                 fix_large: str = "remove it or run `netauto golden update`",
                 kind: str = "a rendered config") -> str:
    """The text of `path`, read within `limit` bytes (at most `limit` + 1 are read); unreadable, not a regular
    file or larger: `error`, one line naming the file, what it should be (`kind`) and the fix."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror} (fix: {fix_unreadable})") from None
    size = f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit} bytes"
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{path}: not a regular file, not {kind} (fix: {fix_large})")
        if st.st_size > limit:  # said before a byte is read (the read below is bounded too: the file may grow)
            raise error(f"{path}: larger than {size}, not {kind} (fix: {fix_large})")
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(f"{path}: cannot read: {exc.strerror} (fix: {fix_unreadable})") from None
    if len(data) > limit:
        raise error(f"{path}: larger than {size}, not {kind} (fix: {fix_large})")
    return data.decode("utf-8", errors="replace")
