"""Deploy safety in a lab (FRR in network namespaces, sshd, root): docs/deploy-safety.md.

- The drain, measured from outside deploy: three pushes of a spine while the test itself samples every leaf's
  kernel routing table (`ip -j -4 route show proto bgp` in each leaf's namespace, one polling thread per leaf)
  and watches the spine's frr.conf. At each moment the file changes, no leaf may forward a prefix that has
  another way through the spine.
- A device belongs to one fabric: another inventory, or a device naming another fabric, is refused.
- A changed host key accepted by --no-host-key-check is a warning line on the console and in every format.
- A second Ctrl-C during the push's own rollback: the device is restored without a manual step.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY
from test_deploy_lab import (DEAD_RUN, _by_device, _changed, _deploy, _fault_templates, _history, _netauto, _node_dir,
                             _popen_deploy, _snapshot, _stages, _state_dir, start_lab)

pytestmark = pytest.mark.lab

SPINE = "spine1"
LEAVES = [f"su1-r{r}-leaf" for r in range(8)]


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    return start_lab(request, tmp_path_factory, DEFAULT_INVENTORY, "saf", "deploy safety lab tests")


def _kernel(ns: str) -> dict[str, frozenset[str]]:
    from netauto.formats.routes import parse_kernel_routes

    out = subprocess.run(["ip", "netns", "exec", ns, "ip", "-j", "-4", "route", "show", "proto", "bgp"],
                         capture_output=True, text=True, timeout=10)
    return parse_kernel_routes(out.stdout)


class Sampler:
    """One thread per leaf polling its kernel, one thread hashing the spine's frr.conf: (start, end, routes)
    samples per leaf and the moments the file changed."""

    def __init__(self, lab: dict, spine_conf: Path) -> None:
        self.lab, self.conf = lab, spine_conf
        self.samples: dict[str, list[tuple[float, float, dict[str, frozenset[str]]]]] = {leaf: [] for leaf in LEAVES}
        self.changes: list[float] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._leaf, args=(leaf,), daemon=True) for leaf in LEAVES]
        self.threads.append(threading.Thread(target=self._file, daemon=True))

    def _leaf(self, leaf: str) -> None:
        ns = self.lab["state"]["nodes"][leaf]["ns"]
        while not self.stop.is_set():
            start = time.monotonic()
            routes = _kernel(ns)
            self.samples[leaf].append((start, time.monotonic(), routes))
            time.sleep(0.03)

    def _file(self) -> None:
        last = hashlib.sha256(self.conf.read_bytes()).digest()
        while not self.stop.is_set():
            now = hashlib.sha256(self.conf.read_bytes()).digest() if self.conf.exists() else b""
            if now != last:
                self.changes.append(time.monotonic())
                last = now
            time.sleep(0.005)

    def __enter__(self) -> "Sampler":
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=15)

    def around(self, leaf: str, moment: float) -> list[dict[str, frozenset[str]]]:
        """The last sample that ended before `moment` and the first that started after it."""
        before = [s for s in self.samples[leaf] if s[1] <= moment]
        after = [s for s in self.samples[leaf] if s[0] >= moment]
        assert before and after, f"{leaf}: no kernel sample around the file change"
        assert moment - before[-1][1] < 2.0, f"{leaf}: last sample {moment - before[-1][1]:.2f} s before the change"
        return [before[-1][2], after[0][2]]


def _facing(lab: dict, leaf: str) -> set[str]:
    conf = (_node_dir(lab, leaf) / "etc/frr/frr.conf").read_text()
    return set(re.findall(rf"^ neighbor (\S+) description {SPINE} ", conf, re.M))


def _timers(lab: dict, keepalive: int, holdtime: int) -> Path:
    inv = lab["tmp"] / f"inventory-timers-{keepalive}"
    if not inv.exists():
        shutil.copytree(DEFAULT_INVENTORY, inv)
        fabric = inv / "fabric.yaml"
        text = fabric.read_text()
        assert "keepalive: 3, holdtime: 9" in text
        fabric.write_text(text.replace("keepalive: 3, holdtime: 9", f"keepalive: {keepalive}, holdtime: {holdtime}"))
    return inv


def test_three_spine_pushes_no_leaf_forwards_through_the_spine_when_its_files_change(lab):
    ports = {leaf: _facing(lab, leaf) for leaf in LEAVES}
    assert all(len(p) == 2 for p in ports.values()), ports
    baseline = {leaf: _kernel(lab["state"]["nodes"][leaf]["ns"]) for leaf in LEAVES}
    # prefixes the spine alone leads to (its own): they cannot move; every other one has other spines
    own = {leaf: {p for p, devs in routes.items() if devs and devs <= ports[leaf]} for leaf, routes in baseline.items()}
    shared = {leaf: [p for p, devs in routes.items() if devs & ports[leaf] and p not in own[leaf]]
              for leaf, routes in baseline.items()}
    assert all(shared.values()), f"the leaves do not forward through {SPINE} before the test: {baseline}"
    conf = _node_dir(lab, SPINE) / "etc/frr/frr.conf"
    report = []
    for keepalive, holdtime in ((2, 6), (4, 12), (3, 9)):
        inv = _timers(lab, keepalive, holdtime) if keepalive != 3 else DEFAULT_INVENTORY
        with Sampler(lab, conf) as sampler:
            proc, doc = _deploy(lab, "--limit", SPINE, "--yes", "--session-timeout", "30", inventory=inv)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = _by_device(doc)[SPINE]
        assert result["result"] == "applied", result
        assert f"timers bgp {keepalive} {holdtime}" in conf.read_text()
        assert len(sampler.changes) >= 2, "frr.conf changed once (drained variant) and again (undrain)"
        drained_record = result["drain"]["drained"]
        assert set(drained_record) == set(LEAVES) and "still_forwarding" not in result["drain"], result["drain"]
        # the record never declares the spine drained while a leaf still selects its paths (8 -> 6 of 8)
        before_widths = result["drain"]["before"]
        assert all(drained_record[leaf] == before_widths[leaf] - len(ports[leaf]) for leaf in LEAVES), result["drain"]
        for moment in sampler.changes:
            for leaf in LEAVES:
                for routes in sampler.around(leaf, moment):
                    through = {p: sorted(devs & ports[leaf]) for p, devs in routes.items()
                               if devs & ports[leaf] and p not in own[leaf]}
                    assert not through, f"push {keepalive}/{holdtime}: {leaf} forwards through {SPINE} when its " \
                                        f"frr.conf changes: {through}"
        samples = sum(len(s) for s in sampler.samples.values())
        report.append(f"{keepalive}/{holdtime}: {len(sampler.changes)} file changes, {samples} kernel samples, "
                      f"drained after {result['drain']['drained_after_s']} s ({result['drain'].get('fib')})")
    print("\n" + "\n".join(report))
    print(json.dumps({leaf: len(p) for leaf, p in shared.items()}))


# ------------------------------------------------------------------------------------------ fabric identity
MIXED = DEFAULT_INVENTORY.parent / "examples/mixed-sonic/inventory"


def test_another_fabrics_inventory_is_refused_by_the_lab_and_changes_nothing(lab):
    before = _snapshot(lab)
    for args in (["deploy", "-i", str(MIXED), "--lab", lab["name"], "--yes", "--limit", "spine2"],
                 ["deploy", "-i", str(MIXED), "--lab", lab["name"], "--dry-run"],
                 ["drift", "-i", str(MIXED), "--lab", lab["name"]],
                 ["drain", "spine2", "-i", str(MIXED), "--lab", lab["name"]],
                 ["backup", "-i", str(MIXED), "--lab", lab["name"], "-o", str(lab["tmp"] / "bk-mixed")]):
        proc = _netauto(*args)
        assert proc.returncode == 1, (args, proc.stdout + proc.stderr)
        assert "runs fabric gpu-pod1, the inventory is fabric gpu-mixed: refused" in proc.stdout + proc.stderr, args
        assert "Traceback" not in proc.stderr
    assert _changed(before, _snapshot(lab)) == {}


def test_a_device_naming_another_fabric_is_refused_unless_adopted(lab):
    """The lab's inventory, but spine2 names another fabric (its marker as another netauto would write it)."""
    from netauto.formats.fabric_marker import marker_text

    marker = _node_dir(lab, "spine2") / "etc/netauto/fabric"
    original = marker.read_bytes()
    assert b"fabric=gpu-pod1" in original  # lab up wrote it
    marker.write_text(marker_text("gpu-other"))
    try:
        before = _snapshot(lab)
        proc, doc = _deploy(lab, "--dry-run", "--limit", "spine1,spine2")
        assert proc.returncode == 1, proc.stdout + proc.stderr
        res = _by_device(doc)
        assert res["spine2"]["result"] == "refused" and res["spine1"]["result"] == "unchanged", res
        assert "spine2 belongs to fabric gpu-other (/etc/netauto/fabric), not gpu-pod1" in res["spine2"]["error"]
        proc, doc = _deploy(lab, "--limit", "spine2", "--yes", inventory=_timers(lab, 2, 6))
        assert proc.returncode == 1 and _by_device(doc)["spine2"]["result"] == "refused", proc.stdout
        assert "nothing was changed" in " ".join(_by_device(doc)["spine2"]["notes"])
        drain = _netauto("drain", "spine2", "--lab", lab["name"])
        assert drain.returncode == 1 and "belongs to fabric gpu-other" in drain.stdout + drain.stderr
        drift = _netauto("drift", "--lab", lab["name"], "--limit", "spine2")
        assert drift.returncode == 1 and "belongs to fabric gpu-other" in drift.stdout
        backup = _netauto("backup", "--lab", lab["name"], "--limit", "spine2", "-o", str(lab["tmp"] / "bk-other"))
        assert backup.returncode == 1 and "belongs to fabric gpu-other" in backup.stdout
        assert not (lab["tmp"] / "bk-other" / "spine2" / "files").exists()
        assert _changed(before, _snapshot(lab)) == {}, "a refused device was changed"
        # --adopt: the operator moves the device to this fabric (nothing else differs: the marker is rewritten)
        proc, doc = _deploy(lab, "--limit", "spine2", "--yes", "--adopt")
        assert proc.returncode == 0 and _by_device(doc)["spine2"]["result"] == "unchanged", proc.stdout
        assert marker.read_bytes() == original
    finally:
        marker.write_bytes(original)


