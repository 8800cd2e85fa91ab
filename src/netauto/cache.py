"""netauto's per-user cache folder ($XDG_CACHE_HOME/netauto, default ~/.cache/netauto), who it trusts, and where
the third-party schema data netauto never ships (SONiC YANG models, Kubernetes CRDs) is looked for.

Every cache entry netauto reads (compiled templates, render state and pickles, validate's clean-run keys, the
bgpd shim, ifquery's keywords, the fetched YANG models and CRDs) is read only when `trusted`: the entry and every
folder from it up to the cache root are owned by the user running netauto, are not symbolic links and are not
writable by the group or others. Anything else (root running with another user's $HOME or $XDG_CACHE_HOME, a
CI cache restored from another build, a 0777 folder) is ignored, said once per cache on stderr, and costs only
the work the cache would have saved."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from netauto.private_files import private_dir, write_private

_WARNED: set[str] = set()  # the caches already said to be ignored in this process


def cache_dir(*parts: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "netauto", *parts)


def refusal(st: os.stat_result) -> str | None:
    """Why an entry with this stat is not this user's private cache entry (None: it is)."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if st.st_uid != os.geteuid():
        return f"owned by uid {st.st_uid}, not {os.geteuid()}"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"writable by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _ignored(path: Path, why: str, root: Path) -> None:
    try:
        area = path.relative_to(root).parts[0]
    except (ValueError, IndexError):
        area = str(path)
    if area not in _WARNED:
        _WARNED.add(area)
        sys.stderr.write(f"netauto: ignoring the cache {path}: {why} (netauto reads only caches that are the "
                         f"running user's own and writable by nobody else; remove it or fix its owner and mode)\n")


def trusted(path: Path, root: Path | None = None, st: os.stat_result | None = None) -> bool:
    """True when `path` (its stat `st`, when the caller opened it) and every folder from it up to `root` (default:
    the cache root, $XDG_CACHE_HOME/netauto) are this user's own, no link and writable by nobody else. A missing
    entry is False, silently; an untrusted one is False and said once per cache on stderr."""
    root = cache_dir() if root is None else root
    chain = [path, *path.parents] if path == root or root in path.parents else [path]
    for i, where in enumerate(chain):
        try:
            found = st if i == 0 and st is not None else os.lstat(where)
        except OSError:
            return False
        why = refusal(found)
        if why is not None:
            _ignored(where, why, root)
            return False
        if where == root:
            break
    return True


def own_dir(*parts: str) -> Path | None:
    """The cache folder `cache_dir(*parts)`, its missing folders made 0700, when it is `trusted` (None: unusable,
    then the cache is neither read nor written)."""
    folder = cache_dir(*parts)
    try:
        private_dir(folder)
    except OSError:
        return None
    return folder if trusted(folder) else None


def write_cache(path: Path, data: str | bytes) -> bool:
    """Replace cache file `path` (0600, atomically) when its folder is this user's own (`own_dir`); best effort:
    False when it is not or the write fails (a cache only saves work)."""
    try:
        if own_dir(*path.parent.relative_to(cache_dir()).parts) is None:
            return False
        write_private(path, data)
    except (OSError, ValueError):
        return False
    return True


def open_trusted(path: Path, root: Path | None = None) -> BinaryIO | None:
    """`path` opened for reading (never through a link) when it is a `trusted` regular file, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and trusted(path, root, st):
            return os.fdopen(fd, "rb")
    except OSError:
        pass
    os.close(fd)
    return None


def read_trusted(path: Path, limit: int | None = None, root: Path | None = None) -> bytes | None:
    """The bytes of the `trusted` cache file `path` (at most `limit`: a larger one is not this cache's), or None."""
    handle = open_trusted(path, root)
    if handle is None:
        return None
    with handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    return data if limit is None or len(data) <= limit else None


def netns_ssh_config_path(netns: str) -> Path:
    """The ssh client config that reaches hosts from inside network namespace `netns` (written by
    `netauto.deploy.nornir_inventory.netns_ssh_config` for a lab's management namespace; `lab down` removes it)."""
    return cache_dir("ssh") / f"netns-{netns}.config"


DEV_CHECKOUT = "dev checkout"  # data_dirs' name for the development copy (../shared), which netauto's commands never read

def dev_data_dir(name: str, dev_env: str) -> Path:
    """shared/<name> beside a development checkout (src/netauto -> the repository -> its parent), or $<dev_env>."""
    if os.environ.get(dev_env):
        return Path(os.environ[dev_env])
    return Path(__file__).resolve().parents[2].parent / "shared" / name


def data_dirs(name: str, *, dir_env: str, cache: Path, dev_env: str, dev: bool = False) -> list[tuple[str, Path]]:
    """(what, folder) in lookup order for third-party schema data `name`: $<dir_env> (the user's own copy), `cache`
    (where the fetch scripts write; only when this user's own: `trusted`), and only when `dev` is asked (the tests, the fetch scripts' `where` and
    --if-missing) the development copy (`dev_data_dir`). A production run (`netauto validate`, `netauto sonic`,
    deploy preflights) never asks, so it never reads ../shared."""
    out: list[tuple[str, Path]] = []
    if os.environ.get(dir_env):
        out.append((f"${dir_env}", Path(os.environ[dir_env])))
    if not os.path.lexists(cache) or trusted(cache):  # another user's copy is not looked at (said once)
        out.append(("cache", cache))
    if dev:
        out.append((DEV_CHECKOUT, dev_data_dir(name, dev_env)))
    return out
