"""The ifupdown2 syntax check on rendered interfaces files: `ifup -a -s -i FILE` (values of known attributes), one
preloaded ifupdown2 forking per file (ifup_batch.py) in a private mount namespace where possible, and its
messages read back to the line of the attribute."""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from netauto.validate import tool_run
from netauto.validate.findings import Finding, tool_finding
from netauto.validate.ifupdown_keywords import ifupdown2_keywords
from netauto.validate.tool_path import SYSTEM_PATH
from netauto.validate.tool_run import CHUNK, IFUP_BATCH_CHUNK, FileRef, _chunks, _files, _pool_map, \
    _run, require

# Debian 12's ifupdown2 3.0.0 asks every VXLAN bridge port for `bridge-access`, also the single VXLAN device
# (`bridge-vlan-vni-map`, no access VLAN by design). Newer ifupdown2 exempts it: CumulusNetworks/ifupdown2
# addons/bridge.py `_error_vxlan_in_vlan_aware_br` returns early for ifaceLinkPrivFlags.SINGLE_VXLAN (commit
# 5c9c88cd). This warning is dropped for a stanza with bridge-vlan-vni-map only.
SINGLE_VXLAN_FALSE_POSITIVE = re.compile(r"`bridge-access` attribute is mandatory when vxlan device \((?P<dev>[^)]+)\)")
_ifup_lock = threading.Lock()
_IFUP_TRANSIENT = re.compile(r"recv\(\) error|netlink.*(?:timed out|error)", re.I)


def ifupdown2_syntax(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    """`ifup -a -s -i FILE`: values of known attributes (bad prefixes, MTU range...)."""
    ifup = require("ifup")
    items = _files(files)
    if not items:
        return []
    command = [ifup, "-a", "-s", "-i"]
    if tool_run.private_namespace_ok():
        batch = _ifup_batch_command()
        tmpfs = ["/run/network", "/var/tmp"]

        def chunk(part: Sequence[tuple[str, Path]]) -> list[tuple[int, str]]:
            paths = [p for _, p in part]
            if batch:
                try:
                    return tool_run._namespace_batch(batch, paths, tmpfs, framed=True, long=True)
                except RuntimeError:  # this ifupdown2 cannot be preloaded: one process per file
                    pass
            return tool_run._namespace_batch(command, paths, tmpfs)

        size = IFUP_BATCH_CHUNK if batch else CHUNK
        outputs = [o for part in _pool_map(chunk, _chunks(items, size, workers), workers) for o in part]
        # ifupdown2 talks netlink even in syntax-check mode; on a loaded box that socket can fail
        # (`recv() error: [Errno 22]`), which says nothing about the file: run those files again
        for attempt in range(3):
            flaky = [i for i, (_, out) in enumerate(outputs) if _IFUP_TRANSIENT.search(out)]
            if not flaky:
                break
            time.sleep(0.2 * (attempt + 1))
            again = tool_run._namespace_batch(command, [items[i][1] for i in flaky], tmpfs)
            for i, result in zip(flaky, again):
                outputs[i] = result
    else:
        Path("/run/network").mkdir(parents=True, exist_ok=True)  # else: exit 89 "already running"

        def one_locked(item: tuple[str, Path]) -> tuple[int, str]:
            with _ifup_lock:  # ifup holds /run/network/.lock: concurrent runs exit 89
                for attempt in range(20):
                    r = _run([*command, str(item[1])])
                    if r.returncode != 89:
                        break
                    time.sleep(0.1 * (attempt + 1))  # another ifup on this machine
                return r.returncode, r.stdout + r.stderr

        outputs = [one_locked(i) for i in items]
    found = []
    for (dev, path), (rc, out) in zip(items, outputs):
        lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
        told = [ln for ln in lines if re.match(r"(error|warning)\b", ln, re.I)]
        msgs = [m for m in told if not _single_vxlan_warning(Path(path), m)]
        for msg in msgs:
            found.append(tool_finding("ifup", dev, str(path), _ifupdown_line(path, msg), msg))
        if rc != 0 and not told:
            found.append(tool_finding("ifup", dev, str(path), None, f"exit {rc}: {' | '.join(lines)[:500]}"))
    return found


def _single_vxlan_warning(path: Path, message: str) -> bool:
    """True for Debian ifupdown2 3.0.0's `bridge-access` warning about a single VXLAN device (see
    SINGLE_VXLAN_FALSE_POSITIVE): the named device's stanza maps VLANs to VNIs with bridge-vlan-vni-map."""
    m = SINGLE_VXLAN_FALSE_POSITIVE.search(message)
    if not m:
        return False
    current = None
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return False
    for raw in text.splitlines():
        words = raw.split()
        if words[:1] == ["iface"] and len(words) > 1:
            current = words[1]
        elif current == m.group("dev") and words[:1] == ["bridge-vlan-vni-map"]:
            return True
    return False


def _ifup_batch_command() -> list[str] | None:
    """System python3 running ifup_batch.py (ifupdown2 preloaded once, one fork per file), when possible."""
    python = shutil.which("python3", path=SYSTEM_PATH)
    if not python or not Path("/usr/share/ifupdown2/__main__.py").is_file():
        return None
    return [python, str(Path(__file__).with_name("ifup_batch.py"))]


def _ifupdown_line(path: Path, message: str) -> int | None:
    """ifup names the interface and attribute, not the line: find `attr value` inside `iface <name>`."""
    m = re.match(r"(?:error|warning):\s*(\S+?):\s*(\S+?):", message, re.I)
    if not m:
        return None
    iface, attr = m.group(1), m.group(2)
    current = None
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if not words:
            continue
        if words[0] == "iface" and len(words) > 1:
            current = words[1]
        elif current == iface and words[0] == attr:
            return n
    return None


def ifupdown2(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    items = _files(files)
    return ifupdown2_syntax(items, workers=workers) + ifupdown2_keywords(items)
