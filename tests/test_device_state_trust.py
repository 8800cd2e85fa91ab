"""The deploy state on a device (/var/tmp/netauto, devstate) is root's, in a world-writable folder: another user of
the switch may have made /var/tmp/netauto, or a `/var/tmp/netauto-1` "stage" of an older netauto, first. Such a
folder is never used: `deploy clear` ran the planted stage's guard.sh and rollback.sh as root, a push kept its
lock, stage and watchdog.sh in the other user's folder, and the boot unit ran its run.*/watchdog.sh as root.

The device's scripts run here with `sh`, /var/tmp mapped into tmp_path (the lab tests run them on FRR nodes)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from netauto.deploy import boot_unit, devstate
from netauto.deploy.connection import CommandResult
from netauto.deploy.remote import StepFailed

NOBODY = 65534


class LocalDevice:
    """A DeviceSession stand-in that runs each command with `sh -c` here, /var/tmp and /etc/systemd mapped."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "vartmp").mkdir(mode=0o1777)
        (root / "vartmp").chmod(0o1777)
        self.frr_exec = ""

    def map(self, command: str) -> str:
        return command.replace("/var/tmp", str(self.root / "vartmp")).replace("/etc/systemd", str(self.root / "sd"))

    def run(self, command: str, timeout: float = 120.0, sudo: bool = True) -> CommandResult:
        proc = subprocess.run(["sh", "-c", self.map(command)], capture_output=True, text=True, timeout=timeout,
                              check=False)
        # the stage dir as the device names it (acquire takes only /var/tmp/netauto/run.XXXXXXXX)
        out = proc.stdout.replace(f"__ACQUIRED__ {self.root / 'vartmp'}", "__ACQUIRED__ /var/tmp")
        return CommandResult(proc.returncode, out, proc.stderr)


def _plant_stage(stage: Path, marker: Path, owner: int | None, mode: int) -> None:
    """What another user of the device leaves: a stage whose scripts write `marker` when root runs them."""
    stage.mkdir(parents=True)
    for name in ("guard.sh", "check-before.sh"):
        (stage / name).write_text("exit 0\n")
    (stage / "rollback.sh").write_text(f"touch {marker}\n")
    (stage / "watchdog.sh").write_text(f"touch {marker}\n")
    stage.chmod(mode)
    if owner is not None:
        for p in [stage, *stage.iterdir()]:
            os.chown(p, owner, owner)


def _needs_root(owner: int | None) -> None:
    if owner is not None and os.geteuid() != 0:
        pytest.skip("planting a folder of another user needs root")


PLANTERS = [pytest.param(NOBODY, 0o700, id="other-user"), pytest.param(None, 0o777, id="world-writable")]


@pytest.mark.parametrize(("owner", "mode"), PLANTERS)
def test_clear_never_runs_a_planted_legacy_stage(tmp_path, owner, mode):
    _needs_root(owner)
    dev = LocalDevice(tmp_path)
    marker = tmp_path / "ran-as-root"
    _plant_stage(tmp_path / "vartmp" / "netauto-1", marker, owner, mode)
    state = devstate.status(dev)  # type: ignore[arg-type]
    assert not state.busy, state.describe()  # not a stage of netauto: it blocks no push
    assert "netauto-1" in state.describe()  # but it is said
    devstate.clear(dev, "leaf1")  # type: ignore[arg-type]
    assert not marker.exists()


@pytest.mark.parametrize(("owner", "mode"), PLANTERS)
def test_a_planted_state_folder_is_refused_and_never_run(tmp_path, owner, mode):
    _needs_root(owner)
    dev = LocalDevice(tmp_path)
    marker = tmp_path / "ran-as-root"
    root = tmp_path / "vartmp" / "netauto"
    _plant_stage(root / "run.AAAAAAAA", marker, owner, mode)
    root.chmod(mode)
    if owner is not None:
        os.chown(root, owner, owner)
    with pytest.raises(StepFailed, match=r"/var/tmp/netauto .*not netauto's.*remove it"):
        devstate.acquire(dev, devstate.RunInfo.new())  # type: ignore[arg-type]
    assert sorted(p.name for p in root.iterdir()) == ["run.AAAAAAAA"]  # no lock, no stage made in it
    devstate.clear(dev, "leaf1")  # type: ignore[arg-type]
    assert not marker.exists()
    assert "vartmp/netauto " in devstate.status(dev).describe() + " "  # type: ignore[arg-type]


