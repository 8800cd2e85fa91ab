"""`netauto deploy` to SONiC switches of a real lab over SSH (the mixed example: SONiC leaves and spine4).

A lab SONiC node keeps SONiC's file layout: /etc/sonic/config_db.json, and /etc/sonic/frr bind-mounted as
FRR's /etc/frr, as SONiC's bgp container sees it. FRR runs in the node itself (no container), and nothing
applies config_db.json after `lab up` (no redis/swss/GCU): deploy installs it and says so. What runs for
real here: the diff of the parts netauto owns, the drain, FRR check/reload/verify at the SONiC path, and
the rollback.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import EXAMPLES
from test_deploy_lab import _by_device, _changed, _deploy, _netauto, _node_dir, _snapshot, start_lab

pytestmark = pytest.mark.lab

MIXED = EXAMPLES / "mixed-sonic" / "inventory"
DB = "etc/sonic/config_db.json"
FRR = "etc/sonic/frr/frr.conf"


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    return start_lab(request, tmp_path_factory, MIXED, "son", "SONiC deploy lab tests")


def _edit_db(lab: dict, device: str, edit) -> bytes:
    """Change a node's config_db.json as `config save` would write it; returns the original bytes."""
    path = _node_dir(lab, device) / DB
    original = path.read_bytes()
    data = json.loads(original)
    edit(data)
    path.write_text(json.dumps(data, sort_keys=True, indent=4) + "\n")
    return original


def _device_owned(data: dict) -> None:
    """What a real switch adds to netauto's config_db: image tables and the platform's mac."""
    data["FEATURE"] = {"bgp": {"state": "enabled", "auto_restart": "enabled"}}
    data["DEVICE_METADATA"]["localhost"]["mac"] = "1c:34:da:00:00:01"


def test_sonic_dry_run_diffs_only_what_netauto_owns(lab):
    port = "Ethernet0"

    def edits(data: dict) -> None:
        _device_owned(data)
        assert data["PORT"][port]["mtu"] == "9216"
        data["PORT"][port]["mtu"] = "9100"  # a hand edit netauto owns

    originals = {"su1-r3-leaf": _edit_db(lab, "su1-r3-leaf", edits), "su1-r4-leaf": _edit_db(lab, "su1-r4-leaf", _device_owned)}
    try:
        before = _snapshot(lab)
        proc, doc = _deploy(lab, "--dry-run", "--limit", "switches", "--workers", "12", inventory=MIXED)
        assert _changed(before, _snapshot(lab)) == {}, "dry-run modified a device"
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = _by_device(doc)
        # su1-r4-leaf only has what the switch itself owns: no diff; every other switch is as rendered
        assert {d for d, r in results.items() if r["result"] == "changed"} == {"su1-r3-leaf"}
        diff = results["su1-r3-leaf"]["diff"]
        assert list(diff) == ["/" + DB]
        changed = [ln for ln in diff["/" + DB].splitlines() if ln[:1] in "+-" and ln[:3] not in ("---", "+++")]
        assert changed == ['-            "mtu": "9100",', '+            "mtu": "9216",']
    finally:
        for dev, data in originals.items():
            (_node_dir(lab, dev) / DB).write_bytes(data)


