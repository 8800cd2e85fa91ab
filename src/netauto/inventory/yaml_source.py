"""Load YAML while remembering where every key came from, so errors can name file and line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from netauto.errors import InventoryError

KeyPath = tuple[str | int, ...]


@dataclass
class SourceMap:
    """Maps a key path (as pydantic reports it) to (file, line)."""

    locations: dict[KeyPath, tuple[Path, int]] = field(default_factory=dict)

    def locate(self, path: KeyPath) -> tuple[Path | None, int | None]:
        # Walk up the path: an error on a missing child is reported at its parent.
        probe = tuple(path)
        while probe:
            if probe in self.locations:
                return self.locations[probe]
            probe = probe[:-1]
        return self.locations.get((), (None, None))


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate keys instead of silently keeping the last one."""


def _construct(node: yaml.Node, loader: yaml.SafeLoader, file: Path, prefix: KeyPath, smap: SourceMap) -> Any:
    smap.locations.setdefault(prefix, (file, node.start_mark.line + 1))
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in out:
                raise InventoryError(
                    f"duplicate key {key!r}", file=file, key=".".join(map(str, prefix + (key,))),
                    line=key_node.start_mark.line + 1, hint="each key may appear only once in a mapping",
                )
            child = prefix + (key,)
            smap.locations[child] = (file, key_node.start_mark.line + 1)
            out[key] = _construct(value_node, loader, file, child, smap)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, loader, file, prefix + (i,), smap) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def load_yaml(file: Path, smap: SourceMap, prefix: KeyPath = ()) -> Any:
    text = file.read_text(encoding="utf-8")
    loader = _UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}
        return _construct(node, loader, file, prefix, smap)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise InventoryError(
            f"YAML syntax error: {exc.problem}", file=file, line=(mark.line + 1) if mark else None,
            hint="fix the YAML syntax (indentation, colons, quotes)",
        ) from None
    finally:
        loader.dispose()
