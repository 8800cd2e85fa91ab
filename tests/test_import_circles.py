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


# The stages, lowest first (docs/contributing.md): a module imports only from its own stage or below. What shares
# a number is one stage (sonic/ and monitoring/ are render's NOS and monitoring writers; lab/ sits beside validate/).
STAGES = {"inventory": 1, "model": 2, "sonic": 3, "monitoring": 3, "bom.py": 3, "racks.py": 3, "render": 4,
          "docs": 5, "export": 5, "prices.py": 5, "validate": 5, "lab": 5, "pipeline.py": 6, "deploy": 7,
          "growth.py": 7, "napalm": 8, "verify": 9, "acceptance": 10, "cli": 11, "__main__.py": 12}
UPWARD_LEFT: set[tuple[str, str]] = set()  # none (issue #35: monitoring's file writer is render/monitoring.py)


def _stage(path: Path) -> int:
    return STAGES.get(path.relative_to(SRC).parts[0], 0)  # 0: the shared ground (errors, netutil, formats, ...)


def test_no_import_runs_back_up_the_stages() -> None:
    """inventory -> model -> render -> validate -> pipeline -> deploy/verify -> cli: an import from a lower
    stage to a higher one (acceptance's counters asking cli/verify for its targets, the model asking sonic/ for
    SONiC's VRF names) is a layer that cannot be read or tested without the one above it."""
    upward = {(p.relative_to(SRC).as_posix(), q.relative_to(SRC).as_posix())
              for p in SRC.rglob("*.py") for q in _imports(p) if _stage(q) > _stage(p)}
    assert upward == UPWARD_LEFT
