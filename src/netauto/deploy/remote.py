"""Device-side operations shared by dry-run, apply and rollback (all over a DeviceSession)."""

from __future__ import annotations

import base64
import io
import posixpath
import re
import shlex
import tarfile
from collections.abc import Iterable

from netauto.deploy.connection import FILE_LIMIT, OUTPUT_LIMIT, DeviceOutputTooLarge, DeviceSession
from netauto.errors import NetautoError

FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
_MARK = "__NETAUTO_FILE__"


class StepFailed(NetautoError):
    """A deploy step failed on the device; the message says which and why."""


Meta = tuple[int, str]  # a file's (permission bits, "user:group")


def read_files(session: DeviceSession, paths: Iterable[str]) -> dict[str, bytes | None]:
    """Every file in one round trip and one process on the device: `None` for a file that does not exist."""
    return read_files_meta(session, paths)[0]


def read_files_meta(session: DeviceSession, paths: Iterable[str]) -> tuple[dict[str, bytes | None],
                                                                           dict[str, Meta | None]]:
    """Every file's bytes and its mode and owner, in one round trip and one process on the device: `None` for a
    file that does not exist; no mode and owner for a symbolic link either (a link's own are not its file's).

    One exec channel runs `tar -c` over the files that exist (`[ -f ]`, the shell's builtin), preceded by
    one line saying which exist and which are links: tar frames each file with its size, mode, owner and a
    header checksum, reads the file once (its size and bytes agree; a file changing meanwhile makes tar fail),
    and costs one process for all files instead of one `base64` per file. A device without a usable tar gets
    the per-file script (`stat` and `base64` per file).
    """
    paths = list(paths)
    if not paths:
        return {}, {}
    try:
        return _read_files_tar(session, paths)
    except _NoTar:
        return _read_files_base64(session, paths)


class _NoTar(Exception):
    """tar missing or unusable on the device: read with the per-file base64 script instead."""


# per path: 0 missing (or not a regular file), 1 a regular file, 2 a symbolic link to one
_TAR_SCRIPT = ('e=; set --; for p in {quoted}; do if [ -f "$p" ]; then if [ -L "$p" ]; then e="${{e}}2"; '
               'else e="${{e}}1"; fi; set -- "$@" "$p"; else e="${{e}}0"; fi; done; printf "{mark} %s\\n" "$e"; '
               '[ $# -eq 0 ] || exec tar -c -h -P -b 1 -f - -- "$@"')


def _read_files_tar(session: DeviceSession, paths: list[str]) -> tuple[dict[str, bytes | None], dict[str, Meta | None]]:
    script = _TAR_SCRIPT.format(quoted=" ".join(shlex.quote(p) for p in paths), mark=_MARK)
    try:
        rc, raw, err = session.run_bytes(script, limit=min(OUTPUT_LIMIT, FILE_LIMIT * len(paths) + 2**16))
    except DeviceOutputTooLarge:
        shown = ", ".join(paths[:3]) + (f" (+{len(paths) - 3})" if len(paths) > 3 else "")
        raise DeviceOutputTooLarge(f"{shown}: more than {FILE_LIMIT // 2**20} MiB per file on the device: refused, "
                                   f"nothing read (fix: shrink or remove the file on the device)") from None
    head, sep, body = raw.partition(b"\n")
    words = head.decode(errors="replace").split()
    if not sep or len(words) != 2 or words[0] != _MARK or len(words[1]) != len(paths):
        raise StepFailed(f"reading files failed: {(err.strip() or head.decode(errors='replace'))[-300:]}")
    present = [(p, flag == "2") for p, flag in zip(paths, words[1]) if flag != "0"]
    if rc != 0:
        if rc == 127 or "tar" in err and ("not found" in err or "invalid option" in err or "unrecognized" in err):
            raise _NoTar()
        raise StepFailed(f"reading files failed (exit {rc}): {err.strip()[-300:]}")
    out: dict[str, bytes | None] = dict.fromkeys(paths)
    meta: dict[str, Meta | None] = dict.fromkeys(paths)
    if present:
        try:
            with tarfile.open(fileobj=io.BytesIO(body), mode="r:") as tar:
                members = tar.getmembers()
                if len(members) != len(present):
                    raise StepFailed(f"reading files failed: {len(members)} files in the archive for {len(present)}")
                for (path, link), member in zip(present, members):  # tar keeps the order of its arguments
                    if member.size > FILE_LIMIT:
                        raise DeviceOutputTooLarge(
                            f"{path}: {member.size} bytes on the device, more than the {FILE_LIMIT // 2**20} MiB "
                            f"netauto reads per file: refused (fix: shrink or remove it on the device)")
                    if _norm(member.name) != _norm(path):
                        raise StepFailed(f"reading files failed: archive member {member.name} for {path}")
                    handle = tar.extractfile(member)  # a hard link (same file twice) resolves to its data
                    if handle is None:
                        raise StepFailed(f"reading files failed: {path} is not a regular file in the archive")
                    out[path] = handle.read()
                    if not link:  # the header's names, as `stat -c %U:%G` prints them (the id without a name)
                        meta[path] = (member.mode, f"{member.uname or member.uid}:{member.gname or member.gid}")
        except tarfile.TarError as exc:
            raise StepFailed(f"reading files failed: unreadable archive ({exc})") from None
    return out, meta


