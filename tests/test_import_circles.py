"""No import circles in src/netauto: a module never imports (directly or through others) a module that imports
it. Every import counts, at the top, in a function or under TYPE_CHECKING: a circle hidden in a function is
still two modules that cannot be read, tested or moved one without the other."""

from __future__ import annotations

import ast
from pathlib import Path

import netauto

SRC = Path(netauto.__file__).resolve().parent


def _module_of(name: str) -> Path | None:
    base = SRC.parent.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(path: Path) -> set[Path]:
    """The files of src/netauto that `path` imports (`from pkg import mod` names the module, not pkg)."""
    out: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                targets.append(sub if _module_of(sub) else node.module)
        for name in targets:
            if name.split(".")[0] == "netauto":
                found = _module_of(name)
                if found is not None and found != path:
                    out.add(found)
    return out


def _circles(graph: dict[Path, set[Path]]) -> list[list[str]]:
    """Strongly connected components of more than one file (Tarjan)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on: set[Path] = set()
    found: list[list[str]] = []

    def visit(v: Path) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w.relative_to(SRC).as_posix())
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles() -> None:
    graph = {p: _imports(p) for p in SRC.rglob("*.py")}
    assert _circles(graph) == []


def test_the_circle_finder_finds_one() -> None:
    a, b, c = SRC / "a.py", SRC / "b.py", SRC / "c.py"
    assert _circles({a: {b}, b: {c}, c: {a}}) == [["a.py", "b.py", "c.py"]]
    assert _circles({a: {b}, b: {c}, c: set()}) == []
