"""netauto.forking: one module forks, one rule (the module docstring) for every child."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

import netauto
from netauto import forking

SRC = Path(netauto.__file__).resolve().parent


def _boom() -> int:
    raise RuntimeError("x")


def _exit_3() -> int:
    sys.exit(3)


def _exit_text() -> int:
    sys.exit("bad")


@pytest.mark.parametrize(("work", "code"), [
    (lambda: 0, 0), (lambda: 5, 5), (_boom, forking.CHILD_FAILED), (_exit_3, 3), (_exit_text, 1),
])
def test_fork_child_exit_code(work, code: int) -> None:
    pid = forking.fork_child(work)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == code


def test_single_thread_work_does_not_fork_beside_a_thread() -> None:
    import threading

    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not forking.fork_usable(single_thread=True)
        assert forking.fork_usable() == ("fork" in __import__("multiprocessing").get_all_start_methods())
    finally:
        stop.set()
        t.join()


def test_only_the_fork_module_forks() -> None:
    """os.fork, a fork context and prctl appear in netauto/forking.py alone."""
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in {"fork", "prctl"}:
                found.add(path.relative_to(SRC).as_posix())
            if isinstance(node, ast.Constant) and node.value == "fork":
                found.add(path.relative_to(SRC).as_posix())
    assert found == {"forking.py"}
