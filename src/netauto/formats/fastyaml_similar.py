"""Many similar YAML files (one per device: 640 startup.yaml that differ in a hostname, addresses and port
descriptions) read for the cost of their differences.

`Similar.load(text)` returns what `fastyaml.load(text)` returns. The first file of each length (in lines) is
read by fastyaml's line reader, which records where every line's value went (its container and key). A later
file of the same length is compared with it line by line; when every differing line is a plain `key: value`,
`- value` or a comment at the same place, with the same indentation and a value of its own, the result is the
reference's tree with only the containers on the way to a changed value copied (path copying). Anything else
(a line added or moved, a key turned into a block, a duplicate key, a value fastyaml does not read, more than a
quarter of the lines changed) reads the file in full. tests/test_fastyaml_similar.py compares the two on the
shipped fabrics and on mutations.

The trees share every unchanged subtree with the reference and with each other: they are read-only (the
validation's readers and rules only read them). Sharing also makes the subtrees' identity a valid memo key for
the walks over every tree (NVUE-01, AR-05: `netauto.validate.nvue_schema`, `rules.consistency`).
"""

from __future__ import annotations

from typing import Any

from netauto.formats import fastyaml
from netauto.formats.fastyaml import _LINE, Unsupported, _split_key, _Reader

_MISS = object()
MAX_REFS = 4  # reference files kept per length in lines


class _Ref:
    """A file read in full, with where each of its lines went."""

    def __init__(self, raw: list[str], lines: list[tuple[str, str]], reader: _Reader, value: Any) -> None:
        self.raw = raw
        self.lines = lines  # (indentation, content) before the reader rewrote `- key:` items
        self.rec = reader.rec or []
        self.parents = reader.parents
        self.value = value
        self.index: dict[int, int] = {}  # raw line number -> number among the content lines
        for number, line in enumerate(raw):
            if _LINE.match(line):
                self.index[number] = len(self.index)


class _Copy:
    """Path copying: the containers on the way from the root to a changed value, copied once each."""

    def __init__(self, ref: _Ref) -> None:
        self.ref = ref
        self.copies: dict[int, Any] = {}
        self.renamed: dict[tuple[int, type, Any], Any] = {}  # (container, old key) -> new key

    def own(self, container: Any) -> Any:
        cp = self.copies.get(id(container))
        if cp is None:
            cp = dict(container) if container.__class__ is dict else list(container)
            self.put(container, cp)
        return cp

    def put(self, container: Any, cp: Any) -> None:
        self.copies[id(container)] = cp
        link = self.ref.parents.get(id(container))
        if link is not None:
            parent, key = link
            self.own(parent)[self.renamed.get((id(parent), key.__class__, key), key)] = cp

    def rename(self, container: dict[Any, Any], key: Any, new_key: Any, value: Any) -> None:
        """`key` of `container` becomes `new_key` (in its place) with `value`."""
        cls = key.__class__
        self.put(container, {(new_key if k.__class__ is cls and k == key else k): (value if k.__class__ is cls and k == key else v)
                             for k, v in self.own(container).items()})
        self.renamed[(id(container), cls, key)] = new_key

    def root(self) -> Any:
        return self.copies.get(id(self.ref.value), self.ref.value)


class Similar:
    """`fastyaml.load` for a run of similar documents (module doc). Not thread-safe; one per batch."""

    def __init__(self, yaml12: bool = False) -> None:
        self.yaml12 = yaml12
        self.refs: dict[int, list[_Ref]] = {}
        self.reader = _Reader([], yaml12)  # for the changed values

    def load(self, text: str) -> Any:
        if "\t" in text or "\n---" in text or text.startswith("---") or "\n..." in text:
            return fastyaml.load(text, self.yaml12)  # what the line reader refuses
        raw = text.split("\n")
        refs = self.refs.setdefault(len(raw), [])
        for ref in refs:
            try:
                got = self._derive(ref, raw)
            except Unsupported:
                continue
            if got is not _MISS:
                return got
        try:
            lines = fastyaml._lines(text)
            reader = _Reader(lines, self.yaml12, record=True)
            before = list(lines)
            value = fastyaml.read(reader)
        except Unsupported:
            return fastyaml.load(text, self.yaml12)
        ref = _Ref(raw, before, reader, value)
        if len(ref.index) == len(before):
            refs.insert(0, ref)
            del refs[MAX_REFS:]
        return value

    def _derive(self, ref: _Ref, raw: list[str]) -> Any:
        diffs = [n for n, (a, b) in enumerate(zip(raw, ref.raw)) if a != b]
        if len(diffs) > len(raw) // 4:
            return _MISS
        cp = _Copy(ref)
        for number in diffs:
            new = _LINE.match(raw[number])
            k = ref.index.get(number)
            if new is None and k is None:  # a comment or blank line in both
                continue
            if new is None or k is None:
                return _MISS
            ind, content = new.group(1), new.group(2)
            rind, rcontent = ref.lines[k]
            entry = ref.rec[k]
            if ind != rind or " #" in content or entry is None:
                return _MISS
            container, key, holds_value = entry
            if container.__class__ is list:
                if not self._item(cp, container, key, holds_value, content):
                    return _MISS
                continue
            if rcontent[:1] == "-" and (rcontent == "-" or rcontent[1:2] == " "):  # `- key: value`, an item's first key
                item = rcontent[1:].lstrip(" ")
                prefix = rcontent[:len(rcontent) - len(item)]
                if not content.startswith(prefix) or content[len(prefix):len(prefix) + 1] in ("", " "):
                    return _MISS
                content = content[len(prefix):]
            if not self._entry(cp, container, key, holds_value, content):
                return _MISS
        return cp.root()

    def _item(self, cp: _Copy, container: list[Any], index: int, holds_value: bool, content: str) -> bool:
        """A changed `- value` line."""
        item = content[1:].lstrip(" ")
        if not holds_value or not content.startswith("- ") or not item \
                or (_split_key(item) is not None and item[0] not in "[{"):
            return False
        cp.own(container)[index] = self.reader.value(item)
        return True

    def _entry(self, cp: _Copy, container: dict[Any, Any], key: Any, holds_value: bool, content: str) -> bool:
        """A changed `key: value` line (the key may change too, the value must stay on the line)."""
        if content[0] == "-" and (content == "-" or content[1] == " "):
            return False
        kv = _split_key(content)
        if kv is None:
            return False
        key_text, value_text = kv
        new_key = self.reader.value(key_text)
        if new_key.__class__ is dict or new_key.__class__ is list or bool(value_text) != holds_value:
            return False  # a block became a value or the other way round
        same_key = new_key.__class__ is key.__class__ and new_key == key
        own = cp.own(container)
        if not same_key and new_key in own:
            return False  # a duplicate key: the line reader refuses the file
        if holds_value:
            value = self.reader.value(value_text)
            if same_key:
                own[key] = value
            else:
                cp.rename(container, key, new_key, value)
        elif not same_key:
            cp.rename(container, key, new_key, own[key])
        return True
