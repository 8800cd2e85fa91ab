"""The files of an inventory and their YAML sections merged, before the schema checks them (no pydantic here:
a render after a drain compares the merged data with the last render's without loading the schema,
`netauto.render.edits`)."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path
from typing import Any

from netauto.errors import InventoryError
from netauto.inventory.yaml_source import Budget, SourceMap, load_yaml

# the top-level sections of an inventory: netauto.inventory.schema.Inventory's fields (a test checks they agree;
# this module loads no pydantic)
SECTIONS = ("addressing", "asns", "bom", "cabling", "fabric", "features", "hall", "kubernetes", "naming", "oob", "overrides",
            "networks", "ports", "qos", "server_groups", "servers", "tenants", "topology")
MAX_FILES = 256  # one file per section is 10; a folder with thousands is a mistake (or an attack on the reader)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def _regular_inside(path: Path, folder: Path | None) -> None:
    """Refuse `path` unless it is a regular file (a symlink only when it resolves inside `folder`). The inventory
    comes from a pull request: a link to /etc/shadow or a FIFO must never be read, and the error names the path,
    never a byte of the target."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            real = Path(os.path.realpath(path))
            if folder is None or not real.is_relative_to(folder.resolve()):
                raise InventoryError("a symlink that leads outside the inventory folder; netauto does not follow it",
                                     file=path, hint="replace the link with the file itself")
            st = os.stat(real)
    except OSError as exc:
        raise InventoryError(f"cannot read the file: {exc.strerror}", file=path,
                             hint="check that it exists and is readable") from None
    if not stat.S_ISREG(st.st_mode):
        raise InventoryError(f"{_kind(st.st_mode)}, not a regular file; netauto reads only regular YAML files",
                             file=path, hint="remove it from the inventory folder or replace it with a YAML file")


def inventory_files(root: Path) -> list[Path]:
    """The YAML files an inventory consists of (a folder's *.yaml/*.yml, not its subfolders). Each must be a
    regular file inside the folder (_regular_inside)."""
    if root.is_file() or (root.exists() and not root.is_dir()):
        _regular_inside(root, root.absolute().parent)
        return [root]
    if not root.is_dir():
        raise InventoryError("inventory not found", file=root, hint="pass -i with a folder of YAML files or a YAML file")
    try:
        files = sorted(p for p in root.iterdir() if p.suffix in {".yaml", ".yml"})
    except OSError as exc:
        raise InventoryError(f"cannot read the inventory folder: {exc.strerror}", file=root,
                             hint="check that it exists and is readable") from None
    if not files:
        raise InventoryError("no *.yaml files in the inventory folder", file=root)
    if len(files) > MAX_FILES:
        raise InventoryError(f"{len(files)} YAML files in the inventory folder; netauto reads at most {MAX_FILES}",
                             file=root, hint="keep one file per section or group of sections")
    for file in files:
        _regular_inside(file, root)
    return files


# YAML value kinds in the order they are tested (bool before int: a bool is an int in Python)
_YAML_TYPES: tuple[tuple[type, str], ...] = ((bool, "a boolean"), (int, "an integer"), (float, "a number"),
                                             (str, "a string"), (list, "a list"), (dict, "a mapping"))


def _yaml_type(value: Any) -> str:
    if value is None:
        return "an empty value (null)"
    return next((name for kind, name in _YAML_TYPES if isinstance(value, kind)), type(value).__name__)


def _an_inventory_file(file: Path, data: dict[Any, Any]) -> None:
    """Refuse a YAML mapping none of whose top-level keys is (or is close to) an inventory section, naming none
    of them: an error never echoes a file that is not an inventory (`-i /etc/shadow` parses as one mapping whose
    keys are its lines)."""
    sections = list(SECTIONS)
    for key in data:
        word = str(key)
        if len(word) <= 40 and (word in sections or difflib.get_close_matches(word, sections, n=1, cutoff=0.75)):
            return
    raise InventoryError(f"not a netauto inventory file: none of its {len(data)} top-level key(s) is an inventory "
                         "section (its content is not shown)", file=file, line=None,
                         hint=f"point -i at the inventory folder or file; its sections are {', '.join(sorted(sections))}")


def read_merged(root: Path) -> tuple[dict[str, Any], SourceMap]:
    """The inventory's sections as its YAML files say them (merged, not schema-checked yet) and where each key
    is. `load_inventory` checks them; `netauto.render.edits` compares them with a previous render's."""
    smap = SourceMap()
    merged: dict[str, Any] = {}
    budget = Budget()
    for file in inventory_files(root):
        file_map = SourceMap()
        data = load_yaml(file, file_map, budget=budget)
        if data is None or data == {}:
            continue
        if not isinstance(data, dict):
            raise InventoryError(f"top level must be a mapping of sections, got {_yaml_type(data)}", file=file, line=1,
                                 hint="start with a section name such as `fabric:`")
        _an_inventory_file(file, data)
        for key in data:
            if key in merged:
                first, first_line = smap.locations[(key,)]
                _, line = file_map.locations[(key,)]
                raise InventoryError(
                    f"section defined twice (already in {first.name}:{first_line})", file=file, line=line,
                    key=str(key), hint=f"keep each top-level section in one file: merge it into {first.name}",
                )
            merged[key] = data[key]
        smap.locations.setdefault((), file_map.locations.get((), (file, 1)))
        smap.locations.update({k: v for k, v in file_map.locations.items() if k})
    return merged, smap
