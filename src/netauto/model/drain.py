"""BGP graceful shutdown of switches (`features.gshut.drain`, `overrides.devices.<name>.drain`): which are
drained and what that sets, one place for the full build (`checks.drained`, `switches.switch`) and for a
render after a drain edit (`netauto.render.edits`, which patches a cached switch). Imports no inventory schema.
"""

from __future__ import annotations

from collections.abc import Iterable

from netauto.model.types import Switch


def drain_set(listed: Iterable[str], overridden: Iterable[str]) -> set[str]:
    """The drained switches: those `features.gshut.drain` lists (checked) and those their override drains."""
    return set(listed) | set(overridden)


def set_drained(sw: Switch, drained: bool) -> None:
    """BGP graceful shutdown on `sw` or not: all a drain changes in the resolved model (so a cached switch
    patched through this function is the one a full resolve builds)."""
    sw.bgp.graceful_shutdown = drained
