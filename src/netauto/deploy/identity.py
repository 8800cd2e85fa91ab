"""A device belongs to one fabric. What names it on the device, in this order:

1. `/etc/netauto/fabric` (MARKER), written by `netauto deploy` when a push is confirmed and by `lab up`:
   a netauto file outside every NOS-managed tree (NVUE rewrites /etc/frr and /etc/network, SONiC owns
   /etc/sonic, so neither NVUE's schema nor SONiC's DEVICE_METADATA YANG has to carry it);
2. the header every text file netauto renders starts with (`... rendered by netauto from fabric <name>`:
   frr.conf, interfaces, startup.yaml, netplan, scripts). config_db.json (JSON) and NVUE's own files carry none.

deploy (dry-run and apply), drain/undrain, drift and backup refuse a device that another fabric names, or that
names none and holds files where netauto would write (a device netauto never pushed), unless `--adopt`: exit 1,
nothing changed. A device with none of those files (factory-fresh, nothing to lose) is not refused.

SONiC: an image upgrade migrates /etc/sonic but not /etc/netauto; its frr.conf header still names the fabric.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

from netauto.deploy import remote
from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target
from netauto.formats.fabric_marker import MARKER, header_fabric, marker_text, parse_marker

class ForeignDevice(StepFailed):
    """The device belongs to another fabric, or to none and holds content netauto did not write."""


@dataclass
class Claim:
    fabric: str | None  # the fabric the device names (None: none)
    where: str = ""  # the file that names it
    content: list[str] = field(default_factory=list)  # files netauto would write that exist (no fabric named)


def claim(found: dict[str, bytes | None]) -> Claim:
    """What the device's files say (MARKER first, then the headers of the rendered files)."""
    marker = found.get(MARKER)
    if marker is not None:
        return Claim(parse_marker(marker) or "<unreadable marker>", MARKER)
    for path, data in sorted(found.items()):
        name = header_fabric(data) if data else None
        if name:
            return Claim(name, path)
    return Claim(None, content=sorted(p for p, d in found.items() if p != MARKER and d))


def refusal(target: Target, found: Claim, adopt: bool) -> str | None:
    """The one-line refusal, or None when the device may be touched."""
    if found.fabric in target.fabric_names | {target.fabric} or adopt:
        return None
    if found.fabric is not None:
        return (f"{target.name} belongs to fabric {found.fabric} ({found.where}), not {target.fabric}: refused, "
                f"nothing changed (another fabric's inventory? `--adopt` moves the device to {target.fabric})")
    if not found.content:
        return None
    return (f"{target.name} names no netauto fabric but holds {', '.join(found.content[:4])}: refused, nothing "
            f"changed (`--adopt` if this is the first push of fabric {target.fabric} to it)")


def paths(target: Target) -> list[str]:
    return paths_for(target.files)


def paths_for(files: Iterable[str]) -> list[str]:
    """What names a device's fabric: the marker, then the files netauto writes there (their headers)."""
    return [MARKER, *sorted(files)]


def check_found(target: Target, found: dict[str, bytes | None], adopt: bool) -> Claim:
    """Raise ForeignDevice unless the device may be touched; returns what it claims."""
    got = claim({p: found.get(p) for p in paths(target)})
    problem = refusal(target, got, adopt)
    if problem:
        raise ForeignDevice(problem)
    return got


def check(session: DeviceSession, target: Target, adopt: bool) -> Claim:
    """One round trip: the marker and the files netauto renders for the device."""
    return check_found(target, remote.read_files(session, paths(target)), adopt)


def write_cmd(target: Target) -> str:
    """Shell: (re)write the marker (0644 in a 0755 folder), after a confirmed push."""
    return (f"mkdir -p {shlex.quote(MARKER.rsplit('/', 1)[0])} && printf '%s' {shlex.quote(marker_text(target.fabric))} "
            f"> {MARKER}.tmp && chmod 644 {MARKER}.tmp && mv -f {MARKER}.tmp {MARKER}")
