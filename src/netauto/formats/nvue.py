"""NVUE `startup.yaml`: a list of `- set: {...}` documents merged into one tree.

Read with YAML 1.2 semantics, as NVUE reads it: the bare `on`/`off` of CL <= 5.14 are the strings "on" and
"off" (PyYAML's YAML 1.1 would turn them into booleans, which the NVUE schema rejects); only `true`/`false`
are booleans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from netauto.formats import fastyaml
from netauto.formats.fastyaml_similar import Similar

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class NvueError(ValueError):
    pass


def _merge(into: dict, other: dict) -> None:
    """`other` merged into `into`; a subtree that both have is copied before it changes (a tree read through
    `fastyaml_similar` shares its subtrees with other documents)."""
    for key, value in other.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            into[key] = dict(into[key])
            _merge(into[key], value)
        else:
            into[key] = value


@dataclass
class NvueDocument:
    """An NVUE document: the `- header:` items (release, model) and the merged `- set:` tree."""

    header: dict[str, Any] = field(default_factory=dict)
    set: dict[str, Any] = field(default_factory=dict)

    @property
    def version(self) -> tuple[int, int] | None:
        m = re.search(r"(\d+)\.(\d+)", str(self.header.get("version", "")))
        return (int(m.group(1)), int(m.group(2))) if m else None

    def text(self) -> str:
        """The document `nv config replace` reads: a list of `header` and `set`."""
        items = ([{"header": self.header}] if self.header else []) + [{"set": self.set}]
        return yaml.safe_dump(items, sort_keys=False, default_flow_style=False)


def parse_document(text: str, similar: Similar | None = None) -> NvueDocument:
    """A startup.yaml or `nv config show -o yaml`: a list of `- header:` / `- set:` items, merged in order (a later
    `set` deepens an earlier one, as `nv config replace` reads them). With `similar` (YAML 1.2), the document
    shares its unchanged subtrees with the other documents read through it: read-only (`fastyaml_similar`)."""
    try:
        docs = similar.load(text) if similar is not None and similar.yaml12 else fastyaml.load(text, yaml12=True)
    except yaml.YAMLError as exc:
        raise NvueError(f"not valid YAML: {exc}") from None
    if not isinstance(docs, list):
        raise NvueError("startup.yaml must be a list of `- set:` documents")
    doc = NvueDocument()
    for item in docs:
        if isinstance(item, dict):
            if isinstance(item.get("header"), dict):
                doc.header.update(item["header"])
            if isinstance(item.get("set"), dict):
                _merge(doc.set, item["set"])
    return doc


def parse_nvue(text: str, similar: Similar | None = None) -> dict[str, Any]:
    """The merged `set` tree of a startup.yaml (read-only with `similar`: `parse_document`)."""
    return parse_document(text, similar).set


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
