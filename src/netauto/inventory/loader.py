"""Read an inventory folder (or one file) into a validated `Inventory`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from netauto.errors import InventoryError
from netauto.inventory.schema import Inventory
from netauto.inventory.yaml_source import SourceMap, load_yaml


@dataclass(frozen=True)
class LoadedInventory:
    inventory: Inventory
    sources: SourceMap
    root: Path

    def where(self, *path: str | int) -> dict[str, Any]:
        """Keyword arguments for InventoryError pointing at a key path."""
        file, line = self.sources.locate(tuple(path))
        return {"file": file or self.root, "line": line, "key": ".".join(map(str, path))}


def _inventory_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise InventoryError("inventory not found", file=root, hint="pass -i with a folder of YAML files or a YAML file")
    files = sorted(p for p in root.iterdir() if p.suffix in {".yaml", ".yml"} and p.is_file())
    if not files:
        raise InventoryError("no *.yaml files in the inventory folder", file=root)
    return files


def _describe_error(err: dict[str, Any]) -> str:
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    msg = str(err.get("msg", "invalid value"))
    return msg.removeprefix("Value error, ")


def _hint(err: dict[str, Any]) -> str | None:
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return "remove it or check its spelling against the schema (README: Source of truth)"
    if kind == "missing":
        return "add the key"
    if "input" in err and kind.endswith("_type") or kind.endswith("_parsing"):
        return f"got {err.get('input')!r}"
    return None


def load_inventory(root: Path | str) -> LoadedInventory:
    root = Path(root)
    smap = SourceMap()
    merged: dict[str, Any] = {}
    for file in _inventory_files(root):
        data = load_yaml(file, smap)
        if data is None or data == {}:
            continue
        if not isinstance(data, dict):
            raise InventoryError("top level must be a mapping of sections", file=file, line=1)
        for key, value in data.items():
            if key in merged:
                first, _ = smap.locate((key,))
                raise InventoryError(
                    f"section defined twice (also in {first})", file=file, key=str(key),
                    hint="keep each top-level section in one file",
                )
            merged[key] = value
            smap.locations[(key,)] = smap.locations.get((key,), (file, 1))
    try:
        inventory = Inventory.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        path = tuple(p for p in err["loc"])
        file, line = smap.locate(path)
        more = len(exc.errors()) - 1
        message = _describe_error(err) + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
        raise InventoryError(
            message, file=file or root, line=line, key=".".join(map(str, path)) or None, hint=_hint(err)
        ) from None
    return LoadedInventory(inventory=inventory, sources=smap, root=root)
