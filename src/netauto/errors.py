"""User-facing errors: each names the file, the key path, the line and the fix."""

from __future__ import annotations

from pathlib import Path


class NetautoError(Exception):
    """Base for errors the CLI reports without a traceback."""

    exit_code = 1


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
