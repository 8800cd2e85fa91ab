"""Read NVIDIA's NVUE schema of a Cumulus release into the types nvue_schema.py checks a document against.

The schema is NVIDIA's NVUE OpenAPI document as shipped by PyPI `nvueschema` (MIT): one module of pydantic
models per release (`nvueschema.models.v5_15.NvueConfig`). Two problems with using those models directly:
they ignore unknown keys (a renamed key such as `interface <if> ip` on 5.15, where the schema has `ipv4`, would
pass silently), and importing one release builds ~900 pydantic validators (1.5 s on an idle machine, several
seconds on a loaded one), too slow for `netauto validate` on a big fabric.

So this module reads the generated module's *source* with `ast` (about 0.2 s per release, cached per process)
and interprets the small set of annotation forms the generator emits: model classes, `Dict[str, X]`,
`Optional`/`Union`, `Literal[...]`, `int`/`float` with `Field(ge, le)`, strings with length and pattern
constraints (`Field(pattern=...)`, `BeforeValidator(partial(_validate_string, ...))`), named string types
(`InterfaceName`, `VrfName`...), `IPv4Address`/`IPv4Network`... Classes are indexed lazily, only when the
document reaches them. Leaf values are checked strictly, as a JSON-schema validator would (an integer is not a
string): `ecn: on` where the schema has `enable|disable`, `as-path-prepend as: 65101` where it wants a string.
"""

from __future__ import annotations

import ast
import importlib.util
import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from netauto.platforms.nos import nvue_schema_module

Check = Callable[[Any], "str | None"]  # None when the value is fine, else what is wrong


@dataclass(slots=True)
class SchemaType:
    """One annotation, interpreted: a model (fixed keys), a map of free keys, or a leaf check; `options` for unions."""

    model: str | None = None
    values: "SchemaType | None" = None  # Dict[str, X]
    any_map: bool = False  # Dict[str, Any]
    check: Check | None = None
    nullable: bool = False
    options: list["SchemaType"] = field(default_factory=list)
    fields: "dict[str, SchemaType] | None" = None  # a model's fields, filled on first use
    memo: dict[Any, "str | None"] = field(default_factory=dict)  # leaf results per (class, value)



def _ok(_: Any) -> None:
    return None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number_check(kind: str, ge: float | None, le: float | None) -> Check:
    def check(v: Any) -> str | None:
        if kind == "int" and not _is_int(v):
            return "must be an integer"
        if kind == "float" and not (_is_int(v) or isinstance(v, float)):
            return "must be a number"
        if (ge is not None and v < ge) or (le is not None and v > le):
            return f"must be in {ge if ge is not None else '-inf'}..{le if le is not None else 'inf'}"
        return None
    return check


def _string_check(min_length: int = 0, max_length: int | None = None, pattern: str | None = None) -> Check:
    rx = re.compile(pattern) if pattern else None

    def check(v: Any) -> str | None:
        if not isinstance(v, str):
            return "must be a string"
        if len(v) < min_length or (max_length is not None and len(v) > max_length):
            return f"length must be {min_length}..{max_length if max_length is not None else ''}"
        if rx is not None and rx.search(v) is None:
            return f"does not match {pattern}"
        return None
    return check


def _ip_check(kind: Callable[[str], Any], what: str) -> Check:
    def check(v: Any) -> str | None:
        try:
            kind(v) if isinstance(v, str) else kind("")
        except ValueError:
            return f"must be an {what}"
        return None
    return check


_SIMPLE: dict[str, Check] = {
    "Any": _ok, "SecretStr": _string_check(), "AnyUrl": _string_check(min_length=1), "FilePath": _string_check(),
    "str": _string_check(), "int": _number_check("int", None, None), "float": _number_check("float", None, None),
    "bool": lambda v: None if isinstance(v, bool) else "must be true or false",
    "IPv4Address": _ip_check(ipaddress.IPv4Address, "IPv4 address"),
    "IPv6Address": _ip_check(ipaddress.IPv6Address, "IPv6 address"),
    "IPv4Network": _ip_check(ipaddress.IPv4Network, "IPv4 network"),
    "IPv6Network": _ip_check(ipaddress.IPv6Network, "IPv6 network"),
    "date": _string_check(), "datetime": _string_check(), "time": _string_check(),
}


def _literal_check(values: tuple[Any, ...]) -> Check:
    allowed = {(type(v), v) for v in values}
    shown = " | ".join(str(v) for v in values)

    def check(v: Any) -> str | None:
        return None if (type(v), v) in allowed else f"must be one of {shown}"
    return check


def _list_check(item: SchemaType) -> Check:
    def check(v: Any) -> str | None:
        if not isinstance(v, list):
            return "must be a list"
        for x in v:
            if item.check is not None and (msg := item.check(x)):
                return f"item {x!r}: {msg}"
        return None
    return check


