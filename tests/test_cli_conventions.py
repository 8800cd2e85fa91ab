"""CLI conventions a Nornir/Ansible user expects: exit 2 with a suggestion for bad input, help on every option,
NETAUTO_* environment defaults, -v/--debug/--log-file (secrets redacted), --format json, shell completion."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys

import click
import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES, ROOT
from test_cli import _command_paths, run

from netauto.cli.app import cli, configure_logging

MIXED = EXAMPLES / "mixed-sonic" / "inventory"


def test_unknown_device_exits_2_with_close_matches(capsys, monkeypatch):
    code, out, err = run(["show", "model", "--device", "su1-r0-leef"], capsys, monkeypatch)
    assert code == 2 and out == ""
    assert "--device 'su1-r0-leef'" in err and "did you mean su1-r0-leaf" in err
    assert len(err.strip().splitlines()) == 1


def test_deploy_limit_matching_nothing_exits_2_before_any_connection(capsys, monkeypatch, tmp_path):
    code, out, err = run(["deploy", "--dry-run", "--limit", "spine1,spien2", "--results", tmp_path / "r.json"],
                         capsys, monkeypatch)
    assert code == 2 and "'spien2' matches no device or group; did you mean spine2" in err
    assert not (tmp_path / "r.json").exists()


def _all_params() -> list[tuple[str, click.Parameter]]:
    found = []
    for path in _command_paths():
        command: click.Command = cli
        for name in path:
            command = command.commands[name]  # type: ignore[attr-defined]
        for param in command.params:
            found.append((" ".join(path) or "netauto", param))
    return found


@pytest.mark.parametrize("where, param", [p for p in _all_params() if isinstance(p[1], click.Option)],
                         ids=lambda x: x if isinstance(x, str) else x.name)
def test_every_option_has_help(where, param):
    assert param.help or param.hidden, f"`{where} {param.opts[0]}` has no help text"


def test_deploy_inventory_and_templates_have_help(capsys, monkeypatch):
    code, out, _ = run(["deploy", "--help"], capsys, monkeypatch)
    assert code == 0
    assert "Source-of-truth folder" in out and "Folder of template overrides" in out and "NETAUTO_INVENTORY" in out


def test_environment_defaults_and_the_command_line_wins(capsys, monkeypatch):
    monkeypatch.setenv("NETAUTO_INVENTORY", str(MIXED))
    monkeypatch.setenv("NETAUTO_SHOW_CABLING_FORMAT", "json")  # click's auto_envvar_prefix
    code, out, _ = run(["show", "cabling"], capsys, monkeypatch)
    rows = json.loads(out)
    assert code == 0 and rows[0]["a_port"].startswith("Ethernet")  # the mixed fabric: SONiC leaves
    code, out, _ = run(["show", "cabling", "--format", "csv", "-i", DEFAULT_INVENTORY], capsys, monkeypatch)
    assert code == 0 and out.splitlines()[1].split(",")[1].startswith("swp")


def test_safety_flags_never_come_from_the_environment(capsys, monkeypatch):
    code, out, _ = run(["deploy", "--help"], capsys, monkeypatch)
    assert "NETAUTO_DEPLOY_LIMIT" in out and "NETAUTO_DEPLOY_YES" not in out and "SKIP_VALIDATE" not in out
    assert "NETAUTO_DEPLOY_NO_HOST_KEY_CHECK" not in out


def test_trust_flags_never_come_from_the_environment():
    """--accept-new-host-keys (trust whatever key a new host shows) and --adopt (take over another fabric's
    device) lower a trust boundary: a stale `export NETAUTO_DEPLOY_ADOPT=1` must not do it on every run."""
    import click

    from netauto.cli.app import cli, load_commands

    load_commands()
    found = []

    def walk(command: click.Command, path: str) -> None:
        found.extend(f"{path} {p.opts[0]}: {p.envvar}" for p in command.params
                     if isinstance(p, click.Option) and p.name in {"adopt", "accept_new"} and p.envvar)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(cli, "netauto")
    assert found == []


def test_show_cabling_json_has_every_link_with_the_csv_columns(capsys, monkeypatch):
    _, csv_out, _ = run(["show", "cabling"], capsys, monkeypatch)
    _, json_out, _ = run(["show", "cabling", "--format", "json"], capsys, monkeypatch)
    header, *lines = csv_out.splitlines()
    rows = json.loads(json_out)
    assert len(rows) == len(lines) == 128 and list(rows[0]) == header.split(",")
    assert ",".join(rows[5].values()) == lines[5]


def test_log_levels_ssh_loggers_file_and_redaction(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NETAUTO_SSH_PASSWORD_ROLE_SPINE", "s3cret-spine")
    log_file = tmp_path / "netauto.log"
    try:
        configure_logging(1, False, log_file)
        logging.getLogger("netauto.deploy.connection").info("connecting with s3cret-spine")
        logging.getLogger("netauto.x").debug("netauto debug line")
        logging.getLogger("paramiko.transport").debug("paramiko debug line")
        logging.getLogger("netauto.deploy").warning("running: neighbor swp33s0 password hunter2")
        err = capsys.readouterr().err
        assert "neighbor swp33s0 password <redacted>" in err and "hunter2" not in err  # a device's secret too
        assert "connecting with ********" in err and "s3cret" not in err
        assert "netauto debug line" not in err and "paramiko debug line" not in err  # -v: netauto info only
        text = log_file.read_text()
        assert log_file.stat().st_mode & 0o777 == 0o600  # --log-file: SSH debug shows device content
        assert "netauto debug line" in text and "paramiko debug line" in text and "s3cret" not in text
        configure_logging(0, True, None)  # --debug: SSH libraries on stderr too
        logging.getLogger("paramiko.transport").debug("kex done")
        assert "paramiko.transport: kex done" in capsys.readouterr().err
        configure_logging(0, False, None)  # default: warnings only
        logging.getLogger("netauto.x").info("quiet")
        assert capsys.readouterr().err == ""
    finally:
        configure_logging(0, False, None)


def test_deploy_json_log_file_and_ssh_config_against_a_closed_loopback_port(tmp_path):
    """The real CLI: ssh_config sends spine1 to 127.0.0.1:1 (nothing listens), the log file shows the SSH
    attempt, --format json puts the result document (spine1 unreachable) on stdout, exit 1."""
    config = tmp_path / "ssh_config"
    config.write_text("Host 192.168.200.*\n  HostName 127.0.0.1\n  Port 1\n")
    env = {**os.environ, "NETAUTO_SSH_CONFIG": str(config), "NETAUTO_KNOWN_HOSTS": str(tmp_path / "kh"),
           "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "netauto", "--log-file", str(tmp_path / "log"), "deploy", "--dry-run", "--limit",
         "spine1", "--format", "json", "--results", str(tmp_path / "r.json")],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1 and [d["device"] for d in doc["devices"]] == ["spine1"]
    assert doc["devices"][0]["result"] == "unreachable" and "127.0.0.1:1" in doc["devices"][0]["error"]
    assert "ssh cumulus@127.0.0.1:1" in (tmp_path / "log").read_text()
    assert json.loads((tmp_path / "r.json").read_text()) == doc


def test_lab_check_json_document():
    from netauto.cli.lab import check_report_json
    from netauto.lab.check import CheckReport, Result

    rep = CheckReport(results=[Result("bgp", "spine1", "swp1", "Established", "Established", True),
                               Result("ping", "gpu01", "rail0 -> gpu02", "reply", "timeout", False)],
                      timings={"sessions": 1.23456}, forwarded={"spine1": 7})
    doc = json.loads(json.dumps(check_report_json("t", rep)))
    assert doc["ok"] is False and doc["lab"] == "t" and doc["timings"] == {"sessions": 1.235}
    assert doc["results"][1] == {"kind": "ping", "device": "gpu01", "item": "rail0 -> gpu02", "expected": "reply",
                                 "actual": "timeout", "ok": False}


def _complete(words: str) -> list[str]:
    env = {**os.environ, "_NETAUTO_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
           "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-m", "netauto"], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=60)
    return [line.split(",", 1)[1] for line in proc.stdout.splitlines() if "," in line]


def test_shell_completion_of_commands_devices_and_limit_terms():
    assert "deploy" in _complete("netauto dep")
    assert _complete("netauto show model --device su1-r3") == ["su1-r3-leaf"]
    assert _complete(f"netauto show model -i {MIXED} --device spine4") == ["spine4"]
    assert _complete("netauto deploy --limit spine1,&role_l") == ["spine1,&role_leaf"]
    assert "gpu01,!spine1" in _complete("netauto deploy --limit gpu01,!spi")


def test_version_without_installed_metadata():
    proc = subprocess.run([sys.executable, "-m", "netauto", "--version"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("netauto, version ")


def test_lazy_command_table_names_every_command_and_its_module():
    """`netauto <command>` imports only its own module: COMMAND_MODULES must name every command where it is."""
    from netauto.cli.app import COMMAND_MODULES, load_commands

    load_commands()
    assert set(cli.commands) == set(COMMAND_MODULES)
    for name, command in cli.commands.items():
        assert command.callback is not None or isinstance(command, click.Group)
        assert command.callback is None or command.callback.__module__ == f"netauto.cli.{COMMAND_MODULES[name]}", name


def test_a_fresh_process_loads_one_command_module_and_still_reads_its_environment(tmp_path):
    code = ("import sys; from netauto.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('netauto.cli.')), file=sys.stderr)")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NETAUTO_SHOW_CABLING_FORMAT": "json",
           "NETAUTO_INVENTORY": str(MIXED)}
    proc = subprocess.run([sys.executable, "-c", code, "show", "cabling"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert json.loads(proc.stdout)[0]["a_port"].startswith("Ethernet")  # env default applied lazily
    loaded = proc.stderr.strip().splitlines()[-1]
    assert "netauto.cli.core" in loaded and "netauto.cli.deploy" not in loaded and "netauto.cli.lab" not in loaded


THIRD_PARTY_DOCS = {"docs/how-to-use.md"}  # multus-cni's own page, cited as the source of a key


def test_hints_name_pages_that_exist():
    """An error hint or generated comment that sends a newcomer to "(README: GPU servers)" must find that section
    (the README has only Install, A tour and Documentation; the pages are docs/*.md), and every docs/<page>.md
    netauto names exists."""
    src = ROOT / "src" / "netauto"
    readme = {line[3:].strip() for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("## ")}
    wrong = []
    for path in [*src.rglob("*.py"), *src.rglob("*.yaml")]:
        text = path.read_text(encoding="utf-8")
        wrong += [f"{path.relative_to(ROOT)}: README: {m}" for m in re.findall(r"\(README: ([^),]+)", text)
                  if m not in readme]
        wrong += [f"{path.relative_to(ROOT)}: {m}" for m in re.findall(r"(?<![\w/-])docs/[a-z-]+\.md", text)
                  if not (ROOT / m).is_file() and m not in THIRD_PARTY_DOCS]
    assert not wrong, wrong


def test_validate_external_help_names_every_real_validator(capsys, monkeypatch):
    """`validate --help` lists what --external runs: every check of runner.EXTERNAL_CHECKS by its tool (a newcomer
    saw `ran: systemd-analyze`, `shellcheck` and `promtool` lines the help never named)."""
    from netauto.validate.runner import EXTERNAL_CHECKS

    code, out, _ = run(["validate", "--help"], capsys, monkeypatch)
    text = " ".join(out.split()).lower()
    assert code == 0
    missing = {label.split()[0] for label, _, _ in EXTERNAL_CHECKS} - {w for w in re.findall(r"[a-z0-9-]+", text)}
    assert not missing, missing


def test_an_unknown_lab_is_bad_input_naming_the_labs_there(tmp_path, capsys, monkeypatch):
    """`--name` of no lab is bad input like an unknown device (exit 2), and says which labs exist (a newcomer
    typed the README's `tour` for the lab they started as `nc4`)."""
    monkeypatch.setenv("NETAUTO_LAB_ROOT", str(tmp_path))
    (tmp_path / "nc4").mkdir()
    (tmp_path / "nc4" / "state.json").write_text("{}")
    code, _, err = run(["lab", "status", "--name", "tour"], capsys, monkeypatch)
    assert code == 2, err
    assert "no lab named 'tour'" in err and "labs here: nc4" in err and "netauto lab up --name tour" in err, err
