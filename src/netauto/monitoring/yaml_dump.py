"""`yaml.safe_dump(doc, sort_keys=False, width=10_000, allow_unicode=False)`, byte for byte, fast.

The 10k example's rules and rule tests are 40 MB of YAML with millions of scalars: PyYAML's pure-Python
representer and emitter took over a minute of CPU. The monitoring documents are plain block trees (dicts, lists,
strings, ints), so this writes PyYAML's block layout directly (mappings indented by 2, sequences inside a mapping
not indented, `- ` items, `{}`/`[]` for empty ones) and asks PyYAML itself how to write any scalar that is not
obviously plain. Whatever it does not know for sure (a bool, None, float, a dict or list shared by two parents
(PyYAML writes an alias), a scalar long enough to be folded at the width) goes to `yaml.safe_dump` unchanged.
tests/test_monitoring.py checks both agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import yaml

# the only implicit types a plain scalar starting with a letter can have: bool and null (PyYAML's resolver)
from netauto.render.yaml_block import LETTER_WORDS

WIDTH = 10_000
_MAX_SCALAR = 4_000  # well below WIDTH: a scalar this long never reaches the folding column at these depths
_STR = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()
_RESOLVED_FIRST = frozenset(k for k in yaml.resolver.Resolver.yaml_implicit_resolvers if k)
# printable ASCII, no leading/trailing space, not starting with an indicator (PyYAML's Emitter.analyze_scalar:
# block plain is refused for these first characters, for `: ` / ` #` inside, and a trailing `:`)
_PLAIN = re.compile(r"[^\s#,\[\]{}&*!|>'\"%@`?:\-.][\x20-\x7e]*\Z")


class _Fallback(Exception):
    pass


def _safe_dump(doc: object) -> str:
    return yaml.safe_dump(doc, sort_keys=False, width=WIDTH, allow_unicode=False)




def _plain(value: str) -> bool:
    if not _PLAIN.match(value) or value[-1] in " :" or ": " in value or " #" in value:
        return False
    first = value[0]
    if first not in _RESOLVED_FIRST or (first.isalpha() and value not in LETTER_WORDS):
        return True
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR  # type: ignore[no-any-return]


class _Scalars:
    """Scalar text per value (and per key), PyYAML's answer cached for the ones that need asking."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.keys: dict[str, str] = {}

    def value(self, value: object) -> str:
        cls = value.__class__
        if cls is int:
            return str(value)
        if cls is not str:
            raise _Fallback
        text: str = value  # type: ignore[assignment]
        done = self.values.get(text)
        if done is not None:
            return done
        if len(text) > _MAX_SCALAR:
            raise _Fallback
        if len(self.values) > 1 << 16:  # device names and ports repeat rule after rule; series do not
            self.values.clear()
        if _plain(text):
            done = self.values[text] = text
        else:
            dumped = _safe_dump({"k": text})
            if not dumped.startswith("k: ") or dumped.count("\n") != 1:
                raise _Fallback
            done = self.values[text] = dumped[3:-1]
        return done

    def key(self, key: object) -> str:
        if key.__class__ is not str and key.__class__ is not int:  # (before the cache: True == 1)
            raise _Fallback
        done = self.keys.get(key)  # type: ignore[arg-type]
        if done is not None:
            return done
        if key.__class__ is str and len(key) <= 128 and _plain(key):  # type: ignore[arg-type]
            done = self.keys[key] = key  # type: ignore[index,assignment]
        else:
            dumped = _safe_dump({key: 0})
            if dumped.startswith("?") or not dumped.endswith(": 0\n") or dumped.count("\n") != 1:
                raise _Fallback
            done = self.keys[key] = dumped[:-4]  # type: ignore[index]
        return done


def _mapping(node: dict, indent: int, lead: str, out: list[str], sc: _Scalars, seen: set[int]) -> None:
    pad = " " * indent
    first = True
    for key, value in node.items():
        out.append(lead if first else pad)
        first = False
        out.append(sc.key(key))
        cls = value.__class__
        if (cls is dict or cls is list) and value:
            if id(value) in seen:
                raise _Fallback
            seen.add(id(value))
            out.append(":\n")
            if cls is dict:
                _mapping(value, indent + 2, pad + "  ", out, sc, seen)
            else:
                _sequence(value, indent, pad, out, sc, seen)
        else:
            out.append(": ")
            out.append(_empty(value) or sc.value(value))
            out.append("\n")


def _sequence(node: list, indent: int, lead: str, out: list[str], sc: _Scalars, seen: set[int]) -> None:
    pad = " " * indent
    first = True
    for value in node:
        out.append(lead if first else pad)
        first = False
        out.append("- ")
        cls = value.__class__
        if (cls is dict or cls is list) and value:
            if id(value) in seen:
                raise _Fallback
            seen.add(id(value))
            if cls is dict:
                _mapping(value, indent + 2, "", out, sc, seen)
            else:
                _sequence(value, indent + 2, "", out, sc, seen)
        else:
            out.append(_empty(value) or sc.value(value))
            out.append("\n")


def _empty(value: object) -> str:
    cls = value.__class__
    if cls is dict and not value:
        return "{}"
    if cls is list and not value:
        return "[]"
    return ""


def dump(doc: dict) -> str:
    """The YAML `yaml.safe_dump(doc, sort_keys=False, width=10_000, allow_unicode=False)` writes."""
    if doc.__class__ is not dict or not doc:
        return _safe_dump(doc)
    out: list[str] = []
    try:
        _mapping(doc, 0, "", out, _Scalars(), {id(doc)})
    except _Fallback:
        return _safe_dump(doc)
    return "".join(out)


BATCH = 4096  # items joined into one string at a time by `dump_groups`


def dump_groups(groups: Iterable[tuple[dict, Iterable[dict]]], key: str, prefix: str = "") -> str | None:
    """`prefix` + `dump({"groups": [{**head, key: list(items)} for head, items in groups]})`, byte for byte,
    without the document: each item is made, written and dropped in turn, so only the text is held (the intent
    rules of 100,000 GPUs: ~800,000 rule dicts and tens of millions of pieces of text otherwise). The items must
    not share a dict or list (PyYAML would write an alias; each is checked alone). None where the document
    needs more than this writer knows (the caller dumps it whole) or has no group or an empty one."""
    sc = _Scalars()
    chunks = [prefix, "groups:\n"]
    out: list[str] = []
    try:
        for head, items in groups:
            if key in head or not head:
                return None
            _sequence([head], 0, "", out, sc, set())
            out.append(f"  {sc.key(key)}:\n")
            count = 0
            for item in items:
                if item.__class__ is not dict or not item:
                    return None
                _sequence([item], 2, "  ", out, sc, set())
                count += 1
                if count % BATCH == 0:
                    chunks.append("".join(out))
                    out.clear()
            if not count:
                return None
    except _Fallback:
        return None
    if len(chunks) == 2 and not out:
        return None
    chunks.append("".join(out))
    del out
    return "".join(chunks)
