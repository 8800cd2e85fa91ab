"""Load the Nornir tasks from `tasks/` (the repository folder, shipped in the wheel as netauto/tasks)."""

from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType


def tasks_dir() -> Path:
    packaged = Path(__file__).resolve().parent / "tasks"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "tasks"


@lru_cache(maxsize=None)
def load(name: str) -> ModuleType:
    path = tasks_dir() / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"netauto_tasks_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"netauto tasks module {path} not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
