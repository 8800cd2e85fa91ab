"""Check an NVUE `startup.yaml` against NVIDIA's NVUE schema of the target Cumulus release.

The schema of a release is read from PyPI `nvueschema`'s generated module by nvue_schema_reader.py (why not
the pydantic models themselves is said there); this module walks a document against it: every unknown key and
every bad value, with its key path, and the line of a key path in the rendered text (line_of).
The document is read with YAML 1.2 semantics, as NVUE reads it (`on` is a string).

tests/test_nvue_schema.py compares this checker with the pydantic models themselves on the shipped fabrics
and on mutations, so the interpretation cannot drift from the package silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netauto.validate.nvue_schema_reader import Schema, SchemaType, schema


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    path: tuple[str, ...]  # key path from the document root (inside `- set:`)
    message: str



_MISSING = object()


def _leaf(t: SchemaType, value: Any) -> str | None:
    """A leaf check, memoised per type and value: fabrics repeat the same few hundred values many times."""
    if value is None and t.nullable:
        return None
    key = (value.__class__, value)
    try:
        msg = t.memo.get(key, _MISSING)
    except TypeError:  # unhashable (a list): no memo
        return t.check(value) if t.check else None
    if msg is _MISSING:
        msg = t.check(value) if t.check else None
        t.memo[key] = msg
    return msg  # type: ignore[return-value]


# (type, subtree) -> (the subtree and type, held so that their ids stay theirs; the subtree's problems, paths relative)
Memo = dict[tuple[int, int], tuple[Any, "SchemaType", list[SchemaProblem]]]


def _walk(s: Schema, value: Any, t: SchemaType, path: tuple[str, ...], out: list[SchemaProblem],
          memo: Memo | None = None) -> None:
    """The problems of `value` (at `path`) for type `t`. With `memo`, a mapping already checked against the same
    type is not walked again: trees read through `fastyaml_similar` share their unchanged subtrees (the same
    object), and a subtree's problems depend only on it and its type (the path is added here)."""
    if memo is not None and value.__class__ is dict and value:
        key = (id(t), id(value))
        got = memo.get(key)
        if got is None:
            rel: list[SchemaProblem] = []
            _check_node(s, value, t, (), rel, memo)
            memo[key] = (value, t, rel)
        else:
            rel = got[2]
        if rel:
            out.extend(SchemaProblem(path + p.path, p.message) for p in rel)
        return
    _check_node(s, value, t, path, out, memo)


def _check_node(s: Schema, value: Any, t: SchemaType, path: tuple[str, ...], out: list[SchemaProblem],
                memo: Memo | None) -> None:
    if value is None and t.nullable:
        return
    if t.options:
        if any(_fits(s, value, o) for o in t.options):
            # a container option that fits is walked for its own keys and values
            for o in t.options:
                if (o.model or o.values) and isinstance(value, dict):
                    _walk(s, value, o, path, out, memo)
                    return
            return
        msgs = [m for o in t.options if (m := _leaf_message(value, o))]
        out.append(SchemaProblem(path, f"value {value!r}: {' or '.join(dict.fromkeys(msgs)) or 'not allowed here'}"))
        return
    if t.model is not None:
        if value.__class__ is not dict:
            out.append(SchemaProblem(path, f"value {value!r}: must be a mapping"))
            return
        fields = t.fields if t.fields is not None else s.fields(t.model)
        t.fields = fields
        for key, sub in value.items():
            child = fields.get(key) if key.__class__ is str else None
            if child is None:
                near = ", ".join(sorted(fields)[:14])
                out.append(SchemaProblem(path + (str(key),), f"unknown key `{key}` (the schema has: {near})"))
            elif child.check is not None:
                msg = _leaf(child, sub)
                if msg:
                    out.append(SchemaProblem(path + (key,), f"value {sub!r}: {msg}"))
            else:
                _walk(s, sub, child, path + (key,), out, memo)
        return
    if t.values is not None or t.any_map:
        if value.__class__ is not dict:
            out.append(SchemaProblem(path, f"value {value!r}: must be a mapping"))
            return
        # free keys (names, addresses, numbers) are not checked: YAML may read `24:` as an integer key, which
        # NVUE, reading JSON-style objects, takes as the string "24"
        if t.values is not None:
            for key, sub in value.items():
                _walk(s, sub, t.values, path + (str(key),), out, memo)
        return
    msg = _leaf(t, value)
    if msg:
        out.append(SchemaProblem(path, f"value {value!r}: {msg}"))


def _leaf_message(value: Any, t: SchemaType) -> str | None:
    if t.model or t.values or t.any_map:
        return None if isinstance(value, dict) else "a mapping"
    if t.options:
        return " or ".join(m for o in t.options if (m := _leaf_message(value, o)))
    return t.check(value) if t.check else None


def _fits(s: Schema, value: Any, t: SchemaType) -> bool:
    if value is None and t.nullable:
        return True
    if t.options:
        return any(_fits(s, value, o) for o in t.options)
    if t.model or t.values or t.any_map:
        return isinstance(value, dict)
    return t.check is None or t.check(value) is None


_ROOTS: dict[str, SchemaType] = {}  # release -> the document's type (one object, so that memo keys match)


def check(tree: dict[str, Any], release: str, memo: Memo | None = None) -> list[SchemaProblem]:
    """Every unknown key and every bad value of an NVUE `set:` document, for the release's schema. `memo` (one
    per batch of documents, e.g. every switch of a fabric) remembers the problems of each subtree object."""
    s = schema(release)
    root = _ROOTS.get(release)
    if root is None:
        root = _ROOTS[release] = SchemaType(model="NvueConfig")
    out: list[SchemaProblem] = []
    _walk(s, tree, root, (), out, memo)
    return out


def _key(content: str) -> str | None:
    if content[:1] in "'\"":
        close = content.find(content[0], 1)
        return content[1:close] if close > 0 else None
    idx = content.find(":")
    return content[:idx].strip() if idx > 0 else None


def line_of(text: str, path: tuple[str, ...]) -> int | None:
    """1-based line of the key at `path` in a block-style startup.yaml (`- set:` root); when the key itself is
    not there (a key the schema wants but the file lacks), the line of its nearest ancestor; None without `set:`."""
    rows: list[tuple[int, int, str | None]] = []  # (line, indent, key)
    for number, raw in enumerate(text.splitlines(), 1):
        content = raw.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        indent = len(raw) - len(content)
        if content.startswith("- "):
            content, indent = content[2:], indent + 2
        rows.append((number, indent, _key(content)))
    lo, parent = 0, -1
    found: int | None = None
    for part in ("set",) + tuple(path):
        child = None
        hit = None
        for i in range(lo, len(rows)):
            number, indent, key = rows[i]
            if indent <= parent:
                break
            if child is None:
                child = indent
            if indent == child and key == part:
                hit = i
                break
        if hit is None:
            return found
        found, parent, lo = rows[hit][0], rows[hit][1], hit + 1
    return found
