"""Every import inside a function of src/netauto says why it is not at the top of its module, on its own line:
`# lazy: <reason>` (start-up time measured on a fast path, an optional dependency, a command that loads what
only it needs). An import without a reason moves to the top; a circle is no reason (tests/test_import_circles.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import netauto

SRC = Path(netauto.__file__).resolve().parent
REASON = re.compile(r"#\s*lazy:\s*\S")


def unexplained(source: str) -> list[tuple[int, str]]:
    """(line, text) of each function-level import of `source` without a `# lazy: <reason>` on its lines."""
    lines = source.splitlines()
    out: list[tuple[int, str]] = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Import | ast.ImportFrom):
                text = lines[node.lineno - 1:(node.end_lineno or node.lineno)]
                if not any(REASON.search(line) for line in text):
                    out.append((node.lineno, text[0].strip()))
    return sorted(set(out))


def test_the_checker_finds_an_import_without_a_reason() -> None:
    source = ("import os\n\n\ndef f() -> None:\n    import json\n    from pathlib import (  # lazy: start-up\n"
              "        Path,\n    )\n\n    def g() -> None:\n        import csv  # lazy:\n")
    assert unexplained(source) == [(5, "import json"), (11, "import csv  # lazy:")]


def test_every_function_level_import_in_src_says_why() -> None:
    found = [f"{path.relative_to(SRC.parent)}:{line}: {text}"
             for path in sorted(SRC.rglob("*.py")) for line, text in unexplained(path.read_text())]
    assert not found, "function-level imports without `# lazy: <reason>` (move them to the top or say why):\n" + \
        "\n".join(found)
