"""Inventory files are regular files inside the inventory; YAML tags are refused anywhere.

The symlink cases point at a file holding a secret line: it must appear nowhere (stdout, stderr, JSON report)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory

SECRET = "root:$6$SECRETHASH:19000:0:99999:7:::"


@pytest.fixture
def inv(tmp_path: Path) -> Path:
    folder = tmp_path / "inv"
    shutil.copytree(DEFAULT_INVENTORY, folder)
    (tmp_path / "shadow").write_text(SECRET + "\n")
    return folder


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "netauto", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_symlink_out_of_the_inventory_is_refused_without_content(inv: Path, fmt: str) -> None:
    (inv / "zz.yaml").symlink_to(inv.parent / "shadow")
    run = _cli("validate", "-i", str(inv), "--format", fmt)
    assert run.returncode == 2
    out = run.stdout + run.stderr
    assert "SECRETHASH" not in out and "root:" not in out
    assert f"{inv / 'zz.yaml'}: a symlink that leads outside the inventory folder" in out
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in out
    if fmt == "json" and run.stdout.strip():
        json.loads(run.stdout)


def test_symlink_replacing_a_section_file_is_refused(inv: Path) -> None:
    (inv / "fabric.yaml").unlink()
    (inv / "fabric.yaml").symlink_to("/etc/passwd")
    with pytest.raises(InventoryError, match="leads outside the inventory folder") as err:
        load_inventory(inv)
    assert "root" not in str(err.value).replace(str(inv), "")


def test_symlink_inside_the_inventory_is_followed(inv: Path) -> None:
    (inv / "fabric.yaml").rename(inv / "fabric.txt")
    (inv / "fabric.yaml").symlink_to("fabric.txt")
    assert load_inventory(inv).inventory.fabric.name


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder", "device"])
def test_special_files_are_refused(inv: Path, kind: str) -> None:
    path = inv / "zz.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")  # a device: also a link out, refused either way
    with pytest.raises(InventoryError) as err:
        load_inventory(inv)  # returns at once: a FIFO is never opened
    assert err.value.file == path and "\n" not in str(err.value)


def test_single_file_inventory_that_is_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "inv.yaml")
    with pytest.raises(InventoryError, match="named pipe"):
        load_inventory(tmp_path / "inv.yaml")


@pytest.mark.parametrize("text", ["x: !!str 5\n", "x: !!python/object:os.system {}\n", "x: !foo\n  a: 1\n",
                                  "x: !!seq\n  - a\n", "x: !!map {a: 1}\n", "x: ! [a]\n", "!!map\nx: 1\n"])
def test_yaml_tags_are_refused_anywhere(inv: Path, text: str) -> None:
    (inv / "zz.yaml").write_text(text)
    with pytest.raises(InventoryError, match="YAML tag .* is not accepted") as err:
        load_inventory(inv)
    assert err.value.file == inv / "zz.yaml" and err.value.line in (1, 2)
