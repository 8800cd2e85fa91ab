"""The graceful-shutdown drain every switch push (and `netauto drain`) goes through, and its wait on the
neighbours' routes."""

from __future__ import annotations

import time

from netauto.deploy import forwarding, identity, remote
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
    """Each neighbour's ECMP width, prefixes and FIB next hops through the device before the drain."""
    if opts.neighbours is not None and target.facing:
        before = opts.neighbours.views(target)
        result.drain["before"] = {n: v.width for n, v in before.items()}
        result.drain["prefixes"] = {n: v.prefixes for n, v in before.items()}
        result.drain["fib_before"] = {n: v.fib_via for n, v in before.items()}
        result.drain["fib"] = sorted({v.fib for v in before.values()})


def _drained(view: forwarding.DrainView) -> bool:
    return view.pending == 0


def _undrained(view: forwarding.DrainView, width: int, fib_via: int) -> bool:
    """Back: the ECMP width of before, no GSHUT mark left, no equally short path from the device unselected,
    and the FIB forwards through the device's sessions as much as before."""
    return view.width >= width and not view.marked and not view.waiting and view.fib_via >= fib_via


def wait_drained(target: Target, opts: ApplyOptions, result: DeviceResult, undrain: bool = False) -> bool:
    """Poll the neighbours (BGP, zebra's RIB/FIB, the kernel: deploy.forwarding) until no neighbour forwards
    through the target any more (or, undrain, forwards through it as before). A drain that does not get there
    in time raises StepFailed naming each neighbour still forwarding and through which sessions; an undrain
    returns False (the caller decides) with the neighbours named in result.drain["still_forwarding"]."""
    if opts.neighbours is None or not target.facing:
        return True
    started = time.monotonic()
    deadline = started + opts.drain_timeout
    widths_before = result.drain.get("before", {})
    fib_before = result.drain.get("fib_before", {})
    polls = 0
    while True:
        views = opts.neighbours.views(target)
        polls += 1
        if undrain:
            late = {n: v for n, v in views.items()
                    if not _undrained(v, widths_before.get(n, 0), fib_before.get(n, 0))}
        else:
            late = {n: v for n, v in views.items() if not _drained(v)}
        if not late or time.monotonic() > deadline:
            break
        if opts.stop.is_set():
            raise Interrupted("interrupted (SIGINT/SIGTERM) while waiting for the neighbours")
        time.sleep(0.2)
    widths = {n: v.width for n, v in views.items()}
    seconds = round(time.monotonic() - started, 2)
    if undrain:
        result.drain["restored"], result.drain["restored_after_s"], result.drain["restored_polls"] = \
            widths, seconds, polls
        result.drain["fib_restored"] = {n: v.fib_via for n, v in views.items()}
    elif not late:  # recorded as drained only when no neighbour forwards through the device any more
        result.drain["drained"], result.drain["drained_after_s"], result.drain["drained_polls"] = \
            widths, seconds, polls
    if not late:
        return True
    if undrain:
        result.drain["still_forwarding"] = {
            n: [f"width {v.width}/{widths_before.get(n, 0)}, FIB next hops {v.fib_via}/{fib_before.get(n, 0)}"
                + (f", {v.marked} prefix(es) still GSHUT-marked" if v.marked else "")] for n, v in late.items()}
        return False
    result.drain["still_forwarding"] = {n: v.forwarding[:20] for n, v in late.items()}
    named = "; ".join(f"{n}: {len(v.forwarding)} prefix(es), e.g. {', '.join(v.forwarding[:3])}"
                      for n, v in sorted(late.items()))
    raise StepFailed(f"drain: after {opts.drain_timeout:.0f} s {len(late)} neighbour(s) still forward through "
                     f"{target.name}: {named}")


def undrain_late(target: Target, opts: ApplyOptions, result: DeviceResult) -> str:
    late = result.drain.get("still_forwarding", {})
    return (f"undrain: after {opts.drain_timeout:.0f} s {len(late)} neighbour(s) not forwarding through "
            f"{target.name} as before: " + "; ".join(f"{n}: {', '.join(v)}" for n, v in sorted(late.items())))


def wait_undrained(target: Target, opts: ApplyOptions, result: DeviceResult) -> None:
    """A push's undrain wait: late neighbours are a note (the push itself is applied and verified)."""
    if not wait_drained(target, opts, result, undrain=True):
        result.notes.append(undrain_late(target, opts, result))


def drain(session: DeviceSession, target: Target, opts: ApplyOptions, result: DeviceResult, step: Steps) -> None:
    """Runtime drain (vtysh `bgp graceful-shutdown`), then the wait."""
    record_before(target, opts, result)
    step.journal["drained"] = True
    asn = bgp_asn(target)
    step("drain", lambda: remote.set_gshut(session, asn, True))
    step("wait-drained", lambda: wait_drained(target, opts, result))


def maintenance_drain(session: DeviceSession, target: Target, opts: ApplyOptions, undrain: bool = False) -> DeviceResult:
    """`netauto drain` / `undrain`: the push's graceful-shutdown drain on its own, with the same neighbour wait.

    Either it gets there or nothing changed: a drain whose neighbours still forward through the device at the
    timeout is lifted again (failed, undrained, the neighbours named); an undrain whose neighbours do not take
    the device back in time is drained again (failed, still drained)."""
    result = DeviceResult(target.name, "undrain" if undrain else "drain", "applied")
    step = Steps(result)
    try:
        asn = bgp_asn(target)
        step("fabric", lambda: identity.check(session, target, target.adopt))
        if not undrain:
            try:
                drain(session, target, opts, result, step)
            except StepFailed as exc:
                step("undrain", lambda: remote.set_gshut(session, asn, False), interruptible=False)
                result.notes.append("drain lifted again: the device is undrained, as before")
                raise exc
            return result
        record_before(target, opts, result)
        step("undrain", lambda: remote.set_gshut(session, asn, False))
        if not step("wait-undrained", lambda: wait_drained(target, opts, result, undrain=True)):
            step("drain", lambda: remote.set_gshut(session, asn, True), interruptible=False)
            result.notes.append("drained again: the device stays drained, as before")
            raise StepFailed(undrain_late(target, opts, result))
    except Exception as exc:  # noqa: BLE001 - reported, like a push
        result.result, result.error = "failed", str(exc)
    return result
