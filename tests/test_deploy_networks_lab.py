"""`netauto deploy --lab` on a cluster: a network switch of the three-network lab (examples/cluster-lab) is a deploy
target like a compute switch, and `--limit network_frontend,&switches` selects the frontend's switches only.
Real FRR and sshd in namespaces (root)."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES
from test_deploy_lab import _by_device, _changed, _deploy, _node_dir, _snapshot, start_lab

pytestmark = pytest.mark.lab

CLUSTER_LAB = EXAMPLES / "cluster-lab" / "inventory"


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    return start_lab(request, tmp_path_factory, CLUSTER_LAB, "dpl", "network deploy lab tests")


def test_network_switch_drift_is_shown_and_repaired_through_the_network_group(lab):
    from netauto.lab.runtime import vtysh

    rel, old, new = "etc/frr/frr.conf", "log syslog informational", "log syslog debugging"
    f = _node_dir(lab, "fe-acc0") / rel
    original = f.read_text()
    assert old in original
    f.write_text(original.replace(old, new, 1))  # by hand, on the frontend access switch
    before = _snapshot(lab)
    proc, doc = _deploy(lab, "--dry-run", "--limit", "network_frontend,&switches", inventory=CLUSTER_LAB)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _changed(before, _snapshot(lab)) == {}, "dry-run modified a device"
    results = _by_device(doc)
    assert set(results) == {"fe-acc0", "fe-acc1", "fe-agg1"}  # the frontend's switches, nothing else
    assert {d: r["result"] for d, r in results.items()} == {"fe-acc0": "changed", "fe-acc1": "unchanged",
                                                            "fe-agg1": "unchanged"}
    assert list(results["fe-acc0"]["diff"]) == ["/" + rel]
    # the push repairs it, with the network's BGP sessions as the post-check
    proc, doc = _deploy(lab, "--limit", "fe-acc0", "--yes", "--session-timeout", "30", inventory=CLUSTER_LAB)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _by_device(doc)["fe-acc0"]["result"] == "applied"
    assert f.read_text() == original
    assert "log syslog informational" in vtysh(lab["state"], "fe-acc0", "show running-config").stdout