# ----------------------------------------------------------------------------------------------- host keys
def test_a_changed_host_key_is_a_warning_on_the_console_and_in_every_format(lab):
    import paramiko

    from netauto.lab.state import lab_dir

    known = lab_dir(lab["name"]) / "ssh/known_hosts"
    original = known.read_text()
    address = lab["state"]["nodes"]["spine3"]["mgmt_address"].split("/")[0]
    wrong = f"spine3,{address} ssh-ed25519 {paramiko.Ed25519Key.generate().get_base64()}" \
        if hasattr(paramiko.Ed25519Key, "generate") else \
        f"spine3,{address} ssh-rsa {paramiko.RSAKey.generate(1024).get_base64()}"
    kept = [ln for ln in original.splitlines() if address not in ln.split(" ", 1)[0].split(",")]
    assert len(kept) < len(original.splitlines()), "spine3 not in the lab's known_hosts"
    known.write_text("\n".join([*kept, wrong]) + "\n")
    line = "WARNING spine3: CHANGED host key accepted only because of --no-host-key-check"
    try:
        for fmt in ("table", "json"):
            out = lab["tmp"] / f"hk-{fmt}.json"
            proc = _netauto("deploy", "--lab", lab["name"], "--dry-run", "--limit", "spine3", "--no-host-key-check",
                            "--format", fmt, "--results", str(out))
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert line in proc.stderr, (fmt, proc.stderr)  # the console, whatever the format
            doc = json.loads(out.read_text())
            assert any(line in w for w in doc["warnings"]) and any(line in w for w in doc["devices"][0]["warnings"])
            if fmt == "json":
                assert line in proc.stdout
        for fmt in ("json", "junit", "markdown", "table"):
            proc = _netauto("drift", "--lab", lab["name"], "--limit", "spine3", "--no-host-key-check", "--format", fmt)
            assert line in proc.stderr, (fmt, proc.stderr)
            if fmt != "table":
                assert line in proc.stdout, (fmt, proc.stdout)
        drain = _netauto("undrain", "spine3", "--lab", lab["name"], "--no-host-key-check", "--timeout", "10")
        assert line in drain.stderr, drain.stderr
    finally:
        known.write_text(original)