def _norm(path: str) -> str:
    return posixpath.normpath(path).lstrip("/")


def _read_files_base64(session: DeviceSession, paths: list[str]) -> tuple[dict[str, bytes | None],
                                                                          dict[str, Meta | None]]:
    """Per file: the marker line, `stat`'s mode and owner line (`-` for a link or without stat), the base64 line;
    a missing file's one line is __MISSING__."""
    script = "; ".join(
        f"echo {_MARK} {q}; if [ -f {q} ]; then {{ [ ! -L {q} ] && stat -c '%a %U:%G' -- {q} || echo -; }}; "
        f"base64 -w0 {q}; echo; else echo __MISSING__; fi"
        for q in map(shlex.quote, paths)
    )
    res = session.run(script)
    if not res.ok:
        raise StepFailed(f"reading files failed: {res.stderr.strip()}")
    out: dict[str, bytes | None] = {}
    meta: dict[str, Meta | None] = dict.fromkeys(paths)
    lines = iter(res.stdout.splitlines())
    for line in lines:
        if not line.startswith(_MARK + " "):
            continue
        current = line[len(_MARK) + 1 :]
        first = next(lines, "__MISSING__")
        if first == "__MISSING__":
            out[current] = None
            continue
        bits, _, owner = first.partition(" ")
        if bits.isdigit() and owner:
            meta[current] = (int(bits, 8), owner)
        out[current] = base64.b64decode(next(lines, ""))
    missing = [p for p in paths if p not in out]
    if missing:
        raise StepFailed(f"could not read {missing}")
    return out, meta


def has_command(session: DeviceSession, *names: str) -> bool:
    """Every one of `names` is a command on the device (one round trip)."""
    return session.run(" && ".join(f"command -v {shlex.quote(n)} >/dev/null 2>&1" for n in names)).ok


def frr(session: DeviceSession, command: str) -> str:
    """`command` (vtysh, frr-reload.py) run where FRR runs: on the host, or in SONiC's bgp container."""
    return session.frr_exec + command


def set_gshut(session: DeviceSession, asn: int, on: bool) -> None:
    words = "bgp graceful-shutdown" if on else "no bgp graceful-shutdown"
    res = session.run(frr(session, f"vtysh -c 'configure terminal' -c 'router bgp {asn}' -c '{words}'"))
    if not res.ok or "%" in res.stdout:
        raise StepFailed(f"{words} failed: {(res.stdout + res.stderr).strip()}")


def frr_check(session: DeviceSession, path: str) -> None:
    """`vtysh --dryrun` (= -C): rc 2 and one stderr line per unknown/malformed line (lab-notes 5.1).

    The file goes in on stdin: where FRR runs in a container (SONiC) the host's stage dir is not visible.
    """
    res = session.run(frr(session, f"vtysh --dryrun -f /dev/stdin < {shlex.quote(path)}"))
    if not res.ok:
        raise StepFailed(f"vtysh --dryrun rejected {path}: {res.tail(500)}")


