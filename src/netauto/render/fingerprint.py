"""A fingerprint of everything a render depends on, so an unchanged re-render can stop early."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import netauto
from netauto.inventory.loader import inventory_files
from netauto.render.engine import builtin_templates


def _files(root: Path, pattern: str) -> Iterable[Path]:
    if root.is_file():
        yield root
    elif root.is_dir():
        yield from sorted(p for p in root.rglob(pattern) if p.is_file() and p.suffix != ".pyc")


def render_fingerprint(inventory: Path, templates: Path | None) -> str:
    digest = hashlib.blake2b(digest_size=16)
    # Which inventory and overrides, not only their content: a tree is "up to date" only for the inputs that
    # made it (two inventories rendering into one folder never share a fingerprint).
    for label, where in (("inventory-path", inventory), ("templates-path", templates)):
        digest.update(f"{label}:{Path(where).resolve() if where else ''}\0".encode())
    package = Path(netauto.__file__).resolve().parent
    sources = [
        ("inventory", inventory, "*.y*ml"),
        ("templates", builtin_templates(), "*"),
    ]
    # Only the code and data that shape the output (platforms/ holds NOS and hardware facts as data files): a
    # change to validate/lab/deploy must not force a re-render.
    sources += [(f"code/{sub}", package / sub, "*") for sub in ("inventory", "model", "platforms", "render", "sonic")]
    sources.append(("code", package / "errors.py", "*.py"))
    if templates:
        sources.append(("overrides", templates, "*"))
    for label, root, pattern in sources:
        # the inventory: exactly the files the loader reads (it bounds their size), not every *.yaml below it
        paths = inventory_files(Path(root)) if label == "inventory" else _files(Path(root), pattern)
        for path in paths:
            digest.update(f"{label}:{path.relative_to(root) if path != root else path.name}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()