# ------------------------------------------------------------------------------------------------ interrupts
def test_second_ctrl_c_during_the_pushs_own_rollback_is_restored_without_a_manual_step(lab):
    """The push fails (FRR refuses a line) and rolls back; Ctrl-C twice while that rollback runs. The rollback
    goes on on the device (detached); the armed watchdog proves and releases it at its deadline: no `clear`."""
    device = "su1-r2-leaf"
    tdir = _fault_templates(lab, "refused-safety",
                            "route-map NETAUTO-FAULT permit 10\n set local-preference 99999999999\nexit\n!\n")
    before = _snapshot(lab)
    out = lab["tmp"] / "result-ctrlc-rollback.json"
    deploy = _popen_deploy(lab, DEFAULT_INVENTORY, out, "--templates", str(tdir), "--limit", device, *DEAD_RUN)
    try:
        deadline = time.monotonic() + 120
        while not any((s / "rolling").exists() for s in _stages(lab, device)):
            assert deploy.poll() is None and time.monotonic() < deadline, "the push ended before its rollback"
            time.sleep(0.01)
        deploy.send_signal(signal.SIGINT)
        time.sleep(0.05)
        deploy.send_signal(signal.SIGINT)
        stdout, _ = deploy.communicate(timeout=30)
    finally:
        if deploy.poll() is None:
            deploy.kill()
    assert deploy.returncode == 130, stdout
    status = _netauto("deploy", "status", "--lab", lab["name"], "--limit", device)
    said = status.stdout
    assert ("a rollback is running on the device now" in said or "RESTORABLE" in said
            or "free" in said), said
    # no manual step: the watchdog (41 s) finishes, proves and releases
    end = time.monotonic() + 90
    while _stages(lab, device) or (_state_dir(lab, device) / "lock").exists():
        assert time.monotonic() < end, f"still locked: {_netauto('deploy', 'status', '--lab', lab['name']).stdout}"
        time.sleep(1)
    assert _changed(before, _snapshot(lab)) == {}, "not byte-identical after the interrupted rollback"
    history = _history(lab, device)
    assert "watchdog restored the files" in history or "rolled back by the push" in history, history
    print(f"\nstatus after the hard exit: {said.strip()}\nhistory: {history.strip().splitlines()[-1]}")
