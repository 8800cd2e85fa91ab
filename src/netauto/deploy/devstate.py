"""The on-device state of a push: one lock per device, the run's stage directory, its watchdog, a history.

Everything lives under ROOT on the device, in /var/tmp because it survives a reboot (FHS 3.0, 5.15), 0700 root:

    /var/tmp/netauto/lock/info       who holds the device: run id, client host, pid, user, start, stage dir
    /var/tmp/netauto/run.XXXXXXXX/   the stage dir of that run (`mktemp -d`): intent files, backups, rollback.sh,
                                     guard.sh, watchdog.sh, deadline, watchdog.pid, markers
    /var/tmp/netauto/history.log     one line per run end: applied, rolled back (by whom), not restored and why

/var/tmp is writable by every user of the device, so another user may make /var/tmp/netauto, or a stage-looking
`/var/tmp/netauto-1`, first. A folder is used only when it is a real folder (no link), owned by the user the
commands run as (root, through sudo) and writable by nobody else (`owned`): a push refuses another one, status
lists it as ignored, `deploy clear` and the boot unit never run what it holds.

The lock is taken with `mkdir` (atomic) before the running files are read and held until the run ends: by its
push (confirm, or a rollback proven byte-identical), or by its watchdog (a restore proven byte-identical). A push
refuses to start while a lock or any stage dir exists, and names the holder; `netauto deploy status` shows it
and `netauto deploy clear` ends it on purpose (see cli/deploy.py).
"""

from __future__ import annotations

import getpass
import os
import re
import shlex
import socket
import time
import uuid
from dataclasses import dataclass, field

from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed

ROOT = "/var/tmp/netauto"
LOCK = f"{ROOT}/lock"
HISTORY = f"{ROOT}/history.log"
STAGES = f"{ROOT}/run.*"
STAGE_NAME = re.compile(re.escape(ROOT) + r"/run\.[A-Za-z0-9]{8}")  # what GNU mktemp's XXXXXXXX makes
LEGACY_STAGES = "/var/tmp/netauto-[0-9]*"  # stage dirs of netauto before the lock (may still hold a watchdog)


def owned(path: str, uid: str = '"$(id -u)"') -> str:
    """Shell test: `path` is a folder (not a link: find -P does not follow it), owned by `uid` (default: whoever
    runs the command, root through sudo) and not writable by its group or others. GNU findutils (Debian: Cumulus
    Linux, SONiC). No `%` and no `$` at the boot unit's uid 0, which systemd would expand."""
    return f"find {path} -maxdepth 0 -type d -user {uid} ! -perm /022 2>/dev/null | grep -q ."


NOT_OURS = ("another user's, a link or writable by others: netauto neither uses nor runs it; look at what it "
            "holds, then remove it as root")


class Locked(StepFailed):
    """Another run holds the device (its lock, an unfinished stage dir or a live watchdog): nothing was changed."""


