"""ifupdown2 `/etc/network/interfaces` (interfaces(5)), read once into two views of the same file.

* `blocks`: the file as written, in order: every `auto X` / `allow-* X` / `iface X` header at column 0 starts a
  block (an `auto X` directly followed by `iface X` is one block with two header lines), and every following
  non-blank line (comments included) is its body, byte for byte. The lab rewrites blocks and prints them again.
* `stanzas`: what ifupdown2 applies: `iface X` -> its attributes (each keyword keeps every value it was given,
  repeated `iface X` stanzas merge), `auto` marks; comments are skipped and any other line at column 0 ends the
  stanza. The validate rules read these.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Stanza:
    name: str
    line: int
    auto: bool = False
    attrs: dict[str, list[str]] = field(default_factory=dict)
    attr_lines: dict[str, int] = field(default_factory=dict)

    def first(self, key: str) -> str | None:
        values = self.attrs.get(key)
        return values[0] if values else None

    def int_(self, key: str) -> int | None:
        value = self.first(key)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    @property
    def addresses(self) -> list[str]:
        return self.attrs.get("address", [])


@dataclass(slots=True)
class Block:
    """One header group and its body lines, as written (no trailing blank lines)."""

    name: str
    line: int
    header: list[str]
    body: list[str] = field(default_factory=list)


@dataclass(slots=True)
class InterfacesFile:
    preamble: list[str]  # lines before the first block (comments, blank lines), as written
    blocks: list[Block]
    stanzas: dict[str, Stanza]


def _header_name(words: list[str]) -> str | None:
    """The interface a column-0 `auto X`, `allow-<class> X` or `iface X` line names; None for any other line."""
    if len(words) < 2:
        return None
    head = words[0]
    if head == "auto" or head == "iface" or (head.startswith("allow-") and len(head) > 6):
        return words[1]
    return None


def parse_interfaces(text: str) -> InterfacesFile:
    preamble: list[str] = []
    blocks: list[Block] = []
    stanzas: dict[str, Stanza] = {}
    autos: set[str] = set()
    block: Block | None = None
    current: Stanza | None = None  # the stanza attribute lines go to (None: ignored by ifupdown2)
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if not words:
            if block is None:
                preamble.append(raw)
            continue
        top = not raw[0].isspace()
        name = _header_name(words) if top else None
        if name is not None:
            if block is None or block.name != name or block.body:
                block = Block(name, n, [raw])
                blocks.append(block)
            else:
                block.header.append(raw)
        elif block is None:
            preamble.append(raw)
        else:
            block.body.append(raw)
        if words[0].startswith("#"):
            continue
        if top:
            current = None
            if words[0] == "auto":
                autos.update(words[1:])
            elif words[0] == "iface" and len(words) > 1:
                current = stanzas.get(words[1])
                if current is None:
                    current = stanzas[words[1]] = Stanza(words[1], n)
        elif current is not None:
            key = words[0]
            current.attrs.setdefault(key, []).append(" ".join(words[1:]))
            current.attr_lines.setdefault(key, n)
    for name in autos:
        if name in stanzas:
            stanzas[name].auto = True
    return InterfacesFile(preamble, blocks, stanzas)


def render_blocks(preamble: list[str], blocks: list[Block], comment: str) -> str:
    """The file again: the preamble, a `comment` line, then every block after a blank line."""
    lines = [*preamble, comment]
    for b in blocks:
        lines.append("")
        lines.extend(b.header)
        lines.extend(b.body)
    return "\n".join(lines).rstrip() + "\n"
