"""Steps every apply strategy shares: read and diff files, stage, hash guards, install, arm the on-device
watchdog, confirm, roll back with proof, and the BGP session post-check."""

from __future__ import annotations

import hashlib
import shlex
import time

from netauto.deploy import boot_unit, devstate, file_modes, remote, sessions, sonic_db
from netauto.deploy.connection import DeviceSession, install_cmd
from netauto.deploy.push import QOS_INFRA, SONIC_DB, SWITCHD_CONF, Interrupted, Push, Read, unified
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target
from netauto.formats import kv


def expected_files(target: Target, running: dict[str, bytes | None]) -> dict[str, bytes]:
    """What each file must hold after the push: the rendered intent, except a SONiC config_db.json, which is
    the switch's own with netauto's tables replaced (see sonic_db), and a Cumulus qos_infra.conf or
    switchd.conf, which is the platform's own with netauto's keys set (platform_kv_file)."""
    out = {}
    for path, art in target.files.items():
        if path == SONIC_DB:
            out[path] = sonic_db.expected_file(running.get(path), art.content)
        elif path in (QOS_INFRA, SWITCHD_CONF):
            out[path] = platform_kv_file(running.get(path), art.content)
        else:
            out[path] = art.content.encode()
    return out


def platform_kv_file(running: bytes | None, intent: str) -> bytes:
    """/etc/mlx/datapath/qos/qos_infra.conf holds the whole ASIC's buffer and pool allocation, written by the
    platform (CL 5.x QoS page: "qos_infra.conf includes all platform specific configurations, such as buffer
    allocations"), /etc/cumulus/switchd.conf every switchd setting: the push keeps every line of the switch's
    file and sets only the keys netauto renders (the lossless pool and the egress queue map; the PFC watchdog's
    interval and robustness), so the diff is key by key. No file on the switch: the rendered keys."""
    if running is None:
        return intent.encode()
    return kv.set_keys(running.decode(errors="replace"), kv.parse_kv(intent)).encode()


def diffs(running: dict[str, bytes | None], expected: dict[str, bytes], device: str = "") -> dict[str, str]:
    return {p: unified(p, running[p], data, device) for p, data in sorted(expected.items()) if running[p] != data}


def read_files(session: DeviceSession, target: Target, extra: list[str] | None = None) -> tuple[Read, dict]:
    """Running files, what they must become, the diffs, and the lab guard file: one round trip. `extra`
    paths are read in the same trip and returned apart (path -> bytes | None)."""
    extra = extra or []
    paths = sorted(target.files) + ([target.guard] if target.guard else []) + extra
    running, meta = remote.read_files_meta(session, paths)
    guard = running.pop(target.guard) if target.guard else None
    others = {p: running.pop(p) for p in extra}
    expected = expected_files(target, running)
    return Read(running, expected, file_modes.with_modes(target, meta, diffs(running, expected, target.name)),
                guard), others


def check_guard(target: Target, found: bytes | None) -> None:
    """Lab: refuse to write unless this node's /etc is private and it is the node we think it is."""
    if target.guard and (found is None or found.decode(errors="replace").strip() != target.name):
        raise StepFailed(f"refusing to write: {target.guard} does not name {target.name} on {target.host} "
                         f"(lab node without a private /etc, or the wrong node)")


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def hash_script(allowed: dict[str, set[str | None]], what: str) -> str:
    """Shell: exit 1 (naming the files) unless every file hashes to one of its allowed values."""
    lines = ["#!/bin/sh", "bad=0"]
    lines += [devstate.hash_case(p, hashes, f"echo {shlex.quote(f'{what}: {p}')}; bad=1")
              for p, hashes in sorted(allowed.items())]
    return "\n".join([*lines, "exit $bad", ""])


def stage_files(push: Push, extra: dict[str, bytes] | None = None,
                allowed_extra: dict[str, set[str | None]] | None = None) -> dict[str, bytes]:
    """A file-based push's stage dir: the intent of each changed file, the hash guards, the watchdog."""
    read = push.read
    assert read is not None
    stage = push.stage
    files = {f"{stage}/intent{p}": read.expected[p] for p in read.diffs}
    files.update(extra or {})
    files[f"{stage}/guard.sh"] = guard_script(read, allowed_extra)
    files[f"{stage}/check-before.sh"] = hash_script({p: {sha(d)} for p, d in read.before.items()},
                                                    "not as before").encode()
    files[f"{stage}/watchdog.sh"] = devstate.watchdog_script(stage, push.opts.run.run, push.target.name).encode()
    return files


def guard_script(read: Read, allowed_extra: dict[str, set[str | None]] | None = None) -> bytes:
    """guard.sh: each changed file still holds what it held before or what this push installs (or one of
    `allowed_extra`), else the watchdog must not restore over someone else's change."""
    allowed = {p: {sha(read.before[p]), sha(read.expected[p])} for p in read.diffs}
    for path, hashes in (allowed_extra or {}).items():
        allowed[path] |= hashes
    return hash_script(allowed, "files changed since the push").encode()


