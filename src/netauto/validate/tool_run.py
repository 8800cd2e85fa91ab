"""Running the real validators: finding a tool, and running many files through one process or one shell (in a
private mount namespace where possible) without exceeding the CPUs. What a checker reports: findings.tool_finding.

The checkers themselves: validate.tool_frr (vtysh, bgpd), validate.tool_ifupdown (ifup -s),
validate.ifupdown_keywords (the ifupdown2 keyword catalogue), validate.external (netplan, yanglint, and the
entry points validate's runner calls). Why batches, namespaces and process slots: validate.external.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

from netauto.validate.processes import process_slot, usable_cpus
from netauto.validate.tool_path import SYSTEM_PATH, find_tool

CHUNK = 32  # files per namespace shell for bgpd -C / ifup -s
IFUP_BATCH_CHUNK = 128  # files per preloaded ifupdown2 (ifup_batch.py: ~0.2 s to load, then a fork per file)
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


def rendered_files(out_dir: Path | str, relpath: str) -> list[tuple[str, Path]]:
    """`(device, file)` for every `<out_dir>/<device>/<relpath>` (out_dir = one fabric's output)."""
    out_dir = Path(out_dir)
    return [(d.name, d / relpath) for d in sorted(out_dir.iterdir()) if (d / relpath).is_file()]
