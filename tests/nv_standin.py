#!/usr/bin/python3
"""A stand-in for NVUE's `nv` on a lab Cumulus node (no NVUE exists on this machine). NOT NVUE.

It records every call (calls.log) and answers in NVUE's documented formats, so deploy's NVUE mode can be
tested up to the boundary, never verified:
- `nv config show -o yaml`: a list of `- header:` (model, nvue-api-version, rev-id, version) and `- set:`
  (CL 5.15 user guide, NVUE CLI, "Show Switch Configuration")
- `nv config diff [-o yaml|json]`: a list of `- set:` / `- unset:` items (ibid., "View Differences Between
  Configurations"; the NVUE CLI `nv config diff -o json` example)
- `nv config replace FILE`, `nv config detach`, `nv config apply -y [--confirm <n>s|m|h]`,
  `nv config apply --confirm-yes|--confirm-no`, `nv set router bgp graceful-shutdown VALUE`
- `nv show system config -o json` (`auto-save` under `system config` of the applied tree; absent: on, the
  default from CL 5.9, NVUE command reference "Config Commands") and `nv set system config auto-save KEY VALUE`
  (KEY `enable` on/off up to 5.9, `state` enabled/disabled from 5.10: nvueschema v5_9 vs v5_10)
The one effect on the node that NVUE would have through its generated frr.conf: `router bgp graceful-shutdown`
turns FRR's `bgp graceful-shutdown` on or off (vtysh), so the neighbours really see the drain.
State lives in /etc/nvue-standin (the node's private /etc). A file `fail` there holding a command fragment
makes every call containing it fail (fault injection).
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

STATE = Path("/etc/nvue-standin")
APPLIED, PENDING, CONFIRM = STATE / "applied.yaml", STATE / "pending.yaml", STATE / "confirm.yaml"


def _load(path: Path) -> list:
    return yaml.safe_load(path.read_text()) or []


def _tree(doc: list) -> dict:
    return next((item["set"] for item in doc if isinstance(item, dict) and "set" in item), {}) or {}


def _header(doc: list) -> dict:
    return next((item["header"] for item in doc if isinstance(item, dict) and "header" in item), {})


def _write(path: Path, header: dict, tree: dict) -> None:
    path.write_text(yaml.safe_dump([{"header": header}, {"set": tree}], sort_keys=False))


def _ops(old, new) -> tuple[dict, dict]:
    """(set, unset) trees that turn `old` into `new`."""
    sets: dict = {}
    unsets: dict = {}
    for key in set(old) | set(new):
        if key not in new:
            unsets[key] = None
        elif key not in old:
            sets[key] = copy.deepcopy(new[key])
        elif isinstance(old[key], dict) and isinstance(new[key], dict):
            s, u = _ops(old[key], new[key])
            if s:
                sets[key] = s
            if u:
                unsets[key] = u
        elif old[key] != new[key]:
            sets[key] = copy.deepcopy(new[key])
    return sets, unsets


def _gshut(tree: dict) -> str | None:
    return ((tree.get("router") or {}).get("bgp") or {}).get("graceful-shutdown")


def _frr_effect(old: dict, new: dict) -> None:
    """What NVUE's regenerated frr.conf + reload would do for the one key the drain uses."""
    before, after = _gshut(old) in ("on", "enabled"), _gshut(new) in ("on", "enabled")
    if before == after:
        return
    asn = ((new.get("router") or {}).get("bgp") or {}).get("autonomous-system")
    words = "bgp graceful-shutdown" if after else "no bgp graceful-shutdown"
    subprocess.run(["vtysh", "-c", "configure terminal", "-c", f"router bgp {asn}", "-c", words], check=True,
                   capture_output=True)


def _fail(message: str, code: int = 1) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return code


