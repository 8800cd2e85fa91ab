"""A rendered file's mode is intent, like its bytes: scripts 0755, netplan 0600 (netplan warns about and
systemd-networkd refuses world-readable files with secrets), FRR's files 0640, the rest 0644 (render.engine
records it per artifact, render's manifest writes it, `lab up` installs it).

deploy, `--dry-run`, drift and verify read each managed file's mode beside its bytes, report a difference as a
diff entry (`mode 0644 -> 0600` ahead of any content diff), and the push installs every file with its
intended mode (a mode-only difference is pushed like a content one: staged, checked, installed, rolled back
with `cp -p` on failure). The owner of a file the push replaces is kept (root for a new file).
"""

from __future__ import annotations

import shlex

from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target

PREFIX = "mode "


def read_modes(session: DeviceSession, paths: list[str]) -> dict[str, int | None]:
    """Each existing regular file's permission bits, in one round trip (None: missing or not a file)."""
    if not paths:
        return {}
    quoted = " ".join(shlex.quote(p) for p in paths)
    res = session.run(f'for f in {quoted}; do [ -f "$f" ] && [ ! -L "$f" ] && stat -c "%a %n" -- "$f"; done; true')
    if not res.ok:
        raise StepFailed(f"reading the files' modes failed: {res.tail(200)}")
    found: dict[str, int | None] = dict.fromkeys(paths)
    for line in res.stdout.splitlines():
        bits, _, path = line.partition(" ")
        if path in found and bits.isdigit():
            found[path] = int(bits, 8)
    return found


def line(have: int, want: int) -> str:
    return f"{PREFIX}{have:04o} -> {want:04o} (running -> intent)\n"


def with_modes(session: DeviceSession, target: Target, running: dict[str, bytes | None],
               diffs: dict[str, str]) -> dict[str, str]:
    """`diffs` plus a `mode` line for every existing managed file whose mode is not the rendered one."""
    paths = sorted(p for p in target.files if running.get(p) is not None)
    modes = read_modes(session, paths)
    out = dict(diffs)
    for path in paths:
        have, want = modes.get(path), target.files[path].mode
        if have is not None and have != want:
            out[path] = line(have, want) + out.get(path, "")
    return dict(sorted(out.items()))


def intended(target: Target, pairs: dict[str, str]) -> dict[str, int]:
    """dest -> the rendered mode, for the files a push installs."""
    return {dest: target.files[dest].mode for dest in pairs if dest in target.files}


def describe(diff: str) -> str:
    """A drift finding's `actual`: the mode change and/or how many lines differ."""
    parts = []
    if diff.startswith(PREFIX):
        first, _, diff = diff.partition("\n")
        parts.append(first.split(" (")[0])
    lines = [x for x in diff.splitlines() if x[:1] in "+-" and x[:3] not in ("+++", "---")]
    if lines or not parts:
        parts.append(f"{len(lines)} line(s) differ")
    return ", ".join(parts)
