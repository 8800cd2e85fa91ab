"""`netauto export slurm-topology`: topology.conf for topology/tree, parsed by Debian's real slurmctld (22.05),
queried with `scontrol show topology` over loopback: every node under exactly one lowest-level switch."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES

from netauto.export.slurm import topology_conf
from netauto.pipeline import build_cluster

SLURMCTLD = Path("/usr/sbin/slurmctld")
TWO = EXAMPLES / "b300-2plane" / "inventory"


def three_tier(tmp_path: Path) -> Path:
    """The 2-plane example as two pods under super-spines, one SU per pod."""
    doc = yaml.safe_load((TWO / "fabric.yaml").read_text())
    doc["topology"].update(pods=2, super_spines_per_group=1)
    doc["asns"] = {"leaf_base": 65101, "spine_base": 65050, "super_spine": 65000}
    doc["naming"].update(spine="pod{pod}-spine{index}", server="su{su}-gpu{index:02d}")
    inv = tmp_path / "inventory"
    inv.mkdir()
    (inv / "fabric.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return inv


def _switches(text: str) -> dict[str, dict[str, str]]:
    out = {}
    for line in text.splitlines():
        if line.startswith("SwitchName="):
            fields = dict(f.split("=", 1) for f in line.split())
            out[fields.pop("SwitchName")] = fields
    return out


def test_every_server_under_exactly_one_su_switch(tmp_path):
    cluster = build_cluster(three_tier(tmp_path))
    sw = _switches(topology_conf(cluster))
    nodes = [n for f in sw.values() for n in f.get("Nodes", "").split(",") if n]
    assert sorted(nodes) == sorted(s.name for s in cluster.compute.servers) and len(nodes) == len(set(nodes)) == 8
    assert sw["pod1"] == {"Switches": "su1"} and sw["pod2"] == {"Switches": "su2"}
    assert sw["fabric"] == {"Switches": "pod1,pod2"}


def _free_ports() -> tuple[int, int]:
    socks = [socket.socket() for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = tuple(s.getsockname()[1] for s in socks)
    for s in socks:
        s.close()
    return ports  # type: ignore[return-value]


def _slurm_conf(d: Path, nodes: list[str]) -> Path:
    ctl, slurmd = _free_ports()
    conf = d / "slurm.conf"
    conf.write_text("\n".join([
        "ClusterName=netauto", "SlurmctldHost=localhost(127.0.0.1)", "AuthType=auth/none", "CredType=cred/none",
        f"SlurmUser={os.environ.get('USER', 'root') if os.geteuid() else 'root'}",
        f"SlurmctldPort={ctl}", f"SlurmdPort={slurmd}", f"StateSaveLocation={d / 'state'}",
        f"SlurmdSpoolDir={d / 'spool'}", f"SlurmctldPidFile={d / 'slurmctld.pid'}",
        f"SlurmctldLogFile={d / 'slurmctld.log'}", "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "MpiDefault=none", "SelectType=select/linear", "TopologyPlugin=topology/tree",
        f"NodeName={','.join(nodes)} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN",
        "PartitionName=all Nodes=ALL Default=YES State=UP", ""]))
    (d / "state").mkdir()
    return conf


@pytest.mark.skipif(not SLURMCTLD.exists() or not shutil.which("scontrol") or os.geteuid() != 0,
                    reason="needs Debian's slurmctld and scontrol, as root")
def test_slurmctld_reads_the_exported_topology(tmp_path):
    inv = three_tier(tmp_path)
    cluster = build_cluster(inv)
    d = tmp_path / "slurm"
    d.mkdir()
    proc = subprocess.run([sys.executable, "-m", "netauto", "export", "slurm-topology", "-i", str(inv),
                           "-o", str(d / "topology.conf")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    conf = _slurm_conf(d, [s.name for s in cluster.compute.servers])
    env = {**os.environ, "SLURM_CONF": str(conf)}
    ctld = subprocess.Popen([str(SLURMCTLD), "-D", "-f", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        shown = ""
        for _ in range(60):
            got = subprocess.run(["scontrol", "show", "topology"], capture_output=True, text=True, env=env, timeout=10)
            if got.returncode == 0 and "SwitchName=" in got.stdout:
                shown = got.stdout
                break
            assert ctld.poll() is None, ctld.stdout.read() if ctld.stdout else ""
            time.sleep(0.5)
    finally:
        os.killpg(ctld.pid, signal.SIGTERM)
        ctld.wait(timeout=30)
    assert shown, (d / "slurmctld.log").read_text() if (d / "slurmctld.log").exists() else "no slurmctld log"
    levels = {m[0]: int(m[1]) for m in re.findall(r"SwitchName=(\S+) Level=(\d+)", shown)}
    assert levels == {"su1": 0, "su2": 0, "pod1": 1, "pod2": 1, "fabric": 2}, shown
    leaf_nodes = re.findall(r"SwitchName=su\d+ Level=0 \S+ Nodes=(\S+)", shown)
    names = [n for group in leaf_nodes for n in group.split(",")]
    assert sorted(names) == sorted(s.name for s in cluster.compute.servers) and len(set(names)) == 8, shown


def test_k8s_topology_labels_run_as_a_script(tmp_path):
    """`netauto export k8s-topology`: a sh script of `kubectl label` lines (Topograph's label names); run here with
    a stand-in kubectl that records its arguments (no Kubernetes API here), and checked by shellcheck."""
    inv = three_tier(tmp_path)
    cluster = build_cluster(inv)
    script = tmp_path / "labels.sh"
    proc = subprocess.run([sys.executable, "-m", "netauto", "export", "k8s-topology", "-i", str(inv), "-o", str(script)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    if shutil.which("shellcheck"):
        sc = subprocess.run(["shellcheck", "-s", "sh", str(script)], capture_output=True, text=True, timeout=60)
        assert sc.returncode == 0, sc.stdout
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "kubectl.log"
    (bindir / "kubectl").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\n')
    (bindir / "kubectl").chmod(0o755)
    run = subprocess.run(["sh", str(script)], env={**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    calls = log.read_text().splitlines()
    labelled = {}
    for call in calls:
        words = call.split()
        assert words[:3] == ["label", "node", "--overwrite"], call
        labelled[words[3]] = dict(w.split("=", 1) for w in words[4:])
    assert len(calls) == len(labelled) == 8
    value = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?")  # a Kubernetes label value
    for srv in cluster.compute.servers:
        labels = labelled[srv.name]
        # Topograph v1.0.0's default keys (NVIDIA/topograph v1.0.0, pkg/topology/topology.go KeyFabricTierPrefix,
        # docs/reference/node-labels.md): tier 0 the switch closest to the node, one tier per switch level outward
        assert labels == {"fabric.topograph.run/tier-0": f"su{srv.su}",
                          "fabric.topograph.run/tier-1": f"pod{srv.su}",  # one SU per pod here
                          "fabric.topograph.run/tier-2": "fabric"}
        assert all(value.fullmatch(v) for v in labels.values())