def restore_lines(before: dict[str, bytes | None], stage: str) -> list[str]:
    """rollback.sh: every saved file back (cp -p: bytes, owner, mode); a file that did not exist removed."""
    return [f"cp -p {stage}/backup{path} {path}" if data is not None else f"rm -f {path}"
            for path, data in sorted(before.items())]


def rollback_script(name: str, stage: str, body: list[str]) -> str:
    lines = ["#!/bin/sh", f"# netauto rollback for {name}: restores the files and state from before the push",
             "exec 2>&1", *body, f"touch {stage}/rolled-back"]
    return "\n".join(lines) + "\n"


def install(session: DeviceSession, pairs: dict[str, str],
            meta: dict[str, tuple[int, str | None]] | None = None) -> None:
    """Install files already on the device (dest -> source) with their intended mode and owner (file_modes; an
    owner of None keeps the replaced file's); without `meta`, the owner and mode of what they replace."""
    res = session.run(" && ".join(
        install_cmd(src, dest, *(meta or {}).get(dest, (0o644, None)), keep_mode=meta is None)
        for dest, src in pairs.items()))
    if not res.ok:
        raise StepFailed(f"installing {', '.join(pairs)} failed: {res.tail(300)}")


def run_ok(session: DeviceSession, command: str) -> None:
    res = session.run(command, timeout=300)
    if not res.ok:
        raise StepFailed(f"{command} failed: {res.tail(300)}")


def final_check(session: DeviceSession, expected: dict[str, bytes]) -> None:
    now = remote.read_files(session, sorted(expected))
    wrong = [p for p, data in expected.items() if now[p] != data]
    if wrong:
        raise StepFailed(f"files differ from intent after apply: {wrong}")


def arm_rollback(session: DeviceSession, target: Target, before: dict[str, bytes | None], stage: str,
                 timeout: float, checkpoint_cmd: str | None = None, notes: list[str] | None = None) -> int:
    """Save the previous files on the device and start a watchdog that restores them unless confirmed.

    Like `commit confirmed`: if the SSH session dies half-way (or this process does), the device puts
    itself back on its own. The backup is an on-device `cp -p` (bytes, owner, mode), proven equal to
    what was read before by its SHA-256. The deadline is written on disk and, where the device runs
    systemd, a boot-time unit resumes every unconfirmed watchdog after a reboot (boot_unit.BOOT_UNIT).
    Returns the deadline (epoch seconds, the device's clock).
    """
    saved = [p for p, data in before.items() if data is not None]
    copies = ["umask 077"] + [f"mkdir -p $(dirname {stage}/backup{p}) && cp -p {p} {stage}/backup{p}" for p in saved]
    if target.kind == "switch":
        copies.append(f"{target.frr_exec}vtysh -c 'show running-config' > {stage}/running.before")
    if checkpoint_cmd:
        copies.append(checkpoint_cmd)
    sums = " ".join(f"{stage}/backup{p}" for p in saved)
    boot = boot_unit.install_boot_unit()
    watchdog = (f"{{ [ ! -f {stage}/watchdog.pid ] || kill -- -$(cat {stage}/watchdog.pid) 2>/dev/null; true; }} && "
                f"rm -f {stage}/{devstate.PRE_ARM} && "  # the lock watchdog replaced by the push's own
                f"dl=$(( $(date +%s) + {int(timeout)} )) && echo $dl > {stage}/deadline && "
                f"{{ setsid sh {stage}/watchdog.sh </dev/null >/dev/null 2>&1 & echo $! > {stage}/watchdog.pid; }} "
                f"&& echo \"__DEADLINE__ $dl\" && {{ [ -d /run/systemd/system ] || echo __NOBOOT__; }}")
    res = session.run(" && ".join([*copies, f"{{ [ -z '{sums}' ] || sha256sum {sums}; }}", boot, watchdog]))
    if not res.ok:
        session.run(disarm(stage))
        raise StepFailed(f"cannot save the previous files / arm the watchdog: {res.tail(300)}")
    got = {line.split(None, 1)[1].strip()[len(stage) + len("/backup"):]: line.split()[0]
           for line in res.stdout.splitlines() if line.strip() and not line.startswith("__")}
    bad = [p for p in saved if got.get(p) != hashlib.sha256(before[p] or b"").hexdigest()]
    if bad:
        session.run(disarm(stage))
        raise StepFailed(f"backup differs from the file read before (changed meanwhile?): {bad}")
    if notes is not None and "__NOBOOT__" in res.stdout:
        notes.append("no systemd on the device: the watchdog would not survive a reboot during the push")
    marks = [line.split()[1] for line in res.stdout.splitlines() if line.startswith("__DEADLINE__ ")]
    return int(marks[0]) if marks else int(time.time() + timeout)


def disarm(stage: str) -> str:
    # the watchdog is a session leader (setsid): kill its whole group, its `sleep` included
    return f"touch {stage}/confirmed; kill -- -$(cat {stage}/watchdog.pid) 2>/dev/null; true"


