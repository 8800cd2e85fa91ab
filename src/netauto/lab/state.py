"""Where labs live and what each remembers: one folder per lab (default /var/lib/netauto/labs/<name>, override with
NETAUTO_LAB_ROOT) holding `state.json`, read by every command after `lab up` (a fresh process or after a crash)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from netauto.errors import UsageError
from netauto.lab.plan import NAME_RE, check_name


def labs_root() -> Path:
    return Path(os.environ.get("NETAUTO_LAB_ROOT", "/var/lib/netauto/labs"))


def lab_dir(name: str) -> Path:
    return labs_root() / check_name(name)




def load_state(name: str) -> dict[str, Any]:
    f = lab_dir(name) / "state.json"
    if not f.exists():  # bad input, like an unknown device: exit 2, naming the labs that are there
        root = labs_root()
        there = sorted(d.name for d in root.iterdir() if NAME_RE.fullmatch(d.name) and (d / "state.json").is_file()
                       ) if root.is_dir() else []  # only names a lab can have: nothing else reaches the console
        labs = f"labs here: {', '.join(there)}" if there else f"no lab in {root}"
        raise UsageError(f"no lab named {name!r} (no {f}; {labs}) (fix: --name one of those, or start it with "
                         f"`netauto lab up --name {name}`)")
    return json.loads(f.read_text())


def _save_state(d: Path, state: dict[str, Any]) -> None:
    tmp = d / "state.json.tmp"
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(d / "state.json")


def save_state(st: dict[str, Any]) -> None:
    """Write a running lab's state back (after adding to it, e.g. its monitoring)."""
    _save_state(Path(st["dir"]), st)


def list_labs() -> list[str]:
    root = labs_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "state.json").exists())
