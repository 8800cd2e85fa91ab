"""Small lab promises (issue 21), without booting a lab: `lab down` removes the per-lab ssh client config that
deploy/verify --lab leave in the user's cache; `lab preflight` promises no list it does not print."""

from __future__ import annotations

import shutil

import pytest

from netauto.deploy.nornir_inventory import netns_ssh_config
from netauto.lab import runtime
from netauto.lab.plan import MGMT_NS, ns_prefix
from netauto.lab.preflight import preflight


def test_lab_down_removes_its_ssh_config_from_the_cache(tmp_path, monkeypatch):
    if shutil.which("ip") is None:
        pytest.skip("iproute2 missing")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("NETAUTO_LAB_ROOT", str(tmp_path / "labs"))
    name = "cfgt"
    mine = netns_ssh_config(f"{ns_prefix(name)}{MGMT_NS}")
    other = netns_ssh_config(f"{ns_prefix('other')}{MGMT_NS}")
    runtime.down(name)
    assert not (tmp_path / "cache" / "netauto" / "ssh" / mine.rsplit("/", 1)[1]).exists()
    assert (tmp_path / "cache" / "netauto" / "ssh" / other.rsplit("/", 1)[1]).exists()  # another lab's stays


def test_preflight_promises_nothing_it_does_not_print():
    if shutil.which("ip") is None:
        pytest.skip("iproute2 missing")
    pf = preflight()
    assert not any("see below" in line for line in pf.info + pf.problems), pf.info
