"""The FRR checks on rendered frr.conf files: `vtysh --dryrun` (syntax, many files concatenated into one run) and
`bgpd -C` (semantics; one bgpd per chunk forking per file through the bgpd_batch shim where possible), and the
reading of their output back to file and line."""

from __future__ import annotations

import bisect
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from netauto.validate import bgpd_batch, tool_run
from netauto.validate.findings import Finding, tool_finding
from netauto.validate.processes import memory_tmp, process_slot
from netauto.validate.tool_run import CHUNK, IFUP_BATCH_CHUNK, TIMEOUT_PER_FILE, FileRef, _chunks, \
    _env, _files, _pool_map, _run, require

VTYSH_CHUNK = 64  # files per concatenated vtysh --dryrun

# Commands in a Cumulus frr.conf that belong to vtysh/zebra/other daemons: bgpd -C reports them as
# "No such command" / "Config Failed" although the file is fine.
NON_BGPD_COMMANDS = (
    "service integrated-vtysh-config",
    "ip forwarding",
    "ipv6 forwarding",
    "no ip forwarding",
    "no ipv6 forwarding",
    "ip nht resolve-via-default",
    "ipv6 nht resolve-via-default",
    "zebra nexthop-group keep",
    "ip route",  # staticd (the frontend exit's discard route); vtysh --dryrun checks its syntax
    # EVPN multihoming, zebra's interface commands (FRR zebra/zebra_evpn_mh.c; vtysh --dryrun still checks them)
    "evpn mh es-id",
    "evpn mh es-sys-mac",
    "evpn mh es-df-pref",
    "evpn mh uplink",
    # a tenant VRF's L3VNI, zebra's `vrf <name>` node (FRR zebra/zebra_vty.c `vni`; vtysh --dryrun still checks it)
    "vrf",
    "vni",
    "exit-vrf",
)
# bgpd -C without a running zebra: harmless.
BGPD_NOISE = (
    re.compile(r"zclient_send_message\(\) failed"),
    re.compile(r"zclient.*(connect|socket)", re.I),
    re.compile(r"Failed to connect to zebra", re.I),
)
BGPD_FAILURE = re.compile(r"(?P<what>[^\]]*?)\s+on config line (?P<line>\d+):\s?(?P<text>.*)$")
BGPD_CRASH = re.compile(r"assertion .* failed|Received signal \d+")  # FRR lib/zlog.c, lib/sigevent.c on a crash
BGPD_BAD = re.compile(r"Config Failed|No such command|Unknown command|can't open configuration file|"
                      r"failed to open configuration file|\berror\b", re.I)

def _readable_copies(files: Sequence[tuple[str, Path]], tmp: Path) -> list[Path]:
    """World-readable copies: bgpd drops to the frr user before reading its config file."""
    tmp.chmod(0o755)
    out = []
    for i, (_, path) in enumerate(files):
        target = tmp / f"{i:05d}.conf"
        shutil.copyfile(path, target)
        target.chmod(0o644)
        out.append(target)
    return out


