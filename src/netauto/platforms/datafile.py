"""Read the platform layer's own data files (platforms/data/*.yaml): trusted, package-shipped YAML.

libyaml's C loader when PyYAML has it (same YAML 1.1 reading as yaml.safe_load, ~15x faster; the data files
are read on every command start). Inventory files are not read here: they go through inventory/yaml_source.py
with its limits and line numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_Loader)  # noqa: S506 - a safe loader (CSafeLoader or SafeLoader)
