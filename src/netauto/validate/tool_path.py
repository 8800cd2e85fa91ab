"""Where a validator program is: the system directories first (so Debian's Python scripts such as `ifup` start
the system interpreter, not a virtualenv shim), then PATH, then FRR's libexec for its daemons. Asked by the
validator runs (validate.external) and by the clean-run cache's key (validate.clean_cache: which binary ran)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["FRR_LIBEXEC", "SYSTEM_PATH", "find_tool"]

SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
FRR_LIBEXEC = ("/usr/lib/frr", "/usr/libexec/frr")  # Debian's frr package puts bgpd here, outside PATH


def find_tool(name: str) -> str | None:
    """Path of a validator, looking in the system directories (and FRR's libexec for daemons)."""
    found = shutil.which(name, path=SYSTEM_PATH) or shutil.which(name)
    if found:
        return found
    for d in FRR_LIBEXEC:
        candidate = Path(d) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None
