"""The per-device pipelines: dry-run diff, and the safe apply (drain, stage, check, apply, verify, undrain)
with rollback to the exact previous files and state on any failure."""

from __future__ import annotations

import hashlib
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypedDict, TypeVar

from netauto.deploy import devstate, file_modes, host_nic, nvue, nvue_off, remote, sessions, sonic_config, sonic_db
from netauto.deploy.connection import DeviceSession, install_cmd
from netauto.deploy.redact import redact
from netauto.deploy.redact import unified_diff as redacted_diff
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target
from netauto.platforms.nos import cumulus_path, sonic_path

# on-device paths from the platform layer (platforms/data/nos_*.yaml)
FRR_CONF = "/" + cumulus_path("frr")
INTERFACES = "/" + cumulus_path("interfaces")
NVUE_STARTUP = "/" + cumulus_path("nvue")
SONIC_FRR = "/" + sonic_path("frr")
SONIC_DB = "/" + sonic_path("config_db")

T = TypeVar("T")


class DrainEvidence(TypedDict, total=False):
    """DeviceResult.drain: each neighbour's ECMP width toward the device before, drained and restored, and how
    long the waits took (the results file and `netauto drain` print it as is)."""

    before: dict[str, int]
    prefixes: dict[str, int]  # prefixes each neighbour had through the device before the drain
    drained: dict[str, int]
    drained_after_s: float
    drained_polls: int
    restored: dict[str, int]
    restored_after_s: float
    restored_polls: int


@dataclass
class DeviceResult:
    device: str
    action: str  # dry-run | apply
    result: str  # unchanged | changed | applied | failed | rolled-back | locked | unreachable | skipped
    diff: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    steps: list[tuple[str, float]] = field(default_factory=list)  # (step, seconds)
    notes: list[str] = field(default_factory=list)  # what was (not) applied and why, defaults FRR hides...
    drain: DrainEvidence = field(default_factory=DrainEvidence)  # neighbours' ECMP widths, wait time
    host_key: str | None = None  # how the SSH host key was checked (connection.HostKeyCheck.status)
    device_state: str | None = None  # the on-device lock/watchdog state when it matters (locked, left pending)
    pending: str | None = None  # stage dir of an applied but unconfirmed push (ApplyOptions.confirm=False)

    def to_dict(self) -> dict[str, object]:
        """For the results file: every text that came from the device redacted (diffs are already)."""
        return {"device": self.device, "action": self.action, "result": self.result, "diff": self.diff,
                "error": redact(self.error) if self.error else None, "notes": [redact(n) for n in self.notes],
                "drain": self.drain, "host_key": self.host_key, "device_state": self.device_state,
                "timings": {name: round(sec, 3) for name, sec in self.steps}}


def unified(path: str, running: bytes | None, intent: bytes) -> str:
    """The diff as shown and stored: secrets on either side redacted (a changed secret still shows as -/+)."""
    old = "" if running is None else running.decode(errors="replace")
    return redacted_diff(old, intent.decode(), f"running:{path}" if running is not None else "/dev/null",
                         f"intent:{path}")


def expected_files(target: Target, running: dict[str, bytes | None]) -> dict[str, bytes]:
    """What each file must hold after the push: the rendered intent, except a SONiC config_db.json, which is
    the switch's own with netauto's tables replaced (see sonic_db)."""
    return {path: (sonic_db.expected_file(running.get(path), art.content) if path == SONIC_DB
                   else art.content.encode())
            for path, art in target.files.items()}


def _diffs(running: dict[str, bytes | None], expected: dict[str, bytes]) -> dict[str, str]:
    return {p: unified(p, running[p], data) for p, data in sorted(expected.items()) if running[p] != data}


def diff_device(session: DeviceSession, target: Target) -> tuple[dict[str, bytes | None], dict[str, str]]:
    running = remote.read_files(session, sorted(target.files))
    return running, file_modes.with_modes(session, target, running, _diffs(running, expected_files(target, running)))


def nvue_mode(target: Target) -> bool:
    """A Cumulus switch whose configuration NVUE owns: deploy talks to NVUE, never to its Linux files."""
    return target.kind == "switch" and target.cumulus_mode == "nvue" and NVUE_STARTUP in target.files


def linux_files_cumulus(target: Target) -> bool:
    """A Cumulus switch in linux-files mode: deploy owns its Linux files, provided NVUE no longer does."""
    return target.kind == "switch" and target.nos == "cumulus" and target.cumulus_mode == "linux-files"


def _intent_nvue(target: Target) -> nvue.NvDoc:
    return nvue.parse(target.files[NVUE_STARTUP].content, f"{target.name}: rendered {NVUE_STARTUP}")


def dry_run(session: DeviceSession, target: Target) -> DeviceResult:
    """The diffs, and whether another run holds the device (its lock file, read in the same round trip)."""
    started = time.monotonic()
    lock_info = f"{devstate.LOCK}/info"
    if nvue_mode(target):
        text = nvue.diff(nvue.show_applied(session).set, _intent_nvue(target).set)
        result = DeviceResult(target.name, "dry-run", "changed" if text else "unchanged",
                              {nvue.DIFF_KEY: text} if text else {})
        result.notes.append(_nvue_note(target))
        lock = remote.read_files(session, [lock_info])[lock_info]
    else:
        running = remote.read_files(session, [*sorted(target.files), lock_info])
        lock = running.pop(lock_info)
        diffs = file_modes.with_modes(session, target, running, _diffs(running, expected_files(target, running)))
        result = DeviceResult(target.name, "dry-run", "changed" if diffs else "unchanged", diffs)
        if SONIC_DB in diffs and SONIC_DB not in target.inert:  # what the push's check step would say
            result.notes += sonic_config.preview(session, target.name, target.files[SONIC_DB].content)
        if linux_files_cumulus(target):
            owner = nvue_off.read(session)
            if owner.active:
                result.notes.append(nvue_off.refusal(target.name, owner) + "; `--disable-nvue` would, inside the "
                                    "device lock before the push: " + "; ".join(nvue_off.plan(owner, "<run id>")))
    if lock is not None:
        info = dict(line.partition("=")[::2] for line in lock.decode(errors="replace").splitlines() if "=" in line)
        result.device_state = f"locked by run {info.get('run', '?')} (pid {info.get('pid', '?')} on " \
                              f"{info.get('client', '?')}, started {info.get('started', '?')})"
        result.notes.append(f"{result.device_state}: an apply is refused until it ends (`netauto deploy status`)")
    result.steps.append(("read+diff", time.monotonic() - started))
    return result


