"""The click group, shared consoles and the error boundary (no tracebacks for user errors)."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click
from rich.console import Console
from rich.text import Text

from netauto.errors import NetautoError

out = Console()
err = Console(stderr=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="netauto")
def cli() -> None:
    """netauto: render, check and deploy a rail-optimized RoCEv2 GPU fabric from one source of truth."""



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

