"""ifupdown2 `/etc/network/interfaces`: stanzas -> attributes (each keyword keeps every value it was given)."""

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


def parse_interfaces(text: str) -> dict[str, Stanza]:
    stanzas: dict[str, Stanza] = {}
    autos: set[str] = set()
    current: Stanza | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        if not raw[0].isspace():
            current = None
            if words[0] == "auto":
                autos.update(words[1:])
            elif words[0] == "iface" and len(words) > 1:
                current = stanzas.setdefault(words[1], Stanza(words[1], n))
            continue
        if current is not None:
            key, value = words[0], " ".join(words[1:])
            current.attrs.setdefault(key, []).append(value)
            current.attr_lines.setdefault(key, n)
    for name in autos:
        if name in stanzas:
            stanzas[name].auto = True
    return stanzas
