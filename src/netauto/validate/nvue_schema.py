"""Check an NVUE `startup.yaml` against NVIDIA's NVUE schema of the target Cumulus release.

The schema is NVIDIA's NVUE OpenAPI document as shipped by PyPI `nvueschema` (MIT): one module of pydantic
models per release (`nvueschema.models.v5_15.NvueConfig`). Those models ignore unknown keys, so a renamed key
(`interface <if> ip` on 5.15, where the schema has `ipv4`) would pass silently. This module therefore does two
passes over the document, read with YAML 1.2 semantics as NVUE reads it (`on` is a string):

1. keys: every mapping key is compared with the field aliases of the model at that path (free-form maps such as
   `interface: <name>:` recurse into their value model); an unknown key is reported with its path;
2. values: the models themselves validate types, enums and ranges (`ecn: on` where the schema has
   `enable|disable`, an integer where it wants a string).

Models are imported once per release and indexed lazily (one dict per model class), so a 640-switch fabric
costs one import per release plus a dict lookup per key.
"""

from __future__ import annotations

import importlib
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from netauto.platforms.nos import nvue_schema_module

_NONE = type(None)


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    path: tuple[str, ...]  # key path from the document root (inside `- set:`)
    message: str


@dataclass(frozen=True, slots=True)
class _Node:
    """What the schema allows at one place: a model (fixed keys), a map of free keys, or a leaf."""

    model: type[BaseModel] | None = None
    values: "_Node | None" = None  # Dict[str, X]: every key is free, values are X
    leaf: bool = False


_LEAF = _Node(leaf=True)


def _node(annotation: Any) -> _Node:
    """Reduce a field annotation (Optional/Union/Annotated around a model, a Dict or a scalar) to a _Node."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _node(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        options = [_node(a) for a in typing.get_args(annotation) if a is not _NONE]
        for pick in options:  # a container wins: values are checked by the model pass anyway
            if pick.model is not None or pick.values is not None:
                return pick
        return _LEAF
    if origin is dict:
        args = typing.get_args(annotation)
        inner = _node(args[1]) if len(args) == 2 else _LEAF
        return _Node(values=inner) if (inner.model is not None or inner.values is not None) else _LEAF
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _Node(model=annotation)
    return _LEAF


@lru_cache(maxsize=None)
def _fields(model: type[BaseModel]) -> dict[str, _Node]:
    return {(info.alias or name): _node(info.annotation) for name, info in model.model_fields.items()}


@lru_cache(maxsize=None)
def root_model(release: str) -> type[BaseModel]:
    """`NvueConfig` of the release's schema module (imported once per process and release)."""
    module = importlib.import_module(nvue_schema_module(release))
    return module.NvueConfig


def _walk_keys(doc: Any, node: _Node, path: tuple[str, ...], out: list[SchemaProblem]) -> None:
    if not isinstance(doc, dict):
        return
    if node.values is not None:
        child = node.values
        for key, value in doc.items():
            _walk_keys(value, child, path + (str(key),), out)
        return
    if node.model is None:
        return
    fields = _fields(node.model)
    for key, value in doc.items():
        child = fields.get(key) if isinstance(key, str) else None
        if child is None:
            near = ", ".join(sorted(fields)[:12])
            out.append(SchemaProblem(path + (str(key),), f"unknown key `{key}` (the schema has: {near})"))
            continue
        if child.model is not None or child.values is not None:
            _walk_keys(value, child, path + (key,), out)


def unknown_keys(tree: dict[str, Any], release: str) -> list[SchemaProblem]:
    out: list[SchemaProblem] = []
    _walk_keys(tree, _Node(model=root_model(release)), (), out)
    return out


def bad_values(tree: dict[str, Any], release: str) -> list[SchemaProblem]:
    try:
        root_model(release).model_validate(tree)
    except PydanticValidationError as exc:
        out: list[SchemaProblem] = []
        seen: set[tuple[str, ...]] = set()
        for err in exc.errors(include_url=False):
            # A union reports one error per option; keep the first per key path, without the option suffixes.
            path = tuple(str(p) for p in err["loc"] if not _is_option(p))
            if path in seen:
                continue
            seen.add(path)
            value = err.get("input")
            out.append(SchemaProblem(path, f"value {value!r}: {err['msg']}"))
        return out
    return []


def _is_option(part: Any) -> bool:
    """pydantic appends the union member it tried (`literal['enable','disable']`, `function-after[...]`)."""
    return isinstance(part, str) and ("[" in part or part in ("str", "int", "float", "bool", "none"))


def check(tree: dict[str, Any], release: str) -> list[SchemaProblem]:
    """Unknown keys first (a renamed key makes the value pass meaningless below it), then bad values."""
    problems = unknown_keys(tree, release)
    unknown = {p.path for p in problems}
    problems += [p for p in bad_values(tree, release) if not any(p.path[:len(u)] == u for u in unknown)]
    return problems


def line_of(text: str, path: tuple[str, ...]) -> int | None:
    """1-based line of the key at `path` in a block-style startup.yaml (`- set:` root), or None."""
    lines = text.splitlines()
    want = 0
    indent = -1
    for number, raw in enumerate(lines, 1):
        stripped = raw.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        ind = len(raw) - len(stripped)
        if stripped.startswith("- "):  # `- set:`
            stripped, ind = stripped[2:], ind + 2
        key = stripped.split(":", 1)[0].strip().strip("'\"") if ":" in stripped else None
        if want and ind <= indent:
            return None if want < len(path) else number
        if key is None:
            continue
        if want == 0:
            if key == "set":
                want, indent = 0, ind
                want_root = True  # noqa: F841 - the root mapping starts below `set:`
                continue
        if want < len(path) and key == path[want] and ind > indent:
            want += 1
            indent = ind
            if want == len(path):
                return number
    return None


def iter_releases() -> Iterator[str]:
    from netauto.platforms.nos import cumulus_releases

    yield from cumulus_releases()
