"""The graceful-shutdown drain every switch push (and `netauto drain`) goes through, and its wait on the
neighbours' routes."""

from __future__ import annotations

import time

from netauto.deploy import remote
from netauto.deploy.connection import DeviceSession
from netauto.deploy.push import FRR_CONF, NVUE_STARTUP, SONIC_FRR, ApplyOptions, DeviceResult, Interrupted, Steps
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target


def frr_path(target: Target) -> str:
    return SONIC_FRR if SONIC_FRR in target.files else FRR_CONF


def nvue_mode(target: Target) -> bool:
    """A Cumulus switch whose configuration NVUE owns: deploy talks to NVUE, never to its Linux files."""
    return target.kind == "switch" and target.cumulus_mode == "nvue" and NVUE_STARTUP in target.files


def drains(target: Target) -> bool:
    return target.asn is not None and not target.drained_by_intent and (
        frr_path(target) in target.files or nvue_mode(target))


def drained_variant(frr_conf: str, asn: int) -> str:
    """The intent with `bgp graceful-shutdown` added, so a reload keeps the device drained."""
    marker = f"router bgp {asn}\n"
    if " bgp graceful-shutdown\n" in frr_conf or marker not in frr_conf:
        return frr_conf
    return frr_conf.replace(marker, marker + " bgp graceful-shutdown\n", 1)


def bgp_asn(target: Target) -> int:
    if target.asn is None:
        raise StepFailed(f"{target.name} runs no BGP: nothing to drain")
    return target.asn


def record_before(target: Target, opts: ApplyOptions, result: DeviceResult) -> None:
    if opts.neighbours is not None and target.facing:
        before = opts.neighbours.views(target)
        result.drain["before"] = {n: v.width for n, v in before.items()}
        result.drain["prefixes"] = {n: v.prefixes for n, v in before.items()}


def wait_drained(target: Target, opts: ApplyOptions, result: DeviceResult, undrain: bool = False) -> None:
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


def drain(session: DeviceSession, target: Target, opts: ApplyOptions, result: DeviceResult, step: Steps) -> None:
    """Runtime drain (vtysh `bgp graceful-shutdown`), then the wait."""
    record_before(target, opts, result)
    step.journal["drained"] = True
    asn = bgp_asn(target)
    step("drain", lambda: remote.set_gshut(session, asn, True))
    step("wait-drained", lambda: wait_drained(target, opts, result))


def maintenance_drain(session: DeviceSession, target: Target, opts: ApplyOptions, undrain: bool = False) -> DeviceResult:
    """`netauto drain` / `undrain`: the push's graceful-shutdown drain on its own, with the same neighbour wait
    (drained: no neighbour selects a path through the device any more; undrained: no GSHUT-marked path left)."""
    result = DeviceResult(target.name, "undrain" if undrain else "drain", "applied")
    step = Steps(result)
    try:
        asn = bgp_asn(target)
        if not undrain:
            drain(session, target, opts, result, step)
            return result
        if opts.neighbours is not None and target.facing:
            result.drain["before"] = {n: v.width for n, v in opts.neighbours.views(target).items()}
        step("undrain", lambda: remote.set_gshut(session, asn, False))
        step("wait-undrained", lambda: wait_drained(target, opts, result, undrain=True))
    except Exception as exc:  # noqa: BLE001 - reported, like a push
        result.result, result.error = "failed", str(exc)
    return result
