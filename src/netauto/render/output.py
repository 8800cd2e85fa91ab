"""Write rendered artifacts atomically and compare them with a reference tree (golden configs)."""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from netauto.render.engine import Artifact


@dataclass
class WriteStats:
    written: int = 0
    unchanged: int = 0
    files: int = 0


def _same(path: Path, content: bytes) -> bool:
    try:
        return path.stat().st_size == len(content) and path.read_bytes() == content
    except OSError:
        return False


def write_tree(artifacts: Iterable[Artifact], out_dir: Path) -> WriteStats:
    """Render into a temp dir next to `out_dir`, then swap it into place.

    An error half-way leaves the previous output untouched. Files whose content did not change are
    hard-linked from the previous tree, so their timestamps stay and tools like rsync/make see no change.
    """
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    stats = WriteStats()
    made: set[Path] = set()
    try:
        for art in artifacts:
            rel = Path(art.device) / art.path
            target = tmp / rel
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            data = art.content.encode()
            previous = out_dir / rel
            if _same(previous, data) and (previous.stat().st_mode & 0o777) == art.mode:
                os.link(previous, target)
                stats.unchanged += 1
            else:
                target.write_bytes(data)
                os.chmod(target, art.mode)
                stats.written += 1
            stats.files += 1
        os.chmod(tmp, 0o755)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out_dir.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
        os.rmdir(old)
        out_dir.rename(old)
    tmp.rename(out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return stats


@dataclass
class TreeDiff:
    changed: dict[str, str] = field(default_factory=dict)  # rel path -> unified diff
    missing: list[str] = field(default_factory=list)  # rendered but absent from the reference
    extra: list[str] = field(default_factory=list)  # in the reference but no longer rendered

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.extra)


def compare_tree(artifacts: Iterable[Artifact], ref_dir: Path) -> TreeDiff:
    result = TreeDiff()
    rendered: set[str] = set()
    for art in artifacts:
        rel = f"{art.device}/{art.path}"
        rendered.add(rel)
        ref = ref_dir / rel
        if not ref.is_file():
            result.missing.append(rel)
            continue
        old = ref.read_text(encoding="utf-8")
        if old != art.content:
            result.changed[rel] = "".join(
                difflib.unified_diff(old.splitlines(True), art.content.splitlines(True), f"a/{rel}", f"b/{rel}")
            )
    if ref_dir.is_dir():
        for path in sorted(ref_dir.rglob("*")):
            if path.is_file():
                rel = path.relative_to(ref_dir).as_posix()
                if rel not in rendered:
                    result.extra.append(rel)
    return result
