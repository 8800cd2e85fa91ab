"""The click group, shared consoles and the error boundary (no tracebacks for user errors)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import click
from rich.console import Console
from rich.text import Text

from netauto.errors import NetautoError
from netauto.model.limits import ALLOW_HUGE_ENV, MAX_SERVERS, MAX_SWITCHES

out = Console()
err = Console(stderr=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="netauto")
@click.option("--allow-huge", is_flag=True, default=False,
              help=f"Accept fabrics beyond {MAX_SWITCHES:,} switches or {MAX_SERVERS:,} servers "
                   f"(same as {ALLOW_HUGE_ENV}=1).")
def cli(allow_huge: bool) -> None:
    """netauto: render, check and deploy a rail-optimized RoCEv2 GPU fabric from one source of truth."""
    if allow_huge:  # the CLI edge sets it for every command and the netauto processes they start
        os.environ[ALLOW_HUGE_ENV] = "1"



def load_commands() -> None:
    import netauto.cli as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in {"app"}:
            importlib.import_module(f"netauto.cli.{info.name}")


def main() -> None:
    load_commands()
    try:
        cli.main(standalone_mode=False)
    except NetautoError as exc:
        err.print(Text.assemble(("error: ", "bold red"), str(exc)), highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        err.print("aborted")
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)

