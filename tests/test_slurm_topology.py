"""`netauto export slurm-topology`: topology.conf for topology/tree, parsed by Debian's real slurmctld (22.05),
queried with `scontrol show topology` over loopback: every node under exactly one lowest-level switch."""

from __future__ import annotations

import json
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


# A stand-in `kubectl label node [--overwrite] NODE SPEC...` over a JSON file of node labels, with kubectl's
# own rules (kubernetes/kubectl pkg/cmd/label/label.go: a spec with '=' sets, one ending in '-' removes, any
# other is refused, a key both set and removed in one command is refused ("can not both modify and remove a
# label in the same command"), a set over another value without --overwrite is refused, removing a label the
# node lacks prints `label "k" not found.` and succeeds); keys and values checked as the API server would
# (k8s.io/apimachinery validation: IsQualifiedName, IsValidLabelValue). No Kubernetes API server runs here.
FAKE_KUBECTL = r"""
import json, re, sys
store, args = sys.argv[1], sys.argv[2:]
with open(store + ".log", "a") as log:
    log.write(" ".join(args) + "\n")
assert args[:2] == ["label", "node"], args
args = args[2:]
overwrite = "--overwrite" in args
args = [a for a in args if a != "--overwrite"]
node, specs = args[0], args[1:]
name = r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?"
key = re.compile(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?" + name)
sets, removes = {}, []
for spec in specs:
    if "=" in spec:
        k, v = spec.split("=", 1)
        if not key.fullmatch(k) or (v and not re.fullmatch(name, v)):
            sys.exit(f"error: invalid label spec: {spec}")
        sets[k] = v
    elif spec.endswith("-"):
        removes.append(spec[:-1])
    else:
        sys.exit(f"error: unknown label spec: {spec}")
if any(k in sets for k in removes):
    sys.exit("error: can not both modify and remove a label in the same command")
with open(store) as f:
    nodes = json.load(f)
labels = nodes.setdefault(node, {})
if not overwrite and any(k in labels and labels[k] != v for k, v in sets.items()):
    sys.exit("error: 'overwrite' is false")
for k in removes:
    if k not in labels:
        print(f'label "{k}" not found.')
    labels.pop(k, None)
labels.update(sets)
with open(store, "w") as f:
    json.dump(nodes, f)
"""


def _run_labels(tmp_path: Path, inv: Path, nodes: dict[str, dict[str, str]]) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Export the label script, shellcheck it, run it with the stand-in kubectl over `nodes` (their labels
    before): the nodes' labels after, and the kubectl calls."""
    script = tmp_path / "labels.sh"
    proc = subprocess.run([sys.executable, "-m", "netauto", "export", "k8s-topology", "-i", str(inv), "-o", str(script)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    if shutil.which("shellcheck"):
        sc = subprocess.run(["shellcheck", "-s", "sh", str(script)], capture_output=True, text=True, timeout=60)
        assert sc.returncode == 0, sc.stdout
    store = tmp_path / "nodes.json"
    store.write_text(json.dumps(nodes))
    (tmp_path / "fake_kubectl.py").write_text(FAKE_KUBECTL)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "kubectl").write_text(f'#!/bin/sh\nexec {sys.executable} {tmp_path / "fake_kubectl.py"} {store} "$@"\n')
    (bindir / "kubectl").chmod(0o755)
    run = subprocess.run(["sh", str(script)], env={**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr + run.stdout
    return json.loads(store.read_text()), Path(f"{store}.log").read_text().splitlines()


TIER = "fabric.topograph.run/tier-"
OLD = "network.topology.nvidia.com/"  # the keys netauto wrote before Topograph 1.0 (git log -S, commit b27cd5f5)


def test_k8s_topology_labels_run_as_a_script(tmp_path):
    """`netauto export k8s-topology`: a sh script of `kubectl label` lines (Topograph's label names); run here with
    a stand-in kubectl that keeps the nodes' labels by kubectl's rules (no Kubernetes API here), and checked by
    shellcheck."""
    inv = three_tier(tmp_path)
    cluster = build_cluster(inv)
    after, calls = _run_labels(tmp_path, inv, {})
    assert len(calls) == len(after) == 8
    for call in calls:
        assert call.split()[:4] == ["label", "node", "--overwrite", call.split()[3]], call
    for srv in cluster.compute.servers:
        # Topograph v1.0.0's default keys (NVIDIA/topograph v1.0.0, pkg/topology/topology.go KeyFabricTierPrefix,
        # docs/reference/node-labels.md): tier 0 the switch closest to the node, one tier per switch level outward
        assert after[srv.name] == {f"{TIER}0": f"su{srv.su}",
                                   f"{TIER}1": f"pod{srv.su}",  # one SU per pod here
                                   f"{TIER}2": "fabric"}


def test_k8s_topology_removes_the_keys_it_owns_and_no_longer_sets(tmp_path):
    """Nodes labelled by an older netauto (the pre-Topograph-1.0 keys) and by a three-tier export before the
    fabric became two-tier: the script leaves each node exactly the tiers the fabric has, removes the rest of
    the keys netauto owns (a topology-aware scheduler would read both), and keeps every label it does not own."""
    cluster = build_cluster(TWO)
    before = {srv.name: {f"{OLD}block": "su7", f"{OLD}spine": "pod7", f"{OLD}datacenter": "fabric",
                         f"{TIER}0": "su7", f"{TIER}2": "fabric",
                         "kubernetes.io/hostname": srv.name, "accelerator.topograph.run/domain": "nvl1"}
              for srv in cluster.compute.servers}
    after, calls = _run_labels(tmp_path, TWO, before)
    assert len(calls) == len(cluster.compute.servers)
    for srv in cluster.compute.servers:
        assert after[srv.name] == {f"{TIER}0": f"su{srv.su}", f"{TIER}1": "pod1",
                                   "kubernetes.io/hostname": srv.name, "accelerator.topograph.run/domain": "nvl1"}
