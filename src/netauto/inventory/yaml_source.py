"""Load YAML while remembering where every key came from, so errors can name file and line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from netauto.errors import InventoryError, format_key_path

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
            if isinstance(key, (list, dict)):
                raise InventoryError(
                    f"a {type(key).__name__} cannot be a key", file=file, key=format_key_path(prefix) or None,
                    line=key_node.start_mark.line + 1, hint="keys are plain names or numbers",
                )
            if key in out:
                _, first_line = smap.locations.get(prefix + (key,), (file, None))
                raise InventoryError(
                    f"duplicate key {key!r}" + (f" (first defined at line {first_line})" if first_line else ""),
                    file=file, key=format_key_path(prefix + (key,)), line=key_node.start_mark.line + 1,
                    hint="each key may appear only once in a mapping: delete or merge one of them",
                )
            child = prefix + (key,)
            smap.locations[child] = (file, key_node.start_mark.line + 1)
            out[key] = _construct(value_node, loader, file, child, smap)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, loader, file, prefix + (i,), smap) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def load_yaml(file: Path, smap: SourceMap, prefix: KeyPath = ()) -> Any:
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InventoryError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=file,
                             hint="save the file as UTF-8") from None
    except OSError as exc:
        raise InventoryError(f"cannot read the file: {exc.strerror}", file=file,
                             hint="check that it exists and is readable") from None
    try:
        loader = _UniqueKeyLoader(text)
    except yaml.YAMLError as exc:  # non-printable characters are rejected before parsing
        raise InventoryError(f"YAML error: {exc}".replace("\n", " "), file=file,
                             hint="remove control characters from the file") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return {}
        return _construct(node, loader, file, prefix, smap)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        context = ""
        if exc.context and exc.problem:
            context = f" ({exc.context}"
            if exc.context_mark and mark and exc.context_mark.line != mark.line:
                context += f" that starts at line {exc.context_mark.line + 1}"
            context += ")"
        hint = "fix the YAML syntax at that line (indentation, a missing space after ':', unbalanced quotes or brackets)"
        if "\\t" in problem or "\t" in problem:
            hint = "indent with spaces, YAML does not allow tabs"
        raise InventoryError(
            f"YAML syntax error: {problem}{context}", file=file, line=(mark.line + 1) if mark else None, hint=hint,
        ) from None
    except yaml.YAMLError as exc:
        raise InventoryError(f"YAML error: {exc}".replace("\n", " "), file=file, hint="fix the YAML syntax") from None
    finally:
        loader.dispose()
