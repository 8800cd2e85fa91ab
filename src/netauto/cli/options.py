"""Options several commands share, with their environment variables and shell completion."""

from __future__ import annotations

from pathlib import Path

import click
from click.shell_completion import CompletionItem

INVENTORY_ENV = "NETAUTO_INVENTORY"
TEMPLATES_ENV = "NETAUTO_TEMPLATES"

inventory_option = click.option(
    "-i", "--inventory", "inventory", type=click.Path(path_type=Path), default=Path("inventory"), show_default=True,
    envvar=INVENTORY_ENV, show_envvar=True, help="Source-of-truth folder (or single YAML file).",
)
templates_option = click.option(
    "--templates", type=click.Path(path_type=Path, file_okay=False), default=None, envvar=TEMPLATES_ENV,
    show_envvar=True, help="Folder of template overrides (same layout as the built-in templates/).",
)


def _inventory_of(ctx: click.Context) -> Path:
    return Path(ctx.params.get("inventory") or Path("inventory"))


def device_names(inventory: Path) -> list[str]:
    """Every switch and server name of the fabric (for completion and suggestions)."""
    from netauto.pipeline import build_model  # lazy: +286 modules (pydantic, jinja2, yaml) in every `netauto --help` otherwise; only this command needs them

    model = build_model(inventory)
    return [d.name for d in model.switches] + [d.name for d in model.servers]


def complete_device(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Shell completion of a device name from the inventory given on the same command line."""
    try:
        names = device_names(_inventory_of(ctx))
    except Exception:  # noqa: BLE001 - completion must never print a traceback into the shell
        return []
    return [CompletionItem(n) for n in names if n.startswith(incomplete)]


def complete_limit(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Shell completion of the last --limit term: device and group names, after `,`, `&` or `!`."""
    from netauto.deploy.limit import GROUP_KEYS  # lazy: +6 modules (netauto.deploy) in every `netauto --help` otherwise; only this command needs them

    try:
        from netauto.deploy.limit import host_groups  # lazy: +6 modules (netauto.deploy) in every `netauto --help` otherwise; only this command needs them
        from netauto.pipeline import build_model  # lazy: +286 modules (pydantic, jinja2, yaml) in every `netauto --help` otherwise; only this command needs them

        model = build_model(_inventory_of(ctx))
    except Exception:  # noqa: BLE001
        return []
    head, sep, last = max((incomplete.rpartition(s) for s in ",:"), key=lambda t: len(t[0]))
    prefix = head + sep
    op = last[:1] if last[:1] in "&!" else ""
    word = last[len(op):]
    words: set[str] = set()
    for device in [*model.switches, *model.servers]:
        words.add(device.name)  # type: ignore[attr-defined]  # a Switch or a Server
        words.update(host_groups(device))
    words.update(f"{k}=" for k in GROUP_KEYS)
    return [CompletionItem(prefix + op + w) for w in sorted(words) if w.startswith(word)]

adopt_option = click.option(
    "--adopt", is_flag=True,
    help="Take over devices that name another fabric, or none while holding files netauto would write (the first "
         "push to a device): without it they are refused, nothing changed (docs/deploy-safety.md).")