def frr_vtysh(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    """`vtysh --dryrun -f FILE` (syntax: unknown or misspelled commands; exit 2 + "line N: % ...")."""
    vtysh = require("vtysh")
    items = _files(files)
    with tempfile.TemporaryDirectory(prefix="netauto-vtysh-") as cfg:
        (Path(cfg) / "vtysh.conf").write_text("")

        def one(item: tuple[str, Path]) -> list[Finding]:
            dev, path = item
            r = _run([vtysh, "--dryrun", "--config_dir", cfg, "-f", str(path)])
            return _parse_vtysh(dev, path, r.returncode, r.stdout + r.stderr)

        def chunk(part: Sequence[tuple[str, Path]]) -> list[Finding]:
            found = _vtysh_concatenated(vtysh, cfg, part)
            return found if found is not None else [f for item in part for f in one(item)]

        return [f for found in _pool_map(chunk, _chunks(items, VTYSH_CHUNK, workers), workers) for f in found]


# A top-level command: vtysh climbs back to the config node to run it, so no file inherits the node (interface,
# router bgp...) the previous file ended in. Dry-run only parses: the value is never applied.
VTYSH_SEPARATOR = "hostname netauto-file-boundary\n"


def _vtysh_concatenated(vtysh: str, cfg: str, part: Sequence[tuple[str, Path]]) -> list[Finding] | None:
    """Check many files in one `vtysh --dryrun` (it reports every bad line and carries on): ~50x fewer processes.
    Lines are mapped back to their file. None when the output cannot be mapped: the caller checks file by file."""
    starts: list[int] = []  # first line of each file in the concatenation
    text: list[str] = []
    line = 1
    for _, path in part:
        body = path.read_text(errors="replace")
        if not body.endswith("\n"):
            body += "\n"
        text += [VTYSH_SEPARATOR, body]
        starts.append(line + 1)
        line += 1 + body.count("\n")
    with tempfile.NamedTemporaryFile("w", suffix=".conf", dir=cfg, delete=False) as tmp:
        tmp.write("".join(text))
    try:
        r = _run([vtysh, "--dryrun", "--config_dir", cfg, "-f", tmp.name], timeout=TIMEOUT_PER_FILE * len(part))
    finally:
        os.unlink(tmp.name)
    raw = _parse_vtysh("", Path(tmp.name), r.returncode, r.stdout + r.stderr)
    found = []
    for f in raw:
        if f.line is None:
            return None
        i = bisect.bisect_right(starts, f.line) - 1
        if i < 0 or f.line < starts[i]:
            return None  # a separator line was refused: cannot trust the mapping
        dev, path = part[i]
        found.append(tool_finding("vtysh", dev, str(path), f.line - starts[i] + 1, f.message))
    return found


def _parse_vtysh(dev: str, path: Path, rc: int, output: str) -> list[Finding]:
    found = []
    for raw in output.splitlines():
        m = re.match(r"\s*line (\d+):\s*(.*)$", raw)
        if m:
            found.append(tool_finding("vtysh", dev, str(path), int(m.group(1)), m.group(2).strip()))
    if rc != 0 and not found:
        found.append(tool_finding("vtysh", dev, str(path), None, f"exit {rc}: {output.strip()[:500]}"))
    return found


def parse_bgpd_output(dev: str, path: str, output: str, rc: int = 0) -> list[Finding]:
    """bgpd -C exits 0 whatever the config says: errors are only in its log output. Any other exit code (128 + N:
    killed by signal N, e.g. an assertion's abort) is a finding of its own."""
    found = []
    if rc != 0:
        lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
        why = next((ln for ln in lines if BGPD_CRASH.search(ln)), lines[-1] if lines else "no output")
        what = f"killed by signal {rc - 128}" if rc > 128 else f"exit {rc}"
        why = re.sub(r"^\S+ \S+ BGP: ", "", why)[:300]
        found.append(tool_finding("bgpd", dev, path, None, f"bgpd -C {what}: {why}"))
    for raw in output.splitlines():
        line = raw.strip()
        if not line or any(p.search(line) for p in BGPD_NOISE):
            continue
        m = BGPD_FAILURE.search(line)
        if m:
            text = m.group("text").strip()
            if any(text == c or text.startswith(c + " ") for c in NON_BGPD_COMMANDS):
                continue
            what = re.sub(r"^Command returned\s+", "", m.group("what").strip())
            found.append(tool_finding("bgpd", dev, path, int(m.group("line")), f"{what}: {text}"))
        elif line.startswith("%") or BGPD_BAD.search(line):
            found.append(tool_finding("bgpd", dev, path, None, re.sub(r"^\S+ \S+ BGP: ", "", line)))
    return found


def frr_bgpd(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    """`bgpd -C -f FILE -u frr -g frr` (semantics: undefined peer-groups, neighbours without remote-as...).

    In a private namespace with a C compiler, one bgpd per chunk starts once and forks a child per file at the
    moment it opens its config (bgpd_batch.c): ~15 ms of CPU per file instead of ~60 ms of start-up each."""
    bgpd = require("bgpd")
    items = _files(files)
    if not items:
        return []
    command = [bgpd, "-C", "-u", "frr", "-g", "frr", "-f"]
    with tempfile.TemporaryDirectory(prefix="netauto-bgpd-", dir=memory_tmp()) as tmp:
        copies = _readable_copies(items, Path(tmp))
        index = list(range(len(items)))
        if tool_run.private_namespace_ok():
            shim = bgpd_batch.shim()

            def chunk(ids: Sequence[int]) -> list[tuple[int, str]]:
                paths = [copies[i] for i in ids]
                if shim is not None:
                    listing = Path(tmp) / f"batch-{ids[0]:05d}.list"
                    listing.write_text("".join(f"{p}\n" for p in paths))
                    listing.chmod(0o644)  # read by bgpd after it dropped to the frr user
                    try:
                        return tool_run._namespace_batch(bgpd_batch.command(bgpd, shim, listing, TIMEOUT_PER_FILE), paths,
                                                ["/var/tmp"], framed=True, pass_paths=False)
                    except RuntimeError:  # this bgpd did not open its config with fopen: one bgpd per file
                        pass
                return tool_run._namespace_batch(command, paths, ["/var/tmp"])

            size = IFUP_BATCH_CHUNK if shim is not None else CHUNK
            outputs = [o for part in _pool_map(chunk, _chunks(index, size, workers), workers) for o in part]
        else:
            def one(i: int) -> tuple[int, str]:
                litter = Path("/var/tmp/frr")
                existed = litter.exists()
                with process_slot():
                    proc = subprocess.Popen([*command, str(copies[i])], stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True, env=_env(),
                                            stdin=subprocess.DEVNULL, errors="replace")
                    out, _ = proc.communicate(timeout=TIMEOUT_PER_FILE)
                shutil.rmtree(litter / f"bgpd.{proc.pid}", ignore_errors=True)
                if not existed:
                    try:
                        litter.rmdir()
                    except OSError:
                        pass
                rc = proc.returncode
                return (128 - rc if rc < 0 else rc), out  # a signal as sh reports it

            outputs = _pool_map(one, index, workers)
    found = []
    for (dev, path), (rc, out) in zip(items, outputs):
        found += parse_bgpd_output(dev, str(path), out, rc)
    return found


def frr(files: Iterable[FileRef], *, workers: int | None = None) -> list[Finding]:
    """Both FRR checks: vtysh syntax and the bgpd -C semantic scan."""
    items = _files(files)
    return frr_vtysh(items, workers=workers) + frr_bgpd(items, workers=workers)