def test_a_planted_symlink_is_not_followed(tmp_path):
    dev = LocalDevice(tmp_path)
    target = tmp_path / "etc"
    target.mkdir(mode=0o755)
    (tmp_path / "vartmp" / "netauto").symlink_to(target)
    with pytest.raises(StepFailed, match="not netauto's"):
        devstate.acquire(dev, devstate.RunInfo.new())  # type: ignore[arg-type]
    assert (target.stat().st_mode & 0o777) == 0o755 and list(target.iterdir()) == []  # no chmod 700, no lock


def _boot(dev: LocalDevice) -> None:
    exec_start = next(ln for ln in boot_unit.BOOT_UNIT_TEXT.splitlines() if ln.startswith("ExecStart="))
    script = exec_start.removeprefix("ExecStart=/bin/sh -c ").strip("'")
    subprocess.run(["sh", "-c", dev.map(script)], check=True, timeout=30)


@pytest.mark.parametrize(("owner", "mode"), PLANTERS)
def test_the_boot_unit_runs_no_watchdog_of_a_planted_state_folder(tmp_path, owner, mode):
    if os.geteuid() != 0:
        pytest.skip("the boot unit runs as root")
    _needs_root(owner)
    dev = LocalDevice(tmp_path)
    marker = tmp_path / "ran-as-root"
    root = tmp_path / "vartmp" / "netauto"
    _plant_stage(root / "run.AAAAAAAA", marker, None, 0o700)
    root.chmod(mode)
    if owner is not None:
        os.chown(root, owner, owner)
    _boot(dev)
    assert not marker.exists()
    root.chmod(0o700)
    os.chown(root, 0, 0)
    _boot(dev)  # netauto's own folder: its watchdogs are resumed
    assert marker.exists()


def test_own_state_folder_still_works(tmp_path):
    dev = LocalDevice(tmp_path)
    stage = devstate.acquire(dev, devstate.RunInfo.new())  # type: ignore[arg-type]
    assert dev.map(stage).startswith(str(tmp_path / "vartmp" / "netauto" / "run."))
    state = devstate.status(dev)  # type: ignore[arg-type]
    assert state.busy and state.lock is not None and [s.path for s in state.stages] == [dev.map(stage)]
    with pytest.raises(devstate.Locked):
        devstate.acquire(dev, devstate.RunInfo.new())  # type: ignore[arg-type]
    devstate.release(dev, stage, "done")  # type: ignore[arg-type]
    assert not devstate.status(dev).busy  # type: ignore[arg-type]


def test_an_older_boot_unit_is_replaced(tmp_path):
    """A device keeps the unit an older netauto installed (it resumed watchdogs from any /var/tmp/netauto): the
    next push brings it up to date; an up-to-date one is left alone (no daemon-reload)."""
    dev = LocalDevice(tmp_path)
    (tmp_path / "run" / "systemd" / "system").mkdir(parents=True)
    (tmp_path / "sd" / "system").mkdir(parents=True)
    (tmp_path / "bin").mkdir()
    calls = tmp_path / "systemctl.calls"
    (tmp_path / "bin" / "systemctl").write_text(f"#!/bin/sh\necho \"$*\" >> {calls}\n")
    (tmp_path / "bin" / "systemctl").chmod(0o755)
    unit = tmp_path / "sd" / "system" / "netauto-watchdog.service"
    unit.write_text(boot_unit.BOOT_UNIT_TEXT.replace(devstate.owned(devstate.ROOT, "0") + " || exit 0; ", ""))
    command = dev.map(boot_unit.install_boot_unit()).replace("/run/systemd", str(tmp_path / "run" / "systemd"))
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}
    subprocess.run(["sh", "-c", command], check=True, env=env)
    assert unit.read_text() == dev.map(boot_unit.BOOT_UNIT_TEXT) and "daemon-reload" in calls.read_text()
    calls.unlink()
    subprocess.run(["sh", "-c", command], check=True, env=env)
    assert not calls.exists()


