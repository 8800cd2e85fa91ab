"""Device-side operations shared by dry-run, apply and rollback (all over a DeviceSession)."""

from __future__ import annotations

import base64
import json
import re
import shlex
import time
from collections.abc import Iterable

from netauto.deploy.connection import DeviceSession
from netauto.errors import NetautoError

FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
_MARK = "__NETAUTO_FILE__"


class StepFailed(NetautoError):
    """A deploy step failed on the device; the message says which and why."""


def read_files(session: DeviceSession, paths: Iterable[str]) -> dict[str, bytes | None]:
    """Every file in one round trip: `None` for a file that does not exist."""
    paths = list(paths)
    script = "; ".join(
        f"echo {_MARK} {shlex.quote(p)}; if [ -f {shlex.quote(p)} ]; then base64 -w0 {shlex.quote(p)}; echo; "
        f"else echo __MISSING__; fi"
        for p in paths
    )
    res = session.run(script)
    if not res.ok:
        raise StepFailed(f"reading files failed: {res.stderr.strip()}")
    out: dict[str, bytes | None] = {}
    current = None
    for line in res.stdout.splitlines():
        if line.startswith(_MARK + " "):
            current = line[len(_MARK) + 1 :]
        elif current is not None:
            out[current] = None if line == "__MISSING__" else base64.b64decode(line)
            current = None
    missing = [p for p in paths if p not in out]
    if missing:
        raise StepFailed(f"could not read {missing}")
    return out


def has_command(session: DeviceSession, name: str) -> bool:
    return session.run(f"command -v {shlex.quote(name)} >/dev/null 2>&1").ok


def set_gshut(session: DeviceSession, asn: int, on: bool) -> None:
    words = "bgp graceful-shutdown" if on else "no bgp graceful-shutdown"
    res = session.run(f"vtysh -c 'configure terminal' -c 'router bgp {asn}' -c '{words}'")
    if not res.ok or "%" in res.stdout:
        raise StepFailed(f"{words} failed: {(res.stdout + res.stderr).strip()}")


def frr_check(session: DeviceSession, path: str) -> None:
    res = session.run(f"vtysh --dryrun -f {shlex.quote(path)}")
    if not res.ok:
        raise StepFailed(f"vtysh --dryrun rejected {path}: {(res.stdout + res.stderr).strip()}")


def ifupdown_check(session: DeviceSession, path: str) -> None:
    res = session.run(f"mkdir -p /run/network && ifup -a -s -i {shlex.quote(path)}")
    if not res.ok:
        raise StepFailed(f"ifup -s rejected {path}: {(res.stdout + res.stderr).strip()}")


_REJECTED = re.compile(r"^\s*(%|.*(Failed|ERROR|error:)).*$", re.MULTILINE)


def frr_reload(session: DeviceSession, path: str) -> None:
    """frr-reload.py exits 0 even when vtysh rejected lines: read its output as well."""
    res = session.run(f"{FRR_RELOAD} --reload --stdout {shlex.quote(path)}", timeout=300)
    rejected = [m.group(0).strip() for m in _REJECTED.finditer(res.stdout + "\n" + res.stderr)]
    rejected = [line for line in rejected if "Failed to" not in line or "vtysh" in line or "%" in line]
    if not res.ok or rejected:
        detail = "; ".join(rejected[:5]) or (res.stderr.strip().splitlines() or ["exit " + str(res.rc)])[-1]
        raise StepFailed(f"frr-reload rejected the configuration: {detail}")


def frr_pending(session: DeviceSession, path: str) -> list[str]:
    """Lines frr-reload would still change to make the running config equal `path` (empty: in sync)."""
    res = session.run(f"{FRR_RELOAD} --test --stdout {shlex.quote(path)}", timeout=300)
    if not res.ok:
        raise StepFailed(f"frr-reload --test failed: {(res.stdout + res.stderr).strip()[-300:]}")
    pending, collecting = [], False
    for line in res.stdout.splitlines():
        stripped = line.strip()
        if stripped in ("Lines To Delete", "Lines To Add"):
            collecting = True
            continue
        if not stripped or set(stripped) == {"="}:
            continue
        if collecting and not stripped.startswith(("Loading", "frr-reload", "[")):
            pending.append(stripped)
    return pending


def ifreload(session: DeviceSession) -> None:
    res = session.run("mkdir -p /run/network && ifreload -a", timeout=300)
    if not res.ok:
        raise StepFailed(f"ifreload -a failed: {(res.stdout + res.stderr).strip()[-300:]}")


def established_sessions(session: DeviceSession) -> int:
    res = session.run("vtysh -c 'show bgp summary json'")
    if not res.ok:
        return 0
    try:
        data = json.loads(res.stdout or "{}")
    except ValueError:
        return 0
    peers = data.get("ipv4Unicast", {}).get("peers", {})
    return sum(1 for p in peers.values() if p.get("state") == "Established")


def wait_sessions(session: DeviceSession, expected: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    count = established_sessions(session)
    while count < expected and time.monotonic() < deadline:
        time.sleep(1.0)
        count = established_sessions(session)
    return count


def routes_via(session: DeviceSession, ports: set[str]) -> tuple[int, int]:
    """(routes that still share ECMP with a path through `ports`, routes whose only path is through them)."""
    res = session.run("vtysh -c 'show ip route bgp json'")
    if not res.ok:
        raise StepFailed(f"show ip route failed: {res.stderr.strip()}")
    mixed = only = 0
    for entries in json.loads(res.stdout or "{}").values():
        for entry in entries:
            if not entry.get("installed") and not entry.get("selected"):
                continue
            hops = [h.get("interfaceName") for h in entry.get("nexthops", []) if h.get("active")]
            via = [h for h in hops if h in ports]
            if via and len(via) < len(hops):
                mixed += 1
            elif via:
                only += 1
    return mixed, only
