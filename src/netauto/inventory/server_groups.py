"""The inventory's `server_groups:` section: groups of non-GPU servers (storage nodes, CPU servers) that the
storage and frontend networks attach (inventory/networks.py's `attach`)."""

from __future__ import annotations

from pydantic import Field, field_validator

from netauto.inventory.base import Strict
from netauto.inventory.names import template_field
from netauto.inventory.strings import Text


class ServerGroup(Strict):
    """Non-GPU servers: `count` machines named by `naming` (fields: index, 1-based)."""

    count: int = Field(ge=1, le=4096)
    naming: str = Field(min_length=1)
    description: Text = ""

    _naming = field_validator("naming")(template_field(("index",)))
