"""The real validators' batch paths say per file what the tool says about that file alone: bgpd -C forked per
file after one start-up (bgpd_batch.c), the preloaded ifupdown2 children, netplan's roots in RAM, and the
process slots that serve long processes first. Each batch has a bad file in the middle."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import require_tool
from test_validators_real import FRR_CONF, INTERFACES, NETPLAN, broken_copy, files, line_of, pod1  # noqa: F401

from netauto.validate import bgpd_batch, external, processes, tool_ifupdown, tool_run

STAMP = re.compile(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d ", re.M)  # the timestamp of FRR's log lines
# `no router bgp` after `router bgp` aborts bgpd -C (bgp_delete -> peer_delete -> bgp_reads_off asserts that the
# I/O thread runs, and -C never starts it): a real crash of one child
CRASH = "router bgp 65001\n bgp router-id 10.0.0.1\n!\nno router bgp 65001\n"


def _needs_bgpd_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    require_tool("bgpd")
    monkeypatch.setenv(bgpd_batch.OPT_IN_ENV, "1")  # the shim is opt-in
    if not tool_run.private_namespace_ok() or bgpd_batch.shim() is None:
        pytest.skip("needs root + unshare and a C compiler")


def test_the_bgpd_shim_is_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without NETAUTO_BGPD_SHIM=1 no library is preloaded into bgpd (it depends on FRR 8.4 internals), even
    where it could be built; with it, `shim()` is the built library (or None where it cannot be built)."""
    monkeypatch.delenv(bgpd_batch.OPT_IN_ENV, raising=False)
    built: list[bool] = []
    monkeypatch.setattr(bgpd_batch, "_built", lambda: built.append(True) or Path("/x.so"))
    assert bgpd_batch.shim() is None and not built
    monkeypatch.setenv(bgpd_batch.OPT_IN_ENV, "1")
    assert bgpd_batch.shim() == Path("/x.so") and built


def _frr_batch(pod1: Path, tmp_path: Path) -> list[tuple[str, Path]]:
    good = files(pod1, FRR_CONF)
    bad = broken_copy(good[1][1], tmp_path / "frr.conf", " bgp router-id ", " bgp routr-id ")
    crash = tmp_path / "crash.conf"
    crash.write_text(CRASH)
    return good[:2] + [("broken", bad), ("crash", crash)] + good[2:5]


def test_bgpd_batch_output_per_file_is_what_bgpd_alone_prints(pod1, tmp_path, request, monkeypatch):  # noqa: F811
    """One bgpd, a child per file: each frame holds that file's own bgpd -C output and exit status."""
    _needs_bgpd_batch(monkeypatch)
    readable = Path(tempfile.mkdtemp(prefix="netauto-test-bgpd-"))  # pytest's folders are the owner's only
    request.addfinalizer(lambda: shutil.rmtree(readable, ignore_errors=True))
    readable.chmod(0o755)
    paths = []
    for i, (_, src) in enumerate(_frr_batch(pod1, tmp_path)):  # copies the frr user may read, as frr_bgpd makes
        paths.append(readable / f"{i}.conf")
        paths[-1].write_text(src.read_text())
        paths[-1].chmod(0o644)
    listing = readable / "batch.list"
    listing.write_text("".join(f"{p}\n" for p in paths))
    listing.chmod(0o644)
    bgpd = tool_run.require("bgpd")
    batched = tool_run._namespace_batch(bgpd_batch.command(bgpd, bgpd_batch.shim(), listing, 30), paths, ["/var/tmp"],
                                        framed=True, pass_paths=False)
    alone = tool_run._namespace_batch([bgpd, "-C", "-u", "frr", "-g", "frr", "-f"], paths, ["/var/tmp"])
    assert [rc for rc, _ in batched] == [rc for rc, _ in alone] == [0, 0, 0, 134, 0, 0, 0]
    for (rc, out), (_, out_alone), path in zip(batched, alone, paths):
        if rc == 0:  # the same lines (stdout and the log interleave differently through the pipe)
            assert sorted(STAMP.sub("", out).split("\n")) == sorted(STAMP.sub("", out_alone).split("\n")), path
        assert "config line" in out or rc != 0, f"{path}: no sign bgpd read it"


def test_bgpd_batch_names_only_the_bad_file_and_the_crashed_one(pod1, tmp_path, monkeypatch):  # noqa: F811
    _needs_bgpd_batch(monkeypatch)
    batch = _frr_batch(pod1, tmp_path)
    bad = dict(batch)["broken"]
    framed = []
    real = tool_run._namespace_batch

    def spy(command, paths, tmpfs, **kw):
        out = real(command, paths, tmpfs, **kw)
        framed.append(kw.get("framed", False))
        return out

    monkeypatch.setattr(tool_run, "_namespace_batch", spy)
    batched = external.frr_bgpd(batch)
    assert framed and all(framed), "the shim was not used"
    monkeypatch.setattr(bgpd_batch, "shim", lambda: None)
    alone = external.frr_bgpd(batch)
    key = lambda f: (f.device, f.line or 0, f.message)  # noqa: E731
    assert sorted(batched, key=key) == sorted(alone, key=key)
    assert {f.device for f in batched} == {"broken", "crash"}
    assert [(f.file, f.line) for f in batched if f.device == "broken"] == [(str(bad), line_of(bad, "routr-id"))]
    crashed = [f.message for f in batched if f.device == "crash"]
    assert crashed[0].startswith("bgpd -C killed by signal 6: ") and "assertion" in crashed[0], crashed


