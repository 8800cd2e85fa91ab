"""Issue 33 (trust, round 3), what a device sends: its output is bounded (item 6), its JSON nested 100,000 deep is
one line, not a traceback (item 7), and control characters in anything it sends are shown visibly on every
console and report (item 5). Stand-in sessions here; the real SSH reads are exercised by the lab tests."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from conftest import DEFAULT_INVENTORY

from netauto.deploy import remote
from netauto.deploy.connection import FILE_LIMIT, DeviceOutputTooLarge, DeviceSession
from netauto.deploy.targets import build_targets
from netauto.pipeline import build
from netauto.verify import run as verify_run

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def pod1():
    built = build(DEFAULT_INVENTORY)
    return built, build_targets(built.cluster, built.artifacts)


class _Stream:
    """A paramiko ChannelFile stand-in: `read(n)` returns at most n bytes of an endless (or given) stream."""

    def __init__(self, data: bytes | None, size: int = 0) -> None:
        self.data, self.size, self.asked = data, size, []
        self.channel = SimpleNamespace(recv_exit_status=lambda: 0, close=lambda: None)

    def read(self, n: int = -1) -> bytes:
        self.asked.append(n)
        if self.data is not None:
            return self.data if n < 0 else self.data[:n]
        return b"x" * (self.size if n < 0 else min(n, self.size))


@pytest.fixture
def wide_console(monkeypatch):
    """The console as wide as the escapes: a table cell wrapped at 80 columns (pytest-xdist's workers, a CI
    log) would cut `\\x1b[2J` in two and the assertions would read the wrap, not the sanitiser."""
    from netauto.cli.app import out

    monkeypatch.setattr(out, "width", 400)


def _session(stdout: _Stream, stderr: _Stream | None = None) -> DeviceSession:
    session = DeviceSession.__new__(DeviceSession)
    session.sudo, session.frr_exec = "", ""
    session.client = SimpleNamespace(exec_command=lambda cmd, timeout: (None, stdout, stderr or _Stream(b"")))
    return session


def test_a_device_sending_more_than_the_bound_is_one_line_and_never_read_whole():
    endless = _Stream(None, size=200 * 2**20)  # a 200 MiB frr.conf
    with pytest.raises(DeviceOutputTooLarge, match=r"more than 64 MiB of output .*: refused") as exc:
        _session(endless).run("vtysh -c 'show running-config'")
    assert "\n" not in str(exc.value) and max(endless.asked) <= 64 * 2**20 + 1


def test_a_device_file_larger_than_the_per_file_bound_is_refused_by_name():
    import io
    import tarfile

    blob = io.BytesIO()
    with tarfile.open(fileobj=blob, mode="w") as tar:
        info = tarfile.TarInfo("etc/frr/frr.conf")
        info.size = FILE_LIMIT + 1
        tar.addfile(info, io.BytesIO(b"!" * info.size))
    stream = _Stream(f"{remote._MARK} 1\n".encode() + blob.getvalue())
    with pytest.raises(DeviceOutputTooLarge, match=r"^/etc/frr/frr.conf: (\d+ bytes on the device, )?more than (the )?16 MiB"):
        remote.read_files(_session(stream), ["/etc/frr/frr.conf"])


def test_a_devices_stderr_is_bounded_too():
    with pytest.raises(DeviceOutputTooLarge, match="of error output"):
        _session(_Stream(b"ok"), _Stream(None, size=10 * 2**20)).run("true")


class _BatchSession:
    """Answers NetautoDevice.run_batch's one script: every command prints `answer`."""

    frr_exec = ""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    def run(self, script: str, timeout: float = 120.0, sudo: bool = True):  # noqa: ANN201
        from netauto.deploy.connection import CommandResult

        parts = re.findall(r"printf '\\n(__NETAUTO_OUT__\w+) %s\\n' (\S+?);.*?printf '\\n(__NETAUTO_RC__\w+) %s", script)
        out = "".join(f"\n{b} {k.strip(chr(39))}\n{self.answer}\n{e} 0\n" for b, k, e in parts)
        return CommandResult(0, out, "")


def test_deeply_nested_json_from_a_device_is_one_line_not_a_traceback(pod1, caplog):
    _, targets = pod1
    target = targets["spine1"]
    host = SimpleNamespace(data={"target": target}, get_connection=lambda *a: _BatchSession(DEEP), name="spine1")
    task = SimpleNamespace(host=host, nornir=SimpleNamespace(config=None))
    networks = verify_run.networks_of(pod1[0].cluster)
    result = verify_run.collect_task(task, networks)  # type: ignore[arg-type]
    assert result.failed and isinstance(result.result, str)
    assert "nested deeper than netauto reads" in result.result and "\n" not in result.result


