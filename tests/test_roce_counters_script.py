"""The rendered netauto-roce-counters.sh, run for real on a sysfs-shaped tree and a stub `ethtool -S` (no
ConnectX here): its textfile passes `promtool check metrics` and carries the series the generated alerts join."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from netauto.pipeline import render
from netauto.platforms import host, telemetry

INVENTORY = Path(__file__).resolve().parents[1] / "inventory"


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_script_writes_valid_textfile(tmp_path):
    model, artifacts = render(INVENTORY)
    srv = model.servers[0]
    script = next(a for a in artifacts if a.device == srv.name and a.path == host.ROCE_COUNTERS)
    (tmp_path / "run.sh").write_text(script.content)
    rail = srv.rails[0]
    hw = tmp_path / "sys/class/infiniband" / rail.rdma_device / "ports/1/hw_counters"
    hw.mkdir(parents=True)
    for i, name in enumerate(telemetry.HW_COUNTERS):
        (hw / name).write_text(f"{i * 7}\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    prio = srv.qos.roce_priority
    # the RoCE-loss statistics of a ConnectX port (names: mlx5 en_stats.c) among others the script must skip
    (bindir / "ethtool").write_text(f"#!/bin/sh\nprintf 'NIC statistics:\\n     rx_prio{prio}_pause: 42\\n"
                                    f"     tx_prio{prio}_pause: 5\\n     rx_bytes: 9\\n     rx_prio{prio}_discards: 3\\n"
                                    f"     rx_prio0_discards: 8\\n     rx_discards_phy: 4\\n"
                                    f"     tx_pause_storm_warning_events: 6\\n     tx_pause_storm_error_events: 1\\n'\n")
    (bindir / "ethtool").chmod(0o755)
    out = tmp_path / "textfile"
    out.mkdir()
    env = {**os.environ, "NETAUTO_SYSFS": str(tmp_path / "sys"), "NETAUTO_TEXTFILE_DIR": str(out),
           "PATH": f"{bindir}:/usr/bin:/bin"}
    subprocess.run(["sh", str(tmp_path / "run.sh")], env=env, check=True, timeout=30)
    text = (out / "netauto-roce.prom").read_text()
    assert (f'{telemetry.RDMA_HW_COUNTER}{{port="{rail.nic}",rdma_device="{rail.rdma_device}",ib_port="1",'
            f'counter="np_cnp_sent"}} 0') in text
    assert f'{telemetry.ETHTOOL_STAT}{{port="{rail.nic}",stat="rx_prio{prio}_pause"}} 42' in text
    for stat, value in ((f"rx_prio{prio}_discards", 3), ("rx_discards_phy", 4),
                        ("tx_pause_storm_warning_events", 6), ("tx_pause_storm_error_events", 1)):
        assert f'{telemetry.ETHTOOL_STAT}{{port="{rail.nic}",stat="{stat}"}} {value}' in text, stat
    assert "rx_bytes" not in text and "rx_prio0_discards" not in text
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert [f.name for f in out.iterdir()] == ["netauto-roce.prom"]  # no temp file left


@pytest.mark.skipif(os.geteuid() != 0, reason="a textfile folder of another user needs root to make")
def test_script_never_writes_as_root_into_a_folder_another_user_may_change(tmp_path):
    """The script runs as root (netauto-roce-counters.timer). Debian's /var/lib/prometheus belongs to the user
    node-exporter runs as, who may therefore swap the textfile folder for one of their own; there they can replace
    the script's temp file by a link to any file between `mktemp` and the write, and root wrote the counters into
    that file and made it 0644. Here the stub `ethtool` (run inside that window) plays that user."""
    model, artifacts = render(INVENTORY)
    srv = model.servers[0]
    script = next(a for a in artifacts if a.device == srv.name and a.path == host.ROCE_COUNTERS)
    (tmp_path / "run.sh").write_text(script.content)
    out = tmp_path / "textfile"
    out.mkdir()
    os.chown(out, 65534, 65534)
    victim = tmp_path / "shadow"
    victim.write_text("root:secret\n")
    victim.chmod(0o600)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "ethtool").write_text(f"#!/bin/sh\nfor f in {out}/.netauto-roce.*; do rm -f \"$f\"; "
                                    f"ln -s {victim} \"$f\"; done\nprintf 'NIC statistics:\\n'\n")
    (bindir / "ethtool").chmod(0o755)
    (tmp_path / "sys/class/net" / srv.rails[0].nic).mkdir(parents=True)
    env = {**os.environ, "NETAUTO_SYSFS": str(tmp_path / "sys"), "NETAUTO_TEXTFILE_DIR": str(out),
           "PATH": f"{bindir}:/usr/bin:/bin"}
    p = subprocess.run(["sh", str(tmp_path / "run.sh")], env=env, capture_output=True, text=True, timeout=30)
    assert victim.read_text() == "root:secret\n" and (victim.stat().st_mode & 0o777) == 0o600
    assert p.returncode != 0 and str(out) in p.stderr and not (out / "netauto-roce.prom").exists()
