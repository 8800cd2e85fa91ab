"""`netauto lab up --monitoring` for real: exporters in the nodes, Prometheus with the generated rules. A leaf
uplink taken down fires an alert naming the leaf within 90 s and restoring it clears it; a BGP neighbour removed
from FRR fires too. Bounded; the lab (and every exporter and Prometheus in it) is gone afterwards."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from test_lab_integration import _assert_gone, _require_lab

from netauto.lab import monitoring, netns, runtime
from netauto.lab.planes import build_cluster_plan
from netauto.pipeline import build

pytestmark = pytest.mark.lab
INVENTORY = Path(__file__).resolve().parents[1] / "examples/cluster-lab/inventory"


def _until(st, pred, timeout: float) -> float | None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred(monitoring.firing(st)):
            return time.monotonic() - t0
        time.sleep(2)
    return None


def _names(alerts, device: str, port: str) -> set[str]:
    return {a["alert"] for a in alerts if a["labels"].get("device") == device and a["labels"].get("port") == port}


def test_uplink_down_and_removed_neighbour_fire_named_alerts():
    _require_lab()
    if monitoring.preflight():
        pytest.skip("; ".join(monitoring.preflight()))
    name = f"mon{os.getpid() % 10000}"
    runtime.down(name)
    built = build(INVENTORY)
    plan = build_cluster_plan(built.cluster, built.artifacts, name, 1)
    try:
        st = runtime.up(plan)
        st["monitoring"] = monitoring.start(st, built.cluster)
        runtime.save_state(st)
        assert monitoring.wait_ready(st, 60)
        assert _until(st, lambda a: not a, 60) is not None, monitoring.firing(st)  # converged: nothing fires
        leaf = next(sw for sw in built.cluster.compute.switches if sw.role == "leaf")
        port = leaf.bgp.neighbors[0].interface
        subprocess.run(runtime.exec_argv(st, leaf.name, ["ip", "link", "set", port, "down"]), check=True)
        took = _until(st, lambda a: {"NetautoPortDown", "NetautoBgpSessionDown"} <= _names(a, leaf.name, port), 90)
        assert took is not None and took < 90, monitoring.firing(st)
        subprocess.run(runtime.exec_argv(st, leaf.name, ["ip", "link", "set", port, "up"]), check=True)
        assert _until(st, lambda a: not _names(a, leaf.name, port) & {"NetautoPortDown", "NetautoBgpSessionDown"}, 90) is not None
        other = leaf.bgp.neighbors[1].interface
        runtime.vtysh(st, leaf.name, "configure terminal", f"router bgp {leaf.bgp.asn}", f"no neighbor {other}")
        assert _until(st, lambda a: "NetautoBgpSessionDown" in _names(a, leaf.name, other), 90) is not None
    finally:
        runtime.down(name)
    _assert_gone(name)
    assert not any(netns.pids_in_netns([n]).get(n) for n in plan.namespaces)