def confirm(session: DeviceSession, stage: str, drop: str = "", who: str = "a run") -> None:
    """Disarm the watchdog, drop the checkpoint (`drop`: its command), remove the stage dir and release the
    lock: one command."""
    res = session.run(f"{disarm(stage)}{'; ' + drop if drop else ''}; "
                      f"{devstate.release_cmd(stage, f'{who}: applied and confirmed')}")
    if not res.ok:
        raise StepFailed(f"confirm failed: {res.tail(200)}")


def run_rollback(session: DeviceSession, stage: str, timeout: float = 300) -> str:
    """rollback.sh now, under the `rolling` marker (holding the rolling process's pid) that keeps the watchdog
    from rolling back at the same time. It runs detached from the SSH session (setsid, no terminal, output to
    a file): if this client is killed meanwhile (a second Ctrl-C) the rollback still ends on the device, and
    the armed watchdog, finding the marker's process gone and the stage not released, proves and releases it
    at its deadline (or runs it again if it died half-way: devstate.take_rolling). Returns its output."""
    s = shlex.quote(stage)
    res = session.run(
        f"S={s}; mkdir \"$S/rolling\" 2>/dev/null || {{ echo __BUSY__; exit 5; }}; echo $$ > \"$S/rolling/pid\"; "
        f"setsid sh -c 'echo $$ > \"$1/rolling/pid\"; sh \"$1/rollback.sh\" > \"$1/push-rollback.log\" 2>&1' "
        f"_ \"$S\" </dev/null >/dev/null 2>&1 & wait $!; cat \"$S/push-rollback.log\"", timeout=timeout)
    if res.rc == 5 and "__BUSY__" in res.stdout:
        raise StepFailed(f"the watchdog of {stage} is rolling back at this moment")
    return res.stdout


def rollback_proven(session: DeviceSession, stage: str, problem: str | None, who: str, what: str = "") -> None:
    """After rollback.sh: a problem re-opens the watchdog (the `rolling` marker goes, it tries at its deadline);
    none: disarm and release."""
    if problem:
        session.run(f"rm -rf {stage}/rolling")
        raise StepFailed(problem)
    res = session.run(f"{disarm(stage)}; {devstate.release_cmd(stage, f'{who}: rolled back by the push{what}')}")
    if not res.ok:
        raise StepFailed(f"rolled back, but removing the stage/lock failed: {res.tail(200)}")


def rollback_files(session: DeviceSession, target: Target, before: dict[str, bytes | None], stage: str,
                   who: str = "a run") -> None:
    """Run the armed rollback now, prove the files (and a switch's running FRR config) are as before, and only
    then disarm the watchdog."""
    out = run_rollback(session, stage)
    problem = None
    now = remote.read_files(session, sorted(before))
    changed = [p for p in before if now[p] != before[p]]
    if changed:
        problem = f"files differ from before after rollback: {changed} ({out.strip()[-200:]})"
    elif target.kind == "switch":
        saved = remote.read_files(session, [f"{stage}/running.before"])[f"{stage}/running.before"] or b""
        if remote.running_config(session).encode() != saved:
            problem = "running FRR config differs from before after rollback"
    rollback_proven(session, stage, problem, who)


def left_pending(session: DeviceSession, journal: dict[str, object]) -> str:
    """What is left on the device after a rollback that did not verify: asked again, never assumed."""
    try:
        return "device now: " + devstate.status(session).describe()
    except Exception:  # noqa: BLE001 - no SSH: say what was armed, and that it could not be re-checked
        deadline = journal.get("deadline")
        when = time.strftime("%H:%M:%S UTC", time.gmtime(deadline)) if isinstance(deadline, int) else "?"
        return (f"SSH lost: the on-device watchdog armed for {journal.get('stage')} restores the previous files "
                f"at {when} unless the files changed meanwhile (not re-checked); `netauto deploy status` shows it")


def require_sessions(push: Push, before: set[str]) -> None:
    """Every intended session that was up before the push is up again; a new one refused by its peer fails the
    push too; a new one whose peer does not answer (not configured yet) is a note (netauto.deploy.sessions)."""
    target, opts, result = push.target, push.opts, push.result
    if not target.sessions:
        return
    check = sessions.post_check(push.session, list(target.sessions), before, opts.session_timeout, opts.stop)
    if opts.stop.is_set():
        raise Interrupted("interrupted (SIGINT/SIGTERM) while waiting for the BGP sessions")
    name = lambda n: f"{n} ({target.sessions[n]})"  # noqa: E731
    if check.lost or check.refused:
        problems = ([f"up before the push, down after {check.seconds:.0f} s: {', '.join(map(name, check.lost))}"]
                    if check.lost else [])
        problems += [f"refused by the peer: {name(n)}: {why}" for n, why in check.refused.items()]
        raise StepFailed("post-check: BGP " + "; ".join(problems))
    if check.waiting:
        peers = sorted({target.sessions[n].split()[0] for n in check.waiting})
        result.notes.append(f"BGP: {len(check.waiting)} session(s) new to this device not Established after "
                            f"{check.seconds:.0f} s and their peer sends nothing back (not configured yet?): "
                            f"{', '.join(map(name, check.waiting))}; deploy {', '.join(peers)}, then `netauto verify`")