class Neighbours(Protocol):
    """How the drain looks at the neighbours' routes (implemented over SSH by run.NeighbourWatcher)."""

    def views(self, target: Target) -> dict[str, remote.DrainView]: ...


class Interrupted(StepFailed):
    """SIGINT/SIGTERM during a push: the device is rolled back (verified) instead of being left mid-change."""


@dataclass
class ApplyOptions:
    drain_timeout: float = 60.0
    session_timeout: float = 90.0
    neighbours: Neighbours | None = None  # how to look at the neighbours' routes (None: no drain wait)
    confirm_timeout: float = 600.0  # on-device watchdog: restore the previous state unless confirmed in time
    nic_firmware: bool = False  # servers: also run netauto-nic-firmware.sh --apply (mlxconfig; never resets a NIC)
    disable_nvue: bool = False  # linux-files Cumulus: switch NVUE off as NVIDIA documents (else: refuse the push)
    confirm: bool = True  # False: leave the watchdog armed (commit confirmed); result.pending names the stage dir
    stop: threading.Event = field(default_factory=threading.Event)  # set by SIGINT/SIGTERM: roll back, start nothing
    run: devstate.RunInfo = field(default_factory=devstate.RunInfo.new)  # what the device lock names
    # device -> what a hard exit must report: stage dir, watchdog deadline (epoch), drained, last step
    inflight: dict[str, dict[str, object]] = field(default_factory=dict)


CONFIRM_MARGIN = 30.0  # s: the push's own steps besides the drain and session waits (check, reload, verify)
CONFIRM_MAX = 3600.0


def min_confirm_timeout(drain_timeout: float, session_timeout: float) -> float:
    """The watchdog must not fire while the push is still waiting for the drain (twice: drain and undrain)
    or for the sessions: below this it would restore a push that is going well."""
    return 2 * drain_timeout + session_timeout + CONFIRM_MARGIN


class _Steps:
    def __init__(self, result: DeviceResult, stop: threading.Event | None = None,
                 journal: dict[str, object] | None = None) -> None:
        self.result = result
        self.stop = stop
        self.journal = journal if journal is not None else {}

    def __call__(self, name: str, fn: Callable[[], T], interruptible: bool = True) -> T:
        if interruptible and self.stop is not None and self.stop.is_set():
            raise Interrupted(f"interrupted (SIGINT/SIGTERM) before step {name}")
        self.journal["step"] = name
        started = time.monotonic()
        try:
            return fn()
        finally:
            self.result.steps.append((name, time.monotonic() - started))


def check_guard(target: Target, found: bytes | None) -> None:
    """Lab: refuse to write unless this node's /etc is private and it is the node we think it is."""
    if target.guard and (found is None or found.decode(errors="replace").strip() != target.name):
        raise StepFailed(f"refusing to write: {target.guard} does not name {target.name} on {target.host} "
                         f"(lab node without a private /etc, or the wrong node)")


@dataclass
class _Read:
    before: dict[str, bytes | None]  # the files as they were
    expected: dict[str, bytes]  # as they must be
    diffs: dict[str, str]
    guard: bytes | None  # the lab guard file
    nvue_off: nvue_off.NvueOwner | None = None  # --disable-nvue: what the preflight found (its files in `before`)


def _read(session: DeviceSession, target: Target, owner: nvue_off.NvueOwner | None = None) -> _Read:
    """Running files, what they must become, the diffs, and the lab guard file: one round trip. With `owner`
    (NVUE to be switched off) NVUE's watched files join `before`: backed up by the armed rollback, restored
    by it, and proven byte-identical after it."""
    extra = [p for p in nvue_off.watched_paths() if p not in target.files] if owner else []
    paths = sorted(target.files) + ([target.guard] if target.guard else []) + extra
    running = remote.read_files(session, paths)
    guard = running.pop(target.guard) if target.guard else None
    watched = {p: running.pop(p) for p in extra}
    expected = expected_files(target, running)
    read = _Read(running, expected, file_modes.with_modes(session, target, running, _diffs(running, expected)),
                 guard, owner)
    if owner is not None:
        if any(watched[p] != owner.files.get(p) for p in extra):
            raise StepFailed(f"NVUE's files changed between the preflight and the read: {', '.join(extra)}")
        read.before.update(watched)
    return read


