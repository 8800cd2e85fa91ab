"""Issue 33 item 9: a CHANGED host key accepted by --no-host-key-check is announced by every command that opens
SSH, from one place (deploy.host_keys.announce, called by deploy.connection.open_session), and verify's JSON lists it in `warnings`. A real sshd on
loopback (tests/test_ssh_config.py's fixture) whose key differs from the known_hosts given; each command's
device work is a stand-in that opens its sessions the way the command does (Nornir's netauto connection), so no
command reads or changes this machine."""

from __future__ import annotations

import json
import subprocess
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from test_ssh_config import sshd  # noqa: F401 - the fixture

from netauto.cli.app import cli, load_commands
from netauto.deploy import connection, host_keys
from netauto.deploy.targets import Credentials, Target

load_commands()
LINE = "WARNING spine1: CHANGED host key accepted only because of --no-host-key-check"


@pytest.fixture
def impostor(sshd, tmp_path, monkeypatch):  # noqa: F811
    """(targets, creds): spine1 is the sshd, known_hosts holds another key for it; announcements reset."""
    port, key, _, _ = sshd
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "other")], check=True)
    pub = (tmp_path / "other.pub").read_text().split()
    known = tmp_path / "stale_known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {pub[0]} {pub[1]}\n")
    target = Target("spine1", "switch", "spine", "cumulus", "127.0.0.1", port, "root", None, {})
    creds = Credentials(key, known_hosts=known, check_host_keys=False)
    monkeypatch.setattr(host_keys, "_announced", [])
    return {"spine1": target}, creds


def _open_like_the_commands(targets, creds) -> None:  # noqa: ANN001
    """What verify, backup and acceptance do first: a Nornir task on the netauto connection."""
    from nornir.core.task import Result

    from netauto.deploy.connection import CONNECTION_NAME
    from netauto.verify.run import run_task

    def task(task):  # noqa: ANN001, ANN202
        task.host.get_connection(CONNECTION_NAME, task.nornir.config)
        return Result(host=task.host, result="opened")

    assert run_task(targets, list(targets), creds, 1, task, str) == {"spine1": "opened"}


def _patch_targets(monkeypatch, impostor) -> None:  # noqa: ANN001
    targets, creds = impostor
    import netauto.cli.verify as cli_verify

    monkeypatch.setattr(cli_verify, "_targets", lambda *a, **k: (SimpleNamespace(name="lab", compute=None, networks=[], compute_planes=[]), [],
                                                                 targets, creds))


def test_verify_announces_and_reports_a_changed_key(impostor, monkeypatch):
    from netauto.verify import run as verify_run
    from netauto.verify.findings import Report

    _patch_targets(monkeypatch, impostor)

    def fake_verify(model, targets, names, creds, **_):  # noqa: ANN001, ANN003, ANN202
        _open_like_the_commands(targets, creds)
        return Report(fabric="lab", devices=names)

    monkeypatch.setattr(verify_run, "verify", fake_verify)
    res = CliRunner().invoke(cli, ["verify", "--no-host-key-check", "--format", "json"])
    assert LINE in res.stderr, res.stderr
    assert res.exit_code == 0, (res.exception, res.stdout)
    assert any(LINE in w for w in json.loads(res.stdout)["warnings"]), res.stdout


def test_backup_announces_a_changed_key(impostor, monkeypatch, tmp_path):
    from netauto.verify import backup

    _patch_targets(monkeypatch, impostor)

    def fake_backup(targets, names, creds, output, workers):  # noqa: ANN001, ANN202
        _open_like_the_commands(targets, creds)
        return []

    monkeypatch.setattr(backup, "backup", fake_backup)
    res = CliRunner().invoke(cli, ["backup", "--no-host-key-check", "-o", str(tmp_path / "b")])
    assert LINE in res.stderr, res.stderr


def test_acceptance_run_announces_a_changed_key(impostor, monkeypatch, tmp_path):
    from netauto.acceptance import planner, runner

    _patch_targets(monkeypatch, impostor)
    monkeypatch.setattr(planner, "build", lambda *a, **k: SimpleNamespace(rounds=[]))

    def fake_run(plan, targets, creds, results, **_):  # noqa: ANN001, ANN003, ANN202
        _open_like_the_commands(targets, creds)
        return SimpleNamespace(saved=[], problems=[])

    monkeypatch.setattr(runner, "run", fake_run)
    res = CliRunner().invoke(cli, ["acceptance", "run", "--no-host-key-check", "-o", str(tmp_path / "r")])
    assert LINE in res.stderr, (res.stderr, res.output)


def test_drain_and_direct_sessions_announce_once(impostor):
    targets, creds = impostor
    from netauto.deploy.targets import session_options

    t = targets["spine1"]
    for _ in range(2):
        connection.open_session(t.host, t.port, t.username, **session_options(t, creds)).close()
    assert host_keys.host_key_warnings() == [host_keys.host_key_warnings()[0]]
    assert host_keys.host_key_warnings()[0].startswith(LINE)
