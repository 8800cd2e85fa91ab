"""The `netauto` command line.

`app.cli` is the click group. Every other module in this package registers its commands on it when
imported; `main` imports them all (auto-discovery), so a new command is a new module, nothing else.
"""

from netauto.cli.app import main

__all__ = ["main"]
