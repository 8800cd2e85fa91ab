"""Monitoring of a fabric of compute planes (issue 36): every plane's NIC ports are expected, labelled with their
plane, and the counters script on each server reads them; promtool runs the rendered rules against a plane-2 port
whose counters are gone (the alert names plane 2) and one that discards RoCE packets."""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

from netauto.monitoring import facts
from netauto.render.monitoring import RULES, monitoring_artifacts
from netauto.monitoring.unittests import series
from netauto.pipeline import build_cluster
from netauto.platforms import host, telemetry
from netauto.render.engine import render_cluster

ROOT = Path(__file__).resolve().parents[1]
TWO = ROOT / "examples" / "b300-2plane" / "inventory"
LAB = ROOT / "examples" / "cluster-lab" / "inventory"


@cache
def _cluster():
    return build_cluster(TWO)


def _nic(device: str, port: str) -> dict[str, str]:
    return next(f.label_map for f in facts.collect(_cluster()).rail_nics
                if f.label_map["device"] == device and f.label_map["port"] == port)


def test_every_plane_port_is_an_expected_nic_labelled_with_its_plane():
    cluster = _cluster()
    found = facts.collect(cluster)
    got = {(f.label_map["device"], f.label_map["port"]): f.label_map for f in found.rail_nics}
    for p, fab in enumerate(cluster.compute_fabrics(), start=1):
        for srv in fab.servers:
            for r in srv.rails:
                labels = got[(srv.name, r.nic)]
                assert labels["plane"] == str(p) and labels["network"] == ("compute" if p == 1 else f"compute-p{p}")
                assert (labels["rdma_device"], labels["peer"], labels["su"]) == (r.rdma_device, r.leaf, str(srv.su))
    assert len(got) == sum(len(s.rails) for f in cluster.compute_fabrics() for s in f.servers)
    p2 = {s.name for s in cluster.compute_planes[0].switches}
    for f in found.sessions + found.ports:
        labels = f.label_map
        assert labels["plane"] == ("2" if labels["device"] in p2 else "1"), labels
    # one plane: no plane label anywhere (its rules and goldens unchanged)
    assert not any("plane" in f.label_map for f in facts.collect(build_cluster(LAB)).all())


def test_counters_script_reads_every_plane_port(tmp_path):
    cluster = _cluster()
    srv = cluster.compute.servers[0]
    script = next(a for a in render_cluster(cluster) if a.device == srv.name and a.path == host.ROCE_COUNTERS)
    (tmp_path / "run.sh").write_text(script.content)
    p2 = next(s for s in cluster.compute_planes[0].servers if s.name == srv.name).rails[0]
    for dev in (srv.rails[0].rdma_device, p2.rdma_device):
        hw = tmp_path / "sys/class/infiniband" / dev / "ports/1/hw_counters"
        hw.mkdir(parents=True)
        (hw / "np_cnp_sent").write_text("7\n")
    out = tmp_path / "textfile"
    out.mkdir()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "ethtool").write_text("#!/bin/sh\nexit 0\n")
    (bindir / "ethtool").chmod(0o755)
    env = {**os.environ, "NETAUTO_SYSFS": str(tmp_path / "sys"), "NETAUTO_TEXTFILE_DIR": str(out),
           "PATH": f"{bindir}:/usr/bin:/bin"}
    subprocess.run(["sh", str(tmp_path / "run.sh")], env=env, check=True, timeout=30)
    text = (out / telemetry.ROCE_TEXTFILE).read_text()
    for r in (srv.rails[0], p2):
        assert (f'{telemetry.RDMA_HW_COUNTER}{{port="{r.nic}",rdma_device="{r.rdma_device}",ib_port="1",'
                f'counter="np_cnp_sent"}} 7') in text, r.nic
    assert f'{telemetry.RAIL_NIC_IN_HOST}{{port="{p2.nic}"}}' in text


def _promtool_case(nic: dict[str, str], other: dict[str, str]) -> str:
    """The plane-2 port's counters removed (a staleness marker) while the plane-1 port of the same rail keeps
    publishing; a second plane-2 port discards RoCE packets."""
    nic_series = series("netauto:rail_nic_expected", **nic)
    other_series = series("netauto:rail_nic_expected", **other)
    hw = telemetry.RDMA_HW_COUNTER
    alive = {k: nic[k] for k in ("device",)}
    return yaml.safe_dump({
        "rule_files": [RULES.rsplit("/", 1)[-1]], "evaluation_interval": "1m",
        "tests": [{
            "name": "a plane-2 port's counters removed, another plane-2 port discards",
            "interval": "1m",
            "input_series": [
                {"series": nic_series, "values": "1x10"},
                {"series": other_series, "values": "1x10"},
                {"series": series(hw, port=nic["port"], rdma_device=nic["rdma_device"], ib_port="1",
                                  counter="np_cnp_sent", **alive), "values": "0 0 stale"},
                {"series": series(hw, port=other["port"], rdma_device=other["rdma_device"], ib_port="1",
                                  counter="np_cnp_sent", device=other["device"]), "values": "0+0x10"},
                {"series": series(telemetry.ETHTOOL_STAT, device=other["device"], port=other["port"],
                                  stat="rx_discards_phy"), "values": "0+5x10"},
            ],
            "alert_rule_test": [
                {"eval_time": "9m", "alertname": "NetautoRoceCountersMissing",
                 "exp_alerts": [{"exp_labels": {"severity": "critical", **nic}, "exp_annotations": {"summary": (
                     f"{nic['device']} {nic['port']} ({nic['rdma_device']}, rail {nic['rail']}) publishes no RoCE "
                     "counters (netauto-roce-counters.sh not run, or its textfile gone)")}}]},
                {"eval_time": "9m", "alertname": "NetautoRoceNicDiscards",
                 "exp_alerts": [{"exp_labels": {"severity": "critical", "stat": "rx_discards_phy", **other},
                                 "exp_annotations": {"summary": f"{other['device']} {other['port']} discards received "
                                                     f"packets (rx_discards_phy): RoCE loss on rail {other['rail']}"}}]},
            ],
        }],
    }, sort_keys=False)


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (apt-get install prometheus)")
def test_alerts_of_a_plane_2_port_carry_its_plane(tmp_path):
    nic, other = _nic("b300-02", "r3p2"), _nic("b300-03", "r5p2")
    assert nic["plane"] == other["plane"] == "2" and nic["network"] == "compute-p2"
    folder = tmp_path / "prometheus"
    folder.mkdir()
    for a in monitoring_artifacts(_cluster()):
        if a.path == RULES:
            (tmp_path / a.path).write_text(a.content)
    (folder / "planes.test.yml").write_text(_promtool_case(nic, other))
    p = subprocess.run(["promtool", "test", "rules", "planes.test.yml"], cwd=folder, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
