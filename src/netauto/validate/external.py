"""Run the real validators (FRR, ifupdown2, netplan, yanglint) on rendered files, in batches.

Every checker takes the files to check as `(device, path)` pairs and returns a list of `ToolFinding`;
an empty list means the tool accepted every file. When a tool is not installed the checker raises
`ToolMissing` (its message reads "vtysh not installed (...)") so a caller can report
"skipped: vtysh not installed" instead of a pass.

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

import bisect
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from netauto.cache import cache_dir
from netauto.validate import clean_cache
from netauto.validate.processes import memory_tmp, process_slot, usable_cpus
from netauto.validate.tool_path import FRR_LIBEXEC, SYSTEM_PATH, find_tool  # noqa: F401 - re-exported

NETPLAN_GENERATORS = ("/usr/libexec/netplan/generate", "/usr/lib/netplan/generate")
CHUNK = 32  # files per namespace shell for bgpd -C / ifup -s
IFUP_BATCH_CHUNK = 128  # files per preloaded ifupdown2 (ifup_batch.py: ~0.2 s to load, then a fork per file)
VTYSH_CHUNK = 64  # files per concatenated vtysh --dryrun
TIMEOUT_PER_FILE = 30  # seconds

INSTALL_HINT = {
    "vtysh": "apt-get install frr",
    "bgpd": "apt-get install frr",
    "ifup": "apt-get install ifupdown2",
    "ifquery": "apt-get install ifupdown2",
    "netplan": "apt-get install netplan.io",
    "yanglint": "apt-get install libyang-tools",
    "promtool": "apt-get install prometheus",
}

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
# Debian 12's ifupdown2 3.0.0 asks every VXLAN bridge port for `bridge-access`, also the single VXLAN device
# (`bridge-vlan-vni-map`, no access VLAN by design). Newer ifupdown2 exempts it: CumulusNetworks/ifupdown2
# addons/bridge.py `_error_vxlan_in_vlan_aware_br` returns early for ifaceLinkPrivFlags.SINGLE_VXLAN (commit
# 5c9c88cd). This warning is dropped for a stanza with bridge-vlan-vni-map only.
SINGLE_VXLAN_FALSE_POSITIVE = re.compile(r"`bridge-access` attribute is mandatory when vxlan device \((?P<dev>[^)]+)\)")
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

# Keywords of the Cumulus build of ifupdown2 (ethtool / clag addons) that Debian's `ifquery -s` lacks.
CUMULUS_IFUPDOWN_KEYWORDS = frozenset({
    "link-speed", "link-autoneg", "link-fec", "link-duplex", "link-lanes",
    "clag-id", "clagd-enable", "clagd-peer-ip", "clagd-backup-ip", "clagd-sys-mac", "clagd-priority",
    "clagd-args", "clagd-vxlan-anycast-ip",
    # mstpctl addon (needs mstpd; CL "Spanning Tree and Rapid Spanning Tree" page: PortAdminEdge, BPDU guard)
    "mstpctl-portadminedge", "mstpctl-bpduguard",
    # bridge priority on the bridge stanza (same page, "Spanning Tree Priority", Linux tab; the OOB aggregation root)
    "mstpctl-treeprio",
})
IFUPDOWN_STANZAS = ("iface", "auto", "allow-", "source", "source-directory", "mapping", "rename", "template")


@dataclass(frozen=True, slots=True)
class ToolFinding:
    tool: str  # "vtysh", "bgpd", "ifup", "ifupdown2-keywords", "netplan", "yanglint"
    device: str
    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.tool}: {self.message}"


class ToolMissing(RuntimeError):
    """The validator is not installed: report "skipped: <tool> not installed", never a pass."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        hint = INSTALL_HINT.get(tool)
        super().__init__(f"{tool} not installed" + (f" ({hint})" if hint else ""))


FileRef = tuple[str, "Path | str"]  # (device, path of the rendered file)


# ------------------------------------------------------------------ plumbing
def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = SYSTEM_PATH + (":" + env["PATH"] if env.get("PATH") else "")
    env["LC_ALL"] = "C"
    return env


def require(name: str) -> str:
    path = find_tool(name)
    if not path:
        raise ToolMissing(name)
    return path


