"""The type every NVUE subtree builder returns, and the bridge every access port joins."""

from __future__ import annotations

from typing import Any

Tree = dict[str, Any]
BRIDGE = "br_default"  # NVUE's default VLAN-aware bridge domain
