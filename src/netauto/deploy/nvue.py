"""Cumulus Linux 5.x with NVUE in charge (`--cumulus-mode nvue`, the default for real switches).

NVUE owns the Linux files: `nv config apply` regenerates /etc/frr/frr.conf, /etc/network/interfaces, the
QoS and switchd files and removes manual edits (CL 5.15 user guide, "NVUE CLI": "Configuration Files that
NVUE Manages"). So in this mode deploy owns NVUE's configuration only, never those files:

    diff      `nv config show -o yaml` (the applied configuration), the subtrees netauto owns, vs the intent
    document  the device's applied configuration with netauto's subtrees replaced: everything else (users,
              SSH, control-plane ACLs, the mgmt VRF, NTP/DNS/syslog...) is kept, so a replace can never lock
              the operator out by dropping NVUE's baseline
    check     `nv config replace <document>` + `nv config diff`, then `nv config detach` (nothing applied)
    drain     `nv set router bgp graceful-shutdown on|enabled` + `nv config apply -y` (NVUE's own gshut: a
              vtysh drain would be removed by NVUE's next apply)
    apply     `nv config replace <drained document>` + `nv config apply -y --confirm <T>s` (NVUE's confirm
              timer), sessions, `nv config apply --confirm-yes`, undrain by applying the document itself
    verify    `nv config show -o yaml` again: netauto's subtrees equal the intent
    rollback  `nv config replace <backup of the applied config>` + `nv config apply -y` (also the on-device
              watchdog's rollback.sh, with `--confirm-no` first for an unconfirmed apply)

No NVUE exists on this machine: the lab tests drive a stand-in `nv` that records its calls and answers in
NVUE's documented output formats (tests/nv_standin.py). None of this has run against a real NVUE: it is
tested up to that boundary, not verified.

The facts (files per mode, owned and baseline subtrees, spelling per release) come from netauto.platforms.nos.
Everything outside the owned subtrees is carried over from the device, a superset of nos' baseline paths.
"""

from __future__ import annotations

import copy
import shlex
from typing import Any

import yaml

from netauto.deploy.connection import DeviceSession
from netauto.deploy.redact import unified_diff
from netauto.deploy.remote import StepFailed
from netauto.errors import NetautoError
from netauto.platforms import nos
from netauto.formats.nvue import NvueDocument, NvueError, dig, parse_document

STARTUP = "/" + nos.cumulus_path("nvue")
DIFF_KEY = "nv config (applied)"  # the key of the NVUE diff in a result's `diff`

# The parts of NVUE's `set` tree that netauto renders and therefore owns (replaced, stale entries removed);
# everything else in the device's applied configuration is kept as it is.
OWNED: tuple[tuple[str, ...], ...] = nos.nvue_owned_paths()


def gshut_value(version: tuple[int, int] | None) -> str:
    """`router bgp graceful-shutdown` as this release spells a flag (`on` up to 5.14, `enabled` from 5.15:
    platforms.nos). A release netauto does not support is refused (its spelling is unknown)."""
    release = f"{version[0]}.{version[1]}" if version else nos.cumulus_releases()[-1]
    try:
        return nos.nvue_spelling(release).flag_on
    except NetautoError as exc:
        raise StepFailed(f"NVUE drain: {exc}") from None


def confirm_arg(seconds: float) -> str:
    """`nv config apply --confirm <time>` takes a unit (CL 5.15 NVUE CLI page: `--confirm 60m`)."""
    return f"{max(1, int(seconds))}s"


CONFIRM_YES = "nv config apply --confirm-yes"  # keep an applied --confirm revision
CONFIRM_NO = "nv config apply --confirm-no"  # revert it now


NvDoc = NvueDocument  # the document deploy reads and writes is the one formats.nvue parses


