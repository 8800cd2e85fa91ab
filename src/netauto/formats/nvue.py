"""NVUE `startup.yaml`: a list of `- set: {...}` documents merged into one tree.

Read with YAML 1.2 semantics, as NVUE reads it: the bare `on`/`off` of CL <= 5.14 are the strings "on" and
"off" (PyYAML's YAML 1.1 would turn them into booleans, which the NVUE schema rejects); only `true`/`false`
are booleans.
"""

from __future__ import annotations

from typing import Any

import yaml

from netauto.formats import fastyaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class NvueError(ValueError):
    pass


def _merge(into: dict, other: dict) -> None:
    for key, value in other.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def parse_nvue(text: str) -> dict[str, Any]:
    try:
        docs = fastyaml.load(text, yaml12=True)
    except yaml.YAMLError as exc:
        raise NvueError(f"not valid YAML: {exc}") from None
    tree: dict[str, Any] = {}
    if not isinstance(docs, list):
        raise NvueError("startup.yaml must be a list of `- set:` documents")
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("set"), dict):
            _merge(tree, doc["set"])
    return tree


def dig(tree: Any, *keys: str, default: Any = None) -> Any:
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return default
        tree = tree[key]
    return tree


def is_on(value: Any) -> bool:
    """`on` (YAML True) and `enabled` both mean on."""
    return value is True or value in ("on", "enabled", "enable")


def enabled(node: Any) -> bool:
    """A feature node whose `enable: on` / `state: enabled` is set."""
    if not isinstance(node, dict):
        return False
    return is_on(node.get("enable")) or is_on(node.get("state"))
