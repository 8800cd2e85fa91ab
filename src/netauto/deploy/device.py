"""The per-device pipelines: dry-run diff, and the safe apply (drain, stage, check, apply, verify, undrain)
with rollback to the exact previous files and state on any failure."""

from __future__ import annotations

import difflib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from netauto.deploy import remote
from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target

FRR_CONF = "/etc/frr/frr.conf"
INTERFACES = "/etc/network/interfaces"
NVUE_STARTUP = "/etc/nvue.d/startup.yaml"
SONIC_FRR = "/etc/sonic/frr/frr.conf"


@dataclass
class DeviceResult:
    device: str
    action: str  # dry-run | apply
    result: str  # unchanged | changed | applied | failed | rolled-back | unreachable | skipped
    diff: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    steps: list[tuple[str, float]] = field(default_factory=list)  # (step, seconds)

    def to_dict(self) -> dict[str, object]:
        return {"device": self.device, "action": self.action, "result": self.result, "diff": self.diff,
                "error": self.error, "timings": {name: round(sec, 3) for name, sec in self.steps}}


def unified(path: str, running: bytes | None, intent: bytes) -> str:
    old = [] if running is None else running.decode(errors="replace").splitlines(True)
    return "".join(difflib.unified_diff(old, intent.decode().splitlines(True),
                                        f"running:{path}" if running is not None else "/dev/null", f"intent:{path}"))


def diff_device(session: DeviceSession, target: Target) -> tuple[dict[str, bytes | None], dict[str, str]]:
    running = remote.read_files(session, sorted(target.files))
    diffs = {}
    for path, art in sorted(target.files.items()):
        intent = art.content.encode()
        if running[path] != intent:
            diffs[path] = unified(path, running[path], intent)
    return running, diffs


def dry_run(session: DeviceSession, target: Target) -> DeviceResult:
    started = time.monotonic()
    _, diffs = diff_device(session, target)
    result = DeviceResult(target.name, "dry-run", "changed" if diffs else "unchanged", diffs)
    result.steps.append(("read+diff", time.monotonic() - started))
    return result


NeighbourCheck = Callable[[Target], tuple[int, int]]  # -> (mixed-ECMP routes left, routes only via target)


@dataclass
class ApplyOptions:
    drain_timeout: float = 60.0
    session_timeout: float = 90.0
    check_neighbours: NeighbourCheck | None = None  # how to look at the neighbours' routes
    confirm_timeout: float = 600.0  # on-device watchdog: restore the previous state unless confirmed in time


class _Steps:
    def __init__(self, result: DeviceResult) -> None:
        self.result = result

    def __call__(self, name: str, fn: Callable[[], object]) -> object:
        started = time.monotonic()
        try:
            return fn()
        finally:
            self.result.steps.append((name, time.monotonic() - started))


def apply_device(session: DeviceSession, target: Target, opts: ApplyOptions) -> DeviceResult:
    result = DeviceResult(target.name, "apply", "unchanged")
    step = _Steps(result)
    before, diffs = step("read+diff", lambda: diff_device(session, target))  # type: ignore[misc]
    result.diff = diffs
    if not diffs:
        return result
    stage = _stage_dir()
    state = {"drained": False, "installed": False, "armed": False}
    try:
        step("arm-rollback", lambda: arm_rollback(session, target, before, stage, opts.confirm_timeout))
        state["armed"] = True
        if target.kind == "switch":
            _apply_switch(session, target, opts, diffs, step, state, stage)
        else:
            _apply_server(session, target, diffs, step, state, stage)
        step("confirm", lambda: confirm(session, stage))
        result.result = "applied"
    except Exception as exc:  # noqa: BLE001 - every failure ends in a rollback and a report
        result.error = str(exc)
        result.result = "failed"
        if not state["armed"]:
            result.result = "failed"  # nothing was changed on the device
            return result
        try:
            step("rollback", lambda: rollback(session, target, before, stage))
            result.result = "rolled-back"
        except Exception as rb_exc:  # noqa: BLE001
            result.error += (f"; rollback over SSH impossible ({rb_exc}): the on-device watchdog restores the "
                             f"previous files within {opts.confirm_timeout:.0f} s")
    return result


def _stage_dir() -> str:
    return f"/var/tmp/netauto-{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:8]}"


