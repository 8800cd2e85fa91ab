"""The SSH files a session reads, parsed once per file version and then shared read-only by every session:
known_hosts (paramiko's HostKeys.load is quadratic: ~12 ms of CPU per device for a 40-line file) and the client
key (deploy.connection)."""

from __future__ import annotations

import os
import threading

import paramiko

_cache_lock = threading.Lock()
_host_keys_cache: dict[str, tuple[tuple[int, int], list]] = {}
_pkey_cache: dict[str, tuple[tuple[int, int], paramiko.PKey]] = {}


def _stamp(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_mtime_ns, st.st_size


def known_host_entries(path: str) -> list:
    """known_hosts parsed once per file version; the entries are only read (lookups) afterwards."""
    stamp = _stamp(path)
    with _cache_lock:
        hit = _host_keys_cache.get(path)
        if hit and hit[0] == stamp:
            return hit[1]
    keys = paramiko.HostKeys()
    keys.load(path)
    with _cache_lock:
        _host_keys_cache[path] = (stamp, keys._entries)  # type: ignore[attr-defined]  # private, bounded in pyproject
    return keys._entries  # type: ignore[attr-defined]


def private_key(path: str) -> paramiko.PKey | None:
    """The client key loaded once per file version (None: let paramiko load it, e.g. with a passphrase)."""
    try:
        stamp = _stamp(path)
        with _cache_lock:
            hit = _pkey_cache.get(path)
            if hit and hit[0] == stamp:
                return hit[1]
        key = paramiko.PKey.from_path(path)
    except Exception:  # noqa: BLE001 - paramiko reports the real problem when it loads the key itself
        return None
    with _cache_lock:
        _pkey_cache[path] = (stamp, key)
    return key
