"""The click group, shared consoles, logging and the error boundary (no tracebacks for user errors).

Conventions (docs/cli.md, "CLI conventions"): exit 0 success, 1 a failed check or push, 2 bad input; every option
also reads an environment variable, `NETAUTO_<COMMAND>_<OPTION>` named after the long option (e.g.
NETAUTO_DEPLOY_LIMIT, NETAUTO_SHOW_CABLING_FORMAT; `--help` shows each), and the options every command shares
have short ones (NETAUTO_INVENTORY, NETAUTO_TEMPLATES); the command line wins over the environment.
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import pkgutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click
from rich.console import Console, ConsoleDimensions
from rich.segment import Segment
from rich.text import Text

from netauto import __version__
from netauto.deploy.redact import redact
from netauto.private_files import touch_private
from netauto.errors import NetautoError
from netauto.model.limits import ALLOW_HUGE_ENV, MAX_SERVERS, MAX_SWITCHES
from netauto.visible import visible

PIPED_WIDTH = 10_000  # columns of a console writing into a pipe or file: rows never wrap


class PipeConsole(Console):
    """A rich console that wraps nothing when its stream is not a terminal (and COLUMNS is unset): rich would
    otherwise size a piped table by the terminal of stdin/stderr or 80 columns and fold a device name over
    two lines (`su1-r3-l` / `eaf`), so `netauto verify ... | grep <device>` or a saved report misses rows.
    Tables are as wide as their content (none of netauto's expands); on a terminal nothing changes."""

    @property
    def size(self) -> ConsoleDimensions:
        dims = Console.size.fget(self)  # type: ignore[attr-defined]
        if self._width is None and not self.is_terminal and "COLUMNS" not in self._environ:
            return ConsoleDimensions(PIPED_WIDTH, dims.height)
        return dims  # type: ignore[no-any-return]

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """Every string printed or put in a table cell through the one console sanitiser (netauto.visible)
        before rich sees it: rich itself drops \\r, \\x07, \\x08, \\x0b, \\x0c silently, here they are shown."""
        return super().render_str(visible(text), **kwargs)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        """Every text segment through the one console sanitiser (netauto.visible): a device's `\\x1b[2J` in a
        diff, a table cell or a message is shown, never obeyed. Rich's own control segments (cursor moves of
        a progress bar) and its styles are not text and stay as they are."""
        return super()._render_buffer(seg if seg.control else Segment(visible(seg.text), seg.style)
                                      for seg in buffer)


out = PipeConsole()
err = PipeConsole(stderr=True)

ENV_PREFIX = "NETAUTO"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
SSH_LOGGERS = ("paramiko", "netmiko", "nornir")  # what an SSH session does, at -vvv / --debug


class RedactSecrets(logging.Filter):
    """Replaces the values of the secret environment variables (NETAUTO_SSH_PASSWORD*) in every log line, and
    every secret token netauto's one redaction rule knows (netauto.deploy.redact), as deploy's output does."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        super().__init__()
        env = os.environ if environ is None else environ
        self.secrets = sorted({v for k, v in env.items() if k.startswith("NETAUTO_SSH_PASSWORD") and v},
                              key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        for secret in self.secrets:
            text = text.replace(secret, "********")
        # and what a device holds (a `neighbor X password ...` line in a debug dump): deploy's one redaction rule
        record.msg, record.args = visible(redact(text)), None  # and shown, never obeyed, by a terminal
        return True


def configure_logging(verbose: int, debug: bool, log_file: Path | None) -> None:
    """stderr: warnings; -v netauto info; -vv netauto debug; -vvv or --debug also paramiko/netmiko/nornir.
    --log-file FILE gets everything at debug level, whatever -v says."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_netauto", False):
            root.removeHandler(handler)
            handler.close()
    level = logging.DEBUG if debug or verbose >= 2 else logging.INFO if verbose == 1 else logging.WARNING
    redact = RedactSecrets()
    stream = logging.StreamHandler(sys.stderr)
    stream.setLevel(level)
    stream.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    if not (debug or verbose >= 3):
        stream.addFilter(lambda r: r.name.split(".")[0] == "netauto" or r.levelno >= logging.WARNING)
    handlers: list[logging.Handler] = [stream]
    if log_file is not None:
        touch_private(log_file)  # 0600 in a folder created 0700: SSH debug shows device content
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
        handlers[-1].setLevel(logging.DEBUG)
        handlers[-1].setFormatter(logging.Formatter(LOG_FORMAT))
    for handler in handlers:
        handler.addFilter(redact)
        handler._netauto = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    wanted = logging.DEBUG if log_file is not None else level
    root.setLevel(min(wanted, logging.WARNING))
    logging.getLogger("netauto").setLevel(wanted)
    for name in SSH_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if (debug or verbose >= 3 or log_file) else logging.WARNING)