def _drained_variant(frr_conf: str, asn: int) -> str:
    """The intent with `bgp graceful-shutdown` added, so a reload keeps the device drained."""
    marker = f"router bgp {asn}\n"
    if " bgp graceful-shutdown\n" in frr_conf or marker not in frr_conf:
        return frr_conf
    return frr_conf.replace(marker, marker + " bgp graceful-shutdown\n", 1)


def _frr_path(target: Target) -> str:
    return SONIC_FRR if target.nos == "sonic" else FRR_CONF


def _wait_drained(target: Target, opts: ApplyOptions) -> None:
    if opts.check_neighbours is None:
        return
    deadline = time.monotonic() + opts.drain_timeout
    mixed, _ = opts.check_neighbours(target)
    while mixed and time.monotonic() < deadline:
        time.sleep(0.5)
        mixed, _ = opts.check_neighbours(target)
    if mixed:
        raise StepFailed(f"drain: neighbours still send {mixed} ECMP routes through {target.name} "
                         f"after {opts.drain_timeout:.0f} s")


def _apply_switch(session: DeviceSession, target: Target, opts: ApplyOptions, diffs: dict[str, str],
                  step: _Steps, state: dict[str, bool], stage: str) -> None:
    frr_path = _frr_path(target)
    intent_frr = target.files[frr_path].content if frr_path in target.files else None
    nvue = NVUE_STARTUP in target.files and remote.has_command(session, "nv")
    if target.asn is not None and not target.drained_by_intent:
        step("drain", lambda: remote.set_gshut(session, target.asn, True))
        state["drained"] = True
        step("wait-drained", lambda: _wait_drained(target, opts))
    staged = {path: f"{stage}/intent{path}" for path in target.files}

    def upload() -> None:
        for path, art in target.files.items():
            session.write_file(staged[path], art.content.encode(), art.mode)
        if intent_frr is not None and target.asn is not None:
            session.write_file(f"{stage}/frr-drained.conf", _drained_variant(intent_frr, target.asn).encode())

    step("upload", upload)

    def check() -> None:
        if frr_path in staged:
            remote.frr_check(session, staged[frr_path])
        if INTERFACES in staged and not nvue:
            remote.ifupdown_check(session, staged[INTERFACES])

    step("check", check)
    if nvue:
        step("nv-apply", lambda: _nvue_apply(session, staged[NVUE_STARTUP]))
        state["installed"] = True
    else:
        def install() -> None:
            state["installed"] = True
            for path, art in target.files.items():
                session.write_file(path, art.content.encode(), art.mode)

        step("install", install)
        if intent_frr is not None:
            drained_file = f"{stage}/frr-drained.conf" if state["drained"] else frr_path
            step("frr-reload", lambda: remote.frr_reload(session, drained_file))
        if INTERFACES in diffs:
            step("ifreload", lambda: remote.ifreload(session))
    step("sessions", lambda: _require_sessions(session, target, opts))
    if state["drained"]:
        step("undrain", lambda: remote.frr_reload(session, frr_path))
        state["drained"] = False
    if intent_frr is not None:
        pending = step("verify", lambda: remote.frr_pending(session, frr_path))
        if pending:
            raise StepFailed(f"running FRR config differs from intent after apply: {pending[:5]}")
    session.run(f"rm -rf {stage}")


def _nvue_apply(session: DeviceSession, staged_startup: str) -> None:
    for command in (f"nv config replace {staged_startup}", "nv config apply -y"):
        res = session.run(command, timeout=600)
        if not res.ok:
            raise StepFailed(f"{command} failed: {(res.stdout + res.stderr).strip()[-300:]}")


def _require_sessions(session: DeviceSession, target: Target, opts: ApplyOptions) -> None:
    if not target.expected_sessions:
        return
    count = remote.wait_sessions(session, target.expected_sessions, opts.session_timeout)
    if count < target.expected_sessions:
        raise StepFailed(f"post-check: {count} of {target.expected_sessions} BGP sessions Established "
                         f"after {opts.session_timeout:.0f} s")


