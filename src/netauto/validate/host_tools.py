"""Real validators for the GPU-server provisioning files: `systemd-analyze verify` on the units, `sh -n` and
shellcheck on the scripts. Same contract as `netauto.validate.external` (ToolFinding list, ToolMissing).

Servers of one profile get the same units and scripts except for comment lines, so each distinct content is
checked once and its findings are reported for every server that has it (the 10k example stays seconds).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from netauto.validate.external import FileRef, ToolFinding, _files, _pool_map, _run, find_tool, require

UNIT_DIR = "etc/systemd/system"
SCRIPT = "usr/local/sbin/netauto-roce-qos.sh"
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


def _content_key(*texts: str) -> str:
    """Text without comment lines (the server name lives there), shebang and shellcheck directives kept."""
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        for line in text.splitlines():
            s = line.lstrip()
            if s.startswith("#") and not s.startswith(("#!", "# shellcheck")):
                continue
            h.update(line.encode() + b"\n")
        h.update(b"\0")
    return h.hexdigest()


def _groups(items: list[tuple[str, Path]], extra: tuple[str, ...] = ()) -> dict[str, list[tuple[str, Path]]]:
    groups: dict[str, list[tuple[str, Path]]] = {}
    for dev, path in items:
        texts = [path.read_text(encoding="utf-8", errors="replace")]
        for rel in extra:
            p = path.parent / rel
            texts.append(p.read_text(encoding="utf-8", errors="replace") if p.exists() else "")
        groups.setdefault(_content_key(*texts), []).append((dev, path))
    return groups


def systemd_units(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
    """`systemd-analyze verify --root ROOT` on netauto-roce-qos.service and an instance of its per-rail template,
    with the rendered script at its ExecStart path (systemd checks it exists and is executable)."""
    tool = require("systemd-analyze")
    items = _files(files)
    groups = list(_groups(items, ("netauto-roce-qos@.service",)).values())
    found: list[ToolFinding] = []
    with tempfile.TemporaryDirectory(prefix="netauto-systemd-") as tmp:
        def one(i: int) -> list[ToolFinding]:
            dev, unit = groups[i][0]
            dev_root = unit.parents[3]  # <device>/etc/systemd/system/<unit>
            root = Path(tmp) / f"{i:05d}"
            (root / UNIT_DIR).mkdir(parents=True)
            (root / "usr/lib/systemd/system").mkdir(parents=True)
            for stub, text in STUB_UNITS.items():
                (root / "usr/lib/systemd/system" / stub).write_text(text)
            names = []
            for src in sorted(unit.parent.glob("netauto-*.service")):
                shutil.copyfile(src, root / UNIT_DIR / src.name)
                names.append("/" + UNIT_DIR + "/" + (src.name.replace("@.", "@rail0.") if "@." in src.name else src.name))
            script = dev_root / SCRIPT
            if script.exists():
                (root / SCRIPT).parent.mkdir(parents=True)
                shutil.copyfile(script, root / SCRIPT)
                (root / SCRIPT).chmod(0o755)
            r = _run([tool, "verify", f"--root={root}", "--man=no", *names])
            out = (r.stdout + r.stderr).replace(str(root), "")
            res = []
            for line in out.splitlines():
                if not line.strip():
                    continue
                m = re.match(r"^(/\S+?):(\d+): (.*)$", line)
                res.append(ToolFinding("systemd-analyze", dev, str(unit.parent / Path(m.group(1)).name) if m else str(unit),
                                       int(m.group(2)) if m else None, (m.group(3) if m else line)[:300]))
            if r.returncode != 0 and not res:
                res.append(ToolFinding("systemd-analyze", dev, str(unit), None, f"exit {r.returncode}"))
            return res

        per_group = _pool_map(one, list(range(len(groups))), workers)
    for group, res in zip(groups, per_group):
        for dev, unit in group:
            found += [ToolFinding(f.tool, dev, f.path.replace(str(group[0][1].parents[3]), str(unit.parents[3]), 1),
                                  f.line, f.message) for f in res]
    return found


def shell_scripts(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
    """`sh -n` (the shell the script runs under) and, when installed, `shellcheck -s sh` on each distinct script."""
    sh = require("sh")
    shellcheck = find_tool("shellcheck")
    groups = list(_groups(_files(files)).values())

    def one(i: int) -> list[ToolFinding]:
        dev, path = groups[i][0]
        res = []
        r = _run([sh, "-n", str(path)])
        for line in (r.stdout + r.stderr).splitlines():
            m = re.search(r"(\d+): (.*)$", line)
            res.append(ToolFinding("sh -n", dev, str(path), int(m.group(1)) if m else None, (m.group(2) if m else line)[:300]))
        if shellcheck:
            r = _run([shellcheck, "-s", "sh", "-f", "gcc", str(path)])
            for line in r.stdout.splitlines():
                m = re.match(rf"^{re.escape(str(path))}:(\d+):\d+: (.*)$", line)
                if m:
                    res.append(ToolFinding("shellcheck", dev, str(path), int(m.group(1)), m.group(2)[:300]))
        return res

    found: list[ToolFinding] = []
    for group, res in zip(groups, _pool_map(one, list(range(len(groups))), workers)):
        for dev, path in group:
            found += [ToolFinding(f.tool, dev, str(path), f.line, f.message) for f in res]
    return found
