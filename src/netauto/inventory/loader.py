"""Read an inventory folder (or one file) into a validated `Inventory`."""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from netauto.errors import InventoryError, SchemaValueError, format_key_path
from netauto.inventory.schema import Inventory
from netauto.inventory.yaml_source import Budget, SourceMap, load_yaml


@dataclass(frozen=True)
class LoadedInventory:
    inventory: Inventory
    sources: SourceMap
    root: Path
    data: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # `read_merged`'s, unchecked

    def where(self, *path: str | int) -> dict[str, Any]:
        """Keyword arguments for InventoryError pointing at a key path."""
        file, line = self.sources.locate(tuple(path))
        return {"file": file or self.root, "line": line, "key": format_key_path(path)}


MAX_FILES = 256  # one file per section is 10; a folder with thousands is a mistake (or an attack on the reader)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def _regular_inside(path: Path, folder: Path | None) -> None:
    """Refuse `path` unless it is a regular file (a symlink only when it resolves inside `folder`). The inventory
    comes from a pull request: a link to /etc/shadow or a FIFO must never be read, and the error names the path,
    never a byte of the target."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            real = Path(os.path.realpath(path))
            if folder is None or not real.is_relative_to(folder.resolve()):
                raise InventoryError("a symlink that leads outside the inventory folder; netauto does not follow it",
                                     file=path, hint="replace the link with the file itself")
            st = os.stat(real)
    except OSError as exc:
        raise InventoryError(f"cannot read the file: {exc.strerror}", file=path,
                             hint="check that it exists and is readable") from None
    if not stat.S_ISREG(st.st_mode):
        raise InventoryError(f"{_kind(st.st_mode)}, not a regular file; netauto reads only regular YAML files",
                             file=path, hint="remove it from the inventory folder or replace it with a YAML file")


def inventory_files(root: Path) -> list[Path]:
    """The YAML files an inventory consists of (a folder's *.yaml/*.yml, not its subfolders). Each must be a
    regular file inside the folder (_regular_inside)."""
    if root.is_file() or (root.exists() and not root.is_dir()):
        _regular_inside(root, root.absolute().parent)
        return [root]
    if not root.is_dir():
        raise InventoryError("inventory not found", file=root, hint="pass -i with a folder of YAML files or a YAML file")
    try:
        files = sorted(p for p in root.iterdir() if p.suffix in {".yaml", ".yml"})
    except OSError as exc:
        raise InventoryError(f"cannot read the inventory folder: {exc.strerror}", file=root,
                             hint="check that it exists and is readable") from None
    if not files:
        raise InventoryError("no *.yaml files in the inventory folder", file=root)
    if len(files) > MAX_FILES:
        raise InventoryError(f"{len(files)} YAML files in the inventory folder; netauto reads at most {MAX_FILES}",
                             file=root, hint="keep one file per section or group of sections")
    for file in files:
        _regular_inside(file, root)
    return files


_EXPECTED = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "string": "a string",
    "list": "a list, e.g. [a, b]",
    "tuple": "a list, e.g. [a, b]",
    "set": "a list, e.g. [a, b]",
    "dict": "a mapping (key: value lines or {key: value})",
    "model": "a mapping (key: value lines or {key: value})",
    "model_attributes": "a mapping (key: value lines or {key: value})",
}
_BOUNDS = {"greater_than_equal": ("ge", ">="), "greater_than": ("gt", ">"), "less_than_equal": ("le", "<="),
           "less_than": ("lt", "<")}


def _yaml_type(value: Any) -> str:
    if value is None:
        return "an empty value (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _clean_loc(loc: tuple[Any, ...]) -> tuple[tuple[str | int, ...], bool]:
    """Drop pydantic's internal loc segments (`[key]`, `function-after[...]`); report whether a dict key is at fault."""
    path: list[str | int] = []
    is_key = False
    for part in loc:
        if part == "[key]":
            is_key = True
        elif isinstance(part, str) and part.endswith("]") and "[" in part and part.split("[", 1)[0].replace("-", "").isalpha():
            continue
        else:
            path.append(part)
    return tuple(path), is_key


def _model_at(path: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The schema model whose fields live at `path` (best effort; None when it is not a model)."""
    model: Any = Inventory
    skip = 0  # path parts that are list indexes or dict keys, not field names
    for part in path:
        if skip:
            skip -= 1
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        field = model.model_fields.get(str(part))
        if field is None:
            return None
        model = field.annotation
        while get_origin(model) in (list, dict) or get_origin(model) in (Union, UnionType):
            if get_origin(model) in (list, dict):
                skip += 1
            args = [a for a in get_args(model) if a is not type(None)]
            model = args[-1] if args else None
    if skip:
        return None
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _explain(err: ErrorDetails, path: tuple[str | int, ...], is_key: bool) -> tuple[str, str | None, tuple[str | int, ...]]:
    """(message, hint, path) for one pydantic error, in the inventory's terms."""
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    given = err.get("input")
    name = path[-1] if path else ""
    parent = format_key_path(path[:-1]) or "the top level"
    if kind == "extra_forbidden":
        model = _model_at(path[:-1])
        allowed = sorted(model.model_fields) if model else []
        close = difflib.get_close_matches(str(name), allowed, n=1)
        message = f"unknown key {name!r}"
        if allowed:
            message += f"; {parent} accepts: {', '.join(allowed)}"
        hint = f"did you mean {close[0]!r}?" if close else "remove it or fix its spelling"
        return message, hint, path
    if kind == "missing":
        if len(path) == 1:
            return f"required section {name!r} is missing", f"add a `{name}:` section to one of the YAML files", path
        return f"required key {name!r} is missing", f"add `{name}:` under {parent}", path
    base = kind.rsplit("_", 1)[0] if kind.endswith(("_type", "_parsing")) else None
    if kind in ("int_from_float",):
        base = "int"
    if base in _EXPECTED:
        got = "an empty value" if given is None else f"{_show(given)} ({_yaml_type(given)})"
        message = f"expected {_EXPECTED[base]}, got {got}"
        if is_key:
            message = f"key {name!r}: {message}"
        return message, f"write {_EXPECTED[base]} here" if base != "string" else "quote the value", path
    if kind == "literal_error":
        expected = str(ctx.get("expected", "")).replace(" or ", ", ")
        return (f"expected one of {expected}; got {_show(given)}", "use one of the listed values", path)
    if kind in _BOUNDS:
        key, op = _BOUNDS[kind]
        return f"must be {op} {ctx.get(key)}, got {_show(given)}", f"use a value {op} {ctx.get(key)}", path
    if kind == "string_pattern_mismatch":
        return (f"{_show(given)} does not match the pattern {ctx.get('pattern')}",
                "use letters, digits and . _ - only" if "A-Za-z0-9" in str(ctx.get("pattern")) else None, path)
    if kind in ("too_short", "too_long"):
        return str(err.get("msg", "wrong length")), None, path
    error = ctx.get("error")
    if isinstance(error, SchemaValueError):
        return str(error), error.hint, (path + (error.key,)) if error.key else path
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    if "input" in err and not isinstance(given, (dict, list)) and _show(given) not in msg:
        msg += f", got {_show(given)}"
    return msg, "see the schema: src/netauto/inventory/schema.py (README: Source of truth)", path


def read_merged(root: Path) -> tuple[dict[str, Any], SourceMap]:
    """The inventory's sections as its YAML files say them (merged, not schema-checked yet) and where each key
    is. `load_inventory` checks them; `netauto.render.edits` compares them with a previous render's."""
    smap = SourceMap()
    merged: dict[str, Any] = {}
    budget = Budget()
    for file in inventory_files(root):
        file_map = SourceMap()
        data = load_yaml(file, file_map, budget=budget)
        if data is None or data == {}:
            continue
        if not isinstance(data, dict):
            raise InventoryError(f"top level must be a mapping of sections, got {_yaml_type(data)}", file=file, line=1,
                                 hint="start with a section name such as `fabric:`")
        for key in data:
            if key in merged:
                first, first_line = smap.locations[(key,)]
                _, line = file_map.locations[(key,)]
                raise InventoryError(
                    f"section defined twice (already in {first.name}:{first_line})", file=file, line=line,
                    key=str(key), hint=f"keep each top-level section in one file: merge it into {first.name}",
                )
            merged[key] = data[key]
        smap.locations.setdefault((), file_map.locations.get((), (file, 1)))
        smap.locations.update({k: v for k, v in file_map.locations.items() if k})
    return merged, smap


def load_inventory(root: Path | str) -> LoadedInventory:
    root = Path(root)
    merged, smap = read_merged(root)
    try:
        inventory = Inventory.model_validate(merged)
    except ValidationError as exc:
        # an unknown key first: it is usually a misspelt one, which also makes "required key missing" errors
        errors = sorted(exc.errors(), key=lambda e: e.get("type") != "extra_forbidden")
        err = errors[0]
        path, is_key = _clean_loc(tuple(err["loc"]))
        message, hint, path = _explain(err, path, is_key)
        where, at = smap.locate(path)
        if len(path) <= 1 and err.get("type") == "missing":
            where, at = root, None  # a missing section belongs to no file: name the inventory
        more = len(errors) - 1
        if more:
            message += f" (and {more} more problem{'s' if more > 1 else ''})"
        raise InventoryError(
            message, file=where or root, line=at, key=format_key_path(path) or None, hint=hint
        ) from None
    return LoadedInventory(inventory=inventory, sources=smap, root=root, data=merged)