def _kwargs(call: ast.Call) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is not None:
            try:
                out[kw.arg] = ast.literal_eval(kw.value)
            except ValueError:
                pass
    return out


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        return node.func.id if isinstance(node.func, ast.Name) else None
    return None


_CLASS = re.compile(r"^class (\w+)\(BaseModel\):", re.M)
_ALIAS = re.compile(r"^([A-Za-z_]\w*) = (Annotated\[.*)$", re.M)


class Schema:
    """The classes and named types of one generated release module, interpreted on demand.

    The source is cut at `class X(BaseModel):` lines; only the classes a document reaches are parsed."""

    def __init__(self, source: str) -> None:
        self.source = source
        starts = [(m.group(1), m.start()) for m in _CLASS.finditer(source)]
        self.spans = {name: (start, starts[i + 1][1] if i + 1 < len(starts) else len(source))
                      for i, (name, start) in enumerate(starts)}
        self.aliases: dict[str, ast.expr] = {
            m.group(1): ast.parse(m.group(2), mode="eval").body for m in _ALIAS.finditer(source[:starts[0][1]])
        } if starts else {}
        self.classes = self.spans  # names known as models
        self._fields: dict[str, dict[str, SchemaType]] = {}

    def _class(self, name: str) -> ast.ClassDef:
        start, end = self.spans[name]
        node = ast.parse(self.source[start:end]).body[0]
        assert isinstance(node, ast.ClassDef)
        return node

    def fields(self, cls: str) -> dict[str, SchemaType]:
        known = self._fields.get(cls)
        if known is None:
            known = {}
            for stmt in self._class(cls).body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    alias = stmt.target.id
                    if isinstance(stmt.value, ast.Call):
                        alias = _kwargs(stmt.value).get("alias", alias)
                    known[alias] = self.type_of(stmt.annotation)
            self._fields[cls] = known
        return known

    def type_of(self, node: ast.expr) -> SchemaType:
        if isinstance(node, ast.Constant) and node.value is None:
            return SchemaType(nullable=True, check=lambda v: None if v is None else "must be empty")
        if isinstance(node, ast.Name):
            name = node.id
            if name in self.classes:
                return SchemaType(model=name)
            if name in self.aliases:
                return self.type_of(self.aliases[name])
            if name in _SIMPLE:
                return SchemaType(check=_SIMPLE[name])
            raise ValueError(f"unsupported NVUE schema annotation {name}")
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
            raise ValueError(f"unsupported NVUE schema annotation {ast.unparse(node)}")
        head = node.value.id
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            inner = self.type_of(args[0])
            inner.nullable = True
            return inner
        if head == "Union":
            options = [self.type_of(a) for a in args]
            return SchemaType(options=options, nullable=any(o.nullable for o in options))
        if head == "Literal":
            return SchemaType(check=_literal_check(tuple(ast.literal_eval(a) for a in args)))
        if head in ("Dict", "dict"):
            value = args[1]
            if isinstance(value, ast.Name) and value.id == "Any":
                return SchemaType(any_map=True)
            return SchemaType(values=self.type_of(value))
        if head == "Annotated":
            return self._annotated(args[0], args[1:])
        if head in ("List", "list"):
            return SchemaType(check=_list_check(self.type_of(args[0])))
        raise ValueError(f"unsupported NVUE schema annotation {ast.unparse(node)}")

    def _annotated(self, base: ast.expr, meta: list[ast.expr]) -> SchemaType:
        inner = self.type_of(base)
        bounds: dict[str, Any] = {}
        for m in meta:
            name = _call_name(m)
            if name == "Field":
                bounds.update(_kwargs(m))  # type: ignore[arg-type]
            elif name == "BeforeValidator" and isinstance(m, ast.Call) and m.args and _call_name(m.args[0]) == "partial":
                bounds.update(_kwargs(m.args[0]))  # type: ignore[arg-type]
        if not bounds:
            return inner
        first = inner.check
        if "ge" in bounds or "le" in bounds:
            kind = "float" if isinstance(base, ast.Name) and base.id == "float" else "int"
            extra = _number_check(kind, bounds.get("ge"), bounds.get("le"))
        else:
            extra = _string_check(bounds.get("min_length", 0), bounds.get("max_length"), bounds.get("pattern"))

        def check(v: Any) -> str | None:
            return (first(v) if first else None) or extra(v)
        return SchemaType(check=check, nullable=inner.nullable)


@lru_cache(maxsize=None)
def schema(release: str) -> Schema:
    """The interpreted NVUE schema of a release (read once per process)."""
    spec = importlib.util.find_spec(nvue_schema_module(release))
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"nvueschema has no schema for Cumulus Linux {release}")
    with open(spec.origin, encoding="utf-8") as fh:
        return Schema(fh.read())
