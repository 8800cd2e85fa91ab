"""Run the real validators (FRR, ifupdown2, netplan, yanglint) on rendered files, in batches.

This module holds the netplan and yanglint checks and is where callers find every checker; the others live by
concern: validate.tool_run (finding a tool, batches and namespaces), validate.tool_frr (vtysh, bgpd and their
output), validate.tool_ifupdown (`ifup -s`), validate.ifupdown_keywords (the keyword catalogue).

Every checker takes the files to check as `(device, path)` pairs and returns a list of the `Finding`s the rules
return too (`findings.tool_finding`: rule EXT-<tool>, an error, the file as the tool was given it); an empty list
means the tool accepted every file. When a tool is not installed the checker raises `ToolMissing` (its message
reads "vtysh not installed (...)") so a caller can report "skipped: vtysh not installed" instead of a pass.

Speed: a 600-switch fabric must not mean thousands of sequential processes.

* `vtysh --dryrun` takes many files concatenated; netplan's generator (a fast C program) runs once per file from
  one shell per chunk of files, in a private mount namespace where `systemctl` and `udevadm` are `/bin/true`
  (`NETPLAN_HOST_STUBS`: the generator acts on the host it runs on).
* `bgpd -C` and `ifup -s` leave state behind (`/var/tmp/frr/bgpd.<pid>/`, the `/run/network/.lock` flock
  that makes a second concurrent `ifup` exit 89). They run in chunks: one shell per chunk loops over its
  files inside a private mount namespace (`unshare -m`) with tmpfs over `/var/tmp` and `/run/network`, so
  chunks run in parallel, nothing is left behind and nothing collides with other users of the machine.
  Without `unshare` (not root, container without CAP_SYS_ADMIN) they fall back to one process per file:
  bgpd in the thread pool with its `/var/tmp/frr/bgpd.<pid>` removed afterwards, ifup serialised.

Every validator process, whichever check starts it, first takes one of `usable_cpus()` process slots
(`processes.process_slot`, long processes first): the checks of `netauto validate` run side by side
(runner.run_external) and together keep every usable CPU busy, never more processes than CPUs.

* `bgpd -C` in a namespace forks one child per file after a single start-up (bgpd_batch.c, an LD_PRELOAD shim
  built with the system C compiler); without a compiler, one bgpd per file as above.
* Scratch copies (netplan roots, bgpd's readable copies, validate's rendered tree) live in RAM when /dev/shm is a
  tmpfs with room (`processes.memory_tmp`).

The validators are run with the system directories first on PATH so Debian's Python scripts (`ifup`,
`ifquery`, `netplan`) start the system interpreter directly, not through a pyenv/virtualenv shim.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from netauto.validate import tool_run
from netauto.validate.findings import Finding, tool_finding
from netauto.validate.ifupdown_keywords import CUMULUS_IFUPDOWN_KEYWORDS, ifupdown2_keyword_catalogue, \
    ifupdown2_keywords
from netauto.validate.processes import memory_tmp
from netauto.validate.tool_frr import frr, frr_bgpd, frr_vtysh, parse_bgpd_output
from netauto.validate.tool_ifupdown import ifupdown2, ifupdown2_syntax
from netauto.validate.tool_run import CHUNK, FileRef, ToolMissing, _chunks, _files, _pool_map, _run, \
    available, rendered_files, require

# the checkers validate's runner and other callers reach through this module (one place to look them up)
__all__ = ["CUMULUS_IFUPDOWN_KEYWORDS", "FileRef", "ToolMissing", "available", "frr", "frr_bgpd",
           "frr_vtysh", "ifupdown2", "ifupdown2_keyword_catalogue", "ifupdown2_keywords", "ifupdown2_syntax",
           "netplan_generate", "parse_bgpd_output", "rendered_files", "require", "yanglint"]

NETPLAN_GENERATORS = ("/usr/libexec/netplan/generate", "/usr/lib/netplan/generate")


# ------------------------------------------------------------------ netplan
# The generator acts on the machine it runs on, whatever --root-dir says (netplan 0.106, src/generate.c; seen
# with `strace -f -e trace=execve`): it runs `/bin/udevadm control --reload`, and `/bin/systemctl
# is-system-running`, and when that answers "initializing" (a host still booting) it starts the netplan and
# systemd-networkd units. Where a private mount namespace is available (root), both programs are /bin/true
# inside it, so validating a server's netplan never reloads udev or starts a unit on the validating host.
NETPLAN_HOST_PROGRAMS = ("/usr/bin/systemctl", "/bin/systemctl", "/usr/bin/udevadm", "/bin/udevadm",
                         "/sbin/udevadm", "/usr/sbin/udevadm")
NETPLAN_HOST_STUBS = tuple(f"if [ -e {p} ]; then mount --bind /bin/true {p} || exit 97; fi"
                           for p in NETPLAN_HOST_PROGRAMS)


def netplan_generate(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    """`netplan generate --root-dir ROOT` with one root per server (files in ROOT/etc/netplan/).

    The C generator behind `netplan generate` is called directly when present (16 ms instead of
    200 ms of Python start-up per server); it is the same program and the same messages. The roots live in
    RAM when possible (`memory_tmp`): the generator fsyncs its output. It runs with udevadm and systemctl
    stubbed out where a private mount namespace is available (`NETPLAN_HOST_STUBS`).
    """
    generator = next((g for g in NETPLAN_GENERATORS if os.access(g, os.X_OK)), None)
    command = [generator, "--root-dir"] if generator else [require("netplan"), "generate", "--root-dir"]
    items = _files(files)
    found: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="netauto-netplan-", dir=memory_tmp()) as tmp:
        roots = []
        for i, (_, path) in enumerate(items):
            root = Path(tmp) / f"{i:05d}"
            (root / "etc/netplan").mkdir(parents=True)
            shutil.copyfile(path, root / "etc/netplan" / path.name)
            (root / "etc/netplan" / path.name).chmod(0o600)
            roots.append(root)
        index = list(range(len(items)))

        isolated = tool_run.private_namespace_ok()

        def chunk(ids: Sequence[int]) -> list[tuple[int, str]]:  # one shell per chunk: no Python per server
            return tool_run._shell_batch(command, [roots[i] for i in ids], NETPLAN_HOST_STUBS if isolated else (),
                                unshare=isolated)

        outputs = [o for part in _pool_map(chunk, _chunks(index, CHUNK, workers), workers) for o in part]
    for (dev, path), root, (rc, out) in zip(items, roots, outputs):
        out = out.replace(str(root / "etc/netplan" / path.name), str(path))
        res = []
        for m in re.finditer(rf"^{re.escape(str(path))}:(\d+):(\d+): (.*)$", out, re.M):
            res.append(tool_finding("netplan", dev, str(path), int(m.group(1)), f"col {m.group(2)}: {m.group(3)}"))
        if rc != 0 and not res:
            res.append(tool_finding("netplan", dev, str(path), None, f"exit {rc}: {out.strip()[:500]}"))
        found += res
    return found


# ------------------------------------------------------------------ yanglint
def yanglint(json_file: Path | str, yang_dir: Path | str, *, modules: Iterable[str] | None = None,
             device: str = "") -> list[Finding]:
    """`yanglint -i -f json -t config -p YANG_DIR <modules> FILE` on YANG-JSON (SONiC config converted).

    Without `modules`, the modules named by the file's top-level keys (`"sonic-port:sonic-port"`) are
    loaded from `yang_dir`; their imports are found through the search path.
    """
    tool = require("yanglint")
    json_file, yang_dir = Path(json_file), Path(yang_dir)
    if modules is None:
        data = json.loads(json_file.read_text())
        modules = sorted({key.split(":", 1)[0] for key in data})
    paths = []
    for mod in modules:
        candidate = yang_dir / (mod if mod.endswith(".yang") else f"{mod}.yang")
        paths.append(str(candidate))
    # -i: imported modules implemented too (sonic-port's `when` reads sonic-device_metadata)
    r = _run([tool, "-i", "-f", "json", "-t", "config", "-p", str(yang_dir), *paths, str(json_file)], timeout=120)
    found = []
    messages = [ln.strip() for ln in r.stderr.splitlines() if re.match(r"\s*(libyang\s+err|error|YANGLINT\[E\])", ln, re.I)]
    for msg in messages:
        line = re.search(r"\bline(?: number)? (\d+)", msg)
        found.append(tool_finding("yanglint", device, str(json_file), int(line.group(1)) if line else None, msg))
    if r.returncode != 0 and not found:
        found.append(tool_finding("yanglint", device, str(json_file), None,
                                 f"exit {r.returncode}: {(r.stderr or r.stdout).strip()[:500]}"))
    return found