def test_bgpd_crash_is_a_finding_in_every_path():
    out = ("2026/11/25 23:00:54 BGP: ../bgpd/bgp_io.c:110: bgp_reads_off(): assertion (fpt->running) failed\n"
           "BGP: Received signal 6 at 1795647654 (si_addr 0x0, PC 0x0); aborting...\n")
    found = external.parse_bgpd_output("leaf1", "frr.conf", out, 134)
    assert found[0].message == "bgpd -C killed by signal 6: ../bgpd/bgp_io.c:110: bgp_reads_off(): assertion " \
                               "(fpt->running) failed"
    assert external.parse_bgpd_output("leaf1", "frr.conf", "", 0) == []


def test_ifup_batch_names_only_the_bad_file_in_the_middle(pod1, tmp_path):  # noqa: F811
    require_tool("ifup")
    if not tool_run.private_namespace_ok() or not tool_ifupdown._ifup_batch_command():
        pytest.skip("needs root + unshare and /usr/share/ifupdown2")
    good = files(pod1, INTERFACES)
    bad = broken_copy(good[0][1], tmp_path / "interfaces", "    mtu 9216", "    mtu 99999")
    found = external.ifupdown2_syntax(good[:3] + [("broken", bad)] + good[3:6])
    assert [(f.device, f.file, f.line) for f in found] == [("broken", str(bad), line_of(bad, "mtu 99999"))]
    assert "mtu" in found[0].message


PROBE = """
import sys, time
sys.path.insert(0, sys.argv[1])
import ifup_batch
ifup_batch.load_ifup_main()
from nlmanager import nllistener
ifup_batch.memoise_host_queries()
ifup_batch.probe_address_metric()
ifup_batch.prompt_listener_shutdown()
start = time.perf_counter()
nllistener.select([], [], [], 0.1)
from addressvirtual import addressvirtual
print(round(time.perf_counter() - start, 3), addressvirtual.ADDR_METRIC_SUPPORT is not None)
"""


def test_ifup_children_do_not_sleep_on_the_netlink_listener_nor_ask_ip_again():
    """The listener's 0.1 s select() (checked between looks at its shutdown flag) is capped before the fork, and the
    `ip addr help` answer addressvirtual caches per process is there before the fork."""
    require_tool("ifup")
    python = tool_ifupdown._ifup_batch_command()
    if not python:
        pytest.skip("needs /usr/share/ifupdown2 and the system python3")
    r = subprocess.run([python[0], "-c", PROBE, str(Path(external.__file__).parent)], capture_output=True, text=True,
                       timeout=60, check=True)
    waited, probed = r.stdout.split()
    assert float(waited) < 0.05 and probed == "True", r.stdout


def test_netplan_batch_in_ram_names_only_the_bad_server(pod1, tmp_path):  # noqa: F811
    require_tool("netplan")
    good = files(pod1, NETPLAN)
    bad = broken_copy(good[0][1], tmp_path / "60-rails.yaml", "routing-policy:", "routing-polcy:")
    found = external.netplan_generate(good[:2] + [("broken", bad)] + good[2:4])
    assert [(f.device, f.file, f.line) for f in found] == [("broken", str(bad), line_of(bad, "routing-polcy"))]


def test_memory_tmp_only_when_the_files_fit(monkeypatch):
    monkeypatch.setattr(processes, "_shm", lambda: "/dev/shm")
    free = processes.os.statvfs("/dev/shm")
    room = free.f_bavail * free.f_frsize
    assert processes.memory_tmp(room // 8) == "/dev/shm"
    assert processes.memory_tmp(room) is None
    monkeypatch.setattr(processes, "_shm", lambda: None)
    assert processes.memory_tmp(0) is None


def test_long_processes_get_the_next_free_slot_first():
    slots = processes._Slots(1)
    order: list[str] = []

    def run(name: str, long: bool) -> None:
        with slots.hold(long):
            order.append(name)

    with slots.hold(False):  # the only slot is busy while a short and then a long process ask for it
        short = threading.Thread(target=run, args=("short", False))
        short.start()
        time.sleep(0.05)
        long_one = threading.Thread(target=run, args=("long", True))
        long_one.start()
        time.sleep(0.05)
    short.join()
    long_one.join()
    assert order == ["long", "short"]


def test_netplan_generator_cannot_touch_the_validating_host(pod1, tmp_path, monkeypatch):  # noqa: F811
    """netplan's generator runs /bin/udevadm and /bin/systemctl on the host whatever its --root-dir (and starts
    units while the host is booting): inside validate's namespace both are /bin/true. A stand-in generator
    reports what those programs answer there; a real systemctl always prints the system state."""
    if not tool_run.private_namespace_ok():
        pytest.skip("needs root + unshare")
    probe = tmp_path / "generate"
    probe.write_text("#!/bin/sh\nfor p in /bin/systemctl /usr/bin/systemctl /bin/udevadm; do\n"
                     "  [ -e $p ] && echo \"$p: $($p is-system-running 2>&1)\"\ndone\nexit 1\n")
    probe.chmod(0o755)
    monkeypatch.setattr(external, "NETPLAN_GENERATORS", (str(probe),))
    found = external.netplan_generate(files(pod1, NETPLAN)[:2], workers=1)
    assert len(found) == 2
    for f in found:
        answers = f.message.removeprefix("exit 1: ").splitlines()
        assert answers and all(line.rstrip().endswith(":") for line in answers), f.message
    if shutil.which("systemctl"):  # the same probe outside the namespace: the host's systemctl answers
        out = subprocess.run([str(probe)], capture_output=True, text=True).stdout
        assert any(not line.rstrip().endswith(":") for line in out.splitlines()), out
