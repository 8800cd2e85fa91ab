"""A stand-in for the SONiC commands deploy runs, for tests (no SONiC runs here): `config`, `sonic-cfggen` and
`sonic-db-cli` over a JSON CONFIG_DB in a folder, each call appended to commands.log.

What it models, from sonic-utilities (config/main.py, config_mgmt.py) and sonic-swss, read not run:
* `config interface breakout <parent> <mode> -y -f`: the cage's old ports and every entry keyed by them go, the
  new ports come with the platform's lanes/alias/speed (netauto's platform data: platforms/data/hardware) admin
  down, BREAKOUT_CFG|<parent> set last;
* `config replace [--dry-run] <file>` and `config rollback <checkpoint>`: refused when they would add a port or
  change a port's lanes (GCU's PORT validator; sonic-utilities PR #4642), else the file becomes the CONFIG_DB;
* `sonic-db-cli STATE_DB HGET PORT_TABLE|<p> state`: ok for every port in CONFIG_DB (created at once);
  `APPL_DB HGET PORT_TABLE:<p> oper_status`: up when admin up (a cable on every port).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def install(folder: Path, running: dict) -> dict[str, str]:
    """The stand-in commands in folder/bin over folder/running.json; returns the PATH to use."""
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    (folder / "checkpoints").mkdir(exist_ok=True)
    (folder / "running.json").write_text(json.dumps(running))
    for name in ("config", "sonic-cfggen", "sonic-db-cli"):
        script = folder / "bin" / name
        script.write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__).resolve()} {folder} {name} \"$@\"\n")
        script.chmod(stat.S_IRWXU)
    return {"PATH": f"{folder / 'bin'}:{os.environ['PATH']}"}


def commands(folder: Path) -> list[str]:
    log = folder / "commands.log"
    return log.read_text().splitlines() if log.exists() else []


def _lane_change(db: dict, new: dict) -> list[str]:
    have = db.get("PORT") or {}
    return [p for p, f in (new.get("PORT") or {}).items() if p not in have or have[p].get("lanes") != f.get("lanes")]


def _breakout(db: dict, parent: str, mode: str) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from netauto.platforms.hardware import load_hwsku

    hw = load_hwsku(db["DEVICE_METADATA"]["localhost"]["hwsku"]).hardware
    index = db["PORT"][parent]["index"]
    cage = int(index)
    ways, speed = (int(x) for x in re.match(r"(\d+)x(\d+)G", mode).groups())  # type: ignore[union-attr]
    old = [p for p, f in db["PORT"].items() if f.get("index") == index]
    for entries in db.values():
        for key in [k for k in entries if k.split("|")[0] in old]:
            del entries[key]
    for sub in range(ways):
        name = hw.sonic_name(cage, sub if ways > 1 else None, ways)
        info = hw.port(cage, sub if ways > 1 else None, ways, speed * 1000, where="standin")
        db["PORT"][name] = {"alias": info.alias, "index": index, "lanes": info.lanes, "speed": str(speed * 1000),
                            "admin_status": "down", "mtu": "9100"}
    db.setdefault("BREAKOUT_CFG", {})[parent] = {"brkout_mode": mode}


def main(folder: Path, name: str, args: list[str]) -> int:
    with (folder / "commands.log").open("a") as log:
        log.write(" ".join([name, *args]) + "\n")
    state = folder / "running.json"
    db = json.loads(state.read_text())
    if name == "sonic-cfggen":
        print(json.dumps(db))
        return 0
    if name == "sonic-db-cli":
        db_name, _, key, field = args
        table, _, port = key.replace(":", "|", 1).partition("|")
        if db_name == "CONFIG_DB":
            print((db.get(table, {}).get(port) or {}).get(field, ""))
        elif db_name == "STATE_DB":
            print("ok" if port in db.get("PORT", {}) else "")
        else:
            print("up" if (db.get("PORT", {}).get(port) or {}).get("admin_status") == "up" else "down")
        return 0
    if args[:2] == ["interface", "breakout"]:
        _breakout(db, args[2], args[3])
    elif args[0] in ("replace", "rollback"):
        source = Path(args[-1]) if args[0] == "replace" else folder / "checkpoints" / f"{args[1]}.json"
        new = json.loads(source.read_text())
        changed = _lane_change(db, new)
        if changed:
            print(f"PORT validator: lane change or new port through GCU refused: {changed[:3]}", file=sys.stderr)
            return 1
        if "--dry-run" in args:
            return 0
        db = new
    elif args[0] == "checkpoint":
        shutil.copy(state, folder / "checkpoints" / f"{args[1]}.json")
    elif args[0] == "delete-checkpoint":
        (folder / "checkpoints" / f"{args[1]}.json").unlink(missing_ok=True)
    state.write_text(json.dumps(db))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3:]))