def apply_device(session: DeviceSession, target: Target, opts: ApplyOptions) -> DeviceResult:
    """lock -> read -> upload to the stage dir -> check there -> arm the watchdog -> apply -> verify -> confirm.

    The device lock is taken before the running files are read and released by whoever ends the run: the
    confirm, a rollback proven byte-identical, or the on-device watchdog (devstate)."""
    result = DeviceResult(target.name, "apply", "unchanged")
    if opts.stop.is_set():
        result.result, result.error = "skipped", "interrupted before this device was started"
        return result
    journal: dict[str, object] = {}
    step = _Steps(result, opts.stop, journal)
    try:
        stage = step("lock", lambda: devstate.acquire(session, opts.run))
    except devstate.Locked as exc:
        result.result, result.error = "locked", str(exc)
        return result
    except Interrupted as exc:
        result.result, result.error = "skipped", str(exc)
        return result
    except StepFailed as exc:
        result.result, result.error = "failed", str(exc)
        return result
    journal["stage"] = stage
    opts.inflight[target.name] = journal
    who = f"run {opts.run.run} on {target.name}"
    if nvue_mode(target):
        try:
            return _apply_nvue(session, target, opts, result, step, stage, who, journal)
        finally:
            opts.inflight.pop(target.name, None)
    armed = False
    before: dict[str, bytes | None] = {}
    try:
        owner = _nvue_preflight(session, target, opts, step, result)
        read = step("read+diff", lambda: _read(session, target, owner))
        before, diffs = read.before, read.diffs
        result.diff = diffs
        if not diffs and owner is None:
            if opts.nic_firmware and target.kind == "server" and not target.skip_reason:
                host_nic.firmware(session, step, result.notes)  # files as intended; the NIC firmware may not be
            step("unlock", lambda: devstate.release(session, stage, f"{who}: unchanged"), interruptible=False)
            return result
        checkpoint = _checkpoint(target, diffs, stage)
        check_guard(target, read.guard)
        step("upload", lambda: _upload(session, target, read, stage, checkpoint, opts.run.run))
        step("check", lambda: _check(session, target, diffs, stage, checkpoint))
        deadline = step("arm-rollback", lambda: arm_rollback(session, target, before, stage, opts.confirm_timeout,
                                                            checkpoint, result))
        armed = True
        journal["deadline"] = deadline
        if owner is not None:
            done = step("disable-nvue", lambda: nvue_off.disable(session, owner, stage, opts.run.run))
            result.notes.append("NVUE switched off (--disable-nvue; rolled back with the push): " + "; ".join(done))
        if target.kind == "switch" and diffs:
            _apply_switch(session, target, opts, read, step, result, stage, checkpoint, journal)
        elif target.kind == "switch":
            step("final-check", lambda: _final_check(session, read.expected))
        else:
            _apply_server(session, target, read, step, stage, result, opts)
        if opts.confirm:
            step("confirm", lambda: confirm(session, stage, checkpoint, who=who), interruptible=False)
        else:  # commit confirmed: the watchdog stays armed and the device locked until confirm() or rollback()
            result.pending = stage
        result.result = "applied"
    except Exception as exc:  # noqa: BLE001 - every failure ends in a rollback and a report
        result.error = str(exc)
        result.result = "failed"
        if not armed:
            result.notes.append("nothing was changed on the device (stopped before the first change)")
            try:
                devstate.release(session, stage, redact(f"{who}: stopped before any change ({exc})")[:300])
            except Exception as rel_exc:  # noqa: BLE001 - the report matters more
                result.device_state = (f"lock and stage {stage} left on the device ({rel_exc}): "
                                       f"`netauto deploy clear` removes them")
            return result
        try:
            step("rollback", lambda: rollback(session, target, before, stage, who), interruptible=False)
            result.result = "rolled-back"
            result.notes.append("rolled back: files byte-identical to before, running FRR config identical; "
                                "lock released")
        except Exception as rb_exc:  # noqa: BLE001
            result.error += f"; rollback failed ({rb_exc})"
            result.device_state = _pending(session, journal)
            result.error += f"; {result.device_state}"
    finally:
        opts.inflight.pop(target.name, None)
    return result


def _nvue_preflight(session: DeviceSession, target: Target, opts: ApplyOptions, step: _Steps,
                    result: DeviceResult) -> nvue_off.NvueOwner | None:
    """Linux-files Cumulus, inside the lock and before anything is read for the push: does NVUE still own the
    files? Yes without --disable-nvue: refuse (one line, nothing changed). Yes with it: the owner, whose steps
    run after the rollback is armed. None: nothing to switch off."""
    if not linux_files_cumulus(target):
        return None
    owner = step("nvue-preflight", lambda: nvue_off.read(session))
    if not owner.active:
        if owner.nv:
            result.notes.append("NVUE present but not in charge of the files (auto-save off, no startup.yaml, "
                                "password sync off)")
        return None
    if not opts.disable_nvue:
        raise StepFailed(nvue_off.refusal(target.name, owner))
    return owner


