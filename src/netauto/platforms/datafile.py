"""Read the platform layer's own data files (platforms/data/*.yaml): trusted, package-shipped YAML.

libyaml's C loader when PyYAML has it (same YAML 1.1 reading as yaml.safe_load, ~15x faster; the data files
are read on every command start). Inventory files are not read here: they go through inventory/yaml_source.py
with its limits and line numbers. load_cached is the one cache of them (each file read once per process): the
accessor modules (linkx.py, racking.py, nics.py, optics.py, nos.py) read through it and keep no cache of their own.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_Loader)  # noqa: S506 - a safe loader (CSafeLoader or SafeLoader)


@cache
def load_cached(path: Path) -> dict[str, Any]:
    """The data file at `path` (a mapping), read once per process: shared by every caller, which only reads it."""
    data: dict[str, Any] = load_yaml(path)
    return data