def test_sonic_change_deploys_at_the_sonic_paths_with_drain(lab):
    from netauto.lab.runtime import vtysh
    from netauto.pipeline import render

    inv = lab["tmp"] / "inventory-changed"
    shutil.copytree(MIXED, inv)
    (inv / "fabric.yaml").write_text((inv / "fabric.yaml").read_text().replace(
        "keepalive: 3, holdtime: 9", "keepalive: 2, holdtime: 6"))
    (inv / "features.yaml").write_text((inv / "features.yaml").read_text().replace(
        "min_threshold: 150000", "min_threshold: 180000"))
    _edit_db(lab, "su1-r0-leaf", _device_owned)  # kept by the deploy: nothing to restore afterwards
    before = _snapshot(lab)
    proc, doc = _deploy(lab, "--limit", "su1-r0-leaf,spine4", "--yes", "--session-timeout", "30", inventory=inv)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = _by_device(doc)
    # FRR applied, config_db.json only installed (no swss/GCU in the lab): the result says so
    assert {d: r["result"] for d, r in results.items() if r["result"] != "skipped"} == \
        {"su1-r0-leaf": "partly-applied", "spine4": "partly-applied"}
    assert set(_changed(before, _snapshot(lab))) == {"su1-r0-leaf", "spine4"}
    _, artifacts = render(inv)
    intent = {(a.device, a.path): a.content for a in artifacts}
    for dev in ("su1-r0-leaf", "spine4"):
        assert set(results[dev]["diff"]) == {"/" + DB, "/" + FRR}
        assert (_node_dir(lab, dev) / FRR).read_text() == intent[(dev, FRR)]
        assert "timers bgp 2 6" in vtysh(lab["state"], dev, "show running-config").stdout  # FRR read it as /etc/frr
        db = json.loads((_node_dir(lab, dev) / DB).read_text())
        assert db["WRED_PROFILE"] == json.loads(intent[(dev, DB)])["WRED_PROFILE"]
        assert "180000" in json.dumps(db["WRED_PROFILE"])
        assert any("installed, not applied" in n and "config_db.json" in n for n in results[dev]["notes"])
        assert results[dev]["not_applied"] == ["/" + DB]
    leaf_db = json.loads((_node_dir(lab, "su1-r0-leaf") / DB).read_text())
    assert "FEATURE" in leaf_db and leaf_db["DEVICE_METADATA"]["localhost"]["mac"] == "1c:34:da:00:00:01"
    # spine4 drained with gshut: every leaf's ECMP toward the other rails drops by its 2 links to spine4
    drain = results["spine4"]["drain"]
    assert set(drain["before"]) == {f"su1-r{r}-leaf" for r in range(8)}
    assert all(drain["drained"][n] == w - 2 for n, w in drain["before"].items()), drain
    assert drain["restored"] == drain["before"], drain
    check = _netauto("lab", "check", "--name", lab["name"])
    assert check.returncode == 0, check.stdout + check.stderr


def test_sonic_refused_line_is_rolled_back_byte_identical(lab):
    from netauto.render.fingerprint import builtin_templates

    tdir = lab["tmp"] / "templates-refused"
    (tdir / "sonic").mkdir(parents=True)
    original = (builtin_templates() / "sonic" / "frr.conf.j2").read_text()
    (tdir / "sonic" / "frr.conf.j2").write_text(
        original.rstrip("\n") + "\nroute-map NETAUTO-FAULT permit 10\n set local-preference 99999999999\nexit\n!\n")
    before = _snapshot(lab)
    proc, doc = _deploy(lab, "--templates", str(tdir), "--limit", "su1-r5-leaf,su1-r6-leaf", "--batch", "1",
                        "--yes", "--skip-validate", inventory=MIXED)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert doc["stopped_at"] == "su1-r5-leaf" and "su1-r6-leaf" in doc["untouched"]
    assert _changed(before, _snapshot(lab)) == {}, "a device is not byte-identical to before"
    res = _by_device(doc)["su1-r5-leaf"]
    assert res["result"] == "rolled-back" and "% [BGP]" in res["error"], res
    assert "rollback" in res["timings"]


def test_napalms_own_harness_passes_against_a_lab_sonic_switch(lab):
    """napalm.base.test.getters.BaseTestGetters (NAPALM_TEST_MOCK=0) with `netauto_sonic` on a lab SONiC node."""
    from napalm_drivers.harness import lab_device, run_live

    addr, opts = lab_device(lab["name"], "su1-r1-leaf")
    p = run_live("netauto_sonic", addr, "root", opts)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert " passed" in p.stdout and "failed" not in p.stdout.splitlines()[-1]