def _apply_nvue(session: DeviceSession, target: Target, opts: ApplyOptions, result: DeviceResult, step: _Steps,
                stage: str, who: str, journal: dict[str, object]) -> DeviceResult:
    """NVUE mode (see netauto.deploy.nvue): NVUE's applied configuration is read, merged, checked, drained,
    applied with NVUE's confirm timer, verified and rolled back; no Linux file is written."""
    armed = False
    backup: nvue.NvDoc | None = None
    try:
        applied = step("read+diff", lambda: nvue.show_applied(session))
        backup = applied
        intent = _intent_nvue(target)
        text = nvue.diff(applied.set, intent.set)
        result.diff = {nvue.DIFF_KEY: text} if text else {}
        if not text:
            step("unlock", lambda: devstate.release(session, stage, f"{who}: unchanged"), interruptible=False)
            return result
        merged = nvue.merge(applied.set, intent.set)
        drain = _drains(target)
        gshut = nvue.gshut_value(applied.version)
        files = {f"{stage}/merged.yaml": nvue.NvDoc(applied.header, merged).text().encode(),
                 f"{stage}/backup.yaml": applied.text().encode(),
                 f"{stage}/rollback.sh": nvue.rollback_script(stage).encode(),
                 f"{stage}/check-before.sh": nvue.check_before_script(stage).encode(),
                 # NVUE mode: no file hashes to guard (NVUE rewrites its files); the lock keeps other runs out
                 f"{stage}/guard.sh": b"#!/bin/sh\nexit 0\n",
                 f"{stage}/watchdog.sh": devstate.watchdog_script(stage, opts.run.run, target.name).encode()}
        if drain:
            files[f"{stage}/drained.yaml"] = nvue.NvDoc(applied.header, nvue.drained(merged, applied.version)) \
                .text().encode()
        step("upload", lambda: session.upload(stage, files))
        pending = step("check", lambda: nvue.check(session, f"{stage}/merged.yaml"))
        result.notes.append(f"NVUE mode: {len(str(pending).splitlines())} line(s) of `nv config diff` staged and "
                            f"checked; baseline kept ({', '.join(sorted(set(merged) - {'interface', 'qos', 'router'}))})")
        before = step("sessions-before", lambda: sessions.established(session))
        deadline = step("arm-rollback", lambda: arm_rollback(session, target, {}, stage, opts.confirm_timeout,
                                                            None, result))
        armed = True
        journal["deadline"] = deadline
        if drain:
            if opts.neighbours is not None and target.facing:
                views = opts.neighbours.views(target)
                result.drain["before"] = {n: v.width for n, v in views.items()}
            journal["drained"] = True
            step("drain", lambda: nvue.run(session, f"nv set router bgp graceful-shutdown {gshut} && nv config apply -y"))
            step("wait-drained", lambda: _wait_drained(target, opts, result))
        document = f"{stage}/drained.yaml" if drain else f"{stage}/merged.yaml"
        step("nv-apply", lambda: nvue.run(session, f"nv config replace {document} && nv config apply -y --confirm "
                                                   f"{nvue.confirm_arg(opts.confirm_timeout)}"))
        step("sessions", lambda: _require_sessions(session, target, opts, before, result))
        step("nv-confirm", lambda: nvue.run(session, nvue.CONFIRM_YES))
        if drain:
            step("undrain", lambda: nvue.run(session, f"nv config replace {stage}/merged.yaml && nv config apply -y"))
            journal["drained"] = False
            step("wait-undrained", lambda: _wait_drained(target, opts, result, undrain=True))
        step("verify", lambda: _verify_nvue(session, intent))
        step("confirm", lambda: confirm(session, stage, who=who), interruptible=False)
        result.result = "applied"
        result.notes.append("applied with NVUE (nv config replace/apply --confirm)")
        result.notes.append(_nvue_note(target))
    except Exception as exc:  # noqa: BLE001 - every failure ends in a rollback and a report
        result.error, result.result = str(exc), "failed"
        if not armed:
            result.notes.append("nothing was changed on the device (stopped before the first change)")
            try:
                devstate.release(session, stage, redact(f"{who}: stopped before any change ({exc})")[:300])
            except Exception as rel_exc:  # noqa: BLE001
                result.device_state = f"lock and stage {stage} left on the device ({rel_exc}): `netauto deploy clear`"
            return result
        try:
            step("rollback", lambda: _rollback_nvue(session, stage, backup, who), interruptible=False)
            result.result = "rolled-back"
            result.notes.append("rolled back: NVUE's applied configuration identical to before; lock released")
        except Exception as rb_exc:  # noqa: BLE001
            result.device_state = _pending(session, journal)
            result.error += f"; rollback failed ({rb_exc}); {result.device_state}"
    return result


def _nvue_note(target: Target) -> str:
    return (f"NVUE mode: NVUE's applied configuration compared, not files; NVUE generates "
            f"{', '.join(target.nvue_writes) or 'the Linux files'} (not pushed, not diffed)")


def _verify_nvue(session: DeviceSession, intent: nvue.NvDoc) -> None:
    now = nvue.show_applied(session)
    wrong = nvue.differing_paths(now.set, intent.set)
    if wrong:
        raise StepFailed(f"verify: NVUE's applied configuration differs from the intent in: {', '.join(wrong)}")


def _rollback_nvue(session: DeviceSession, stage: str, backup: nvue.NvDoc | None, who: str) -> None:
    """rollback.sh now, then proof (NVUE's applied tree equals the backup's), then disarm and release."""
    if backup is None:  # the watchdog is armed only after the read, so a rollback always has it
        raise StepFailed(f"no backup of NVUE's applied configuration was read: {stage} not rolled back")
    res = session.run(f"mkdir {stage}/rolling 2>/dev/null || {{ echo __BUSY__; exit 5; }}; sh {stage}/rollback.sh",
                      timeout=600)
    if res.rc == 5 and "__BUSY__" in res.stdout:
        raise StepFailed(f"the watchdog of {stage} is rolling back at this moment")
    now = nvue.show_applied(session)
    if now.set != backup.set:
        session.run(f"rmdir {stage}/rolling")
        raise StepFailed(f"NVUE's applied configuration differs from before after rollback "
                         f"({', '.join(nvue.differing_paths(now.set, backup.set)) or 'baseline'})")
    res = session.run(f"{_disarm(stage)}; {devstate.release_cmd(stage, f'{who}: rolled back by the push (NVUE)')}")
    if not res.ok:
        raise StepFailed(f"rolled back, but removing the stage/lock failed: {res.tail(200)}")


def _pending(session: DeviceSession, journal: dict[str, object]) -> str:
    """What is left on the device after a rollback that did not verify: asked again, never assumed."""
    try:
        return "device now: " + devstate.status(session).describe()
    except Exception:  # noqa: BLE001 - no SSH: say what was armed, and that it could not be re-checked
        deadline = journal.get("deadline")
        when = time.strftime("%H:%M:%S UTC", time.gmtime(deadline)) if isinstance(deadline, int) else "?"
        return (f"SSH lost: the on-device watchdog armed for {journal.get('stage')} restores the previous files "
                f"at {when} unless the files changed meanwhile (not re-checked); `netauto deploy status` shows it")


