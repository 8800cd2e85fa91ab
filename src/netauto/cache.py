"""netauto's per-user cache folder: $XDG_CACHE_HOME/netauto (default ~/.cache/netauto)."""

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
