"""What the last render of an output folder was made of, kept so an edit of a few devices re-resolves only them.

Beside the device keys (`incremental.save_keys`), a render keeps in `netauto.cache.cache_dir("render")`:
`state-<id>.json`, the index (which tree it describes, the code hash, the facts `netauto.render.edits` checks
an edit against, and for every device and network where its pickle is and its hash), and `state-<id>.<n>.bin`,
the pickles themselves: the inventory's merged YAML data, every network's settings and every device's resolved
object, one after the other, so one device is read without the rest. Both are 0600 in the 0700 cache folder,
read only when this user's own (`netauto.cache.trusted`); a pickle is unpickled only when its blake2b hash is the index's.
A full render writes a new data file (the old one is removed); a device-local edit appends its few devices
and rewrites the index. It is only a cache: deleting it, or anything not matching, costs one full render.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import netauto
from netauto.cache import cache_dir, open_trusted, own_dir, read_trusted, write_cache
from netauto.render.incremental import Keyed, Part, target_id

Where = list[Any]  # [offset, length, blake2b hex] in the data file


def _digest(blob: bytes) -> str:
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def _base(target: Path) -> Path:
    return cache_dir("render") / f"state-{target_id(target)}"


class _Appender:
    """Pickles appended to one data file, each remembered as (offset, length, hash)."""

    def __init__(self, path: Path, fresh: bool) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_TRUNC if fresh else os.O_APPEND)
        self.fd = os.open(path, flags, 0o600)
        self.offset = os.lseek(self.fd, 0, os.SEEK_END)
        self.chunks: list[bytes] = []

    def add(self, blob: bytes) -> Where:
        where = [self.offset, len(blob), _digest(blob)]
        self.chunks.append(blob)
        self.offset += len(blob)
        return where

    def close(self) -> None:
        try:
            os.write(self.fd, b"".join(self.chunks))
        finally:
            os.close(self.fd)


@dataclass
class State:
    """The index of the last render of one output folder (`load`); its pickles are read on demand."""

    path: Path  # the index file
    index: dict[str, Any]

    @property
    def facts(self) -> dict[str, Any]:
        return dict(self.index["facts"])

    def _read(self, where: Where) -> bytes | None:
        handle = open_trusted(Path(str(self.index["data"])))
        if handle is None:
            return None
        offset, length, digest = where
        with handle:
            handle.seek(offset)
            blob = handle.read(length)
        return blob if len(blob) == length and _digest(blob) == digest else None

    def raw(self) -> Any:
        """The inventory's merged YAML data the tree was rendered from (None: unreadable)."""
        blob = self._read(self.index["raw"])
        return None if blob is None else pickle.loads(blob)

    def settings(self, label: str) -> bytes | None:
        where = self.index["settings"].get(label)
        return None if where is None else self._read(where)

    def parts(self, device: str) -> list[Part] | None:
        """The device's parts as the last render keyed them (None: unknown device or unreadable)."""
        found = []
        for label, kind, context, where in self.index["devices"].get(device, []):
            blob = self._read(where)
            if blob is None:
                return None
            found.append(Part(label, kind, context, blob))
        return found or None


def load(target: Path, tree: str) -> State | None:
    """The state of the tree at `target` when the cache describes that tree (manifest fingerprint `tree`)."""
    path = _base(target).with_suffix(".json")
    try:
        index = json.loads(read_trusted(path) or b"null")
    except ValueError:
        return None
    if (not isinstance(index, dict) or index.get("version") != netauto.__version__ or index.get("tree") != tree
            or not all(k in index for k in ("data", "raw", "settings", "devices", "facts", "code"))):
        return None
    return State(path, index)


def save(target: Path, tree: str, code: str, raw: Any, keyed: Keyed, facts: dict[str, Any]) -> None:
    """Keep the state of the tree just written (a new data file; best effort: without it the next render is
    the full one)."""
    base = _base(target)
    data = base.with_name(f"{base.name}.{os.getpid()}-{os.urandom(4).hex()}.bin")
    if own_dir("render") != data.parent:
        return
    try:
        out = _Appender(data, fresh=True)
        try:
            index = {"version": netauto.__version__, "tree": tree, "code": code, "data": str(data),
                     "raw": out.add(pickle.dumps(raw, protocol=5)),
                     "settings": {label: out.add(blob) for label, blob in keyed.settings.items()},
                     "devices": {name: [[p.label, p.kind, p.context, out.add(p.payload)] for p in parts]
                                 for name, parts in keyed.parts.items()},
                     "facts": facts}
        finally:
            out.close()
        if not write_cache(base.with_suffix(".json"), json.dumps(index).encode()):
            raise OSError
    except OSError:
        data.unlink(missing_ok=True)
        return
    for old in glob.glob(f"{glob.escape(str(base))}.*.bin"):
        if old != str(data):
            Path(old).unlink(missing_ok=True)


def update(state: State, tree: str, raw: Any, changed: dict[str, list[Part]], facts: dict[str, Any]) -> None:
    """The state after an edit of the `changed` devices: their pickles appended, the index rewritten."""
    index = dict(state.index)
    try:
        out = _Appender(Path(str(index["data"])), fresh=False)
        try:
            index["raw"] = out.add(pickle.dumps(raw, protocol=5))
            devices = dict(index["devices"])
            for name, parts in changed.items():
                devices[name] = [[p.label, p.kind, p.context, out.add(p.payload)] for p in parts]
            index["devices"] = devices
        finally:
            out.close()
        index.update(tree=tree, facts=facts)
        if not write_cache(state.path, json.dumps(index).encode()):
            raise OSError
    except OSError:
        state.path.unlink(missing_ok=True)
