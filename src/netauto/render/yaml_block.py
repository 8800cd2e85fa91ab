"""The one block-YAML writer: NVUE's startup.yaml (`dump_set`) and the monitoring files (`dump`, `dump_groups`).

A few lines instead of PyYAML's representer and emitter: ~20x faster on a 640-switch fabric's startup.yaml and on
the 10k example's 40 MB of rules, and byte-stable. Both outputs share the layout (PyYAML's block style: mappings
indented by 2, a sequence inside a mapping not indented, `- ` items, `{}`/`[]` for empty ones); a `Spelling` says
how a scalar is written and what the writer does with what it does not write itself:

- `NVUE` (startup.yaml): a string is plain when every YAML reader (1.1 and 1.2) reads it back as the same string,
  and NVUE's own bare `on`/`off` stay plain (NVUE reads YAML 1.2, where they are strings); anything else is
  single-quoted. A boolean is refused (spelled per release by NvueSpelling), None means a builder left an optional
  key out, and a subtree the builder shares between parents is written once and copied.
- `PyYamlSpelling` (the monitoring files): exactly `yaml.safe_dump(doc, sort_keys=False, width=10_000,
  allow_unicode=False)`; PyYAML itself is asked how to write any scalar that is not obviously plain. Whatever it
  does not know for sure (a bool, None, float, a dict or list shared by two parents (PyYAML writes an alias), a
  scalar long enough to be folded at the width) goes to `yaml.safe_dump` unchanged. tests/test_monitoring_yaml_dump.py
  checks both agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import yaml

_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"

# Plain scalars starting with a letter that YAML 1.1 or 1.2 still reads as something else than a string: the
# booleans and nulls (PyYAML's resolver; 1.2 core schema is a subset). Every other implicit type (int, float,
# timestamp, `.inf`, `<<`, `=`) starts with a digit, sign, dot or symbol.
LETTER_WORDS = {w for b in ("yes", "no", "true", "false", "on", "off", "null") for w in (b, b.title(), b.upper())}


class Fallback(Exception):
    """The document holds something this writer does not write exactly as PyYAML would."""


class Spelling:
    """How scalars are written. `heads` caches "<indent><key>:" per indent (big documents repeat keys thousands
    of times); `skip_none`: a None value leaves its key out (else Fallback); `shares`: a dict or list met twice is
    written again (else Fallback: PyYAML would write an alias)."""

    skip_none = False
    shares = False

    def __init__(self) -> None:
        self.heads: dict[str, dict[Any, str]] = {}
        self.texts: dict[Any, str] = {}  # value -> its text, read by the layout for str values

    def key(self, key: Any) -> str:
        raise NotImplementedError

    def value(self, value: Any) -> str:
        raise NotImplementedError


# ---------------------------------------------------------------- NVUE's spelling
_NVUE_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./:@+-]*( [A-Za-z0-9_./:@+()-]+)*\Z")
_NVUE_BARE = {"on", "off"}


@lru_cache(maxsize=1 << 16)
def scalar(value: str) -> str:
    if value in _NVUE_BARE:
        return value
    if _NVUE_PLAIN.match(value) and not value.endswith(":") and ": " not in value:
        if value[0].isalpha() and value.isascii() and value not in LETTER_WORDS:
            return value  # the resolver's answer for these is always str (tests/test_yaml_block.py)
        if _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR:
            return value
    return "'" + value.replace("'", "''") + "'"


def _nvue_text(value: Any) -> str:
    if value.__class__ is bool:
        raise TypeError("booleans are spelled per release (NvueSpelling), never YAML booleans")
    if isinstance(value, int):
        return str(value)
    return scalar(str(value))


class NvueSpelling(Spelling):
    skip_none = True
    shares = True

    def value(self, value: Any) -> str:
        if value.__class__ is bool:
            raise TypeError("booleans are spelled per release (NvueSpelling), never YAML booleans")
        text = self.texts.get(value)
        if text is None:
            if len(self.texts) > 1 << 18:
                self.texts.clear()
            text = self.texts[value] = _nvue_text(value)
        return text

    def key(self, key: Any) -> str:
        return self.value(key)


NVUE = NvueSpelling()  # one for the process: its caches serve every switch


# ---------------------------------------------------------------- PyYAML's spelling
WIDTH = 10_000
_MAX_SCALAR = 4_000  # well below WIDTH: a scalar this long never reaches the folding column at these depths
_RESOLVED_FIRST = frozenset(k for k in yaml.resolver.Resolver.yaml_implicit_resolvers if k)
# printable ASCII, no leading/trailing space, not starting with an indicator (PyYAML's Emitter.analyze_scalar:
# block plain is refused for these first characters, for `: ` / ` #` inside, and a trailing `:`)
_PLAIN = re.compile(r"[^\s#,\[\]{}&*!|>'\"%@`?:\-.][\x20-\x7e]*\Z")


def _safe_dump(doc: object) -> str:
    return yaml.safe_dump(doc, sort_keys=False, width=WIDTH, allow_unicode=False)


def _plain(value: str) -> bool:
    if not _PLAIN.match(value) or value[-1] in " :" or ": " in value or " #" in value:
        return False
    first = value[0]
    if first not in _RESOLVED_FIRST or (first.isalpha() and value not in LETTER_WORDS):
        return True
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR  # type: ignore[no-any-return]


class PyYamlSpelling(Spelling):
    """Scalar text per value (and per key), PyYAML's answer cached for the ones that need asking."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: dict[str, str] = {}

    def value(self, value: object) -> str:
        cls = value.__class__
        if cls is int:
            return str(value)
        if cls is not str:
            raise Fallback
        text: str = value  # type: ignore[assignment]
        done = self.texts.get(text)
        if done is not None:
            return done
        if len(text) > _MAX_SCALAR:
            raise Fallback
        if len(self.texts) > 1 << 16:  # device names and ports repeat rule after rule; series do not
            self.texts.clear()
        if _plain(text):
            done = self.texts[text] = text
        else:
            dumped = _safe_dump({"k": text})
            if not dumped.startswith("k: ") or dumped.count("\n") != 1:
                raise Fallback
            done = self.texts[text] = dumped[3:-1]
        return done

    def key(self, key: object) -> str:
        if key.__class__ is not str and key.__class__ is not int:  # (before the cache: True == 1)
            raise Fallback
        done = self.keys.get(key)  # type: ignore[arg-type]
        if done is not None:
            return done
        if key.__class__ is str and len(key) <= 128 and _plain(key):  # type: ignore[arg-type]
            done = self.keys[key] = key  # type: ignore[index,assignment]
        else:
            dumped = _safe_dump({key: 0})
            if dumped.startswith("?") or not dumped.endswith(": 0\n") or dumped.count("\n") != 1:
                raise Fallback
            done = self.keys[key] = dumped[:-4]  # type: ignore[index]
        return done


