"""What a unified diff changed, counted as a reader counts it: a line edited in place is one changed line
(its `-` and `+` pair), not two. Used by validate's DRIFT-01 and by `netauto drift`."""

from __future__ import annotations


def _body(diff: str) -> list[str]:
    return [line for line in diff.splitlines() if not line.startswith(("---", "+++", "@@"))]


def changed_lines(diff: str) -> int:
    """Per run of consecutive removed/added lines, the larger of the two counts: an edit of one line is 1, two
    lines replaced by three is 3, a line added is 1, a line removed is 1."""
    total = removed = added = 0
    for line in [*_body(diff), " "]:
        if line.startswith("-"):
            removed += 1
        elif line.startswith("+"):
            added += 1
        else:
            total += max(removed, added)
            removed = added = 0
    return total


def first_change(diff: str) -> tuple[str | None, str | None]:
    """The first removed line (what the file has) and the first added line (what the intent has), stripped."""
    body = _body(diff)
    have = next((line[1:].strip() for line in body if line.startswith("-")), None)
    want = next((line[1:].strip() for line in body if line.startswith("+")), None)
    return have, want


def count(n: int) -> str:
    """`1 changed line`, `3 changed lines`."""
    return f"{n} changed line{'s' if n != 1 else ''}"


def summary(diff: str, width: int = 70) -> str:
    """`N changed line(s): file has `...`; intent has `...``: one line for a table cell."""
    have, want = first_change(diff)
    n = changed_lines(diff)
    parts = [f"file has `{have[:width]}`" if have is not None else "",
             f"intent has `{want[:width]}`" if want is not None else ""]
    return count(n) + (": " + "; ".join(p for p in parts if p) if any(parts) else "")
