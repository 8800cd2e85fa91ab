"""The one console sanitiser: what a device, an LLDP neighbour or a file sent is shown, never obeyed.

A terminal obeys control characters: `\\x1b[2J` clears the screen, `\\x1b[1A` moves up a line, `\\r` rewrites
the line, OSC 8/52 sequences make links or set the clipboard, and the bidirectional overrides (U+202E) show
text in another order than it is. Anything netauto prints that a device or anything plugged into a port could
have written (a dry-run diff, a drift or verify table and its markdown/JUnit, backup messages, `lab check`)
goes through `visible`: every such character becomes its escape in plain ASCII (`\\x1b`, `\\r`, `\\u202e`),
so the operator sees it and approves what is really there. `\\n` and `\\t` are kept where they are structure
(lines of a diff, a table's cells); single-line fields pass keep="" to show those too.

Covered: C0 controls (U+0000-U+001F) but the kept ones, DEL (U+007F), C1 controls (U+0080-U+009F: U+009B is
a one-byte CSI to some terminals), the line and paragraph separators (U+2028, U+2029), the bidirectional
marks, embeddings, overrides and isolates (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, Unicode TR9) and
the byte order mark (U+FEFF). netauto's consoles (rich, cli/app.PipeConsole) apply it to every text segment
they print; the plain writers (stdout reports, warnings) call it directly.
"""

from __future__ import annotations

from functools import lru_cache

_OTHERS = (0x7F, *range(0x80, 0xA0), 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028,
           0x2029, 0xFEFF)
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _escape(code: int) -> str:
    return _NAMED.get(code) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


@lru_cache(maxsize=4)
def _table(keep: str) -> dict[int, str]:
    codes = [*range(0x20), *_OTHERS]
    return {c: _escape(c) for c in codes if chr(c) not in keep}


def visible(text: str, keep: str = "\n\t") -> str:
    """`text` with every control, separator and bidi character shown as its escape (those in `keep` kept)."""
    return text.translate(_table(keep))


def plain(text: object) -> str:
    """Device text inside rich markup (a table cell, an f-string printed with markup): `[/]` or `[black on
    black]` from a device is shown as written, never parsed as markup (a MarkupError, or hidden text); the
    console then shows its control characters (`visible`)."""
    from rich.markup import escape  # lazy: +56 modules (rich) at import otherwise; only this function needs them

    return escape(str(text))