# ---------------------------------------------------------------- the layout
def _mapping(node: dict[Any, Any], pad: str, lead: str, out: list[str], sp: Spelling, seen: dict[int, Any]) -> None:
    """Append the lines of `node`, its keys at indent `pad`; `lead` replaces `pad` before the first key (`- `
    and what precedes it when the mapping is a sequence item). `seen` (one per document) remembers where each
    nested dict's lines went, so a subtree the builder shares between many parents (the same `link` or `qos` node
    on every front-panel port) is emitted once and copied after that, where the spelling allows sharing."""
    append = out.append
    deeper = pad + "  "
    heads = sp.heads.get(pad)
    if heads is None:
        heads = sp.heads[pad] = {}
    texts = sp.texts
    mark = -1 if lead is pad else len(out)
    for key, value in node.items():
        head = heads.get(key) if key.__class__ is str else None  # (str only: True == 1 == 1.0 in a dict)
        if head is None:
            head = f"{pad}{sp.key(key)}:"
            if key.__class__ is str:
                if len(heads) > 1 << 16:
                    heads.clear()
                heads[key] = head
        cls = value.__class__
        if cls is str:
            text = texts.get(value)
            append(f"{head} {sp.value(value) if text is None else text}\n")
        elif cls is dict:
            if not value:
                append(head + " {}\n")
                continue
            append(head + "\n")
            done = seen.get(id(value))
            if done is None:
                seen[id(value)] = done = [deeper, len(out), None, None]
                _mapping(value, deeper, deeper, out, sp, seen)
                done[2] = len(out)
            elif not sp.shares:
                raise Fallback
            elif done[0] != deeper:  # the same dict at another depth
                _mapping(value, deeper, deeper, out, sp, seen)
            elif done[2] is None:
                raise ValueError("a YAML document that holds itself")
            else:
                text = done[3]
                if text is None:  # seen once: keep its text for the next copies
                    text = done[3] = "".join(out[done[1]:done[2]])
                append(text)
        elif cls is list:
            if not value:
                append(head + " []\n")
                continue
            append(head + "\n")
            if id(value) in seen and not sp.shares:
                raise Fallback
            seen[id(value)] = ["", 0, 0, None]  # never copied
            _sequence(value, pad, pad, out, sp, seen)
        elif value is None and sp.skip_none:  # a builder left an optional key out
            continue
        else:
            append(f"{head} {sp.value(value)}\n")
    if mark >= 0 and len(out) > mark:  # the first key follows a `- `
        out[mark] = lead + out[mark][len(pad):]