def test_deeply_nested_json_in_a_check_is_an_error_finding(pod1):
    from netauto.verify.state import DeviceState

    built, targets = pod1
    networks = verify_run.networks_of(built.cluster)
    st = DeviceState("gpu01", "server", "linux")
    st.raw = {"rules": (0, DEEP), "routes_all": (0, "[]"), "addrs": (0, "[]")}
    found = verify_run.run_checks(networks, {"gpu01": st}, {"gpu01"}, ["host-routing"])
    assert [f.status for f in found] == ["error"] and "nested deeper" in found[0].reason


# ------------------------------------------------------------------------------------ item 5: console sanitiser

EVIL = "\x1b[2J\x1b]0;owned\x07\rok\u202e[/][black on black]hidden"


def _report_with_evil():
    from netauto.verify.findings import CheckResult, Report

    diff = f"--- running:/etc/frr/frr.conf\n+++ intent:/etc/frr/frr.conf\n@@ -1 +1 @@\n-hostname {EVIL}\n+hostname s1\n"
    return Report("gpu-pod1", [
        CheckResult("lldp", "su1-r0-leaf", f"swp33 {EVIL}", "spine1 swp1", EVIL, "fail", f"neighbour {EVIL}"),
        CheckResult("drift", "spine1", "/etc/frr/frr.conf", "as intended", "1 changed line", "fail", EVIL, detail=diff),
    ])


def _assert_shown(text: str) -> None:
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text), repr(text[:300])
    assert "\\x1b[2J" in text and "\\x1b]0;owned\\x07" in text and "\\u202e" in text


@pytest.mark.parametrize("fmt", ["table", "markdown", "junit", "json"])
def test_device_control_characters_never_reach_a_report_raw(fmt, capsys, wide_console):
    from xml.etree import ElementTree as ET

    from netauto.cli.verify import _emit, _emit_table
    from netauto.verify import output

    rep = _report_with_evil()
    if fmt == "table":
        _emit_table(rep, True, None)
    else:
        _emit({"markdown": output.to_markdown, "junit": output.to_junit, "json": output.to_json}[fmt](rep), None)
    shown = capsys.readouterr().out
    if fmt == "json":
        assert "\x1b" not in shown and "\\u001b[2J" in shown
        return
    _assert_shown(shown)
    if fmt == "table":
        assert "[/][black on black]hidden" in shown  # markup from a device is text, not markup
    if fmt == "junit":
        ET.fromstring(shown)  # and the XML is well-formed (a raw ESC is not allowed in XML 1.0)


def test_the_report_file_is_sanitised_too(tmp_path, capsys):
    from netauto.cli.verify import _emit
    from netauto.verify import output

    _emit(output.to_markdown(_report_with_evil()), tmp_path / "drift.md")
    _assert_shown((tmp_path / "drift.md").read_text())


def test_openmetrics_label_values_are_one_line_and_visible():
    from netauto.verify import output

    text = output.to_openmetrics(_report_with_evil(), now=0)
    assert "\x1b" not in text and "\\\\x1b[2J" in text


def test_dry_run_diff_and_table_show_control_characters(capsys):
    from netauto.cli.deploy import _report
    from netauto.deploy.device import DeviceResult

    rep = _report_with_evil()
    r = DeviceResult("spine1", "dry-run", "changed", error=EVIL)
    r.diff = {"/etc/frr/frr.conf": rep.findings[1].detail}
    _report([r], "dry-run", "gpu-pod1", [])
    _assert_shown(capsys.readouterr().out)


def test_every_console_message_and_log_line_is_sanitised(capsys):
    import logging

    from netauto.cli.app import RedactSecrets, err, out

    out.print(f"  spine1: {EVIL}", highlight=False, markup=False)
    err.print(f"error: {EVIL}", markup=False)
    shown = capsys.readouterr()
    _assert_shown(shown.out)
    _assert_shown(shown.err)
    record = logging.LogRecord("netauto", logging.WARNING, __file__, 1, "lldp: %s", (EVIL,), None)
    RedactSecrets({}).filter(record)
    _assert_shown(record.getMessage())


def test_lab_check_table_shows_an_lldp_hostname_as_text(capsys, wide_console):
    from netauto.cli.lab import _print_report
    from netauto.lab.check import CheckReport, Result

    rep = CheckReport([Result("bgp", "su1-r0-leaf", "swp33", "spine1", EVIL, False)])
    _print_report(rep, True)
    _assert_shown(capsys.readouterr().out)


def test_the_sanitiser_keeps_structure_and_shows_the_rest():
    from netauto.visible import visible

    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible("a\tb\nc", keep="") == "a\\tb\\nc"
    assert visible("\x00\x7f\x9b\u2028\ufeff") == "\\x00\\x7f\\x9b\\u2028\\ufeff"
    assert visible("plain text, ünïcode ok") == "plain text, ünïcode ok"


