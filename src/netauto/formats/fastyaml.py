"""A fast reader for the block-style YAML subset netauto renders (NVUE startup.yaml, netplan).

PyYAML builds every node in Python (~40 ms per startup.yaml even with libyaml), which makes a
640-switch fabric take a minute; this reader takes a few milliseconds per file. It understands block
mappings and sequences, `{}`, `[]`, one-line flow lists of scalars, quoted scalars and YAML 1.1 plain
scalars (`on`/`off`/`yes`/`no` are booleans), or with `yaml12=True` YAML 1.2 core-schema booleans (only
`true`/`false`; `on`/`off` stay strings, as NVUE reads startup.yaml). Anything else (anchors, block
scalars, flow mappings, tabs, ...) raises `Unsupported` and the caller falls back to PyYAML, so
hand-edited files are read exactly as YAML reads them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+][0-9]+)?\Z")
_BOOL = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
_RESOLVER = yaml.resolver.Resolver()
_NULL = {"", "~", "null"}
_SPECIAL = tuple("&*!|>%@`{[")


class Unsupported(Exception):
    pass


@lru_cache(maxsize=65536)
def _cached_scalar(text: str) -> Any:
    return _scalar_uncached(text)


_BOOL12 = {"true", "True", "TRUE", "false", "False", "FALSE"}


@lru_cache(maxsize=65536)
def _cached_scalar12(text: str) -> Any:
    value = _cached_scalar(text)
    return text if value.__class__ is bool and text not in _BOOL12 else value


def _fresh(value: Any) -> Any:
    """A cached scalar made safe to hand out: the flow collections (`{}`, `[...]`) are copied, the rest is immutable."""
    if value.__class__ is dict:
        return {}
    if value.__class__ is list:
        return list(value)
    return value


def _scalar12(text: str) -> Any:
    return _fresh(_cached_scalar12(text))


def _scalar(text: str) -> Any:
    return _fresh(_cached_scalar(text))


def _scalar_uncached(text: str) -> Any:
    if not text:
        return None
    c = text[0]
    if c in "'\"":
        if len(text) < 2 or text[-1] != c:
            raise Unsupported(text)
        body = text[1:-1]
        if c == '"':
            if "\\" in body or '"' in body:
                raise Unsupported(text)
            return body
        if "'" in body.replace("''", ""):
            raise Unsupported(text)
        return body.replace("''", "'")
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if c == "[":
        if not text.endswith("]") or any(ch in text[1:-1] for ch in "[]{}'\""):
            raise Unsupported(text)
        return [_scalar(part.strip()) for part in text[1:-1].split(",") if part.strip()]
    if c in _SPECIAL or c == "-" and text[1:2] == " " or text.startswith("? "):
        raise Unsupported(text)
    low = text.lower()
    if low in _NULL and (low == text or text in ("Null", "NULL")):
        return None
    if low in _BOOL and text in (low, low.capitalize(), low.upper()):
        return _BOOL[low]
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if c in "0123456789+-.=<":  # octal, hex, sexagesimal, timestamps, .inf ...: only a string if YAML says so
        if _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) != "tag:yaml.org,2002:str":
            raise Unsupported(text)
    if ": " in text or text.endswith(":") or " #" in text:
        raise Unsupported(text)
    return text


_LINE = re.compile(r"^( *)([^ #\n][^\n]*?)[ \r]*$", re.M)


def _lines(text: str) -> list[tuple[str, str]]:
    """(indentation, content) per line. The indentation is kept as its run of spaces: runs of spaces compare as
    their lengths do, so the reader needs no per-line len()."""
    if "\t" in text or "\n---" in text or text.startswith("---") or "\n..." in text:
        raise Unsupported("tabs or document markers")
    found = _LINE.findall(text)  # whole-line comments (indented ones too, as in netplan files) are left out here
    if " #" in text and any(" #" in content for _, content in found):
        raise Unsupported("trailing comments")
    return found


def _split_key(content: str) -> tuple[str, str] | None:
    if content[0] in "'\"":
        end = content.find(content[0], 1)
        if end < 0 or content[end + 1:end + 2] != ":":
            return None
        return content[:end + 1], content[end + 2:].strip()
    idx = content.find(": ")
    if idx < 0:
        return (content[:-1], "") if content.endswith(":") else None
    return content[:idx], content[idx + 2:].strip()


_MISS = object()
_MEMO_MAX = 65536
# text -> its scalar, for the immutable ones (flow collections are built fresh each time): a dict lookup in the
# reader's loop instead of two calls per key and value (a 10k fabric's startup.yaml files are a million lines)
_MEMO: dict[bool, dict[str, Any]] = {False: {}, True: {}}


def _remember(memo: dict[str, Any], text: str, value: Any) -> None:
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[text] = value


class _Reader:
    def __init__(self, lines: list[tuple[str, str]], yaml12: bool = False, record: bool = False) -> None:
        self.lines = lines
        self.i = 0
        self.scalar = _scalar12 if yaml12 else _scalar
        self.memo = _MEMO[yaml12]
        # with `record` (fastyaml_similar): per line, the container and key its value went to (and whether the line
        # holds the value itself), and per nested container its parent and key
        self.rec: list[tuple[Any, Any, bool] | None] | None = [None] * len(lines) if record else None
        self.parents: dict[int, tuple[Any, Any]] = {}

    def _link(self, line: int, out: Any, key: Any, child: Any) -> None:
        """Record (`record` only) that `line` opened `child`, stored at out[key]."""
        if self.rec is not None:
            self.rec[line] = (out, key, False)
            if child.__class__ is dict or child.__class__ is list:
                self.parents[id(child)] = (out, key)

    def value(self, text: str) -> Any:
        memo = self.memo
        value = memo.get(text, _MISS)
        if value is _MISS:
            value = self.scalar(text)
            if value.__class__ is not dict and value.__class__ is not list:
                _remember(memo, text, value)
        return value

    def node(self, indent: str) -> Any:
        ind, content = self.lines[self.i]
        if ind != indent:
            raise Unsupported("indentation")
        if content == "-" or content.startswith("- "):
            return self.seq(indent)
        return self.mapping(indent)

    def seq(self, indent: str) -> list[Any]:
        out: list[Any] = []
        lines = self.lines
        while self.i < len(lines):
            ind, content = lines[self.i]
            if ind != indent or not (content == "-" or content.startswith("- ")):
                if ind > indent:
                    raise Unsupported("indentation")
                break
            item = content[1:].lstrip(" ")
            line = self.i
            if not item:
                self.i += 1
                if self.i < len(lines) and lines[self.i][0] > indent:
                    out.append(self.node(lines[self.i][0]))
                else:
                    out.append(None)
                self._link(line, out, len(out) - 1, out[-1])
            elif _split_key(item) is not None and item[0] not in "[{":
                col = indent + " " * (len(content) - len(item))
                lines[self.i] = (col, item)
                out.append(self.mapping(col))
                if self.rec is not None:
                    self.parents[id(out[-1])] = (out, len(out) - 1)
            else:
                out.append(self.value(item))
                if self.rec is not None:
                    self.rec[line] = (out, len(out) - 1, True)
                self.i += 1
        return out

    def mapping(self, indent: str) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        lines, memo, value_of = self.lines, self.memo, self.value
        n = len(lines)
        i = self.i
        while i < n:
            ind, content = lines[i]
            if ind < indent:
                break
            if ind > indent or content[0] == "-" and (content == "-" or content[1] == " "):
                raise Unsupported("indentation")
            if content[0] in "'\"":
                kv = _split_key(content)
                if kv is None:
                    raise Unsupported(content)
                key_text, value = kv
            else:  # _split_key, inlined
                idx = content.find(": ")
                if idx >= 0:
                    key_text, value = content[:idx], content[idx + 2:].strip()
                elif content[-1] == ":":
                    key_text, value = content[:-1], ""
                else:
                    raise Unsupported(content)
            key = memo.get(key_text, _MISS)
            if key is _MISS:
                key = value_of(key_text)
            if key.__class__ is dict or key.__class__ is list or key in out:
                raise Unsupported("complex or duplicate key")
            i += 1
            if value:
                got = memo.get(value, _MISS)
                out[key] = value_of(value) if got is _MISS else got
                if self.rec is not None:
                    self.rec[i - 1] = (out, key, True)
                continue
            if i < n:
                nind, ncontent = lines[i]
                if nind > indent:
                    self.i = i
                    out[key] = self.node(nind)
                    self._link(i - 1, out, key, out[key])
                    i = self.i
                    continue
                if nind == indent and (ncontent == "-" or ncontent.startswith("- ")):
                    self.i = i
                    out[key] = self.seq(indent)
                    self._link(i - 1, out, key, out[key])
                    i = self.i
                    continue
            out[key] = None
            self._link(i - 1, out, key, None)
        self.i = i
        return out


class _Loader12(_Loader):  # type: ignore[misc, valid-type]
    """PyYAML's safe loader with YAML 1.2 core-schema booleans (on/off/yes/no are strings)."""


