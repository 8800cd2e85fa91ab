"""Which files a real validator already passed: `netauto validate` re-runs a tool only on the rest.

One small file per check under the user's cache folder (`netauto.cache.cache_dir("validate")`), holding the keys
of the devices that check passed. A key is a hash of the check's label, the tools' identity (see `tool_identity`),
netauto's version and validator wrappers, and every file of the device (a tool may read a device's other files:
a unit's script, the interfaces file's sources), so any change to a device's files, to a tool or to netauto
makes its key new and the tool runs again. A device with a finding is never recorded, so its findings are
reported again on every run. Deleting the folder (or NETAUTO_VALIDATE_CACHE=0) only costs a full run.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import netauto
from netauto.cache import cache_dir, read_trusted, write_cache
from netauto.validate.files import FileSet
from netauto.validate.findings import Finding
from netauto.validate.tool_path import find_tool

CACHE_ENV = "NETAUTO_VALIDATE_CACHE"  # the cache switch: "0" turns it off (nothing read or written), default on
MAX_KEYS = 1 << 18  # a check's file keeps at most this many keys (the newest run's first)
# the code that runs and reads the validators: a change to it (same version number in development) is a new key
_WRAPPERS = ("external.py", "tool_run.py", "tool_frr.py", "tool_ifupdown.py", "ifupdown_keywords.py", "host_tools.py",
             "ifup_batch.py", "runner.py", "clean_cache.py", "bgpd_batch.py", "bgpd_batch.c", "processes.py",
             "tool_path.py", "../forking.py")
# dpkg's database changes whenever a Debian package is installed, upgraded or removed
_PACKAGE_DB = Path("/var/lib/dpkg/status")

FileRef = tuple[str, Path]


def enabled() -> bool:
    """The clean-run cache is on (NETAUTO_VALIDATE_CACHE is not "0")."""
    return os.environ.get(CACHE_ENV, "1") != "0"


def _stat_id(path: str | Path) -> str:
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return f"{path}:absent"
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


@lru_cache(maxsize=None)
def tool_identity(tools: tuple[str, ...]) -> str:
    """The installed tools (path, size, mtime of each executable; dpkg's database) plus netauto's version and its
    validator wrappers' code: any upgrade of any of them gives every key of the check a new value."""
    here = Path(__file__).parent
    h = hashlib.blake2b(digest_size=16)
    h.update(netauto.__version__.encode())
    for name in _WRAPPERS:
        h.update((here / name).read_bytes() if (here / name).exists() else b"-")
    for tool in tools:
        h.update(_stat_id(find_tool(tool) or tool).encode())
    h.update(_stat_id(_PACKAGE_DB).encode())
    return h.hexdigest()


class DeviceDigests:
    """Hash of all of a device's files, computed once per device per run."""

    def __init__(self, files: FileSet) -> None:
        self.files = files
        self._digests: dict[str, bytes] = {}

    def __call__(self, device: str) -> bytes:
        digest = self._digests.get(device)
        if digest is None:
            h = hashlib.blake2b(digest_size=16)
            for path, text in sorted(self.files.files.get(device, {}).items()):
                h.update(path.encode() + b"\0" + text.encode("utf-8", "surrogateescape") + b"\0")
            digest = self._digests[device] = h.digest()
        return digest


def _store(label: str) -> Path:
    return cache_dir("validate") / (hashlib.blake2b(label.encode(), digest_size=8).hexdigest() + ".keys")


def read_words(path: Path) -> set[str]:
    """The words of cache file `path` when it is this user's own (`netauto.cache.trusted`), else none."""
    data = read_trusted(path, MAX_KEYS * 40)
    try:
        return set(data.decode("ascii").split()) if data is not None else set()
    except UnicodeDecodeError:
        return set()  # missing, damaged or not ours: everything runs


def write_keys(path: Path, keys: Iterable[str]) -> None:
    """Replace cache file `path` (best effort: a read-only home or a cache folder not ours only costs a run)."""
    write_cache(path, "\n".join(keys) + "\n")


def run_cached(label: str, tools: tuple[str, ...], fn: Callable[[Sequence[FileRef]], list[Finding]],
               refs: Sequence[FileRef], digests: DeviceDigests) -> tuple[list[Finding], int]:
    """`fn(refs)` on the refs whose device's key is not recorded as clean for this check; returns its findings
    and how many refs were skipped as already clean."""
    if not enabled():
        return fn(refs), 0
    identity = tool_identity(tools)
    salt = (label + "\0" + identity + "\0").encode()

    def key(dev: str, path: Path) -> str:
        rel = path.as_posix().rsplit(f"/{dev}/", 1)[-1]  # the on-device path (the tree's folder changes per run)
        return hashlib.blake2b(salt + digests(dev) + rel.encode(), digest_size=16).hexdigest()

    store = _store(label)
    clean = read_words(store)
    keyed = [(key(dev, path), (dev, path)) for dev, path in refs]
    todo = [ref for k, ref in keyed if k not in clean]
    findings = fn(todo) if todo else []
    failed = {f.device for f in findings}
    now = [k for k, (dev, _) in keyed if dev not in failed]
    fresh = set(now) - clean
    if fresh:
        kept = list(clean) if len(clean) + len(fresh) <= MAX_KEYS else []
        write_keys(store, [*kept, *fresh] if kept else now)
    return findings, len(refs) - len(todo)
