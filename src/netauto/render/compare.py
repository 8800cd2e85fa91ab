"""A rendered tree compared with a reference tree (golden configs, `validate --configs`, drift): which files
changed (unified diffs), are missing or are extra; a reference file is read within a size bound and never
through a symlink.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from netauto.errors import OutputError
from netauto.render.engine import Artifact
from netauto.render.output import MANIFEST
from netauto.reading import read_bounded


@dataclass
class TreeDiff:
    changed: dict[str, str] = field(default_factory=dict)  # rel path -> unified diff
    missing: list[str] = field(default_factory=list)  # rendered but absent from the reference
    extra: list[str] = field(default_factory=list)  # in the reference but no longer rendered

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.extra)


MAX_REFERENCE_FILE_BYTES = 16 * 1024 * 1024  # a rendered file is at most a few hundred KiB
# the monitoring's intent rules state every design fact: ~20 MB on the 10k-GPU example, ~200 MB at 100,000 GPUs
MAX_INTENT_BYTES = 1024 * 1024 * 1024


def reference_limit(rel: str) -> int:
    """The size above which `device/path` of a reference or --configs tree is refused as not a rendered file."""
    from netauto.render.monitoring import INTENT_RULES, MONITORING_DEVICE  # lazy: +26 modules (netauto.monitoring, grafana_foundation_sdk) at import otherwise; only this function needs them

    return MAX_INTENT_BYTES if rel == f"{MONITORING_DEVICE}/{INTENT_RULES}" else MAX_REFERENCE_FILE_BYTES


def _reference_files(ref_dir: Path) -> set[str]:
    """The regular files of a reference tree (golden configs, a --configs folder). It may come from a pull
    request, so a symlink is refused rather than read (a link to a secret would print it in the diff)."""
    if ref_dir.is_symlink():
        raise OutputError(f"{ref_dir} is a symlink (fix: point at the real folder)")
    found: set[str] = set()
    if not ref_dir.is_dir():
        return found
    for dirpath, dirs, files in os.walk(ref_dir):
        for name in [*dirs, *files]:
            if (Path(dirpath) / name).is_symlink():
                raise OutputError(f"{Path(dirpath) / name} is a symlink; a reference tree holds only folders and "
                                  "regular files (fix: replace it with the file, e.g. `netauto golden update`)")
        found.update((Path(dirpath) / name).relative_to(ref_dir).as_posix() for name in files)
    return found


def compare_tree(artifacts: Iterable[Artifact], ref_dir: Path) -> TreeDiff:
    result = TreeDiff()
    rendered: set[str] = set()
    present = _reference_files(ref_dir)
    for art in artifacts:
        rel = f"{art.device}/{art.path}"
        rendered.add(rel)
        if rel not in present:
            result.missing.append(rel)
            continue
        old = read_bounded(ref_dir / rel, reference_limit(rel))
        if old != art.content:
            result.changed[rel] = "".join(
                difflib.unified_diff(old.splitlines(True), art.content.splitlines(True), f"a/{rel}", f"b/{rel}")
            )
    result.extra = sorted((rel for rel in present - rendered if rel != MANIFEST), key=lambda rel: rel.split("/"))
    return result