def _sequence(node: list[Any], pad: str, lead: str, out: list[str], sp: Spelling, seen: dict[int, Any]) -> None:
    """Append the items of `node` at indent `pad` (`lead` before the first one, as in `_mapping`)."""
    first = True
    for value in node:
        item = (lead if first else pad) + "- "
        first = False
        cls = value.__class__
        if (cls is dict or cls is list) and value:
            if id(value) in seen and not sp.shares:
                raise Fallback
            seen[id(value)] = ["", 0, 0, None]  # never copied: its first line follows the `- `
            if cls is dict:
                _mapping(value, pad + "  ", item, out, sp, seen)
            else:
                _sequence(value, pad + "  ", item, out, sp, seen)
        elif cls is dict:
            out.append(item + "{}\n")
        elif cls is list:
            out.append(item + "[]\n")
        else:
            out.append(f"{item}{sp.value(value)}\n")


# ---------------------------------------------------------------- the documents
def dump_set(doc: dict[str, Any]) -> str:
    """`- set:` followed by the document, as startup.yaml holds it."""
    out = ["- set:\n"]
    _mapping(doc, "    ", "    ", out, NVUE, {})
    return "".join(out)


def dump(doc: dict[Any, Any]) -> str:
    """The YAML `yaml.safe_dump(doc, sort_keys=False, width=10_000, allow_unicode=False)` writes."""
    if doc.__class__ is not dict or not doc:
        return _safe_dump(doc)
    out: list[str] = []
    try:
        _mapping(doc, "", "", out, PyYamlSpelling(), {id(doc): ["", 0, 0, None]})
    except Fallback:
        return _safe_dump(doc)
    return "".join(out)


BATCH = 4096  # items joined into one string at a time by `dump_groups`


def dump_groups(groups: Iterable[tuple[dict[Any, Any], Iterable[dict[Any, Any]]]], key: str,
                prefix: str = "") -> str | None:
    """`prefix` + `dump({"groups": [{**head, key: list(items)} for head, items in groups]})`, byte for byte,
    without the document: each item is made, written and dropped in turn, so only the text is held (the intent
    rules of 100,000 GPUs: ~800,000 rule dicts and tens of millions of pieces of text otherwise). The items must
    not share a dict or list (PyYAML would write an alias; each is checked alone). None where the document
    needs more than this writer knows (the caller dumps it whole) or has no group or an empty one."""
    sp = PyYamlSpelling()
    chunks = [prefix, "groups:\n"]
    out: list[str] = []
    try:
        for head, items in groups:
            if key in head or not head:
                return None
            _sequence([head], "", "", out, sp, {})
            out.append(f"  {sp.key(key)}:\n")
            count = 0
            for item in items:
                if item.__class__ is not dict or not item:
                    return None
                _sequence([item], "  ", "  ", out, sp, {})
                count += 1
                if count % BATCH == 0:
                    chunks.append("".join(out))
                    out.clear()
            if not count:
                return None
    except Fallback:
        return None
    if len(chunks) == 2 and not out:
        return None
    chunks.append("".join(out))
    del out
    return "".join(chunks)