def available(name: str) -> bool:
    return find_tool(name) is not None


def _workers(n: int | None) -> int:
    """Parallel validator processes: two per usable CPU (each waits on its child part of the time), at most 16."""
    return max(1, n or min(16, usable_cpus() * 2))


def _files(files: Iterable[FileRef]) -> list[tuple[str, Path]]:
    return [(dev, Path(p)) for dev, p in files]


def _run(cmd: Sequence[str], timeout: float = TIMEOUT_PER_FILE, *, long: bool = False) -> subprocess.CompletedProcess[str]:
    with process_slot(long=long):
        return subprocess.run(list(cmd), capture_output=True, text=True, env=_env(), timeout=timeout,
                              stdin=subprocess.DEVNULL, errors="replace")


def _pool_map(fn: Callable, items: Sequence, workers: int | None) -> list:
    if len(items) <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=min(_workers(workers), len(items))) as ex:
        return list(ex.map(fn, items))


def _chunks(items: Sequence, size: int, workers: int | None) -> list[Sequence]:
    # at least one chunk per worker, at most `size` files per chunk
    if not items:
        return []
    per = max(1, min(size, -(-len(items) // _workers(workers))))
    return [items[i:i + per] for i in range(0, len(items), per)]


@lru_cache(maxsize=1)
def private_namespace_ok() -> bool:
    """Can we run commands in a private mount namespace with tmpfs mounts (root + unshare)?"""
    unshare = shutil.which("unshare", path=SYSTEM_PATH)
    if not unshare or os.geteuid() != 0:
        return False
    try:
        r = subprocess.run([unshare, "--mount", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o mode=1777 netauto /var/tmp"],
                           capture_output=True, timeout=10, env=_env())
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


BEGIN, END = "@@NETAUTO-BEGIN@@", "@@NETAUTO-RC"


def _namespace_batch(command: Sequence[str], paths: Sequence[Path], tmpfs: Sequence[str],
                     *, framed: bool = False, pass_paths: bool = True, long: bool = False) -> list[tuple[int, str]]:
    """Run `command FILE` for each file in one private mount namespace; [(exit code, stdout+stderr)].
    `framed`: the command takes every file at once (as arguments, or without `pass_paths` from a list it was
    given) and prints the BEGIN/END framing itself."""
    mounts = []
    for target in tmpfs:
        q = shlex.quote(target)
        # a missing mount point (e.g. /run/network on a fresh box) is created on a tmpfs over its parent
        mounts.append(f"if [ ! -d {q} ]; then mount -t tmpfs -o mode=0755 netauto {shlex.quote(str(Path(target).parent))}"
                      f" && mkdir -p {q}; fi; mount -t tmpfs -o mode=1777 netauto {q} || exit 97")
    return _shell_batch(command, paths, mounts, framed=framed, unshare=True, pass_paths=pass_paths, long=long)


def _shell_batch(command: Sequence[str], paths: Sequence[Path | str], setup: Sequence[str] = (), *,  # noqa: PLR0913
                 framed: bool = False, unshare: bool = False, pass_paths: bool = True,
                 long: bool = False) -> list[tuple[int, str]]:
    """`command FILE` for each file, one shell looping over them (in a private mount namespace with `unshare`,
    after the `setup` shell commands); [(exit code, stdout+stderr)] per file, in order."""
    mounts = list(setup)
    cmd = " ".join(shlex.quote(c) for c in command)
    if framed:
        args = ' "$@"' if pass_paths else ""
        script = "; ".join(mounts) + f"; {cmd}{args} </dev/null 2>&1"
    else:
        script = "; ".join(mounts) + (
            f'; for f in "$@"; do printf "\\n{BEGIN}\\n"; {cmd} "$f" </dev/null 2>&1; '
            f'printf "\\n{END} %d@@\\n" $?; done'
        )
    script = script.lstrip("; ")
    prefix = ["unshare", "--mount", "--propagation", "private"] if unshare else []
    with process_slot(long=long):
        proc = subprocess.run([*prefix, "sh", "-c", script, "sh", *map(str, paths)], capture_output=True, text=True,
                              env=_env(), errors="replace", timeout=TIMEOUT_PER_FILE * max(1, len(paths)),
                              stdin=subprocess.DEVNULL)
    out = proc.stdout
    results: list[tuple[int, str]] = []
    for m in re.finditer(rf"{re.escape(BEGIN)}\n(.*?)\n{re.escape(END)} (\d+)@@", out, re.S):
        results.append((int(m.group(2)), m.group(1)))
    if len(results) != len(paths):
        raise RuntimeError(f"namespace batch failed (exit {proc.returncode}): {proc.stderr.strip() or out[-500:]}")
    return results


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


# ------------------------------------------------------------------ FRR
def frr_vtysh(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
    """`vtysh --dryrun -f FILE` (syntax: unknown or misspelled commands; exit 2 + "line N: % ...")."""
    vtysh = require("vtysh")
    items = _files(files)
    with tempfile.TemporaryDirectory(prefix="netauto-vtysh-") as cfg:
        (Path(cfg) / "vtysh.conf").write_text("")

        def one(item: tuple[str, Path]) -> list[ToolFinding]:
            dev, path = item
            r = _run([vtysh, "--dryrun", "--config_dir", cfg, "-f", str(path)])
            return _parse_vtysh(dev, path, r.returncode, r.stdout + r.stderr)

        def chunk(part: Sequence[tuple[str, Path]]) -> list[ToolFinding]:
            found = _vtysh_concatenated(vtysh, cfg, part)
            return found if found is not None else [f for item in part for f in one(item)]

        return [f for found in _pool_map(chunk, _chunks(items, VTYSH_CHUNK, workers), workers) for f in found]


# A top-level command: vtysh climbs back to the config node to run it, so no file inherits the node (interface,
# router bgp...) the previous file ended in. Dry-run only parses: the value is never applied.
VTYSH_SEPARATOR = "hostname netauto-file-boundary\n"


def _vtysh_concatenated(vtysh: str, cfg: str, part: Sequence[tuple[str, Path]]) -> list[ToolFinding] | None:
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
        found.append(ToolFinding("vtysh", dev, str(path), f.line - starts[i] + 1, f.message))
    return found


def _parse_vtysh(dev: str, path: Path, rc: int, output: str) -> list[ToolFinding]:
    found = []
    for raw in output.splitlines():
        m = re.match(r"\s*line (\d+):\s*(.*)$", raw)
        if m:
            found.append(ToolFinding("vtysh", dev, str(path), int(m.group(1)), m.group(2).strip()))
    if rc != 0 and not found:
        found.append(ToolFinding("vtysh", dev, str(path), None, f"exit {rc}: {output.strip()[:500]}"))
    return found


def parse_bgpd_output(dev: str, path: str, output: str, rc: int = 0) -> list[ToolFinding]:
    """bgpd -C exits 0 whatever the config says: errors are only in its log output. Any other exit code (128 + N:
    killed by signal N, e.g. an assertion's abort) is a finding of its own."""
    found = []
    if rc != 0:
        lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
        why = next((ln for ln in lines if BGPD_CRASH.search(ln)), lines[-1] if lines else "no output")
        what = f"killed by signal {rc - 128}" if rc > 128 else f"exit {rc}"
        why = re.sub(r"^\S+ \S+ BGP: ", "", why)[:300]
        found.append(ToolFinding("bgpd", dev, path, None, f"bgpd -C {what}: {why}"))
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
            found.append(ToolFinding("bgpd", dev, path, int(m.group("line")), f"{what}: {text}"))
        elif line.startswith("%") or BGPD_BAD.search(line):
            found.append(ToolFinding("bgpd", dev, path, None, re.sub(r"^\S+ \S+ BGP: ", "", line)))
    return found


def frr_bgpd(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
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
        if private_namespace_ok():
            from netauto.validate import bgpd_batch

            shim = bgpd_batch.shim()

            def chunk(ids: Sequence[int]) -> list[tuple[int, str]]:
                paths = [copies[i] for i in ids]
                if shim is not None:
                    listing = Path(tmp) / f"batch-{ids[0]:05d}.list"
                    listing.write_text("".join(f"{p}\n" for p in paths))
                    listing.chmod(0o644)  # read by bgpd after it dropped to the frr user
                    try:
                        return _namespace_batch(bgpd_batch.command(bgpd, shim, listing, TIMEOUT_PER_FILE), paths,
                                                ["/var/tmp"], framed=True, pass_paths=False)
                    except RuntimeError:  # this bgpd did not open its config with fopen: one bgpd per file
                        pass
                return _namespace_batch(command, paths, ["/var/tmp"])

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


def frr(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
    """Both FRR checks: vtysh syntax and the bgpd -C semantic scan."""
    items = _files(files)
    return frr_vtysh(items, workers=workers) + frr_bgpd(items, workers=workers)


# ------------------------------------------------------------------ ifupdown2
_ifup_lock = threading.Lock()
_IFUP_TRANSIENT = re.compile(r"recv\(\) error|netlink.*(?:timed out|error)", re.I)


def ifupdown2_syntax(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
    """`ifup -a -s -i FILE`: values of known attributes (bad prefixes, MTU range...)."""
    ifup = require("ifup")
    items = _files(files)
    if not items:
        return []
    command = [ifup, "-a", "-s", "-i"]
    if private_namespace_ok():
        batch = _ifup_batch_command()
        tmpfs = ["/run/network", "/var/tmp"]

        def chunk(part: Sequence[tuple[str, Path]]) -> list[tuple[int, str]]:
            paths = [p for _, p in part]
            if batch:
                try:
                    return _namespace_batch(batch, paths, tmpfs, framed=True, long=True)
                except RuntimeError:  # this ifupdown2 cannot be preloaded: one process per file
                    pass
            return _namespace_batch(command, paths, tmpfs)

        size = IFUP_BATCH_CHUNK if batch else CHUNK
        outputs = [o for part in _pool_map(chunk, _chunks(items, size, workers), workers) for o in part]
        # ifupdown2 talks netlink even in syntax-check mode; on a loaded box that socket can fail
        # (`recv() error: [Errno 22]`), which says nothing about the file: run those files again
        for attempt in range(3):
            flaky = [i for i, (_, out) in enumerate(outputs) if _IFUP_TRANSIENT.search(out)]
            if not flaky:
                break
            time.sleep(0.2 * (attempt + 1))
            again = _namespace_batch(command, [items[i][1] for i in flaky], tmpfs)
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
            found.append(ToolFinding("ifup", dev, str(path), _ifupdown_line(path, msg), msg))
        if rc != 0 and not told:
            found.append(ToolFinding("ifup", dev, str(path), None, f"exit {rc}: {' | '.join(lines)[:500]}"))
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


@lru_cache(maxsize=1)
def ifupdown2_keyword_catalogue() -> frozenset[str]:
    """Every attribute keyword of the installed ifupdown2 (`ifquery -s -o json`), aliases included.

    `ifquery -s` costs ~0.4 s of CPU, most of a one-leaf re-validation's ifupdown2 time: its answer is kept beside
    validate's clean-run cache, keyed like it by the installed tools' identity (a package upgrade asks again)."""
    ifquery = require("ifquery")
    store = None
    if clean_cache.enabled():
        store = cache_dir("validate") / f"ifquery-{clean_cache.tool_identity(('ifquery',))}.keywords"
        known = clean_cache.read_words(store)
        if known:
            return frozenset(known)
    keywords = _ifquery_keywords(ifquery)
    if store is not None and keywords:
        clean_cache.write_keys(store, sorted(keywords))
    return keywords


def _ifquery_keywords(ifquery: str) -> frozenset[str]:
    r = _run([ifquery, "-s", "-o", "json"], timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"ifquery -s -o json failed (exit {r.returncode}): {r.stderr.strip()[:300]}")
    data = json.loads(r.stdout)
    keywords: set[str] = set()
    for module in data.values():
        for attr, info in (module.get("attrs") or {}).items():
            keywords.add(attr)
            if isinstance(info, dict):
                keywords.update(info.get("aliases") or [])
    return frozenset(keywords)


def ifupdown2_keywords(files: Iterable[FileRef], *, extra: Iterable[str] = CUMULUS_IFUPDOWN_KEYWORDS,
                       catalogue: Iterable[str] | None = None) -> list[ToolFinding]:
    """Every attribute keyword must be known (`ifup -s` silently accepts `mtuu 9216`)."""
    known = set(catalogue if catalogue is not None else ifupdown2_keyword_catalogue()) | set(extra)
    found = []
    for dev, path in _files(files):
        in_iface = False
        for n, raw in enumerate(path.read_text(errors="replace").splitlines(), 1):
            words = raw.split()
            if not words or words[0].startswith("#"):
                continue
            if not raw[0].isspace() and words[0].startswith(IFUPDOWN_STANZAS):
                in_iface = words[0] in ("iface", "template", "mapping")
                continue
            if not in_iface:
                found.append(ToolFinding("ifupdown2-keywords", dev, str(path), n, f"unexpected line outside a stanza: {raw.strip()}"))
            elif words[0] not in known:
                found.append(ToolFinding("ifupdown2-keywords", dev, str(path), n,
                                         f"unknown keyword {words[0]!r} (not in `ifquery --syntax-help` nor the Cumulus whitelist)"))
    return found


def ifupdown2(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
    items = _files(files)
    return ifupdown2_syntax(items, workers=workers) + ifupdown2_keywords(items)


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


def netplan_generate(files: Iterable[FileRef], *, workers: int | None = None) -> list[ToolFinding]:
    """`netplan generate --root-dir ROOT` with one root per server (files in ROOT/etc/netplan/).

    The C generator behind `netplan generate` is called directly when present (16 ms instead of
    200 ms of Python start-up per server); it is the same program and the same messages. The roots live in
    RAM when possible (`memory_tmp`): the generator fsyncs its output. It runs with udevadm and systemctl
    stubbed out where a private mount namespace is available (`NETPLAN_HOST_STUBS`).
    """
    generator = next((g for g in NETPLAN_GENERATORS if os.access(g, os.X_OK)), None)
    command = [generator, "--root-dir"] if generator else [require("netplan"), "generate", "--root-dir"]
    items = _files(files)
    found: list[ToolFinding] = []
    with tempfile.TemporaryDirectory(prefix="netauto-netplan-", dir=memory_tmp()) as tmp:
        roots = []
        for i, (_, path) in enumerate(items):
            root = Path(tmp) / f"{i:05d}"
            (root / "etc/netplan").mkdir(parents=True)
            shutil.copyfile(path, root / "etc/netplan" / path.name)
            (root / "etc/netplan" / path.name).chmod(0o600)
            roots.append(root)
        index = list(range(len(items)))

        isolated = private_namespace_ok()

        def chunk(ids: Sequence[int]) -> list[tuple[int, str]]:  # one shell per chunk: no Python per server
            return _shell_batch(command, [roots[i] for i in ids], NETPLAN_HOST_STUBS if isolated else (),
                                unshare=isolated)

        outputs = [o for part in _pool_map(chunk, _chunks(index, CHUNK, workers), workers) for o in part]
    for (dev, path), root, (rc, out) in zip(items, roots, outputs):
        out = out.replace(str(root / "etc/netplan" / path.name), str(path))
        res = []
        for m in re.finditer(rf"^{re.escape(str(path))}:(\d+):(\d+): (.*)$", out, re.M):
            res.append(ToolFinding("netplan", dev, str(path), int(m.group(1)), f"col {m.group(2)}: {m.group(3)}"))
        if rc != 0 and not res:
            res.append(ToolFinding("netplan", dev, str(path), None, f"exit {rc}: {out.strip()[:500]}"))
        found += res
    return found


# ------------------------------------------------------------------ yanglint
def yanglint(json_file: Path | str, yang_dir: Path | str, *, modules: Iterable[str] | None = None,
             device: str = "") -> list[ToolFinding]:
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
        found.append(ToolFinding("yanglint", device, str(json_file), int(line.group(1)) if line else None, msg))
    if r.returncode != 0 and not found:
        found.append(ToolFinding("yanglint", device, str(json_file), None,
                                 f"exit {r.returncode}: {(r.stderr or r.stdout).strip()[:500]}"))
    return found


# ------------------------------------------------------------------ helpers for callers
def rendered_files(out_dir: Path | str, relpath: str) -> list[tuple[str, Path]]:
    """`(device, file)` for every `<out_dir>/<device>/<relpath>` (out_dir = one fabric's output)."""
    out_dir = Path(out_dir)
    return [(d.name, d / relpath) for d in sorted(out_dir.iterdir()) if (d / relpath).is_file()]
