"""Read an inventory folder (or one file) into a validated `Inventory`."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from netauto.errors import InventoryError, SchemaValueError, format_key_path
from netauto.inventory.schema import Inventory
from netauto.inventory.files import _yaml_type, read_merged
from netauto.inventory.files import inventory_files as inventory_files  # its home before files.py
from netauto.inventory.yaml_source import SourceMap


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


def _type_fix(base: str, given: Any) -> str:
    """The fix for a value of the wrong YAML type (the schema takes values as YAML typed them: base.Strict)."""
    if base == "string":
        return "quote the value"
    if base in ("int", "float") and isinstance(given, bool):
        return f"write {_EXPECTED[base]} (true/false, yes/no, on/off are YAML booleans)"
    if base in ("int", "float") and isinstance(given, str):
        try:
            number = float(given)
        except ValueError:
            number = None
        if number is not None and (base == "float" or number.is_integer()) and given.strip() == given:
            return f"write {given} without quotes"
    if base == "int" and isinstance(given, float):
        return f"write {int(given)}" if given.is_integer() else "write a whole number"
    return f"write {_EXPECTED[base]} here"


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
        return message, _type_fix(base, given), path
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
    return msg, "see the schema: src/netauto/inventory/schema.py (docs/inventory.md)", path


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
