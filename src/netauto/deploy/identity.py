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

A name can be copied: another fabric's inventory renamed to this one's would pass on the name alone. So the
first deploy records a random fabric id (`fid-` + 32 hex) in the inventory folder (ID_FILE, `fabric-id`, to be
committed with it) and a confirmed push writes it into the marker (`id=...`). A device whose marker records an
id is refused to an inventory with another id, or with none, unless `--adopt` (which rewrites the marker with
this inventory's id). A marker without an id (written by `lab up`, or before ids) is judged by the name, and the
next confirmed push adds the id. The id guards against the wrong inventory, not against someone who holds the
SSH credentials (the refusal names the id).
"""

from __future__ import annotations

import os
import secrets
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from netauto.deploy import remote
from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target
from netauto.errors import NetautoError
from netauto.formats.fabric_marker import FABRIC_ID, MARKER, header_fabric, marker_text, parse_marker, parse_marker_id
from netauto.reading import read_bounded

ID_FILE = "fabric-id"  # in the inventory folder (beside a one-file inventory: <file>.fabric-id)

class ForeignDevice(StepFailed):
    """The device belongs to another fabric, or to none and holds content netauto did not write."""


@dataclass
class Claim:
    fabric: str | None  # the fabric the device names (None: none)
    where: str = ""  # the file that names it
    content: list[str] = field(default_factory=list)  # files netauto would write that exist (no fabric named)
    fabric_id: str | None = None  # the id the marker records (None: none recorded)


def claim(found: dict[str, bytes | None]) -> Claim:
    """What the device's files say (MARKER first, then the headers of the rendered files)."""
    marker = found.get(MARKER)
    if marker is not None:
        return Claim(parse_marker(marker) or "<unreadable marker>", MARKER, fabric_id=parse_marker_id(marker))
    for path, data in sorted(found.items()):
        name = header_fabric(data) if data else None
        if name:
            return Claim(name, path)
    return Claim(None, content=sorted(p for p, d in found.items() if p != MARKER and d))


def refusal(target: Target, found: Claim, adopt: bool) -> str | None:
    """The one-line refusal, or None when the device may be touched."""
    if adopt:
        return None
    if found.fabric in target.fabric_names | {target.fabric}:
        return _id_refusal(target, found)
    if found.fabric is not None:
        return (f"{target.name} belongs to fabric {found.fabric} ({found.where}), not {target.fabric}: refused, "
                f"nothing changed (another fabric's inventory? `--adopt` moves the device to {target.fabric})")
    if not found.content:
        return None
    return (f"{target.name} names no netauto fabric but holds {', '.join(found.content[:4])}: refused, nothing "
            f"changed (`--adopt` if this is the first push of fabric {target.fabric} to it)")


def _id_refusal(target: Target, found: Claim) -> str | None:
    """Same name: the marker's id (if it records one) must be the inventory's."""
    if found.fabric_id is None or found.fabric_id == target.fabric_id:
        return None
    mine = f"id {target.fabric_id}" if target.fabric_id else "no fabric id yet"
    return (f"{target.name} belongs to fabric {found.fabric} id {found.fabric_id} ({MARKER}), this inventory is "
            f"{target.fabric} with {mine} ({target.fabric_id_file or ID_FILE}): refused, nothing changed (another "
            f"fabric's inventory under the same name? deploy from the inventory that recorded {found.fabric_id}; "
            f"`--adopt` moves the device to this inventory)")


def id_file(inventory: Path) -> Path:
    return inventory / ID_FILE if inventory.is_dir() else inventory.with_name(inventory.name + "." + ID_FILE)


def read_id(inventory: Path) -> str | None:
    """The inventory's fabric id, or None before its first deploy; anything else in the file: one line, exit 2."""
    path = id_file(inventory)
    if not path.exists():
        return None
    text = read_bounded(path, 256, InventoryIdError, fix_unreadable="check its permissions",
                        fix_large="restore it from version control",
                        kind="a fabric id").strip()
    if not FABRIC_ID.fullmatch(text):
        raise InventoryIdError(f"{path}: not a fabric id (fid-<32 hex digits>) (fix: restore it from version "
                               f"control, or delete it if no device was ever deployed from this inventory)")
    return text


def record_id(inventory: Path) -> tuple[str, bool]:
    """(the inventory's fabric id, whether it was made now): made at the first deploy, O_EXCL, 0644."""
    found = read_id(inventory)
    if found:
        return found, False
    new, path = f"fid-{secrets.token_hex(16)}", id_file(inventory)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        return read_id(inventory) or new, False  # a concurrent first deploy made it: read_id refuses a bad one
    except OSError as exc:
        raise InventoryIdError(f"{path}: cannot record the fabric id: {exc.strerror} (fix: make the inventory "
                               f"folder writable for the first deploy, or write one line fid-<32 hex digits> "
                               f"there and commit it)") from None
    with os.fdopen(fd, "w") as handle:
        handle.write(new + "\n")
    return new, True


def attach_id(targets: Mapping[str, Target], inventory: Path, fabric_id: str | None) -> None:
    for target in targets.values():
        target.fabric_id, target.fabric_id_file = fabric_id, str(id_file(inventory))


class InventoryIdError(NetautoError):
    """The inventory's fabric-id file is unreadable or not an id: bad input."""

    exit_code = 2


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
    text = marker_text(target.fabric, target.fabric_id)
    return (f"mkdir -p {shlex.quote(MARKER.rsplit('/', 1)[0])} && printf '%s' {shlex.quote(text)} "
            f"> {MARKER}.tmp && chmod 644 {MARKER}.tmp && mv -f {MARKER}.tmp {MARKER}")