def _upload(session: DeviceSession, target: Target, read: _Read, stage: str, checkpoint: str | None,
            run: str) -> None:
    """Everything the push needs, into the stage dir only (0700, files 0600): nothing live changes yet."""
    files = {f"{stage}/intent{p}": read.expected[p] for p in read.diffs}
    frr_path = _frr_path(target)
    allowed = {p: {_sha(read.before[p]), _sha(read.expected[p])} for p in read.diffs}
    if target.kind == "switch" and frr_path in read.diffs and _drains(target):
        drained = _drained_variant(target.files[frr_path].content, _bgp_asn(target)).encode()
        files[f"{stage}/frr-drained.conf"] = drained
        allowed[frr_path].add(_sha(drained))
    files[f"{stage}/rollback.sh"] = _rollback_script(target, read.before, stage, checkpoint, read.nvue_off).encode()
    if read.nvue_off is not None:
        files.update(nvue_off.env_upload(read.nvue_off, stage))
    files[f"{stage}/guard.sh"] = _hash_script(allowed, "files changed since the push").encode()
    files[f"{stage}/check-before.sh"] = _hash_script({p: {_sha(d)} for p, d in read.before.items()},
                                                     "not as before").encode()
    files[f"{stage}/watchdog.sh"] = devstate.watchdog_script(stage, run, target.name).encode()
    session.upload(stage, files)


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _hash_script(allowed: dict[str, set[str | None]], what: str) -> str:
    """Shell: exit 1 (naming the files) unless every file hashes to one of its allowed values."""
    lines = ["#!/bin/sh", "bad=0"]
    lines += [devstate.hash_case(p, hashes, f"echo {shlex.quote(f'{what}: {p}')}; bad=1")
              for p, hashes in sorted(allowed.items())]
    return "\n".join([*lines, "exit $bad", ""])


def _check(session: DeviceSession, target: Target, diffs: dict[str, str], stage: str, checkpoint: str | None) -> None:
    """The device's own parsers on the staged files, before anything is live."""
    staged = {p: f"{stage}/intent{p}" for p in diffs}
    if target.kind == "switch":
        frr_path = _frr_path(target)
        if frr_path in staged:
            remote.frr_check(session, staged[frr_path])
        if INTERFACES in staged and INTERFACES not in target.inert:
            remote.ifupdown_check(session, staged[INTERFACES])
        if checkpoint:  # the whole target checked here first (sonic_preflight), then by the switch's GCU
            sonic_config.check(session, staged[SONIC_DB], target.name, target.files[SONIC_DB].content)
        return
    netplan = next((p for p in staged if p.startswith("/etc/netplan/")), None)
    if netplan is not None:
        res = session.run(f"umask 077; mkdir -p {stage}/root/etc/netplan && cp {staged[netplan]} {stage}/root{netplan} "
                          f"&& netplan generate --root-dir {stage}/root")
        if not res.ok:
            raise StepFailed(f"netplan generate rejected {netplan}: {res.tail(300)}")


def _checkpoint(target: Target, diffs: dict[str, str], stage: str) -> str | None:
    """The GCU checkpoint that guards a config_db change on a SONiC switch (None: no config_db to apply)."""
    if SONIC_DB not in diffs or SONIC_DB in target.inert:
        return None
    return "netauto-" + stage.rsplit("/", 1)[-1].removeprefix("run.")


def _drains(target: Target) -> bool:
    return target.asn is not None and not target.drained_by_intent and (
        _frr_path(target) in target.files or nvue_mode(target))


def _drained_variant(frr_conf: str, asn: int) -> str:
    """The intent with `bgp graceful-shutdown` added, so a reload keeps the device drained."""
    marker = f"router bgp {asn}\n"
    if " bgp graceful-shutdown\n" in frr_conf or marker not in frr_conf:
        return frr_conf
    return frr_conf.replace(marker, marker + " bgp graceful-shutdown\n", 1)


def _bgp_asn(target: Target) -> int:
    if target.asn is None:
        raise StepFailed(f"{target.name} runs no BGP: nothing to drain")
    return target.asn


def _frr_path(target: Target) -> str:
    return SONIC_FRR if SONIC_FRR in target.files else FRR_CONF


def _wait_drained(target: Target, opts: ApplyOptions, result: DeviceResult, undrain: bool = False) -> None:
    """Poll the neighbours' BGP tables until traffic has moved away from (or back to) the target."""
    if opts.neighbours is None or not target.facing:
        return
    started = time.monotonic()
    deadline = started + opts.drain_timeout
    baseline = result.drain.get("before", {})
    polls = 0
    while True:
        views = opts.neighbours.views(target)
        polls += 1
        if undrain:
            done = all(v.width >= baseline.get(n, 0) and not v.marked and not v.waiting for n, v in views.items())
        else:
            done = all(v.pending == 0 for v in views.values())
        if done or time.monotonic() > deadline:
            break
        if opts.stop.is_set():
            raise Interrupted("interrupted (SIGINT/SIGTERM) while waiting for the neighbours")
        time.sleep(0.2)
    widths = {n: v.width for n, v in views.items()}
    seconds = round(time.monotonic() - started, 2)
    if undrain:
        result.drain["restored"], result.drain["restored_after_s"], result.drain["restored_polls"] = \
            widths, seconds, polls
    else:
        result.drain["drained"], result.drain["drained_after_s"], result.drain["drained_polls"] = \
            widths, seconds, polls
    if done:
        return
    if undrain:
        result.notes.append(f"undrain: neighbours' ECMP not back to its width after {opts.drain_timeout:.0f} s: "
                            f"{widths} (before {baseline})")
        return
    pending = {n: v.pending for n, v in views.items() if v.pending}
    raise StepFailed(f"drain: after {opts.drain_timeout:.0f} s neighbours still send traffic to {target.name} "
                     f"({pending} prefixes)")


def _drain(session: DeviceSession, target: Target, opts: ApplyOptions, result: DeviceResult, step: _Steps) -> None:
    if opts.neighbours is not None and target.facing:
        before = opts.neighbours.views(target)
        result.drain["before"] = {n: v.width for n, v in before.items()}
        result.drain["prefixes"] = {n: v.prefixes for n, v in before.items()}
    step.journal["drained"] = True
    asn = _bgp_asn(target)
    step("drain", lambda: remote.set_gshut(session, asn, True))
    step("wait-drained", lambda: _wait_drained(target, opts, result))