@dataclass(frozen=True)
class RunInfo:
    """Who a lock names: enough for an operator to find the holding process."""

    run: str
    client: str
    pid: int
    user: str
    started: str

    @classmethod
    def new(cls) -> "RunInfo":
        try:
            user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no passwd entry: the uid says enough
            user = str(os.getuid())
        return cls(f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{uuid.uuid4().hex[:6]}", socket.gethostname(),
                   os.getpid(), user, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

    def lines(self) -> list[str]:
        return [f"run={self.run}", f"client={self.client}", f"pid={self.pid}", f"user={self.user}",
                f"started={self.started}"]


@dataclass
class Stage:
    path: str
    deadline: int | None  # epoch seconds on the device's clock (None: not armed)
    watchdog_alive: bool
    markers: set[str] = field(default_factory=set)  # confirmed, rolling, rolled-back, watchdog-skipped...


@dataclass
class DeviceState:
    lock: dict[str, str] | None
    stages: list[Stage]
    history: list[str]
    now: int  # the device's clock
    drained: bool | None = None  # running FRR config has `bgp graceful-shutdown` (None: not asked)
    foreign: list[str] = field(default_factory=list)  # `ls -ldq` of state folders that are not netauto's (ignored)

    @property
    def busy(self) -> bool:
        return self.lock is not None or bool(self.stages)

    def holder(self) -> str:
        if self.lock is None:
            return "no lock"
        k = self.lock
        return (f"run {k.get('run', '?')} (pid {k.get('pid', '?')} on {k.get('client', '?')}, user "
                f"{k.get('user', '?')}, started {k.get('started', '?')})")

    def describe(self) -> str:
        parts = [f"locked by {self.holder()}" if self.lock is not None else "not locked"]
        for s in self.stages:
            when = f"{max(0, s.deadline - self.now)} s ({_utc(s.deadline)})" if s.deadline is not None else "?"
            if PRE_ARM in s.markers and s.watchdog_alive:
                parts.append(f"{s.path}: that run has changed nothing; its watchdog releases the lock in {when}")
            elif "rolling:alive" in s.markers:
                parts.append(f"{s.path}: a rollback is running on the device now (restored when it ends)")
            elif "rolling:dead" in s.markers and s.watchdog_alive:
                parts.append(f"{s.path}: RESTORABLE: a rollback was interrupted"
                             f"{' after restoring the files' if 'rolled-back' in s.markers else ''}; its watchdog "
                             f"finishes and proves it in {when}, no manual step")
            elif "rolling:dead" in s.markers:
                parts.append(f"{s.path}: a rollback was interrupted and no watchdog runs: `netauto deploy clear` "
                             f"finishes it")
            elif s.watchdog_alive and s.deadline is not None:
                parts.append(f"watchdog of {s.path} restores the files from before that run in "
                             f"{max(0, s.deadline - self.now)} s ({_utc(s.deadline)})")
            elif "watchdog-skipped" in s.markers:
                parts.append(f"{s.path}: the watchdog did NOT restore (files changed since that push)")
            elif "rollback-failed" in s.markers:
                parts.append(f"{s.path}: a rollback did not restore the files")
            else:
                parts.append(f"unfinished stage {s.path} (no watchdog running)")
        if self.drained:
            parts.append("running config is drained (bgp graceful-shutdown)")
        parts.extend(f"ignored, not netauto's: {f} ({NOT_OURS})" for f in self.foreign)
        return "; ".join(parts)


def _utc(epoch: int) -> str:
    return time.strftime("%H:%M:%S UTC", time.gmtime(epoch))


FOREIGN = "__FOREIGN__"  # status line: `ls -ldq` of a state folder that is not netauto's (not `owned`); -q: a
# newline in its name or link target (another user's choice) prints as `?`, never as a forged __STAGE__ line
_STATUS_SCRIPT = (
    f'echo "__NOW__ $(date +%s)"; own=; if {owned(ROOT)}; then own=1; '
    f'elif [ -e {ROOT} ] || [ -L {ROOT} ]; then echo "{FOREIGN} $(ls -ldq {ROOT})"; fi; '
    f'echo __LOCK__; [ -n "$own" ] && [ -d {LOCK} ] && {{ cat {LOCK}/info 2>/dev/null; echo __HELD__; }}; '
    f'for s in {STAGES} {LEGACY_STAGES}; do [ -d "$s" ] || continue; '
    f'case "$s" in {ROOT}/*) [ -n "$own" ] || continue;; '
    f'*) {owned(chr(34) + "$s" + chr(34))} || {{ echo "{FOREIGN} $(ls -ldq "$s")"; continue; }};; esac; '
    f'p=$(cat "$s/watchdog.pid" 2>/dev/null); a=dead; [ -n "$p" ] && kill -0 "$p" 2>/dev/null && a=alive; '
    f'r=; [ -d "$s/rolling" ] && {{ q=$(cat "$s/rolling/pid" 2>/dev/null); r=rolling:dead; '
    f'[ -n "$q" ] && kill -0 "$q" 2>/dev/null && r=rolling:alive; }}; '
    f'echo "__STAGE__ $s $(cat "$s/deadline" 2>/dev/null || echo -) $a $r $(ls "$s" | tr "\\n" " ")"; done; '
    f"echo __HISTORY__; [ -n \"$own\" ] && tail -n 5 {HISTORY} 2>/dev/null; true"
)


def _epoch(word: str) -> int | None:
    """Seconds since the epoch as the device's `date +%s` prints them (at most 12 ASCII digits), else None."""
    word = word.strip()
    return int(word) if word.isascii() and word.isdigit() and len(word) <= 12 else None


def _parse_status(text: str) -> DeviceState:
    lock: dict[str, str] | None = None
    info: dict[str, str] = {}
    stages: list[Stage] = []
    history: list[str] = []
    foreign: list[str] = []
    now = int(time.time())
    section = ""
    for line in text.splitlines():
        if line.startswith(FOREIGN + " "):
            foreign.append(line.split(None, 1)[1])
        elif line.startswith("__NOW__ "):
            now = _epoch(line[len("__NOW__ "):]) or now  # `date +%s` of the device; anything else: this machine's
        elif line == "__LOCK__":
            section = "lock"
        elif line == "__HELD__":
            lock = info
        elif line.startswith("__STAGE__ ") and len(words := line.split()) >= 4:  # path, deadline, watchdog, markers
            stages.append(Stage(words[1], _epoch(words[2]), words[3] == "alive",
                                set(words[4:])))
        elif line == "__HISTORY__":
            section = "history"
        elif section == "lock" and "=" in line:
            key, _, value = line.partition("=")
            info[key] = value
        elif section == "history" and line.strip():
            history.append(line)
    return DeviceState(lock, stages, history, now, foreign=foreign)


def status(session: DeviceSession, frr_exec: str | None = None) -> DeviceState:
    """The lock, every stage dir (deadline, watchdog alive, markers) and the last history lines."""
    res = session.run(_STATUS_SCRIPT)
    if not res.ok:
        raise StepFailed(f"reading the deploy state failed: {res.tail(300)}")
    state = _parse_status(res.stdout)
    if frr_exec is not None:
        run = session.run(f"{frr_exec}vtysh -c 'show running-config'")
        state.drained = run.ok and " bgp graceful-shutdown" in run.stdout.splitlines()
    return state


def acquire(session: DeviceSession, info: RunInfo) -> str:
    """Take the device's lock and create this run's stage dir (0700); returns the stage dir.

    Refused (Locked, naming the holder) while another lock or any stage dir exists: an unfinished run, a
    live watchdog or a rollback that did not verify must be looked at first (`netauto deploy status/clear`).
    """
    record = " ".join(shlex.quote(line) for line in info.lines())
    script = (
        f"umask 077; mkdir {ROOT} 2>/dev/null; {owned(ROOT)} || {{ echo \"{FOREIGN} $(ls -ldq {ROOT})\"; exit 3; }}; "
        f"if mkdir {LOCK} 2>/dev/null; then "
        f"  busy=; for d in {STAGES}; do [ -d \"$d\" ] && busy=1; done; "
        # an older netauto's stage holds the device, another user's `netauto-N` does not (status ignores it)
        f"  for d in {LEGACY_STAGES}; do [ -d \"$d\" ] && {owned(chr(34) + '$d' + chr(34))} && busy=1; done; "
        f"  if [ -n \"$busy\" ]; then rmdir {LOCK}; else "
        f"    s=$(mktemp -d {ROOT}/run.XXXXXXXX) && printf '%s\\n' {record} \"stage=$s\" > {LOCK}/info "
        f"      && {{ echo \"__ACQUIRED__ $s\"; exit 0; }}; rm -rf {LOCK}; exit 1; "
        f"  fi; "
        f"fi; {_STATUS_SCRIPT}; exit 4"
    )
    res = session.run(script)
    for line in res.stdout.splitlines():
        if res.ok and line.startswith("__ACQUIRED__ "):
            stage = line.split(None, 1)[1].strip()
            if not STAGE_NAME.fullmatch(stage):  # pasted unquoted into every later command of the push
                raise StepFailed(f"the device named {stage[:80]!r} as the stage dir `mktemp -d {ROOT}/run.XXXXXXXX` "
                                 f"made: not a stage dir, nothing done in it (the lock {LOCK} is left: "
                                 f"`netauto deploy clear`)")
            return stage
    if res.rc == 3 and FOREIGN in res.stdout:
        found = res.stdout.split(FOREIGN, 1)[1].strip().splitlines()[0]
        raise StepFailed(f"{ROOT} on the device is not netauto's, nothing changed: {found} ({NOT_OURS})")
    if res.rc != 4:
        raise StepFailed(f"cannot take the device lock {LOCK}: {res.tail(300)}")
    state = _parse_status(res.stdout)
    raise Locked(f"device busy, nothing changed: {state.describe()}. Inspect with `netauto deploy status`, "
                 f"end it with `netauto deploy clear` (same -i/--lab/--limit)")


def release_cmd(stage: str, line: str) -> str:
    """Shell: remove this run's stage dir, drop the lock if it is this run's, append `line` to the history."""
    q = shlex.quote(stage)
    return (f"rm -rf {q}; grep -qxF {shlex.quote('stage=' + stage)} {LOCK}/info 2>/dev/null && rm -rf {LOCK}; "
            f"{history_cmd(line)}")


def history_cmd(line: str) -> str:
    """Shell: append one line (newlines folded) with a UTC timestamp to the device's deploy history."""
    return f"echo \"$(date -u +%Y-%m-%dT%H:%M:%SZ) \"{shlex.quote(' '.join(line.split()))} >> {HISTORY}"


def release(session: DeviceSession, stage: str, line: str) -> None:
    """End a run that changed nothing: stop its lock watchdog (see watch_lock), remove its stage, free the lock."""
    q = shlex.quote(stage)
    res = session.run(f"touch {q}/confirmed; [ -f {q}/watchdog.pid ] && kill -- -$(cat {q}/watchdog.pid) 2>/dev/null; "
                      f"{release_cmd(stage, line)}")
    if not res.ok:
        raise StepFailed(f"releasing the device lock failed: {res.tail(200)}")


PRE_ARM = "pre-arm"  # stage marker: the run has changed nothing yet (removed when the rollback is armed)


def watch_lock(session: DeviceSession, stage: str, run: str, device: str, timeout: float) -> None:
    """Right after the lock: a watchdog that frees it at the deadline if the run ends before arming its rollback
    without releasing it (a client killed between lock and arm, e.g. a second Ctrl-C): the device is unchanged
    then, so it only releases (the PRE_ARM marker). Arming replaces it with the push's own watchdog."""
    q = shlex.quote(stage)
    text = watchdog_script(stage, run, device)
    res = session.run(f"umask 077; touch {q}/{PRE_ARM} && printf '%s' {shlex.quote(text)} > {q}/watchdog.sh && "
                      f"echo $(( $(date +%s) + {int(timeout)} )) > {q}/deadline && "
                      f"{{ setsid sh {q}/watchdog.sh </dev/null >/dev/null 2>&1 & echo $! > {q}/watchdog.pid; }}")
    if not res.ok:
        raise StepFailed(f"cannot start the lock watchdog: {res.tail(200)}")


def hash_case(path: str, allowed: set[str | None], on_mismatch: str) -> str:
    """Shell: run `on_mismatch` unless `path` hashes to one of `allowed` (None: the file is absent)."""
    q = shlex.quote(path)
    choices = "|".join(sorted("absent" if h is None else h for h in allowed))
    return (f'if [ -f {q} ]; then h=$(sha256sum < {q} | cut -c1-64); else h=absent; fi; '
            f'case "$h" in {choices}) ;; *) {on_mismatch};; esac')


# Shell: take the `rolling` marker of stage "$S" (a directory holding the pid of whoever rolls back). A marker
# whose process is gone (a push killed during its own rollback, a second Ctrl-C, a reboot) is taken over: the
# rollback is idempotent (the same files copied back, the same reloads), so it is simply run again.
# `$busy` runs when a live process holds it.
def take_rolling(busy: str) -> str:
    return ('if ! mkdir "$S/rolling" 2>/dev/null; then p=$(cat "$S/rolling/pid" 2>/dev/null); '
            f'if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then {busy}; fi; fi; echo $$ > "$S/rolling/pid"')


# Shell: wait (up to 5 min) while a live process holds stage "$S"'s `rolling` marker (a push's detached rollback
# still running after its client was killed)
WAIT_ROLLING = ('n=0; while [ $n -lt 600 ]; do p=$(cat "$S/rolling/pid" 2>/dev/null); [ -n "$p" ] && '
                'kill -0 "$p" 2>/dev/null || break; n=$((n+1)); sleep 0.5; done')


def watchdog_script(stage: str, run: str, device: str) -> str:
    """The watchdog: at the deadline (written on disk, so a reboot resumes it) restore unless confirmed.

    It restores only if every file still hashes to what its own run put there (guard.sh), takes the
    `rolling` marker so the push and the watchdog never roll back at once, proves the restore byte-identical
    (check-before.sh), and only then removes its stage and releases the lock. Otherwise it records why.
    """
    s = shlex.quote(stage)
    who = f"run {run} on {device}"
    return "\n".join([
        "#!/bin/sh",
        f"# netauto watchdog of {who}",
        f"S={s}",
        'echo $$ > "$S/watchdog.pid"  # a session leader (setsid): disarm kills its group, sleep included',
        'now=$(date +%s); dl=$(cat "$S/deadline" 2>/dev/null) || exit 0',
        '[ "$now" -lt "$dl" ] && sleep $((dl - now))',
        '[ -e "$S/confirmed" ] && exit 0',
        f'if [ -e "$S/{PRE_ARM}" ]; then {release_cmd(stage, f"{who}: stopped before any change; lock released by its watchdog")}; exit 0; fi',
        "# the push (or `deploy clear`) rolling back now: let it finish; if it ends without releasing the device",
        "# (its client killed meanwhile), or died half-way, this watchdog finishes the job",
        'while :; do p=$(cat "$S/rolling/pid" 2>/dev/null); [ -n "$p" ] && [ "$p" != $$ ] && kill -0 "$p" 2>/dev/null '
        '|| break; sleep 1; done',
        '[ -d "$S" ] && [ ! -e "$S/confirmed" ] || exit 0  # proven and released by whoever rolled back',
        take_rolling("exit 0"),
        'if ! sh "$S/guard.sh" > "$S/guard.log" 2>&1; then',
        '  touch "$S/watchdog-skipped"; rm -rf "$S/rolling"',
        f'  {history_cmd(f"{who}: watchdog did NOT restore: files changed since the push (kept {stage})")}',
        "  exit 1",
        "fi",
        'sh "$S/rollback.sh" > "$S/rollback.log" 2>&1',
        'if sh "$S/check-before.sh" > "$S/check.log" 2>&1; then',
        f"  {release_cmd(stage, f'{who}: watchdog restored the files and state from before the push')}",
        "else",
        '  touch "$S/rollback-failed"',
        f'  {history_cmd(f"{who}: watchdog rollback did not restore the files (kept {stage})")}',
        "fi",
        "",
    ])


def holder_alive(lock: dict[str, str] | None) -> bool:
    """The process that holds the lock still runs (only knowable when it runs on this host)."""
    if not lock or lock.get("client") != socket.gethostname() or not lock.get("pid", "").isdigit():
        return False
    pid = int(lock["pid"])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clear(session: DeviceSession, device: str, keep: bool = False, force: bool = False) -> list[str]:
    """End what another run left on the device, on purpose. Returns what was done, one line each.

    Default: every unfinished run is rolled back now, exactly as its watchdog would (guard.sh first: only
    files still as that run left them are restored), proven byte-identical (check-before.sh), then its stage
    and the lock are removed. `keep`: leave the files as they are, stop the watchdog, remove stage and lock.
    A lock whose holder still runs on this host is refused unless `force`.
    """
    state = status(session)
    if not state.busy:
        return ["nothing to clear"]
    if holder_alive(state.lock) and not force:
        raise StepFailed(f"{state.holder()} is still running on this host: stop it first (Ctrl-C rolls it back) "
                         f"or use --force")
    done: list[str] = []
    for stage in state.stages:
        q = shlex.quote(stage.path)
        stop_watchdog = f"touch {q}/confirmed; [ -f {q}/watchdog.pid ] && kill -- -$(cat {q}/watchdog.pid) 2>/dev/null"
        restorable = (not keep and "confirmed" not in stage.markers and "rolled-back" not in stage.markers
                      and PRE_ARM not in stage.markers)  # a run that changed nothing: only removed
        if restorable and "guard.sh" not in stage.markers:
            raise StepFailed(f"{stage.path} has no guard.sh (left by an older netauto): it cannot be restored "
                             f"safely; `--keep` removes it and leaves the files as they are")
        if restorable:
            res = session.run(f"sh {q}/guard.sh")
            if not res.ok:
                raise StepFailed(f"{stage.path}: not restored, {res.tail(300)}; `--keep` releases the device "
                                 f"leaving the files as they are")
            res = session.run(f"S={q}; {WAIT_ROLLING}; {take_rolling('echo __BUSY__; exit 5')}; "
                              f"sh {q}/rollback.sh > {q}/rollback.log 2>&1; sh {q}/check-before.sh", timeout=300)
            if not res.ok:
                session.run(f"rm -rf {q}/rolling")
                raise StepFailed(f"{stage.path}: rollback did not restore the files ({res.tail(300)}); kept")
            done.append(f"{stage.path}: rolled back (files byte-identical to before that run)")
            line = f"{device}: cleared by the operator: {stage.path} rolled back"
        else:
            done.append(f"{stage.path}: removed, files left as they are")
            line = f"{device}: cleared by the operator: {stage.path} removed, files kept"
        res = session.run(f"{stop_watchdog}; rm -rf {q}; {history_cmd(line)}")
        if not res.ok:
            raise StepFailed(f"removing {stage.path} failed: {res.tail(200)}")
    if state.lock is not None:
        session.run(f"rm -rf {LOCK}; {history_cmd(f'{device}: lock of {state.holder()} cleared by the operator')}")
        done.append(f"lock of {state.holder()} removed")
    return done