_Loader12.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in _Loader.yaml_implicit_resolvers.items()
}
_Loader12.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                list("tTfF"))

MAX_DEPTH = 64  # rendered files nest 8 levels at most


def _line(event: yaml.Event) -> int:
    return event.start_mark.line + 1 if event.start_mark is not None else 0


def _safe_load(text: str, yaml12: bool = False) -> Any:
    """`yaml.safe_load` for files that may have been edited by hand or by someone hostile (`validate --configs`):
    aliases are refused (nested ones expand to billions of nodes, a self-referencing one makes an endless
    structure that the parsers below would recurse into) and so is nesting deeper than MAX_DEPTH. One extra
    pass over libyaml's events, only for files the fast reader above does not handle."""
    _refuse_aliases_and_depth(text)
    return yaml.load(text, Loader=_Loader12 if yaml12 else _Loader)


def load_all(text: str) -> list[Any]:
    """Every document of a multi-document file (Kubernetes manifests), as `yaml.safe_load_all` reads them, without
    aliases and at most MAX_DEPTH levels deep (`_safe_load`)."""
    _refuse_aliases_and_depth(text)
    return list(yaml.load_all(text, Loader=_Loader))


def _refuse_aliases_and_depth(text: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.YAMLError(f"YAML alias *{event.anchor} at line {_line(event)}: netauto writes no "
                                 "aliases and reads none")
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise yaml.YAMLError(f"nested more than {MAX_DEPTH} levels at line {_line(event)}")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def load(text: str, yaml12: bool = False) -> Any:
    """The YAML document in `text`, as `yaml.safe_load` would return it (without aliases; YAML 1.2 booleans with
    `yaml12`)."""
    try:
        return read(_Reader(_lines(text), yaml12))
    except Unsupported:
        return _safe_load(text, yaml12)


def read(reader: _Reader) -> Any:
    """The document of a reader's lines (raises Unsupported for what the line reader does not read)."""
    lines = reader.lines
    if not lines:
        return None
    data = reader.node(lines[0][0])
    if reader.i != len(lines):
        raise Unsupported("trailing content")
    return data