def parse(text: str, where: str) -> NvDoc:
    """`nv config show -o yaml` or a startup.yaml, read as validate reads it (formats.nvue: YAML 1.2 booleans,
    `on`/`off` stay strings); a document without any `set` is not a configuration to deploy or keep."""
    try:
        doc = parse_document(text)
    except NvueError as exc:
        raise StepFailed(f"{where}: {str(exc).splitlines()[0]}") from None
    if not doc.set and not doc.header:
        raise StepFailed(f"{where}: no NVUE configuration (expected `- set:`)")
    return doc


def _get(tree: dict[str, Any], path: tuple[str, ...]) -> Any:
    return dig(tree, *path)


def _put(tree: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = tree
    for key in path[:-1]:
        node = node.setdefault(key, {})
    if value is None:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = copy.deepcopy(value)


def owned_view(tree: dict[str, Any]) -> dict[str, Any]:
    """Only the subtrees netauto owns (for the diff and the verify)."""
    view: dict[str, Any] = {}
    for path in OWNED:
        value = _get(tree, path)
        if value is not None:
            _put(view, path, value)
    return view


def merge(applied: dict[str, Any], intent: dict[str, Any]) -> dict[str, Any]:
    """The device's applied tree with netauto's subtrees replaced by the intent's (absent: removed)."""
    out = copy.deepcopy(applied)
    for path in OWNED:
        _put(out, path, _get(intent, path))
    return out


def drained(tree: dict[str, Any], version: tuple[int, int] | None) -> dict[str, Any]:
    out = copy.deepcopy(tree)
    _put(out, ("router", "bgp", "graceful-shutdown"), gshut_value(version))
    return out


def dump(tree: dict[str, Any]) -> str:
    return yaml.safe_dump(tree, sort_keys=True, default_flow_style=False)


def diff(applied: dict[str, Any], intent: dict[str, Any]) -> str:
    """Unified diff of netauto's subtrees, applied vs intent (secrets redacted); empty: nothing to do."""
    old, new = dump(owned_view(applied)), dump(owned_view(intent))
    if old == new:
        return ""
    return unified_diff(old, new, "nvue-applied:owned subtrees", f"intent:{STARTUP}")


def differing_paths(applied: dict[str, Any], intent: dict[str, Any]) -> list[str]:
    return [" ".join(p) for p in OWNED if _get(applied, p) != _get(intent, p)]


def show_applied(session: DeviceSession) -> NvDoc:
    res = session.run("nv config show -o yaml", timeout=300)
    if not res.ok:
        raise StepFailed(f"nv config show failed: {res.tail(300)}")
    return parse(res.stdout, "nv config show -o yaml")


def run(session: DeviceSession, command: str, timeout: float = 600) -> str:
    res = session.run(command, timeout=timeout)
    if not res.ok:
        raise StepFailed(f"{command} failed: {res.tail(300)}")
    return res.stdout


def check(session: DeviceSession, document: str) -> str:
    """NVUE parses and validates the document as a pending revision; nothing is applied (detached after)."""
    try:
        run(session, f"nv config replace {shlex.quote(document)}")
        return run(session, "nv config diff -o yaml")
    finally:
        session.run("nv config detach")


def rollback_script(stage: str) -> str:
    """The watchdog's and the push's rollback: drop an unconfirmed apply, then the backup, applied."""
    s = shlex.quote(stage)
    return "\n".join([
        "#!/bin/sh",
        "# netauto NVUE rollback: the applied configuration from before the push",
        "exec 2>&1",
        f"{CONFIRM_NO} 2>/dev/null",
        "nv config detach 2>/dev/null",
        f"nv config replace {s}/backup.yaml && nv config apply -y",
        f"touch {s}/rolled-back",
        "",
    ])


def check_before_script(stage: str) -> str:
    """For the watchdog: after the rollback, the backup staged again shows no difference to the applied one."""
    s = shlex.quote(stage)
    return (f"#!/bin/sh\nnv config replace {s}/backup.yaml || exit 1\nd=$(nv config diff)\nnv config detach\n"
            f'[ -z "$d" ] || [ "$d" = "[]" ] || {{ echo "applied differs from the backup: $d"; exit 1; }}\n')