# ------------------------------------------------------------------ item 8: a backup of a device with a secret
class _DeviceWithSecret(_BatchSession):
    """A device whose files and `show running-config` hold a password FRR reads as one token (a VT inside)."""

    def __init__(self, files: dict[str, str], answer: str) -> None:
        super().__init__(answer)
        self.files = files

    def run_bytes(self, command: str, timeout: float = 120.0, sudo: bool = True, limit: int = 0):  # noqa: ANN201
        import io
        import shlex
        import tarfile

        paths = shlex.split(command.split("for p in ", 1)[1].split("; do", 1)[0])
        blob = io.BytesIO()
        with tarfile.open(fileobj=blob, mode="w") as tar:
            for p in paths:
                data = self.files[p].encode()
                info = tarfile.TarInfo(p.lstrip("/"))
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
        return 0, f"{remote._MARK} {'1' * len(paths)}\n".encode() + blob.getvalue(), ""


def test_a_backup_never_holds_a_password_in_another_spelling(pod1, tmp_path):
    from netauto.formats.fabric_marker import MARKER, marker_text
    from netauto.verify.backup import backup_task

    _, targets = pod1
    target = targets["spine1"]
    secret = " neighbor swp1 password ab\vcd9secret\n neighbor swp2 password a;b9secret\n"
    files = {MARKER: marker_text(target.fabric), **{p: a.content + secret for p, a in target.files.items()}}
    session = _DeviceWithSecret(files, "router bgp 65000\n" + secret + "exit\n")
    host = SimpleNamespace(data={"target": target}, get_connection=lambda *a: session, name="spine1")
    result = backup_task(SimpleNamespace(host=host, nornir=SimpleNamespace(config=None)), tmp_path)  # type: ignore[arg-type]
    assert result.result.files and result.result.state, result.result
    saved = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("frr-running" in p.name for p in saved)
    for path in saved:
        text = path.read_text()
        assert "9secret" not in text, (path, text[-300:])


def test_sonic_config_db_from_the_device_is_read_by_the_one_reader():
    """config_db.json on a SONiC switch and `sonic-cfggen -d --print-data` are device output too: JSON nested
    100,000 deep is unreadable output (deploy's expected file falls back to the intent; the running CONFIG_DB
    read is one StepFailed line), not a RecursionError traceback."""
    from netauto.deploy import sonic_config, sonic_db
    from netauto.deploy.connection import CommandResult
    from netauto.deploy.remote import StepFailed

    intent = '{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}}}'
    assert sonic_db.expected_file(DEEP.encode(), intent) == intent.encode()
    session = SimpleNamespace(run=lambda *a, **k: CommandResult(0, DEEP, ""))
    with pytest.raises(StepFailed, match="nested deeper"):
        sonic_config.running(session)  # type: ignore[arg-type]


def test_result_files_and_route_tables_nested_100000_deep_are_unreadable_not_a_traceback(tmp_path):
    """iperf3 -J and perftest --out_json result files, a plan.json (acceptance report reads what servers wrote),
    and `show ip route json` / `ip -j route` of a device: the same reader as every device JSON."""
    from netauto.acceptance.results import PLAN_FILE, planned
    from netauto.deploy import forwarding
    from netauto.errors import UsageError
    from netauto.formats import iperf3, perftest, routes

    with pytest.raises(iperf3.Iperf3Error, match="nested deeper"):
        iperf3.parse_iperf3_json(DEEP)
    with pytest.raises(perftest.PerftestError, match="nested deeper"):
        perftest.parse_bw_json(DEEP)
    (tmp_path / PLAN_FILE).write_text(DEEP)
    with pytest.raises(UsageError, match="nested deeper"):
        planned(tmp_path)
    for parse in (routes.parse_zebra_routes, routes.parse_kernel_routes, routes.route_widths):
        with pytest.raises(ValueError, match="nested deeper"):
            parse(DEEP)
    assert forwarding._or_none(routes.parse_zebra_routes, DEEP) is None


def test_accept_new_host_keys_never_appends_through_a_symlink(tmp_path):
    """Root with a user's HOME (`sudo -E`) appends a new host's key to that user's ~/.ssh/known_hosts: a link
    there (to /root/.ssh/authorized_keys, /etc/...) made root append the line to its target."""
    import paramiko

    from netauto.deploy.host_keys import AcceptNew

    victim = tmp_path / "authorized_keys"
    victim.write_text("kept\n")
    known = tmp_path / "ssh" / "known_hosts"
    known.parent.mkdir()
    known.symlink_to(victim)
    import subprocess

    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "k")], check=True)
    key = paramiko.Ed25519Key(filename=str(tmp_path / "k"))
    with pytest.raises(OSError, match=r"known_hosts is a symbolic link.*fix: NETAUTO_KNOWN_HOSTS="):
        AcceptNew(str(known)).missing_host_key(paramiko.SSHClient(), "10.0.0.5", key)  # the SSH failure's one line
    assert victim.read_text() == "kept\n"
    known.unlink()
    AcceptNew(str(known)).missing_host_key(paramiko.SSHClient(), "10.0.0.5", key)  # a real file: appended
    assert known.read_text().startswith("10.0.0.5 ")
