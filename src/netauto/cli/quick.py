"""`netauto render` after a device-local edit, answered before click, rich and the command modules load.

`netauto.cli.main` calls `quick_edit_render` when the tree is not up to date (`fingerprint.quick_render_check`):
for an edit of the kinds in `netauto.render.edits` (a drain) it re-resolves, renders and rewrites only the
devices the edit changes (`netauto.render.local_edit`) and prints the line the full command prints; for anything
else it returns None with nothing written and the full command runs (and reports bad input).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netauto.render import fingerprint

if TYPE_CHECKING:
    from netauto.render.output import WriteStats


def rendered_line(summary: dict[str, Any], stats: WriteStats, target: Path,
                  bold: Callable[[str], str] = str) -> str:
    """The "rendered ..." line of `netauto render` (`summary`: `render.session.render_summary`)."""
    networks = f" and {summary['networks']} networks" if summary["networks"] else ""
    oob_note = f" + {summary['oob']} OOB switches" if summary["oob"] else ""
    return (f"rendered {bold(summary['name'])}{networks}: {summary['switches']} switches{oob_note}, "
            f"{summary['servers']} servers, {stats.files} files ({stats.written} written, {stats.unchanged} "
            f"unchanged, {stats.removed} removed) -> {target}")


def quick_edit_render(request: fingerprint.RenderRequest) -> str | None:
    """The line of the `netauto render` of `request` after a device-local edit, done; None: the full command
    must run (nothing was written)."""
    from netauto.render import local_edit  # lazy: jinja2 and the renderer load only for a device-local edit, after the up-to-date check

    try:
        done = local_edit.rerender_edit(request.inventory, request.templates, request.target, request.fingerprint,
                                        request.code)
    except Exception:  # noqa: BLE001 - never half an answer: the full command renders (and reports) it all
        return None
    if done is None:
        return None
    fingerprint.remember_target(request.output, request.inventory, request.templates, request.target)
    return rendered_line(done.summary, done.stats, request.output / request.target.name)
