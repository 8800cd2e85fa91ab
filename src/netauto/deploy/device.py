"""The per-device pipelines: dry-run diff, and the safe apply (lock, read, stage, check, arm the watchdog,
apply, verify, confirm) with rollback to the exact previous files and state on any failure. What each step
does depends on the device's NOS mode: one strategy per mode (mode_nvue, mode_files, mode_sonic,
mode_server) behind push.Strategy; the steps they share are in common and drain."""

from __future__ import annotations

import time

from netauto.deploy import common, devstate, file_modes, identity, nvue, nvue_off, remote, sonic_config
from netauto.deploy.connection import DeviceSession
from netauto.deploy.drain import drained_variant as _drained_variant  # noqa: F401 - tests, API
from netauto.deploy.drain import maintenance_drain, nvue_mode
from netauto.deploy.mode_files import SwitchFiles, linux_files_cumulus
from netauto.deploy.mode_nvue import Nvue, intent as nvue_intent, note as nvue_note
from netauto.deploy.mode_server import Server
from netauto.deploy.mode_sonic import Sonic
from netauto.deploy.push import (CONFIRM_MARGIN, CONFIRM_MAX, FRR_CONF, INTERFACES, NVUE_STARTUP, SONIC_DB,
                                 SONIC_FRR, ApplyOptions, DeviceResult, DrainEvidence, Interrupted, Neighbours,
                                 Push, Read, Steps, Strategy, min_confirm_timeout, stopped_before_change, unified)
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target

__all__ = ["CONFIRM_MARGIN", "CONFIRM_MAX", "FRR_CONF", "INTERFACES", "NVUE_STARTUP", "SONIC_DB", "SONIC_FRR",
           "ApplyOptions", "DeviceResult", "DrainEvidence", "Interrupted", "Neighbours", "StepFailed",
           "apply_device", "confirm", "dry_run", "linux_files_cumulus", "maintenance_drain", "min_confirm_timeout",
           "nvue_mode", "rollback", "strategy_for", "unified"]


def strategy_for(target: Target) -> Strategy:
    """The apply strategy of the target's NOS mode."""
    if target.kind == "server":
        return Server()
    if nvue_mode(target):
        return Nvue()
    if target.nos == "sonic":
        return Sonic()
    return SwitchFiles()


def dry_run(session: DeviceSession, target: Target) -> DeviceResult:
    """The diffs, and whether another run holds the device (its lock file, read in the same round trip)."""
    started = time.monotonic()
    lock_info = f"{devstate.LOCK}/info"
    running, meta = remote.read_files_meta(session, [*identity.paths(target), lock_info])
    lock = running.pop(lock_info)
    problem = identity.refusal(target, identity.claim(running), target.adopt)
    if problem:
        return DeviceResult(target.name, "dry-run", "refused", error=problem, notes=["nothing was read further"])
    running.pop(identity.MARKER)
    if nvue_mode(target):
        text = nvue.diff(nvue.show_applied(session).set, nvue_intent(target).set)
        result = DeviceResult(target.name, "dry-run", "changed" if text else "unchanged",
                              {nvue.DIFF_KEY: text} if text else {})
        result.notes.append(nvue_note(target))
    else:
        diffs = file_modes.with_modes(target, meta, common.diffs(running, common.expected_files(target, running),
                                                                    target.name))
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