def test_deploy_status_shows_a_planted_state_folder_and_exits_1(tmp_path, monkeypatch):
    """`deploy status` said "free" (exit 0) for a device whose /var/tmp/netauto is not netauto's, where every push
    is refused: it names the folder now."""
    from types import SimpleNamespace

    from click.testing import CliRunner

    from conftest import DEFAULT_INVENTORY
    from netauto.cli import deploy as cli_deploy
    from netauto.cli.app import cli

    dev = LocalDevice(tmp_path)
    root = tmp_path / "vartmp" / "netauto"
    root.mkdir()
    root.chmod(0o777)

    def each(*args: object) -> dict[str, tuple[bool, list[str]]]:
        return {"leaf1": (True, args[-1](dev, SimpleNamespace(kind="server", frr_exec="")))}  # type: ignore[operator]

    monkeypatch.setattr(cli_deploy, "_each_device", each)
    res = CliRunner().invoke(cli, ["deploy", "status", "-i", str(DEFAULT_INVENTORY)])
    assert res.exit_code == 1, res.output
    assert "not netauto's" in res.output and "free" not in res.output


@pytest.mark.parametrize("planted", ["root-link", "legacy-link"])
def test_a_planted_name_cannot_forge_a_stage_line(tmp_path, planted):
    """`ls -ld` of a foreign folder printed its link target raw: a target holding a newline and `__STAGE__ <dir>`
    made status list <dir> as a stage, and `deploy clear` ran <dir>/guard.sh and rollback.sh as root."""
    dev = LocalDevice(tmp_path)
    marker = tmp_path / "ran-as-root"
    evil = tmp_path / "evil"
    _plant_stage(evil, marker, None, 0o755)
    (evil / "guard.sh").write_text(f"touch {marker}\n")
    forged = f"x\n__STAGE__ {evil} - dead guard.sh"
    if planted == "root-link":
        (tmp_path / "vartmp" / "netauto").symlink_to(forged)
    else:
        target = tmp_path / forged.replace("x\n", "a\n", 1)
        target.mkdir(parents=True)
        (tmp_path / "vartmp" / "netauto-1").symlink_to(target)
    state = devstate.status(dev)  # type: ignore[arg-type]
    assert not state.stages and len(state.foreign) == 1, state.describe()
    devstate.clear(dev, "leaf1")  # type: ignore[arg-type]
    assert not marker.exists()


@pytest.mark.parametrize(("owner", "mode"), PLANTERS)
def test_a_planted_legacy_stage_blocks_no_push(tmp_path, owner, mode):
    """status lists a planted `/var/tmp/netauto-1` as ignored and `deploy clear` says "nothing to clear", but the
    push still counted it as busy: every push refused with "end it with `netauto deploy clear`", which could not.
    An older netauto's own stage (root's, 0700) still holds the device."""
    _needs_root(owner)
    dev = LocalDevice(tmp_path)
    _plant_stage(tmp_path / "vartmp" / "netauto-1", tmp_path / "ran-as-root", owner, mode)
    stage = devstate.acquire(dev, devstate.RunInfo.new())  # type: ignore[arg-type]
    devstate.release(dev, stage, "done")  # type: ignore[arg-type]
    _plant_stage(tmp_path / "vartmp" / "netauto-2", tmp_path / "ran-as-root", None, 0o700)
    with pytest.raises(devstate.Locked, match="netauto-2"):
        devstate.acquire(dev, devstate.RunInfo.new())  # type: ignore[arg-type]