def _apply_server(session: DeviceSession, target: Target, diffs: dict[str, str], step: _Steps,
                  state: dict[str, bool], stage: str) -> None:
    netplan = next((p for p in target.files if p.startswith("/etc/netplan/")), None)

    def check() -> None:
        if netplan is None:
            return
        session.write_file(f"{stage}/root{netplan}", target.files[netplan].content.encode(), 0o600)
        res = session.run(f"netplan generate --root-dir {stage}/root")
        if not res.ok:
            raise StepFailed(f"netplan generate rejected {netplan}: {(res.stdout + res.stderr).strip()[-300:]}")

    step("check", check)

    def install() -> None:
        state["installed"] = True
        for path, art in target.files.items():
            session.write_file(path, art.content.encode(), art.mode)

    step("install", install)
    sysctl = next((p for p in diffs if p.startswith("/etc/sysctl.d/")), None)
    if sysctl:
        step("sysctl", lambda: _run_ok(session, f"sysctl -q -p {sysctl}"))
    if netplan in diffs and session.run("[ -d /run/systemd/system ]").ok:
        step("netplan-apply", lambda: _run_ok(session, "netplan apply"))


def _run_ok(session: DeviceSession, command: str) -> None:
    res = session.run(command, timeout=300)
    if not res.ok:
        raise StepFailed(f"{command} failed: {(res.stdout + res.stderr).strip()[-300:]}")


def _rollback_script(target: Target, before: dict[str, bytes | None], stage: str) -> str:
    lines = ["#!/bin/sh", f"# netauto rollback for {target.name}: restores the files and state from before the push",
             "exec 2>&1"]
    for path, data in sorted(before.items()):
        lines.append(f"cp -p {stage}/backup{path} {path}" if data is not None else f"rm -f {path}")
    if target.kind == "switch":
        frr_path = _frr_path(target)
        if before.get(frr_path) is not None:
            lines.append(f"{remote.FRR_RELOAD} --reload {frr_path}")
        if before.get(INTERFACES) is not None:
            lines.append("mkdir -p /run/network; ifreload -a")
        if target.asn is not None and not target.drained_by_intent:
            lines.append(f"vtysh -c 'configure terminal' -c 'router bgp {target.asn}' -c 'no bgp graceful-shutdown'")
    else:
        sysctl = next((p for p in before if p.startswith("/etc/sysctl.d/") and before[p] is not None), None)
        if sysctl:
            lines.append(f"sysctl -q -p {sysctl}")
        lines.append("[ -d /run/systemd/system ] && netplan apply")
    lines.append(f"touch {stage}/rolled-back")
    return "\n".join(lines) + "\n"


def arm_rollback(session: DeviceSession, target: Target, before: dict[str, bytes | None], stage: str,
                 timeout: float) -> None:
    """Save the previous files on the device and start a watchdog that restores them unless confirmed.

    Like `commit confirmed`: if the SSH session dies half-way (or this process does), the device puts
    itself back on its own.
    """
    for path, data in before.items():
        if data is not None:
            mode = target.files[path].mode if path in target.files else 0o644
            session.write_file(f"{stage}/backup{path}", data, mode)
    session.write_file(f"{stage}/rollback.sh", _rollback_script(target, before, stage).encode(), 0o700)
    res = session.run(
        f"setsid sh -c 'sleep {int(timeout)}; [ -e {stage}/confirmed ] || sh {stage}/rollback.sh "
        f"> {stage}/rollback.log' </dev/null >/dev/null 2>&1 & echo $! > {stage}/watchdog.pid"
    )
    if not res.ok:
        raise StepFailed(f"cannot arm the rollback watchdog: {res.stderr.strip()}")


def confirm(session: DeviceSession, stage: str) -> None:
    session.run(f"touch {stage}/confirmed; kill $(cat {stage}/watchdog.pid) 2>/dev/null; rm -rf {stage}")


def rollback(session: DeviceSession, target: Target, before: dict[str, bytes | None], stage: str) -> None:
    """Run the armed rollback now, disarm the watchdog, and prove the files are byte-identical again."""
    res = session.run(f"touch {stage}/confirmed; kill $(cat {stage}/watchdog.pid) 2>/dev/null; "
                      f"sh {stage}/rollback.sh", timeout=300)
    now = remote.read_files(session, sorted(before))
    changed = [p for p in before if now[p] != before[p]]
    if changed:
        raise StepFailed(f"files differ from before after rollback: {changed} ({res.stdout.strip()[-200:]})")
    session.run(f"rm -rf {stage}")
