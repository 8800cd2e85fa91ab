"""The drain, measured from outside deploy: three pushes of a spine while the test itself samples every leaf's
kernel routing table (`ip -j -4 route show proto bgp` in each leaf's namespace, one polling thread per leaf) and
watches the spine's frr.conf. At each moment the spine's file changes, no leaf may forward any prefix that has
another way through the spine (lab: FRR in network namespaces, root)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY
from test_deploy_lab import _by_device, _deploy, _node_dir, start_lab

pytestmark = pytest.mark.lab

SPINE = "spine1"
LEAVES = [f"su1-r{r}-leaf" for r in range(8)]


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    return start_lab(request, tmp_path_factory, DEFAULT_INVENTORY, "drn", "drain lab tests")


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
