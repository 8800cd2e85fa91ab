"""A rendered file's mode and owner are intent, like its bytes: scripts 0755, netplan 0600, FRR's own files
frr:frr 0640, the rest root:root 0644 (render.engine records them per artifact, render's manifest writes them,
`lab up` installs them). An artifact whose owner is None (SONiC's frr.conf) keeps the owner the device has.

deploy, `--dry-run` and drift read each managed file's mode and owner with its bytes (one round trip,
remote.read_files_meta), report a difference as diff lines (`mode 0644 -> 0600`, `owner root:root -> frr:frr`)
ahead of any content diff, and the push installs every file it pushes with its intended mode and owner (a
metadata-only difference is pushed like a content one: staged, checked, installed, rolled back with `cp -p` on
failure).
"""

from __future__ import annotations

from netauto import diffstat
from netauto.deploy.remote import Meta
from netauto.deploy.targets import Target

PREFIXES = ("mode ", "owner ")
TAIL = " (running -> intent)\n"


def lines(have: tuple[int, str], want_mode: int, want_owner: str | None) -> str:
    out = f"mode {have[0]:04o} -> {want_mode:04o}{TAIL}" if have[0] != want_mode else ""
    if want_owner is not None and have[1] != want_owner:
        out += f"owner {have[1]} -> {want_owner}{TAIL}"
    return out


def with_modes(target: Target, meta: dict[str, Meta | None], diffs: dict[str, str]) -> dict[str, str]:
    """`diffs` plus mode/owner lines for every existing managed file whose mode or owner is not the rendered one
    (`meta`: what remote.read_files_meta read with the files' bytes)."""
    out = dict(diffs)
    for path in sorted(target.files):
        have = meta.get(path)
        if have is None:
            continue
        art = target.files[path]
        text = lines(have, art.mode, art.owner)
        if text:
            out[path] = text + out.get(path, "")
    return dict(sorted(out.items()))


def intended(target: Target, pairs: dict[str, str]) -> dict[str, tuple[int, str | None]]:
    """dest -> (rendered mode, rendered owner), for the files a push installs."""
    return {dest: (target.files[dest].mode, target.files[dest].owner) for dest in pairs if dest in target.files}


def describe(diff: str) -> str:
    """A drift finding's `actual`: the mode/owner change and/or how many lines differ."""
    parts = []
    while diff.startswith(PREFIXES):
        first, _, diff = diff.partition("\n")
        parts.append(first.split(" (")[0])
    n = diffstat.changed_lines(diff)
    if n or not parts:
        parts.append(diffstat.count(n))  # one counting rule with DRIFT-01: an edited line is 1
    return ", ".join(parts)