def _apply_switch(session: DeviceSession, target: Target, opts: ApplyOptions, read: _Read,
                  step: _Steps, result: DeviceResult, stage: str, checkpoint: str | None,
                  journal: dict[str, object]) -> None:
    diffs = read.diffs
    frr_path = _frr_path(target)
    nvue = NVUE_STARTUP in diffs and NVUE_STARTUP not in target.inert and remote.has_command(session, "nv")
    drain = _drains(target)
    before = step("sessions-before", lambda: sessions.established(session)) if target.sessions else set()
    if drain:
        _drain(session, target, opts, result, step)
    if nvue:
        step("nv-apply", lambda: _nvue_apply(session, f"{stage}/intent{NVUE_STARTUP}", opts.confirm_timeout))
        result.notes.append("applied with NVUE: nv config replace + nv config apply --confirm")
    else:
        if checkpoint:
            # ports and addresses first: BGP unnumbered peers need their interfaces
            step("config-replace", lambda: sonic_config.replace(session, f"{stage}/intent{SONIC_DB}"))
            result.notes.append("config_db applied with SONiC's config replace (GCU), checkpoint kept until confirmed")
        _apply_linux_files(session, target, diffs, step, result, stage, drain)
    step("sessions", lambda: _require_sessions(session, target, opts, before, result))
    # the drain lives in frr.conf only when frr.conf itself changed (drained variant installed); otherwise
    # it is runtime state that verify would report as a difference from the file, so lift it first
    drained_file = drain and frr_path in diffs and not nvue
    if drain and not drained_file:
        asn = _bgp_asn(target)
        step("undrain", lambda: remote.set_gshut(session, asn, False))
        journal["drained"] = False
        step("wait-undrained", lambda: _wait_drained(target, opts, result, undrain=True))
    if frr_path in target.files and not nvue:
        hidden = step("verify", lambda: remote.frr_verify(session, FRR_CONF))
        if hidden:
            result.notes.append(f"FRR defaults not displayed in running-config: {len(hidden)} line(s)")
    if drained_file:
        step("undrain", lambda: _install_and_reload(session, target, frr_path, f"{stage}/intent{frr_path}"))
        journal["drained"] = False
        step("wait-undrained", lambda: _wait_drained(target, opts, result, undrain=True))
    if checkpoint:
        step("verify-config-db", lambda: sonic_config.verify(session, target.files[SONIC_DB].content))
    step("final-check", lambda: _final_check(session, read.expected))


def _install(session: DeviceSession, pairs: dict[str, str],
             meta: dict[str, tuple[int, str | None]] | None = None) -> None:
    """Install files already on the device (dest -> source) with their intended mode and owner (file_modes; an
    owner of None keeps the replaced file's); without `meta`, the owner and mode of what they replace."""
    res = session.run(" && ".join(
        install_cmd(src, dest, *(meta or {}).get(dest, (0o644, None)), keep_mode=meta is None)
        for dest, src in pairs.items()))
    if not res.ok:
        raise StepFailed(f"installing {', '.join(pairs)} failed: {res.tail(300)}")


def _install_and_reload(session: DeviceSession, target: Target, frr_path: str, staged: str) -> None:
    """Undrain: the intent frr.conf itself (without the added gshut line), reloaded."""
    _install(session, {frr_path: staged}, file_modes.intended(target, {frr_path: staged}))
    remote.frr_reload(session, FRR_CONF)


def _apply_linux_files(session: DeviceSession, target: Target, diffs: dict[str, str], step: _Steps,
                       result: DeviceResult, stage: str, drained: bool) -> None:
    """Cumulus without NVUE (and the lab): install the Linux files, reload FRR and ifupdown2.

    While drained, /etc/frr/frr.conf first holds the intent plus `bgp graceful-shutdown`, so the reload
    keeps the switch drained; the reload always reads the confdir's frr.conf (another file makes
    frr-reload.py run `write`, which would overwrite frr.conf from the running config, lab-notes G5).
    On SONiC that file is installed as /etc/sonic/frr/frr.conf, which the bgp container sees as
    /etc/frr/frr.conf. A config_db.json applied with `config replace` is installed here as well: it is
    the config replace's target, so the saved file equals the running config.
    """
    frr_path = _frr_path(target)
    pairs = {p: (f"{stage}/frr-drained.conf" if p == frr_path and drained else f"{stage}/intent{p}") for p in diffs}
    step("install", lambda: _install(session, pairs, file_modes.intended(target, pairs)))
    if frr_path in diffs:
        step("frr-reload", lambda: remote.frr_reload(session, FRR_CONF))
    if INTERFACES in diffs and INTERFACES not in target.inert:
        step("ifreload", lambda: remote.ifreload(session))
    _note_unapplied(session, target, diffs, result)


SWITCHD_FILES = ("/etc/cumulus/",)


def _note_unapplied(session: DeviceSession, target: Target, diffs: dict[str, str], result: DeviceResult) -> None:
    """Say exactly which changed files nothing applied, instead of pretending."""
    inert = sorted(p for p in diffs if p in target.inert)
    if inert:
        result.notes.append("installed, not applied (lab: no NVUE/switchd, no SONiC swss/GCU; on the switch "
                            "nv config apply or config replace applies them): " + ", ".join(inert))
    switchd = sorted(p for p in diffs if p.startswith(SWITCHD_FILES) and p not in target.inert)
    if switchd:
        res = session.run("systemctl reload switchd", timeout=300)
        if not res.ok:
            raise StepFailed(f"systemctl reload switchd failed: {res.tail(300)}")
        result.notes.append("switchd reloaded for: " + ", ".join(switchd))
    daemons = [p for p in diffs if p.endswith("/frr/daemons") and p not in target.inert]
    if daemons:
        result.notes.append(f"{daemons[0]} installed; takes effect at the next FRR restart (not restarted)")


