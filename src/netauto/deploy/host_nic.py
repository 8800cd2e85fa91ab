"""Deploy of the GPU-server NIC provisioning: enable and run the boot unit; the firmware step only when asked.

Kept apart from device.py so the server apply path calls two functions: `provision` after the files are installed,
`firmware` when the operator passed `--nic-firmware`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed
from netauto.render.engine import HOST

UNIT = "netauto-roce-qos.service"
_PATHS = {"/" + s.path for s in HOST}
SCRIPT = "/usr/local/sbin/netauto-roce-qos.sh"
FIRMWARE = "/usr/local/sbin/netauto-nic-firmware.sh"
UDEV = "/etc/udev/rules.d/90-netauto-rails.rules"
PROVISIONING = {SCRIPT, f"/etc/systemd/system/{UNIT}", "/etc/systemd/system/netauto-roce-qos@.service", UDEV}
assert PROVISIONING <= _PATHS and FIRMWARE in _PATHS, "host file set and deploy disagree"

Step = Callable[[str, Callable[[], object]], object]


def provision(session: DeviceSession, live: Iterable[str], step: Step, notes: list[str]) -> None:
    """Installed provisioning files changed: reload systemd and udev, enable the unit, run it (every rail).

    The unit's exit status is the script's: a rail that cannot be set or read back fails the step (and the
    deploy rolls the files back), with the script's per-rail log in the error."""
    live = set(live)
    if not live & PROVISIONING:
        return
    if UDEV in live:
        notes.append("rail NIC names (udev rules) take effect at the next boot or `udevadm trigger --action=add` "
                     "on the rail NICs: not renamed live")
    if not session.run("[ -d /run/systemd/system ]").ok:
        raise StepFailed("the host runs no systemd: the NIC provisioning unit cannot be enabled")
    step("nic-provision-enable", lambda: _ok(session, f"systemctl daemon-reload && udevadm control --reload "
                                                      f"&& systemctl enable {UNIT}"))
    step("nic-provision-run", lambda: _ok(session, f"systemctl restart {UNIT}",
                                          f"journalctl -u {UNIT} -n 40 -o cat --no-pager"))


def firmware(session: DeviceSession, step: Step, notes: list[str]) -> None:
    """`--nic-firmware`: set drifting mlxconfig values; never resets a NIC (activation is the operator's call)."""
    def run() -> None:
        res = session.run(f"{FIRMWARE} --apply", timeout=600)
        if res.rc == 0:
            notes.append("NIC firmware settings current")
        elif res.rc == 3:
            notes.append("NIC firmware settings written, pending: reboot the server or run "
                         "`mlxfwreset -d <pci> reset` on the NICs listed: " + res.tail(400))
        else:
            raise StepFailed(f"{FIRMWARE} --apply failed (exit {res.rc}): {res.tail(400)}")

    step("nic-firmware", run)


def _ok(session: DeviceSession, command: str, on_error: str | None = None) -> None:
    res = session.run(command, timeout=300)
    if not res.ok:
        detail = session.run(on_error).tail(1500) if on_error else res.tail(300)
        raise StepFailed(f"{command} failed: {detail}")
