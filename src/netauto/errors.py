"""User-facing errors: each names the file, the key path, the line and the fix."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path


class NetautoError(Exception):
    """Base for errors the CLI reports without a traceback."""

    exit_code = 1


class UsageError(NetautoError):
    """Bad input on the command line (an unknown device, a --limit that matches nothing). Exit code 2."""

    exit_code = 2


def did_you_mean(word: str, choices: Iterable[str], n: int = 3) -> str:
    """`; did you mean a, b?` for the close matches of `word` among `choices` (difflib), or ``."""
    close = difflib.get_close_matches(word, list(choices), n=n, cutoff=0.6)
    return f"; did you mean {', '.join(close)}?" if close else ""


class InventoryError(NetautoError):
    """Bad input in the source of truth. Exit code 2."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None = None,
        key: str | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = Path(file) if file else None
        self.key = key
        self.line = line
        self.hint = hint
        super().__init__(self.format())

    def format(self) -> str:
        where = str(self.file) if self.file else "inventory"
        if self.line:
            where += f":{self.line}"
        text = f"{where}: "
        if self.key:
            text += f"{self.key}: "
        text += self.message
        if self.hint:
            text += f" (fix: {self.hint})"
        return text


def format_key_path(path: Iterable[str | int]) -> str:
    """`("overrides", "ports", 1, "port")` -> `overrides.ports[1].port` (list indexes in brackets)."""
    text = ""
    for part in path:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        elif not _PLAIN_KEY.fullmatch(str(part)):  # a hostile key (a newline, quotes): shown escaped, cut short
            shown = repr(str(part)) if len(str(part)) <= 40 else repr(str(part)[:37]) + "..."
            text += f"[{shown}]"
        else:
            text += f".{part}" if text else str(part)
    return text


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.:/@+-]{1,63}")


class SchemaValueError(ValueError):
    """Raised by schema validators: `key` names the child field at fault (so the error points at its line,
    not at the enclosing mapping) and `hint` says how to fix it."""

    def __init__(self, message: str, *, key: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.hint = hint


class OutputError(NetautoError):
    """The output folder cannot be written (disk full, permissions, a foreign folder, a path outside it).
    Exit code 2, one line, the previous output unchanged."""

    exit_code = 2
