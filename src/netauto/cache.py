"""netauto's per-user cache folder: $XDG_CACHE_HOME/netauto (default ~/.cache/netauto)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "netauto", *parts)
