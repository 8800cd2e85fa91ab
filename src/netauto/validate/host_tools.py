"""Real validators for the GPU-server provisioning files: `systemd-analyze verify` on the units, `sh -n` and
shellcheck on the scripts. Same contract as `netauto.validate.external` (a list of Finding, ToolMissing).

Servers of one profile get the same units and scripts except for comment lines and the server's own name inside
a double-quoted message, so each distinct content (comments dropped, the name inside "..." replaced by a
placeholder) is checked once and its findings are reported for every server that has it: the 10k example checks
a handful of files instead of 2,048 (shellcheck costs ~0.25 s of CPU per script). A group whose check finds
anything is checked again file by file, so every finding is the one that server's own file gives.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from netauto.validate.findings import Finding, tool_finding
from netauto.validate.tool_path import find_tool
from netauto.validate.tool_run import FileRef, _files, _pool_map, _run, require

UNIT_DIR = "etc/systemd/system"
SCRIPT_DIR = "usr/local/sbin"
# systemd's default dependencies of a service: stubs so `--root` verification needs no copy of the host's units
STUB_UNITS = {
    "sysinit.target": "[Unit]\nDescription=stub for verify\n",
    "basic.target": "[Unit]\nDescription=stub for verify\n",
    "shutdown.target": "[Unit]\nDescription=stub for verify\n",
    "multi-user.target": "[Unit]\nDescription=stub for verify\n",
    # as systemd ships it (units/sys-kernel-config.mount)
    "sys-kernel-config.mount": "[Unit]\nDescription=Kernel Configuration File System\n\n"
                               "[Mount]\nWhat=configfs\nWhere=/sys/kernel/config\nType=configfs\n",
}


# a server name the shell reads as plain literal text wherever it stands inside "..." (no $ ` \\ " in it)
_LITERAL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
_NAME_MARK = "\0netauto-device\0"


def _quoted_name_free(line: str, name: str) -> str:
    """`line` with every whole-word `name` inside a double-quoted string replaced by a placeholder.

    Inside "..." such a word is literal text to sh and to shellcheck whatever the name, so two lines that differ
    only there check alike. Occurrences elsewhere (unquoted, single-quoted, after `$`/`{`) are left as they are:
    those lines keep their own content and end up in groups of their own."""
    if name not in line:
        return line
    out, i, quoted, single = [], 0, False, False
    n = len(name)
    while i < len(line):
        c = line[i]
        if c == "\\" and not single:
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == "'" and not quoted:
            single = not single
        elif c == '"' and not single:
            quoted = not quoted
        elif (quoted and line.startswith(name, i) and line[i - 1] not in _WORD and line[i - 1] not in "${"
              and (i + n == len(line) or line[i + n] not in _WORD)):
            out.append(_NAME_MARK)
            i += n
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _content_key(*texts: str, device: str = "") -> str:
    """Text without comment lines (the server name lives there), shebang and shellcheck directives kept; with
    `device`, its name inside double-quoted strings does not count either (see `_quoted_name_free`)."""
    name = device if _LITERAL_NAME.fullmatch(device) else ""
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        for line in text.splitlines():
            s = line.lstrip()
            if s.startswith("#") and not s.startswith(("#!", "# shellcheck")):
                continue
            h.update((_quoted_name_free(line, name) if name else line).encode() + b"\n")
        h.update(b"\0")
    return h.hexdigest()


def _groups(items: list[tuple[str, Path]], extra: tuple[str, ...] = (), *,
            by_name: bool = False) -> dict[str, list[tuple[str, Path]]]:
    groups: dict[str, list[tuple[str, Path]]] = {}
    for dev, path in items:
        texts = [path.read_text(encoding="utf-8", errors="replace")]
        for rel in extra:
            p = path.parent / rel
            texts.append(p.read_text(encoding="utf-8", errors="replace") if p.exists() else "")
        groups.setdefault(_content_key(*texts, device=dev if by_name else ""), []).append((dev, path))
    return groups


def systemd_units(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    """`systemd-analyze verify --root ROOT` on each network's NIC QoS boot unit (netauto-roce-qos.service, a lossless
    network's netauto-<network>-qos.service) and an instance of its per-NIC template, with the rendered script at its
    ExecStart path (systemd checks it exists and is executable). Paths: netauto.platforms.host."""
    tool = require("systemd-analyze")
    items = _files(files)
    groups: list[list[tuple[str, Path]]] = []
    for name in sorted({p.stem for _, p in items}):
        mine = [(d, p) for d, p in items if p.stem == name]
        # unit and template decide the verdict; the script only has to exist at ExecStart (its text is not read)
        groups += list(_groups(mine, (f"{name}@.service",)).values())
    found: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="netauto-systemd-") as tmp:
        def one(i: int) -> list[Finding]:
            dev, unit = groups[i][0]
            dev_root = unit.parents[3]  # <device>/etc/systemd/system/<unit>
            root = Path(tmp) / f"{i:05d}"
            (root / UNIT_DIR).mkdir(parents=True)
            (root / "usr/lib/systemd/system").mkdir(parents=True)
            for stub, text in STUB_UNITS.items():
                (root / "usr/lib/systemd/system" / stub).write_text(text)
            names = []
            for src in (unit, unit.parent / f"{unit.stem}@.service"):
                if src.exists():
                    shutil.copyfile(src, root / UNIT_DIR / src.name)
                    names.append("/" + UNIT_DIR + "/" + src.name.replace("@.", "@rail0."))
            script = f"{SCRIPT_DIR}/{unit.stem}.sh"
            if (dev_root / script).exists():
                (root / script).parent.mkdir(parents=True)
                shutil.copyfile(dev_root / script, root / script)
                (root / script).chmod(0o755)
            r = _run([tool, "verify", f"--root={root}", "--man=no", *names])
            out = (r.stdout + r.stderr).replace(str(root), "")
            res = []
            for line in out.splitlines():
                if not line.strip():
                    continue
                m = re.match(r"^(/\S+?):(\d+): (.*)$", line)
                res.append(tool_finding("systemd-analyze", dev, str(unit.parent / Path(m.group(1)).name) if m else str(unit),
                                       int(m.group(2)) if m else None, (m.group(3) if m else line)[:300]))
            if r.returncode != 0 and not res:
                res.append(tool_finding("systemd-analyze", dev, str(unit), None, f"exit {r.returncode}"))
            return res

        per_group = _pool_map(one, list(range(len(groups))), workers)
    for group, res in zip(groups, per_group):
        for dev, unit in group:
            here = (str(group[0][1].parents[3]), str(unit.parents[3]))  # the checked copy's folder, this server's
            found += [replace(f, device=dev, file=(f.file or "").replace(*here, 1)) for f in res]
    return found


def shell_scripts(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    """`sh -n` (the shell the script runs under) and, when installed, `shellcheck -s sh` on each distinct script
    (distinct up to comments and the server's name inside "...": see `_groups`). A group with findings is checked
    again file by file, so what each server gets is what its own file gives."""
    sh = require("sh")
    shellcheck = find_tool("shellcheck")

    def one(item: tuple[str, Path]) -> list[Finding]:
        dev, path = item
        res = []
        r = _run([sh, "-n", str(path)])
        for line in (r.stdout + r.stderr).splitlines():
            m = re.search(r"(\d+): (.*)$", line)
            res.append(tool_finding("sh -n", dev, str(path), int(m.group(1)) if m else None, (m.group(2) if m else line)[:300]))
        if shellcheck:
            r = _run([shellcheck, "-s", "sh", "-f", "gcc", str(path)])
            for line in r.stdout.splitlines():
                m = re.match(rf"^{re.escape(str(path))}:(\d+):\d+: (.*)$", line)
                if m:
                    res.append(tool_finding("shellcheck", dev, str(path), int(m.group(1)), m.group(2)[:300]))
        return res

    groups = list(_groups(_files(files), by_name=True).values())
    found: list[Finding] = []
    again: list[tuple[str, Path]] = []
    for group, res in zip(groups, _pool_map(one, [g[0] for g in groups], workers)):
        if not res:
            continue
        found += res
        again += group[1:]
    for res in _pool_map(one, again, workers):
        found += res
    return found
