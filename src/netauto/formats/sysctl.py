"""sysctl.d(5) files: `key = value` lines; empty lines and lines whose first non-blank character is `#` or `;`
are comments (there are no trailing comments: the rest of the line is the value)."""

from __future__ import annotations


def parse_sysctl(text: str) -> list[tuple[str, str]]:
    """Every assignment in file order (a later one of the same key wins when applied)."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        key, value = line.split("=", 1)
        out.append((key.strip(), value.strip()))
    return out
