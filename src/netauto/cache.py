"""netauto's per-user cache folder ($XDG_CACHE_HOME/netauto, default ~/.cache/netauto), and where the third-party
schema data netauto never ships (SONiC YANG models, Kubernetes CRDs) is looked for."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "netauto", *parts)


def netns_ssh_config_path(netns: str) -> Path:
    """The ssh client config that reaches hosts from inside network namespace `netns` (written by
    `netauto.deploy.nornir_inventory.netns_ssh_config` for a lab's management namespace; `lab down` removes it)."""
    return cache_dir("ssh") / f"netns-{netns}.config"


def dev_data_dir(name: str, dev_env: str) -> Path:
    """shared/<name> beside a development checkout (src/netauto -> the repository -> its parent), or $<dev_env>."""
    if os.environ.get(dev_env):
        return Path(os.environ[dev_env])
    return Path(__file__).resolve().parents[2].parent / "shared" / name


def data_dirs(name: str, *, dir_env: str, cache: Path, dev_env: str, dev: bool = False) -> list[tuple[str, Path]]:
    """(what, folder) in lookup order for third-party schema data `name`: $<dir_env> (the user's own copy), `cache`
    (where the fetch scripts write), and only when `dev` is asked (the tests, the fetch scripts' `where` and
    --if-missing) the development copy (`dev_data_dir`). A production run (`netauto validate`, `netauto sonic`,
    deploy preflights) never asks, so it never reads ../shared."""
    out: list[tuple[str, Path]] = []
    if os.environ.get(dir_env):
        out.append((f"${dir_env}", Path(os.environ[dir_env])))
    out.append(("cache", cache))
    if dev:
        out.append(("dev checkout", dev_data_dir(name, dev_env)))
    return out
