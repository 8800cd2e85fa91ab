"""What one device's push is made of: its result, options, steps journal and the interface every NOS mode's
apply strategy implements (deploy/mode_*.py; the driver is deploy/device.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypedDict, TypeVar

from netauto.deploy import devstate, forwarding, nvue_off
from netauto.deploy.connection import DeviceSession
from netauto.deploy.redact import redact
from netauto.deploy.redact import unified_diff as redacted_diff
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target
from netauto.platforms.nos import cumulus_path, sonic_path

# on-device paths from the platform layer (platforms/data/nos_*.yaml)
FRR_CONF = "/" + cumulus_path("frr")
INTERFACES = "/" + cumulus_path("interfaces")
NVUE_STARTUP = "/" + cumulus_path("nvue")
# the platform's own `key = value` files: deploy sets netauto's keys in them and keeps every other line (common)
QOS_INFRA = "/" + cumulus_path("qos_infra")
SWITCHD_CONF = "/" + cumulus_path("switchd")
SONIC_FRR = "/" + sonic_path("frr")
SONIC_DB = "/" + sonic_path("config_db")

T = TypeVar("T")

DONE = ("applied", "partly-applied", "installed-not-applied")  # a push that went through (DeviceResult.applied_state)


class DrainEvidence(TypedDict, total=False):
    """DeviceResult.drain: each neighbour's ECMP width toward the device before, drained and restored, how
    long the waits took, and per neighbour the sessions (next hops) it still forwarded through when a wait
    ended (the results file and `netauto drain` print it as is)."""

    before: dict[str, int]
    prefixes: dict[str, int]  # prefixes each neighbour had through the device before the drain
    fib_before: dict[str, int]  # (prefix, port) pairs each neighbour's FIB forwarded through the device before
    fib: list[str]  # how the FIB was read on the neighbours: kernel | zebra | unreadable
    drained: dict[str, int]
    drained_after_s: float
    drained_polls: int
    still_forwarding: dict[str, list[str]]  # neighbour -> "prefix via next hop (rib|fib)" when the wait ended
    restored: dict[str, int]
    restored_after_s: float
    restored_polls: int
    fib_restored: dict[str, int]


@dataclass
class DeviceResult:
    device: str
    action: str  # dry-run | apply
    # unchanged | changed | applied | partly-applied | installed-not-applied | failed | rolled-back | locked |
    # unreachable | skipped (applied_state: a file only installed is not called applied)
    result: str
    diff: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    steps: list[tuple[str, float]] = field(default_factory=list)  # (step, seconds)
    notes: list[str] = field(default_factory=list)  # what was (not) applied and why, defaults FRR hides...
    drain: DrainEvidence = field(default_factory=DrainEvidence)  # neighbours' ECMP widths, wait time
    host_key: str | None = None  # how the SSH host key was checked (connection.HostKeyCheck.status)
    device_state: str | None = None  # the on-device lock/watchdog state when it matters (locked, left pending)
    pending: str | None = None  # stage dir of an applied but unconfirmed push (ApplyOptions.confirm=False)
    warnings: list[str] = field(default_factory=list)  # loud opt-outs (a changed host key accepted...)
    not_applied: list[str] = field(default_factory=list)  # changed files installed but applied by nothing (yet)

    def applied_state(self) -> str:
        """What a push that went through did: `applied` only when every changed file was applied;
        `installed-not-applied` when none was (the lab's config_db.json: no swss/GCU there),
        `partly-applied` in between (result.not_applied and the notes name the files)."""
        if not self.not_applied:
            return "applied"
        return "installed-not-applied" if set(self.diff) <= set(self.not_applied) else "partly-applied"

    def to_dict(self) -> dict[str, object]:
        """For the results file: every text that came from the device redacted (diffs are already)."""
        return {"device": self.device, "action": self.action, "result": self.result, "diff": self.diff,
                "error": redact(self.error) if self.error else None, "notes": [redact(n) for n in self.notes],
                "warnings": self.warnings,  # built by netauto from the device name and key fingerprint only
                "not_applied": self.not_applied, "drain": self.drain, "host_key": self.host_key, "device_state": self.device_state,
                "timings": {name: round(sec, 3) for name, sec in self.steps}}


def unified(path: str, running: bytes | None, intent: bytes, device: str = "") -> str:
    """The diff as shown and stored: secrets on either side redacted (a changed secret still shows as -/+).
    The headers name the device (`--- running:spine4:/etc/sonic/config_db.json`), so that a dry-run of many
    devices does not print the same header six times."""
    old = "" if running is None else running.decode(errors="replace")
    where = f"{device}:{path}" if device else path
    return redacted_diff(old, intent.decode(), f"running:{where}" if running is not None else "/dev/null",
                         f"intent:{where}")


class Neighbours(Protocol):
    """How the drain looks at the neighbours' routes (implemented over SSH by run.NeighbourWatcher)."""

    def views(self, target: Target) -> dict[str, forwarding.DrainView]: ...


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


class Steps:
    """Runs and times each named step; refuses to start one once SIGINT/SIGTERM was seen."""

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


@dataclass
class Read:
    """A file-based push's read: the files as they were and must become, and the lab guard file."""

    before: dict[str, bytes | None]  # the files as they were
    expected: dict[str, bytes]  # as they must be
    diffs: dict[str, str]
    guard: bytes | None  # the lab guard file
    nvue_off: nvue_off.NvueOwner | None = None  # --disable-nvue: what the preflight found (its files in `before`)


@dataclass
class Push:
    """One device's push in flight, handed to its strategy's steps."""

    session: DeviceSession
    target: Target
    opts: ApplyOptions
    result: DeviceResult
    step: Steps
    stage: str
    who: str  # "run <id> on <device>": what the lock and the device's log name
    read: Read | None = None  # file-based modes
    checkpoint: str | None = None  # SONiC: the GCU checkpoint guarding a config_db change
    state: dict[str, object] = field(default_factory=dict)  # the strategy's own (NVUE: applied tree, intent)

    @property
    def journal(self) -> dict[str, object]:
        return self.step.journal


class Strategy(Protocol):
    """How one NOS mode pushes (NVUE, Cumulus Linux files, SONiC, server): the driver (device.apply_device)
    locks, calls these in order, arms the watchdog between `check` and `apply`, confirms, and on any failure
    after arming calls `rollback`."""

    name: str

    def read(self, push: Push) -> bool:
        """What the device runs and what it must become (result.diff); False: nothing to do."""

    def unchanged(self, push: Push) -> None:
        """Nothing differs: what still runs inside the lock (a server's NIC firmware)."""

    def stage(self, push: Push) -> dict[str, bytes]:
        """Every file the push needs in the stage dir (rollback.sh, watchdog.sh, guard.sh included)."""

    def check(self, push: Push) -> None:
        """The device's own parsers on the staged files, before anything is live."""

    def rollback_lines(self, push: Push) -> list[str]:
        """The body of the armed rollback.sh (run by the push or by the on-device watchdog)."""

    def arm(self, push: Push) -> int:
        """Save what the rollback restores and start the watchdog; returns its deadline (epoch s)."""

    def apply(self, push: Push) -> None:
        """Drain, apply, wait for the sessions, undrain (the live part)."""

    def verify(self, push: Push) -> None:
        """The device runs the intent (after apply and undrain)."""

    def confirm_extra(self, push: Push) -> str:
        """A command the confirm runs too (SONiC: drop the GCU checkpoint); "" for none."""

    def rollback(self, push: Push) -> None:
        """Run rollback.sh now, prove the device is as before, disarm and release."""

    def rolled_back_note(self) -> str:
        """What a proven rollback proved."""


def stopped_before_change(push: Push, exc: BaseException) -> None:
    """A failure before the watchdog was armed: nothing changed; release the lock (or say it is left)."""
    push.result.notes.append("nothing was changed on the device (stopped before the first change)")
    try:
        devstate.release(push.session, push.stage, redact(f"{push.who}: stopped before any change ({exc})")[:300])
    except Exception as rel_exc:  # noqa: BLE001 - the report matters more
        push.result.device_state = (f"lock and stage {push.stage} left on the device ({rel_exc}): "
                                    f"`netauto deploy clear` removes them")
