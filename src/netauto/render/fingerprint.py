"""A fingerprint of everything a render depends on, so an unchanged re-render can stop early.

The implementation lives in `netauto.render_stamp` (stdlib only, so `netauto render` with nothing changed
answers before the CLI and the model are imported); this module is its name inside the render package.
"""

from __future__ import annotations

import netauto  # noqa: F401 - tests point netauto.__file__ at a copy of the package through this name
from netauto.render_stamp import code_digest, render_fingerprint, remember_target, tree_matches

__all__ = ["code_digest", "render_fingerprint", "remember_target", "tree_matches"]
