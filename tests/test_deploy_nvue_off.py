"""Linux-files mode: the preflight's decision (does NVUE still own the Linux files?) and the --disable-nvue
steps, on the output formats NVUE documents. Not verified against NVUE (none on this machine).

`nv show system config` formats: NVUE command reference, Show Commands > System Config (the example shows
`auto-save: enable: off`; JSON output in 5.6 and earlier, `-o json` after); from 5.10 the key is `state` with
enabled/disabled (nvueschema v5_9 vs v5_10, platforms/data/nos_cumulus.yaml spelling)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import DEFAULT_INVENTORY

from netauto.deploy import nvue_off
from netauto.deploy.device import _rollback_script, linux_files_cumulus
from netauto.deploy.targets import build_targets
from netauto.pipeline import render

STARTUP = "/etc/nvue.d/startup.yaml"
ENV = "/etc/default/nvued"
SHOW_56 = json.dumps({"apply": {"overwrite": "all"}, "auto-save": {"enable": "off"}, "snippet": {}})
SHOW_515_ON = json.dumps({"apply": {"overwrite": "all"}, "auto-save": {"state": "enabled"}, "snippet": {}})
SHOW_515_OFF = json.dumps({"apply": {"overwrite": "all"}, "auto-save": {"state": "disabled"}, "snippet": {}})
ENV_ON = b"# nvued defaults\nPASSWORD_NVUE_SYNC=yes\n"
ENV_OFF = b"# nvued defaults\nPASSWORD_NVUE_SYNC=no\n"
STARTUP_DOC = b"- set:\n    system:\n      hostname: leaf1\n"


def _files(startup: bytes | None, env: bytes | None) -> dict[str, bytes | None]:
    return {STARTUP: startup, ENV: env}


def test_paths_and_commands_come_from_the_platform_layer():
    assert nvue_off.watched_paths() == [STARTUP, ENV]
    assert nvue_off.backup_dir("r1").startswith("/var/tmp/netauto/")


def test_no_nv_command_means_no_nvue_even_with_leftover_files():
    owner = nvue_off.decide(None, _files(STARTUP_DOC, ENV_ON))
    assert not owner.active and not owner.nv


def test_fully_disabled_nvue_passes():
    owner = nvue_off.decide(SHOW_515_OFF, _files(None, ENV_OFF))
    assert not owner.active and owner.nv and owner.auto_save_key == "state"
    assert not nvue_off.decide(SHOW_56, _files(None, b'PASSWORD_NVUE_SYNC="no"\n')).active  # quoted, 5.6 spelling


@pytest.mark.parametrize(("show", "startup", "env", "found"), [
    (SHOW_515_ON, None, ENV_OFF, ["NVUE auto-save on (auto-save state enabled)"]),
    (SHOW_515_OFF, STARTUP_DOC, ENV_OFF, [f"{STARTUP} present (NVUE applies it at boot)"]),
    (SHOW_515_OFF, None, ENV_ON, [f"PASSWORD_NVUE_SYNC in {ENV} not 'no' (=yes)"]),
    (SHOW_515_OFF, None, None, [f"PASSWORD_NVUE_SYNC in {ENV} not 'no' (missing)"]),
    (SHOW_515_OFF, None, b"# nothing\n", [f"PASSWORD_NVUE_SYNC in {ENV} not 'no' (unset)"]),
    (SHOW_515_OFF, None, b"PASSWORD_NVUE_SYNC=no\n#PASSWORD_NVUE_SYNC=no\nPASSWORD_NVUE_SYNC=yes\n",
     [f"PASSWORD_NVUE_SYNC in {ENV} not 'no' (=yes)"]),  # the last assignment wins, comments do not count
    ("not json", None, ENV_OFF, ["NVUE auto-save state unreadable in `nv show system config -o json` "
                                 "(treated as on)"]),
    (json.dumps({"auto-save": {"enable": "on"}}), STARTUP_DOC, ENV_ON, 3),
])
def test_each_sign_of_nvue_in_charge_is_found(show, startup, env, found):
    owner = nvue_off.decide(show, _files(startup, env))
    assert owner.active
    if isinstance(found, int):
        assert len(owner.findings) == found
    else:
        assert owner.findings == found


def test_refusal_is_one_line_naming_device_findings_and_fix():
    owner = nvue_off.decide(SHOW_515_ON, _files(STARTUP_DOC, ENV_ON))
    line = nvue_off.refusal("su1-r3-leaf", owner)
    assert "\n" not in line and line.startswith("su1-r3-leaf: NVUE still owns the Linux files")
    for part in ("auto-save on", STARTUP, "PASSWORD_NVUE_SYNC", "--disable-nvue", "Nothing changed",
                 "nv config apply -y"):
        assert part in line, part


@pytest.mark.parametrize(("show", "command"), [
    (json.dumps({"auto-save": {"state": "enabled"}}), "nv set system config auto-save state disabled"),  # >= 5.10
    (json.dumps({"auto-save": {"enable": "on"}}), "nv set system config auto-save enable off"),  # <= 5.9
])
def test_plan_uses_the_switch_release_spelling(show, command):
    owner = nvue_off.decide(show, _files(STARTUP_DOC, ENV_ON))
    steps = nvue_off.plan(owner, "run1")
    assert steps == [f"`{command}` + `nv config apply -y`",
                     f"move {STARTUP} to /var/tmp/netauto/nvue-off/run1{STARTUP}",
                     f"write PASSWORD_NVUE_SYNC=no to {ENV} (atomic rename)"]


def test_env_file_keeps_other_lines_and_sets_the_key():
    assert nvue_off.with_env(b"A=1\nexport PASSWORD_NVUE_SYNC=yes\nB=2\n", {"PASSWORD_NVUE_SYNC": "no"}) == \
        b"A=1\nPASSWORD_NVUE_SYNC=no\nB=2\n"
    assert nvue_off.with_env(None, {"PASSWORD_NVUE_SYNC": "no"}) == b"PASSWORD_NVUE_SYNC=no\n"
    assert nvue_off.with_env(ENV_OFF, {"PASSWORD_NVUE_SYNC": "no"}) == ENV_OFF  # nothing to write


def test_rollback_turns_auto_save_back_on_first_then_restores_the_files():
    model, artifacts = render(DEFAULT_INVENTORY)
    target = build_targets(model, artifacts, cumulus_mode="linux-files")["su1-r3-leaf"]
    assert linux_files_cumulus(target) and STARTUP not in target.files  # a rendered view, never pushed here
    owner = nvue_off.decide(SHOW_515_ON, _files(STARTUP_DOC, None))
    before = {"/etc/frr/frr.conf": b"x", STARTUP: STARTUP_DOC, ENV: None}
    script = _rollback_script(target, before, "/var/tmp/netauto/run.X", None, owner).splitlines()
    nv = next(i for i, ln in enumerate(script) if "auto-save state enabled" in ln)
    assert script[nv] == ("[ ! -e /var/tmp/netauto/run.X/nvue-autosave-off ] || "
                          "{ nv set system config auto-save state enabled && nv config apply -y; }")
    assert nv < script.index(f"cp -p /var/tmp/netauto/run.X/backup{STARTUP} {STARTUP}")
    assert f"rm -f {ENV}" in script  # it did not exist before the push


def test_disable_nvue_is_never_read_from_the_environment(monkeypatch):
    from netauto.cli.app import cli

    monkeypatch.setenv("NETAUTO_DEPLOY_DISABLE_NVUE", "1")
    res = CliRunner().invoke(cli, ["deploy", "--help"], terminal_width=200)
    assert res.exit_code == 0 and "--disable-nvue" in res.output
    assert "NETAUTO_DEPLOY_DISABLE_NVUE" not in res.output