def apply_device(session: DeviceSession, target: Target, opts: ApplyOptions) -> DeviceResult:
    """lock -> read -> stage (upload) -> check there -> arm the watchdog -> apply -> verify -> confirm.

    The device lock is taken before the running files are read and released by whoever ends the run: the
    confirm, a rollback proven byte-identical, or the on-device watchdog (devstate)."""
    result = DeviceResult(target.name, "apply", "unchanged")
    if opts.stop.is_set():
        result.result, result.error = "skipped", "interrupted before this device was started"
        return result
    journal: dict[str, object] = {}
    step = Steps(result, opts.stop, journal)
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
    try:
        step("watch-lock", lambda: devstate.watch_lock(session, stage, opts.run.run, target.name,
                                                       opts.confirm_timeout), interruptible=False)
        journal["lock_deadline"] = int(time.time() + opts.confirm_timeout)
    except StepFailed as exc:  # the push goes on: only a client killed before arming would then need a clear
        result.notes.append(str(exc))
    strategy = strategy_for(target)
    push = Push(session, target, opts, result, step, stage, f"run {opts.run.run} on {target.name}")
    armed = False
    try:
        claimed = step("fabric", lambda: identity.check(session, target, target.adopt))
        mark = identity.write_cmd(target) if target.fabric and (claimed.where != identity.MARKER
                                                                 or claimed.fabric != target.fabric
                                                                 or claimed.fabric_id != target.fabric_id) \
            else ""  # the marker written (moved, --adopt; its id added) when the push is confirmed; none without a fabric
        if not strategy.read(push):
            strategy.unchanged(push)
            if mark and target.adopt:
                step("fabric-marker", lambda: common.run_ok(session, mark))
            step("unlock", lambda: devstate.release(session, stage, f"{push.who}: unchanged"), interruptible=False)
            return result
        files = strategy.stage(push)
        step("upload", lambda: session.upload(stage, files))
        step("check", lambda: strategy.check(push))
        journal["deadline"] = step("arm-rollback", lambda: strategy.arm(push))
        armed = True
        strategy.apply(push)
        strategy.verify(push)
        if opts.confirm:
            extra = "; ".join(c for c in (strategy.confirm_extra(push), mark) if c)
            step("confirm", lambda: common.confirm(session, stage, extra, push.who), interruptible=False)
        else:  # commit confirmed: the watchdog stays armed and the device locked until confirm() or rollback()
            result.pending = stage
        result.result = result.applied_state()
    except Exception as exc:  # noqa: BLE001 - every failure ends in a rollback and a report
        result.error, result.result = str(exc), "refused" if isinstance(exc, identity.ForeignDevice) else "failed"
        if not armed:
            stopped_before_change(push, exc)
            return result
        try:
            step("rollback", lambda: strategy.rollback(push), interruptible=False)
            result.result = "rolled-back"
            result.notes.append(strategy.rolled_back_note())
        except Exception as rb_exc:  # noqa: BLE001
            result.device_state = common.left_pending(session, journal)
            result.error += f"; rollback failed ({rb_exc}); {result.device_state}"
    finally:
        opts.inflight.pop(target.name, None)
    return result


def confirm(session: DeviceSession, stage: str, checkpoint: str | None = None, who: str = "a run") -> None:
    """Disarm the watchdog, drop the GCU checkpoint, remove the stage dir and release the lock (NAPALM's
    commit_config of a pending push)."""
    common.confirm(session, stage, sonic_config.delete_checkpoint_cmd(checkpoint) if checkpoint else "", who)


def rollback(session: DeviceSession, target: Target, before: dict[str, bytes | None], stage: str,
             who: str = "a run") -> None:
    """Run the armed rollback of a file-based push now and prove the device is as before (NAPALM's rollback)."""
    common.rollback_files(session, target, before, stage, who)


def _rollback_script(target: Target, before: dict[str, bytes | None], stage: str, checkpoint: str | None,
                     owner: nvue_off.NvueOwner | None = None) -> str:
    """rollback.sh of a file-based push (tests): the strategy's lines for these files."""
    strategy = strategy_for(target)
    push = Push(None, target, ApplyOptions(), DeviceResult(target.name, "apply", "unchanged"),  # type: ignore[arg-type]
                Steps(DeviceResult(target.name, "apply", "unchanged")), stage, "test",
                read=Read(before, {}, {}, None, owner), checkpoint=checkpoint)
    return common.rollback_script(target.name, stage, strategy.rollback_lines(push))
