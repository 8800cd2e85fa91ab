"""Write rendered artifacts atomically and compare them with a reference tree (golden configs)."""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netauto.render.engine import Artifact


MANIFEST = ".netauto-manifest.json"


@dataclass
class WriteStats:
    written: int = 0
    unchanged: int = 0
    removed: int = 0
    files: int = 0
    skipped: bool = False  # inputs unchanged since the last render: nothing rendered at all


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _load_manifest(out_dir: Path) -> dict[str, Any]:
    try:
        return json.loads((out_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}


def _stat_key(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_mode & 0o777]


def tree_is_current(out_dir: Path, fingerprint: str) -> bool:
    """True when `out_dir` was rendered from inputs with this fingerprint and no file was touched since."""
    manifest = _load_manifest(out_dir)
    if not manifest or manifest.get("fingerprint") != fingerprint:
        return False
    return all(_stat_key(out_dir / rel) == entry["stat"] for rel, entry in manifest.get("files", {}).items())


def _write_file(target: Path, data: bytes, mode: int) -> None:
    tmp = target.with_name(f".{target.name}.netauto-tmp")
    tmp.write_bytes(data)
    os.chmod(tmp, mode)
    os.replace(tmp, target)


def _write_fresh(arts: list[Artifact], out_dir: Path) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    files: dict[str, Any] = {}
    try:
        made: set[Path] = set()
        for art in arts:
            rel = f"{art.device}/{art.path}"
            target = tmp / rel
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            data = art.content.encode()
            target.write_bytes(data)
            os.chmod(target, art.mode)
            files[rel] = {"sha": _digest(data)}
        os.chmod(tmp, 0o755)
        tmp.rename(out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return files


def write_tree(
    artifacts: Iterable[Artifact], out_dir: Path, fingerprint: str | None = None, manifest: bool = True
) -> WriteStats:
    """Write the rendered tree to `out_dir`, touching only files whose content changed.

    Everything is rendered in memory first, so a template or model error leaves the previous output
    untouched; a new tree is built in a temp dir and renamed into place. In an existing tree each changed
    file is replaced atomically (temp file + rename) and unchanged files keep their inode and timestamps,
    so rsync/make and `netauto deploy` see only real changes.
    """
    arts = list(artifacts)
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    stats = WriteStats(files=len(arts))
    if not out_dir.exists():
        files = _write_fresh(arts, out_dir)
        stats.written = len(arts)
    else:
        old = _load_manifest(out_dir).get("files", {})
        files = {}
        made: set[Path] = set()
        for art in arts:
            rel = f"{art.device}/{art.path}"
            target = out_dir / rel
            data = art.content.encode()
            sha = _digest(data)
            entry = old.get(rel)
            current = _stat_key(target)
            trusted = entry is not None and current is not None and entry.get("stat") == current
            same = (entry["sha"] == sha) if trusted else (current is not None and target.read_bytes() == data)
            if same and current is not None and current[2] == art.mode:
                stats.unchanged += 1
            else:
                if target.parent not in made:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                _write_file(target, data, art.mode)
                stats.written += 1
            files[rel] = {"sha": sha}
        stats.removed = _remove_stale(out_dir, set(files))
    if manifest:
        for rel, entry in files.items():
            entry["stat"] = _stat_key(out_dir / rel)
        record = {"fingerprint": fingerprint, "files": files}
        _write_file(out_dir / MANIFEST, json.dumps(record, sort_keys=True).encode(), 0o644)
    else:
        (out_dir / MANIFEST).unlink(missing_ok=True)
    return stats


def _remove_stale(out_dir: Path, keep: set[str]) -> int:
    removed = 0
    for path in sorted(out_dir.rglob("*"), reverse=True):
        rel = path.relative_to(out_dir).as_posix()
        if path.is_dir():
            if not any(path.iterdir()):
                path.rmdir()
        elif rel != MANIFEST and rel not in keep:
            path.unlink()
            removed += 1
    return removed


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
                if rel not in rendered and rel != MANIFEST:
                    result.extra.append(rel)
    return result