def ifupdown_check(session: DeviceSession, path: str) -> None:
    res = session.run(f"mkdir -p /run/network && ifup -a -s -i {shlex.quote(path)}")
    if not res.ok:
        raise StepFailed(f"ifup -s rejected {path}: {res.tail(500)}")


# frr-reload.py logs with `asctime  LEVEL: message`; with --stdout the log goes to stderr and what vtysh
# printed for the applied lines (a daemon's "% ..." refusal) to stdout. rc 0 does not mean every line
# was accepted (lab-notes G5): a refused value such as `set local-preference 99999999999` only shows as "%".
_LOG_ERROR = re.compile(r"^\d{4}-\d\d-\d\d [\d:,]+\s+(ERROR|CRITICAL):\s*(.*)$")


def reload_problems(stdout: str, stderr: str) -> list[str]:
    """Refused lines and errors in frr-reload.py's output (empty: everything was accepted)."""
    found = []
    for line in (stdout + "\n" + stderr).splitlines():
        text = line.strip()
        if text.startswith("%"):
            found.append(text)
            continue
        m = _LOG_ERROR.match(text)
        if m:
            found.append(f"{m.group(1)}: {m.group(2)}")
    return found


def frr_reload(session: DeviceSession, path: str) -> None:
    """Apply `path` (always the confdir's frr.conf: any other file makes frr-reload run `write`, G5)."""
    res = session.run(frr(session, f"{FRR_RELOAD} --reload --stdout {shlex.quote(path)}"), timeout=300)
    problems = reload_problems(res.stdout, res.stderr)
    if not res.ok or problems:
        detail = "; ".join(dict.fromkeys(problems[:5])) or (res.stderr.strip().splitlines() or [f"exit {res.rc}"])[-1]
        raise StepFailed(f"frr-reload: FRR refused the configuration (exit {res.rc}): {detail}")


def parse_reload_test(stdout: str) -> tuple[list[str], list[str]]:
    """(lines to delete, lines to add) from `frr-reload.py --test`, each line with its context joined by ' / '."""
    sections: dict[str, list[str]] = {"Lines To Delete": [], "Lines To Add": []}
    current: list[str] | None = None
    context: list[str] = []
    for raw in stdout.splitlines():
        stripped = raw.strip()
        if stripped in sections:
            current, context = sections[stripped], []
            continue
        if current is None or not stripped or set(stripped) == {"="}:
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        context = context[:depth] + [stripped]
        current.append(" / ".join(context))
    return sections["Lines To Delete"], sections["Lines To Add"]


def frr_pending(session: DeviceSession, path: str) -> tuple[list[str], list[str]]:
    """What frr-reload would still change so that the running config equals `path`: (deletes, adds)."""
    res = session.run(frr(session, f"{FRR_RELOAD} --test --stdout {shlex.quote(path)}"), timeout=300)
    if not res.ok:
        raise StepFailed(f"frr-reload --test failed: {res.tail(300)}")
    return parse_reload_test(res.stdout)


def running_config(session: DeviceSession) -> str:
    res = session.run(frr(session, "vtysh -c 'show running-config'"))
    if not res.ok:
        raise StepFailed(f"show running-config failed: {res.tail(300)}")
    return res.stdout


def frr_verify(session: DeviceSession, path: str) -> list[str]:
    """The running FRR config equals `path`. Returns the lines FRR accepts but never displays (defaults).

    frr-reload --test always lists such lines (with `frr defaults datacenter`: `timers bgp 3 9`,
    `neighbor X activate`) as "to add". A line is a hidden default, not a missing one, when applying the
    file once more leaves `show running-config` unchanged.
    """
    deletes, adds = frr_pending(session, path)
    if deletes:
        raise StepFailed(f"verify: the running FRR config has lines the intent does not: {deletes[:5]}")
    if not adds:
        return []
    before = running_config(session)
    frr_reload(session, path)
    if running_config(session) != before:
        raise StepFailed(f"verify: the running FRR config did not converge to the intent (pending: {adds[:5]})")
    return adds


def ifreload(session: DeviceSession) -> None:
    res = session.run("mkdir -p /run/network && ifreload -a", timeout=300)
    if not res.ok:
        raise StepFailed(f"ifreload -a failed: {res.tail(300)}")