def main(argv: list[str]) -> int:
    with (STATE / "calls.log").open("a") as log:
        log.write(" ".join(argv) + "\n")
    fail = STATE / "fail"
    if fail.exists() and fail.read_text().strip() and fail.read_text().strip() in " ".join(argv):
        return _fail(f"injected failure for `{' '.join(argv)}`")
    applied = _load(APPLIED)
    header, tree = _header(applied), _tree(applied)
    words = [w for w in argv if w not in ("-y", "--assume-yes")]
    if words[:2] == ["config", "show"]:
        sys.stdout.write(APPLIED.read_text())
        return 0
    if words[:2] == ["config", "replace"] and len(words) == 3:
        try:
            doc = yaml.safe_load(Path(words[2]).read_text())
        except (OSError, yaml.YAMLError) as exc:
            return _fail(f"cannot load {words[2]}: {exc}")
        if not isinstance(doc, list) or not _tree(doc):
            return _fail(f"{words[2]}: not an NVUE configuration")
        _write(PENDING, header, _tree(doc))
        return 0
    if words[:2] == ["config", "detach"]:
        PENDING.unlink(missing_ok=True)
        return 0
    if words[:2] == ["config", "diff"]:
        if not PENDING.exists():
            return 0
        sets, unsets = _ops(tree, _tree(_load(PENDING)))
        out = ([{"unset": unsets}] if unsets else []) + ([{"set": sets}] if sets else [])
        if out:
            sys.stdout.write(json.dumps(out, indent=2) + "\n" if "json" in words else yaml.safe_dump(out))
        return 0
    version = tuple(int(x) for x in re.findall(r"\d+", str(header.get("version", "5.15")))[:2])
    auto_key, auto_values = ("state", ("enabled", "disabled")) if version >= (5, 10) else ("enable", ("on", "off"))
    if words == ["show", "system", "config", "-o", "json"]:
        config = copy.deepcopy(((tree.get("system") or {}).get("config") or {}))
        config.setdefault("auto-save", {auto_key: auto_values[0]})
        config.setdefault("apply", {"overwrite": "all"})
        sys.stdout.write(json.dumps(config, indent=2) + "\n")
        return 0
    if words[:4] == ["set", "system", "config", "auto-save"] and len(words) == 6:
        if words[4] != auto_key or words[5] not in auto_values:
            return _fail(f"'{words[4]} {words[5]}': expected {auto_key} {'|'.join(auto_values)}")
        pending = _tree(_load(PENDING)) if PENDING.exists() else copy.deepcopy(tree)
        pending.setdefault("system", {}).setdefault("config", {})["auto-save"] = {auto_key: words[5]}
        _write(PENDING, header, pending)
        return 0
    if words[:4] == ["set", "router", "bgp", "graceful-shutdown"] and len(words) == 5:
        allowed = ("enabled", "disabled") if version >= (5, 15) else ("on", "off")
        if words[4] not in allowed:
            return _fail(f"'{words[4]}' is not one of {list(allowed)}")
        pending = _tree(_load(PENDING)) if PENDING.exists() else copy.deepcopy(tree)
        pending.setdefault("router", {}).setdefault("bgp", {})["graceful-shutdown"] = words[4]
        _write(PENDING, header, pending)
        return 0
    if words[:2] == ["config", "apply"]:
        rest = words[2:]
        if rest == ["--confirm-yes"]:
            if not CONFIRM.exists():
                return _fail("no pending confirm")
            CONFIRM.unlink()
            return 0
        if rest == ["--confirm-no"]:
            if not CONFIRM.exists():
                return _fail("no pending confirm")
            previous = _tree(_load(CONFIRM))
            _frr_effect(tree, previous)
            _write(APPLIED, header, previous)
            CONFIRM.unlink()
            return 0
        if CONFIRM.exists():
            return _fail("an applied revision is waiting for --confirm-yes/--confirm-no")
        if rest and rest[0] == "--confirm":
            if len(rest) != 2 or not re.fullmatch(r"\d+[smh]?", rest[1]):
                return _fail(f"--confirm needs a time, got {rest[1:]}")
            _write(CONFIRM, header, tree)
        elif rest:
            return _fail(f"unsupported by the stand-in: {' '.join(argv)}", 2)
        if not PENDING.exists():
            return 0
        new = _tree(_load(PENDING))
        _frr_effect(tree, new)
        _write(APPLIED, header, new)
        PENDING.unlink()
        return 0
    return _fail(f"unsupported by the stand-in: {' '.join(argv)}", 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