def _final_check(session: DeviceSession, expected: dict[str, bytes]) -> None:
    now = remote.read_files(session, sorted(expected))
    wrong = [p for p, data in expected.items() if now[p] != data]
    if wrong:
        raise StepFailed(f"files differ from intent after apply: {wrong}")


def _nvue_apply(session: DeviceSession, staged_startup: str, confirm_timeout: float) -> None:
    """Cumulus 5.x with NVUE in charge: NVUE writes frr.conf/interfaces/switchd files itself.

    Not exercised by the lab (no NVUE there). `--confirm` makes NVUE roll back on its own unless confirmed.
    """
    minutes = max(1, int(confirm_timeout // 60))
    for command in (f"nv config replace {shlex.quote(staged_startup)}", f"nv config apply -y --confirm {minutes}"):
        res = session.run(command, timeout=600)
        if not res.ok:
            raise StepFailed(f"{command} failed: {res.tail(300)}")


def _require_sessions(session: DeviceSession, target: Target, opts: ApplyOptions, before: set[str],
                      result: DeviceResult) -> None:
    """Every intended session that was up before the push is up again; a new one refused by its peer fails the
    push too; a new one whose peer does not answer (not configured yet) is a note (netauto.deploy.sessions)."""
    if not target.sessions:
        return
    check = sessions.post_check(session, list(target.sessions), before, opts.session_timeout, opts.stop)
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


def _apply_server(session: DeviceSession, target: Target, read: _Read, step: _Steps, stage: str,
                  result: DeviceResult, opts: ApplyOptions | None = None) -> None:
    diffs = read.diffs
    pairs = {p: f"{stage}/intent{p}" for p in diffs}
    step("install", lambda: _install(session, pairs, file_modes.intended(target, pairs)))
    live = {p for p in diffs if p not in target.inert}
    sysctls = sorted(p for p in live if p.startswith("/etc/sysctl.d/"))  # the rails' and each plane's, in sysctl.d order
    if sysctls:
        step("sysctl", lambda: _run_ok(session, f"sysctl -q -p {' '.join(sysctls)}"))
    netplan = sorted(p for p in live if p.startswith("/etc/netplan/"))
    if netplan:
        if not session.run("[ -d /run/systemd/system ]").ok:
            raise StepFailed(f"{', '.join(netplan)} changed but the host runs no systemd: `netplan apply` impossible")
        step("netplan-apply", lambda: _run_ok(session, "netplan apply"))
    # enable + run each changed network's boot unit (QoS per NIC, read back)
    host_nic.provision(session, live, step, result.notes, target.files)
    if opts is not None and opts.nic_firmware:
        host_nic.firmware(session, step, result.notes)
    inert = sorted(p for p in diffs if p in target.inert)
    if inert:
        result.notes.append("installed, not applied (lab server: no systemd-networkd, no ConnectX/mlnx tools): "
                            + ", ".join(inert))
    step("final-check", lambda: _final_check(session, read.expected))


def _run_ok(session: DeviceSession, command: str) -> None:
    res = session.run(command, timeout=300)
    if not res.ok:
        raise StepFailed(f"{command} failed: {res.tail(300)}")


def _rollback_script(target: Target, before: dict[str, bytes | None], stage: str, checkpoint: str | None,
                     owner: nvue_off.NvueOwner | None = None) -> str:
    """Restore the saved files (cp -p: bytes, owner, mode) and the running state derived from them."""
    lines = ["#!/bin/sh", f"# netauto rollback for {target.name}: restores the files and state from before the push",
             "exec 2>&1"]
    if owner is not None:
        lines += nvue_off.rollback_lines(owner, stage)  # NVUE's auto-save first: its apply may rewrite files
    if checkpoint:
        lines.append(sonic_config.rollback_line(checkpoint))  # CONFIG_DB first: FRR's interfaces live there
    for path, data in sorted(before.items()):
        lines.append(f"cp -p {stage}/backup{path} {path}" if data is not None else f"rm -f {path}")
    if target.kind == "switch":
        if before.get(_frr_path(target)) is not None:
            lines.append(f"{target.frr_exec}{remote.FRR_RELOAD} --reload {FRR_CONF}")
        if before.get(INTERFACES) is not None and INTERFACES not in target.inert:
            lines.append("mkdir -p /run/network; ifreload -a")
        if target.asn is not None and not target.drained_by_intent:
            # the drain is runtime state: undo it unless the device ran drained before the push
            lines.append(f"grep -q '^ bgp graceful-shutdown' {stage}/running.before || {target.frr_exec}"
                         f"vtysh -c 'configure terminal' -c 'router bgp {target.asn}' -c 'no bgp graceful-shutdown'")
    else:
        sysctls = sorted(p for p in before if p.startswith("/etc/sysctl.d/") and before[p] is not None)
        if sysctls:
            lines.append(f"sysctl -q -p {' '.join(sysctls)}")
        lines.append("[ -d /run/systemd/system ] && netplan apply")
        lines += host_nic.restart_lines(target.files)
    lines.append(f"touch {stage}/rolled-back")
    return "\n".join(lines) + "\n"


def arm_rollback(session: DeviceSession, target: Target, before: dict[str, bytes | None], stage: str,
                 timeout: float, checkpoint: str | None = None, result: DeviceResult | None = None) -> int:
    """Save the previous files on the device and start a watchdog that restores them unless confirmed.

    Like `commit confirmed`: if the SSH session dies half-way (or this process does), the device puts
    itself back on its own. The backup is an on-device `cp -p` (bytes, owner, mode), proven equal to
    what was read before by its SHA-256. The deadline is written on disk and, where the device runs
    systemd, a boot-time unit resumes every unconfirmed watchdog after a reboot (devstate.BOOT_UNIT).
    Returns the deadline (epoch seconds, the device's clock).
    """
    saved = [p for p, data in before.items() if data is not None]
    copies = ["umask 077"] + [f"mkdir -p $(dirname {stage}/backup{p}) && cp -p {p} {stage}/backup{p}" for p in saved]
    if target.kind == "switch":
        copies.append(f"{target.frr_exec}vtysh -c 'show running-config' > {stage}/running.before")
    if checkpoint:
        copies.append(sonic_config.checkpoint_cmd(checkpoint))
    sums = " ".join(f"{stage}/backup{p}" for p in saved)
    unit = devstate.BOOT_UNIT
    boot = (f"{{ [ ! -d /run/systemd/system ] || [ -f {unit} ] || {{ printf '%s' {shlex.quote(devstate.BOOT_UNIT_TEXT)} "
            f"> {unit} && chmod 644 {unit} && systemctl daemon-reload && systemctl enable --quiet "
            f"netauto-watchdog.service; }}; }}")
    watchdog = (f"dl=$(( $(date +%s) + {int(timeout)} )) && echo $dl > {stage}/deadline && "
                f"{{ setsid sh {stage}/watchdog.sh </dev/null >/dev/null 2>&1 & echo $! > {stage}/watchdog.pid; }} "
                f"&& echo \"__DEADLINE__ $dl\" && {{ [ -d /run/systemd/system ] || echo __NOBOOT__; }}")
    res = session.run(" && ".join([*copies, f"{{ [ -z '{sums}' ] || sha256sum {sums}; }}", boot, watchdog]))
    if not res.ok:
        session.run(_disarm(stage))
        raise StepFailed(f"cannot save the previous files / arm the watchdog: {res.tail(300)}")
    got = {line.split(None, 1)[1].strip()[len(stage) + len("/backup"):]: line.split()[0]
           for line in res.stdout.splitlines() if line.strip() and not line.startswith("__")}
    bad = [p for p in saved if got.get(p) != hashlib.sha256(before[p] or b"").hexdigest()]
    if bad:
        session.run(_disarm(stage))
        raise StepFailed(f"backup differs from the file read before (changed meanwhile?): {bad}")
    if result is not None and "__NOBOOT__" in res.stdout:
        result.notes.append("no systemd on the device: the watchdog would not survive a reboot during the push")
    marks = [line.split()[1] for line in res.stdout.splitlines() if line.startswith("__DEADLINE__ ")]
    return int(marks[0]) if marks else int(time.time() + timeout)


def _disarm(stage: str) -> str:
    # the watchdog is a session leader (setsid): kill its whole group, its `sleep` included
    return f"touch {stage}/confirmed; kill -- -$(cat {stage}/watchdog.pid) 2>/dev/null; true"


def confirm(session: DeviceSession, stage: str, checkpoint: str | None = None, who: str = "a run") -> None:
    """Disarm the watchdog, drop the checkpoint, remove the stage dir and release the lock: one command."""
    drop = f"; {sonic_config.delete_checkpoint_cmd(checkpoint)}" if checkpoint else ""
    res = session.run(f"{_disarm(stage)}{drop}; {devstate.release_cmd(stage, f'{who}: applied and confirmed')}")
    if not res.ok:
        raise StepFailed(f"confirm failed: {res.tail(200)}")


def rollback(session: DeviceSession, target: Target, before: dict[str, bytes | None], stage: str,
             who: str = "a run") -> None:
    """Run the armed rollback now, prove the device is as before, and only then disarm the watchdog.

    The `rolling` marker keeps the watchdog from rolling back at the same time; when the proof fails it is
    removed again, so the armed watchdog still tries at its deadline.
    """
    res = session.run(f"mkdir {stage}/rolling 2>/dev/null || {{ echo __BUSY__; exit 5; }}; sh {stage}/rollback.sh",
                      timeout=300)
    if res.rc == 5 and "__BUSY__" in res.stdout:
        raise StepFailed(f"the watchdog of {stage} is rolling back at this moment")
    problem = None
    now = remote.read_files(session, sorted(before))
    changed = [p for p in before if now[p] != before[p]]
    if changed:
        problem = f"files differ from before after rollback: {changed} ({res.stdout.strip()[-200:]})"
    elif target.kind == "switch":
        saved = remote.read_files(session, [f"{stage}/running.before"])[f"{stage}/running.before"] or b""
        if remote.running_config(session).encode() != saved:
            problem = "running FRR config differs from before after rollback"
    if problem:
        session.run(f"rmdir {stage}/rolling")  # the watchdog tries again at its deadline
        raise StepFailed(problem)
    res = session.run(f"{_disarm(stage)}; {devstate.release_cmd(stage, f'{who}: rolled back by the push')}")
    if not res.ok:
        raise StepFailed(f"rolled back, but removing the stage/lock failed: {res.tail(200)}")



def maintenance_drain(session: DeviceSession, target: Target, opts: ApplyOptions, undrain: bool = False) -> DeviceResult:
    """`netauto drain` / `undrain`: the push's graceful-shutdown drain on its own, with the same neighbour wait
    (drained: no neighbour selects a path through the device any more; undrained: no GSHUT-marked path left)."""
    result = DeviceResult(target.name, "undrain" if undrain else "drain", "applied")
    step = _Steps(result)
    try:
        asn = _bgp_asn(target)
        if not undrain:
            _drain(session, target, opts, result, step)
            return result
        if opts.neighbours is not None and target.facing:
            result.drain["before"] = {n: v.width for n, v in opts.neighbours.views(target).items()}
        step("undrain", lambda: remote.set_gshut(session, asn, False))
        step("wait-undrained", lambda: _wait_drained(target, opts, result, undrain=True))
    except Exception as exc:  # noqa: BLE001 - reported, like a push
        result.result, result.error = "failed", str(exc)
    return result
