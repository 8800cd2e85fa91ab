"""Lab (root; real FRR and sshd in namespaces): moving a server between tenants, as `netauto deploy --dry-run --lab`
sees it against lab devices running examples/gpu-cloud-tenants (`netauto lab up --ssh`, all four servers).

This kernel has no VRF devices: `lab up` applies the Linux files without the tenant VRFs (ports and L3VNI bridges
sit in the switch's one namespace), keeping each tenant port's `vrf <tenant>` in the lab's interfaces file as a
comment, and a lab deploy is in linux-files mode (NVUE's startup.yaml is neither pushed nor diffed). So what this
proves: the deploy's read-and-diff against the files the lab devices hold plans a change on gpu2's two leaves only,
in /etc/network/interfaces only, and there only the VRF line of gpu2's own leaf ports; spines, gpu2's peers' ports,
frr.conf and every server are unchanged, and the dry-run modifies nothing. What it does not prove: that a push
moves the port between VRF devices (no VRF devices here; tests/test_tenants_lab.py runs the tenant VRFs as
namespaces, and tests/test_tenant_moves.py compares the two renders, startup.yaml included).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES
from test_deploy_lab import _by_device, _changed, _deploy, _node_dir, _snapshot, start_lab

from netauto.formats.ifupdown import parse_interfaces
from netauto.pipeline import build_cluster

pytestmark = pytest.mark.lab

TENANTS = EXAMPLES / "gpu-cloud-tenants" / "inventory"
IFACES = "/etc/network/interfaces"


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    return start_lab(request, tmp_path_factory, TENANTS, "tmv", "tenant move lab tests", servers=4)


def _moved(lab: dict) -> Path:
    """The example with gpu2 moved from acme to globex (the docs/tenants.md edit)."""
    inv = lab["tmp"] / "moved"
    shutil.copytree(TENANTS, inv)
    fabric = inv / "fabric.yaml"
    text = fabric.read_text()
    edited = text.replace("servers: [gpu1, gpu2]", "servers: [gpu1]").replace("servers: [gpu3, gpu4]",
                                                                              "servers: [gpu2, gpu3, gpu4]")
    assert edited.count("servers: [") == text.count("servers: [") and edited != text
    fabric.write_text(edited)
    return inv


def _changed_lines(diff: str) -> list[tuple[int, str]]:
    """(line in the device's file, text) of each removed line, and (line, text) of each added one, from a
    unified diff: the old side's line numbers for '-', the new side's for '+'."""
    out: list[tuple[int, str]] = []
    old = new = 0
    for line in diff.splitlines():
        m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", line)
        if m:
            old, new = int(m[1]), int(m[2])
        elif line.startswith(("---", "+++")):
            continue
        elif line.startswith("-"):
            out.append((old, line))
            old += 1
        elif line.startswith("+"):
            out.append((new, line))
            new += 1
        elif line.startswith(" "):
            old += 1
            new += 1
    return out


def _stanza_at(text: str, n: int) -> str:
    blocks = parse_interfaces(text).blocks
    return [b for b in blocks if b.line <= n][-1].name


def test_fresh_lab_has_nothing_to_deploy(lab):
    proc, doc = _deploy(lab, "--dry-run", inventory=TENANTS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {d: r["result"] for d, r in _by_device(doc).items()} == {
        d: "unchanged" for d in ("spine1", "spine2", "r0-leaf", "r1-leaf", "gpu1", "gpu2", "gpu3", "gpu4")}


def test_moving_gpu2_dry_run_touches_only_its_leaf_ports_vrf_lines(lab):
    moved = _moved(lab)
    before = _snapshot(lab)
    proc, doc = _deploy(lab, "--dry-run", inventory=moved)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _changed(before, _snapshot(lab)) == {}, "dry-run modified a device"
    results = _by_device(doc)
    assert {d: r["result"] for d, r in results.items()} == {
        "spine1": "unchanged", "spine2": "unchanged", "r0-leaf": "changed", "r1-leaf": "changed",
        "gpu1": "unchanged", "gpu2": "unchanged", "gpu3": "unchanged", "gpu4": "unchanged"}
    fab = build_cluster(moved).compute
    gpu2_ports = {(r.leaf, r.leaf_port) for s in fab.servers if s.name == "gpu2" for r in s.rails}
    assert {leaf for leaf, _ in gpu2_ports} == {"r0-leaf", "r1-leaf"}
    for leaf in ("r0-leaf", "r1-leaf"):
        diff = results[leaf]["diff"]
        assert list(diff) == [IFACES], (leaf, list(diff))
        running = (_node_dir(lab, leaf) / IFACES.lstrip("/")).read_text()  # what the lab device holds
        lines = _changed_lines(diff[IFACES])
        assert [t for _, t in lines] == ["-    # vrf acme (lab: no vrf devices; the tenant's VRF is not applied)",
                                         "+    # vrf globex (lab: no vrf devices; the tenant's VRF is not applied)"]
        removed_at = lines[0][0]
        assert (leaf, _stanza_at(running, removed_at)) in gpu2_ports, (leaf, removed_at, diff[IFACES])
