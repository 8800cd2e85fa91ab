"""netauto lab on real FRR 8.4 in network namespaces: converge, drain a spine, catch a broken render, clean up.

Runs when root and the Debian packages are present (CI installs them via .ci/run); skipped locally otherwise.
Every test tears its lab down in a fixture finalizer, and asserts nothing (namespace, process) is left.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import DEFAULT_INVENTORY, require_tool

from netauto.lab import netns, runtime
from netauto.lab.check import check
from netauto.lab.plan import build_plan, ns_prefix
from netauto.pipeline import render
from netauto.lab.state import labs_root
from netauto.lab.preflight import preflight

pytestmark = pytest.mark.lab


def _require_lab() -> None:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("the lab tests need root in CI")
        pytest.skip("netauto lab needs root")
    for tool in ("ip", "vtysh", "zebra", "bgpd", "watchfrr", "frrinit.sh", "frr-reload.py", "ifup", "ping", "nsenter", "unshare"):
        require_tool(tool)
    pf = preflight()
    if not pf.ok:
        if os.environ.get("CI"):
            pytest.fail("lab preflight: " + "; ".join(pf.problems))
        pytest.skip("lab preflight: " + "; ".join(pf.problems))


def _assert_gone(name: str) -> None:
    prefix = ns_prefix(name)
    assert netns.list_netns(prefix) == [], "namespaces left behind"
    assert not (labs_root() / name).exists(), "state folder left behind"


@pytest.fixture
def lab_name(request):
    _require_lab()
    name = f"t{os.getpid() % 100000}{request.node.name[-6:].replace('[', '').replace(']', '')}"
    name = "".join(c for c in name if c.isalnum() or c == "_")[:20]
    runtime.down(name)  # leftovers of an earlier crashed run
    try:
        yield name
    finally:
        # from a fresh process, as a user would after a crash: only the state folder is needed
        subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "lab", "down", "--name", name], capture_output=True, timeout=120)
        runtime.down(name)
        _assert_gone(name)


def _failures(rep):
    return [(r.kind, r.device, r.item, r.actual) for r in rep.failures()]


def test_default_fabric_converges_and_drains_a_spine(lab_name):
    t0 = time.monotonic()
    model, artifacts = render(DEFAULT_INVENTORY)
    plan = build_plan(model, artifacts, lab_name)
    st = runtime.up(plan)
    started = time.monotonic() - t0
    ns_pids = netns.pids_in_netns(plan.namespaces)
    assert all(ns_pids[n.ns] for n in plan.nodes.values() if n.kind == "switch")

    rep = check(st, timeout=60)
    assert rep.ok, _failures(rep)
    converged = time.monotonic() - t0
    assert sum(1 for r in rep.results if r.kind == "bgp") == 128
    assert all(r.actual == "8 paths" for r in rep.results if r.kind == "ecmp")
    assert sum(1 for r in rep.results if r.kind == "ping") == 128

    # the spine's own hostname/FRR, seen through `lab exec` (mount + UTS namespace)
    argv = runtime.exec_argv(st, "spine1", ["sh", "-c", "hostname; head -1 /etc/frr/frr.conf"])
    outp = subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout
    assert outp.startswith("spine1\n! spine1: rendered by netauto")

    # drain spine1: every leaf drops its 2 links to it from the multipath set, traffic avoids it
    asn = model.switch("spine1").bgp.asn
    p = runtime.vtysh(st, "spine1", "configure terminal", f"router bgp {asn}", "bgp graceful-shutdown")
    assert p.returncode == 0, p.stdout + p.stderr
    rep2 = check(st, timeout=30, drained={"spine1"})
    assert rep2.ok, _failures(rep2)
    assert all(r.actual == "6 paths" for r in rep2.results if r.kind == "ecmp")
    assert rep2.forwarded["spine1"] == 0
    assert sum(rep2.forwarded[s] for s in ("spine2", "spine3", "spine4")) > 0
    # the same drain, the check not told: the short ECMP names the drain and the option that expects it
    rep3 = check(st, timeout=8, pings=False)
    short = [r for r in rep3.results if r.kind == "ecmp" and not r.ok]
    assert short and all("drained: spine1 (`lab check --drained spine1` expects it)" in r.actual for r in short)
    assert [(r.kind, r.device) for r in rep3.results if r.kind == "drain"] == [("drain", "spine1")]
    print(f"\nlab up {started:.1f} s, converged+checked {converged:.1f} s, drain check {sum(rep2.timings.values()):.1f} s")


def test_broken_render_fails_check_naming_leaf_and_session(lab_name):
    model, artifacts = render(DEFAULT_INVENTORY)
    leaf = model.switch("su1-r3-leaf")
    uplink = leaf.bgp.neighbors[0]  # the first uplink (swp33s0) and its spine port
    broken = []
    for a in artifacts:
        if a.device == leaf.name and a.path == "etc/frr/frr.conf":
            text = a.content.replace(f"neighbor {uplink.interface} interface", "neighbor swp41 interface")
            assert text != a.content
            a = type(a)(a.device, a.path, text, a.mode)
        broken.append(a)
    plan = build_plan(model, broken, lab_name, servers_per_su=0)
    st = runtime.up(plan)
    rep = check(st, timeout=12, pings=False)
    assert not rep.ok
    failed = {(r.device, r.item) for r in rep.failures() if r.kind == "bgp"}
    assert (leaf.name, uplink.interface) in failed  # expected session missing on the leaf
    assert (uplink.peer_device, uplink.peer_port) in failed  # and never Established on the spine side
    assert (leaf.name, "swp41") in failed  # a neighbour the model does not have
    assert failed <= {(leaf.name, uplink.interface), (leaf.name, "swp41"), (uplink.peer_device, uplink.peer_port)}
    msg = next(r for r in rep.failures() if r.device == leaf.name and r.item == uplink.interface)
    assert f"{uplink.peer_device} {uplink.peer_port}" in msg.expected and "no such neighbour" in msg.actual

    # the CLI says the same and exits 1
    cli = subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "lab", "check", "--name", lab_name, "--timeout", "3", "--no-ping"],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 1
    assert f"FAIL bgp {leaf.name} {uplink.interface}" in cli.stderr


def test_failed_up_leaves_nothing_behind(lab_name):
    model, artifacts = render(DEFAULT_INVENTORY)
    plan = build_plan(model, artifacts, lab_name, servers_per_su=0)
    plan.links[0].a_port = "x" * 20  # longer than IFNAMSIZ: `ip link add` fails half-way through up
    with pytest.raises(RuntimeError):
        runtime.up(plan)
    _assert_gone(lab_name)
    assert not any(p for p in netns.pids_in_netns(plan.namespaces).values())
