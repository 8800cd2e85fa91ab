"""Deploy of the GPU-server NIC provisioning: enable and run the boot unit; the firmware step only when asked.

Kept apart from device.py so the server apply path calls two functions: `provision` after the files are installed,
`firmware` when the operator passed `--nic-firmware`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed
from netauto.platforms import host
from netauto.render.file_tables import HOST

UNIT = host.COMPUTE.unit_name
FIRMWARE = "/" + host.FIRMWARE
assert {"/" + s.path for s in HOST} >= {"/" + p for p in host.COMPUTE.provisioning} | {FIRMWARE}, \
    "host file set and deploy disagree"

Step = Callable[[str, Callable[[], object]], object]


def provision(session: DeviceSession, live: Iterable[str], step: Step, notes: list[str],
              files: Iterable[str] = ()) -> None:
    """Installed provisioning files changed: reload systemd and udev, enable each changed network's unit and run
    it (every NIC of that network: the compute rails, a lossless network's NICs).

    `files`: every file of the server (the networks it has units for); `live` the changed ones. A unit's exit
    status is its script's: a NIC that cannot be set or read back fails the step (and the deploy rolls the files
    back), with the script's per-NIC log in the error."""
    live = set(live)
    nets = [n for n in host.provisioned(set(files) | live) if live & {"/" + p for p in n.provisioning}]
    if not nets:
        return
    for net in nets:
        if "/" + net.udev in live:
            notes.append(f"{net.nic_word} names (udev rules) take effect at the next boot or `udevadm trigger "
                         f"--action=add` on those NICs: not renamed live")
    if not session.run("[ -d /run/systemd/system ]").ok:
        raise StepFailed("the host runs no systemd: the NIC provisioning unit cannot be enabled")
    units = " ".join(n.unit_name for n in nets)
    step("nic-provision-enable", lambda: _ok(session, f"systemctl daemon-reload && udevadm control --reload "
                                                      f"&& systemctl enable {units}"))
    for net in nets:
        step("nic-provision-run" + ("" if net.network is None else f"-{net.network}"), _restart(session, net.unit_name))


def _restart(session: DeviceSession, unit: str) -> Callable[[], None]:
    return lambda: _ok(session, f"systemctl restart {unit}", f"journalctl -u {unit} -n 40 -o cat --no-pager")


def restart_lines(files: Iterable[str]) -> list[str]:
    """Rollback: re-run every network's provisioning unit after the old files are back."""
    units = " ".join(n.unit_name for n in host.provisioned(files)) or UNIT
    return [f"[ -d /run/systemd/system ] && systemctl daemon-reload && systemctl try-restart {units}"]


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
