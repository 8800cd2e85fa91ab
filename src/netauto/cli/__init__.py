"""The `netauto` command line.

`app.cli` is the click group. `app.COMMAND_MODULES` lists which module defines each command; the group imports
that module when its command runs (each registers its commands on the group when imported), so a new command is
a module plus its entries in that table (tests/test_cli_conventions.py checks the table is complete).

`main` first asks `netauto.render.fingerprint.quick_render_check` (stdlib only) whether this is a `netauto render`
whose output is up to date: then it prints so and returns before click, rich, pydantic or the model are
imported (the editor loop: a re-render with nothing changed). Then `netauto.cli.quick.quick_edit_render`: a
render after a device-local edit (a drain) re-resolves and rewrites only the devices it changes, before click,
rich and the command modules are imported.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    from netauto.render import fingerprint  # lazy: main()'s first step; importers of netauto.cli.* do not load the fingerprint

    request = fingerprint.render_request(sys.argv[1:])
    line = fingerprint.up_to_date_line(request) if request is not None else None
    if line is not None and request is not None and fingerprint.dead_temp_names(request.target):
        line = line if _removed_dead(request.target) else None  # not removed: the full command runs and reports
    if line is None and request is not None:
        from netauto.cli.quick import quick_edit_render  # lazy: the drain fast path loads only when the tree is not up to date

        line = quick_edit_render(request)
    if line is not None:
        sys.stdout.write(line + "\n")
        return
    from netauto.cli.app import main as app_main  # lazy: click, rich and the command table load only when no fast path answered

    app_main()


def _removed_dead(target: Path) -> bool:
    """Remove what killed renders left beside an up-to-date tree, under the output lock; False if that failed."""
    try:
        from netauto.render.output import remove_dead  # lazy: the output writer loads only when there is litter

        remove_dead(target)
    except Exception:  # noqa: BLE001 - any surprise: the full command runs and reports it properly
        return False
    return True


__all__ = ["main"]