# command -> the module under netauto/cli that defines it. Modules are imported when their command runs (or for
# --help and completion listings), so `netauto render` does not pay for Nornir, NAPALM and the lab at start-up.
# tests/test_cli_conventions.py checks that this table names every command the modules define.
COMMAND_MODULES = {
    "render": "core", "diff": "core", "golden": "core", "show": "core",
    "validate": "validate", "batfish-snapshot": "validate", "check-sonic": "sonic",
    "deploy": "deploy", "verify": "verify", "drain": "verify", "undrain": "verify", "backup": "verify",
    "drift": "verify", "lab": "lab", "docs": "docs", "bom": "bom", "plan": "plan", "export": "export",
    "init": "init", "schema": "init", "acceptance": "acceptance",
}


class LazyGroup(click.Group):
    """click's documented lazy-loading pattern: commands come from COMMAND_MODULES on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(f"netauto.cli.{COMMAND_MODULES[cmd_name]}")
        command = self.commands.get(cmd_name)
        if command is not None and not getattr(command, "_netauto_envvars", False):
            assign_envvars(command, [ENV_PREFIX, cmd_name])
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="netauto")
@click.option("-v", "--verbose", count=True,
              help="More detail on stderr: -v what netauto does, -vv debug, -vvv also SSH (paramiko, netmiko).")
@click.option("--debug", is_flag=True, help="Debug log on stderr including SSH (same as -vvv).")
@click.option("--log-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a debug log, SSH included, to FILE (secrets from NETAUTO_SSH_PASSWORD* redacted).")
@click.option("--allow-huge", is_flag=True, default=False,
              help=f"Accept fabrics beyond {MAX_SWITCHES:,} switches or {MAX_SERVERS:,} servers "
                   f"(same as {ALLOW_HUGE_ENV}=1).")
def cli(verbose: int, debug: bool, log_file: Path | None, allow_huge: bool) -> None:
    """netauto: render, check and deploy a rail-optimized RoCEv2 GPU fabric from one source of truth.

    Exit codes: 0 ok, 1 a check or push failed, 2 bad input. Every option can come from the environment:
    NETAUTO_<COMMAND>_<OPTION> (e.g. NETAUTO_DEPLOY_LIMIT=role_leaf), and NETAUTO_INVENTORY /
    NETAUTO_TEMPLATES for every command's -i / --templates.
    """
    configure_logging(verbose, debug, log_file)
    if allow_huge:  # the CLI edge sets it for every command and the netauto processes they start
        os.environ[ALLOW_HUGE_ENV] = "1"


def load_commands() -> None:
    """Import every command module now (tests and tools that walk `cli.commands`); `main` loads lazily."""
    for info in pkgutil.iter_modules([os.path.dirname(__file__)]):  # this package's folder
        if info.name not in {"app"}:
            importlib.import_module(f"netauto.cli.{info.name}")
    assign_envvars(cli, [ENV_PREFIX])


# flags that remove a safety net or lower a trust boundary (trust a new host key, take over another fabric's
# device) are never taken from the environment (a stale export must not skip them)
NO_ENVVAR = {"yes", "skip_validate", "no_host_key_check", "accept_new", "adopt", "force", "disable_nvue"}


def assign_envvars(command: click.Command, path: list[str]) -> None:
    """NETAUTO_<COMMAND...>_<LONG OPTION> for every option that has no variable of its own (shown in --help)."""
    for param in command.params:
        if (not isinstance(param, click.Option) or param.envvar or param.is_eager or not param.expose_value
                or param.name in NO_ENVVAR):
            continue
        longest = max(param.opts, key=len).lstrip("-")
        param.envvar = "_".join([*path, longest]).upper().replace("-", "_")
        param.show_envvar = True
    command._netauto_envvars = True  # type: ignore[attr-defined]
    if isinstance(command, LazyGroup):  # the top group: its commands get theirs when they load
        for name, sub in command.commands.items():
            if not getattr(sub, "_netauto_envvars", False):
                assign_envvars(sub, [*path, name])
    elif isinstance(command, click.Group):
        for name, sub in command.commands.items():
            assign_envvars(sub, [*path, name])


GC_THRESHOLDS = (100_000, 50, 100)  # gen-0 allocations between collections (CPython's default: 700, 10, 10)


def main() -> None:
    # The process owns its garbage collector here; library code never touches it. A run allocates millions of
    # small, mostly acyclic objects (the model, the parsed files, the route simulation): with the default gen-0
    # threshold the cyclic GC rescans the young ones thousands of times. Collect less often, but still collect
    # (deploy and lab runs are long and threaded). Measured in the session-6 report (validate, 10k example).
    gc.set_threshold(*GC_THRESHOLDS)
    assign_envvars(cli, [ENV_PREFIX])  # the group's own options and whatever is loaded; the rest on first use
    try:
        cli.main(standalone_mode=False, prog_name="netauto")
    except NetautoError as exc:
        logging.getLogger("netauto").debug("error", exc_info=True)
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
