"""`netauto verify`, `drain`/`undrain` and the NAPALM drivers against a real lab over SSH (root; frr,
frr-pythontools, ifupdown2, openssh-server, lldpd). One lab for the module (unique name, torn down even on
failure); every test puts back what it broke, and the next test's healthy baseline proves it."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from conftest import DEFAULT_INVENTORY
from test_deploy_lab import _netauto, start_lab

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    return start_lab(request, tmp_path_factory, DEFAULT_INVENTORY, "ver", "verify lab tests")


def _verify(lab: dict, *args: str, fmt: str = "json") -> tuple[int, dict | str]:
    out = lab["tmp"] / f"verify-{time.monotonic_ns()}.{fmt}"
    p = _netauto("verify", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"], "--format", fmt, "-o", str(out), *args)
    assert p.returncode in (0, 1), p.stdout + p.stderr
    text = out.read_text()
    return p.returncode, json.loads(text) if fmt == "json" else text


def _failed(doc: dict) -> set[tuple[str, str, str]]:
    return {(f["check"], f["device"], f["item"]) for f in doc["findings"] if f["status"] in ("fail", "error")}


def _until(lab: dict, pred, timeout: float = 45.0, *args: str) -> dict:
    """Verify again until `pred(doc)` holds (BGP and LLDP need a few seconds to notice a change)."""
    deadline = time.monotonic() + timeout
    while True:
        _, doc = _verify(lab, *args)
        if pred(doc) or time.monotonic() > deadline:
            return doc
        time.sleep(2)


def _exec(lab: dict, device: str, *cmd: str) -> subprocess.CompletedProcess:
    from netauto.lab.runtime import exec_argv

    return subprocess.run(exec_argv(lab["state"], device, list(cmd)), capture_output=True, text=True, timeout=60)


def _healthy(lab: dict) -> dict:
    doc = _until(lab, lambda d: d["ok"])
    assert doc["ok"], sorted(_failed(doc))[:10]
    return doc


@pytest.fixture(autouse=True)
def _previous_test_ended_healthy(lab):
    """Whether the test just before this one ended with a passing healthy verify (nothing touched the lab
    since): the flag lives for one test only, so a failed, skipped or non-verifying test in between clears it."""
    lab["start_healthy"] = lab.pop("ended_healthy", False)
    yield
    lab["start_healthy"] = False


def _healthy_at_the_end(lab: dict) -> None:
    """The lab is back to healthy (every test puts back what it broke); the next test may start from it."""
    _healthy(lab)
    lab["ended_healthy"] = True


def _healthy_to_start(lab: dict) -> None:
    """A healthy baseline: proven by the previous test's closing verify if it ran just before, else here."""
    if not lab["start_healthy"]:
        _healthy(lab)


def test_healthy_lab_passes_and_says_why_the_rest_is_not_applicable(lab):
    rc, doc = _verify(lab)
    if not doc["ok"]:  # BGP right after `lab up`: give it the usual seconds
        doc = _healthy(lab)
    counts = doc["counts"]
    assert counts["fail"] == 0 and counts["error"] == 0 and counts["pass"] > 400
    checks = {f["check"] for f in doc["findings"] if f["status"] == "pass"}
    assert {"bgp", "ecmp", "drain", "lldp", "interface", "host-routing"} <= checks
    na = [f for f in doc["findings"] if f["status"] == "n/a"]
    assert {f["check"] for f in na} >= {"speed", "qos", "ar", "host-qos", "counters"}
    assert all(f["reason"] for f in na)
    assert any("veth" in f["reason"] for f in na if f["check"] == "speed")
    # junit carries the same findings
    _, xml = _verify(lab, fmt="junit")
    cases = ET.fromstring(xml).findall(".//testcase")
    assert len(cases) == len(doc["findings"])
    assert sum(1 for c in cases if c.find("skipped") is not None) == counts["n/a"]
    lab["ended_healthy"] = True  # verified ok above, nothing changed since


def test_counters_window_on_frr_switches_is_not_applicable_not_zero(lab):
    """`--window`: the switch QoS counter reads (NVUE / COUNTERS_DB) run on the lab's FRR nodes, find neither, and
    every switch says so (n/a with the reason), while the kernel discards are still measured over the window."""
    _, doc = _verify(lab, "--checks", "counters", "--window", "1")
    assert doc["counts"]["error"] == 0, [f for f in doc["findings"] if f["status"] == "error"][:3]
    switches = {f["device"] for f in doc["findings"] if f["device"].startswith(("spine", "su"))}
    qos = [f for f in doc["findings"] if f["check"] == "counters" and "pfc" in f["item"]]
    assert {f["device"] for f in qos} == switches
    assert all(f["status"] == "n/a" and "NVUE" in f["reason"] for f in qos), qos[:3]
    assert any(f["item"].endswith(" discards") and f["status"] in ("pass", "fail") for f in doc["findings"])
    lab["ended_healthy"] = lab.get("start_healthy", False)  # read only: the lab is as this test found it


def test_uplink_down_names_device_and_port(lab):
    _healthy_to_start(lab)
    ns = lab["state"]["nodes"]["su1-r1-leaf"]["ns"]
    subprocess.run(["ip", "-n", ns, "link", "set", "swp33s0", "down"], check=True)
    try:
        doc = _until(lab, lambda d: ("bgp", "su1-r1-leaf", "swp33s0") in _failed(d))
        failed = _failed(doc)
        assert ("interface", "su1-r1-leaf", "swp33s0") in failed
        assert ("bgp", "su1-r1-leaf", "swp33s0") in failed and ("bgp", "spine1", "swp2s0") in failed
        assert ("interface", "spine1", "swp2s0") in failed  # the far end lost carrier
        assert any(c == "ecmp" and d == "su1-r1-leaf" for c, d, _ in failed)
        # junit says the same
        _, xml = _verify(lab, fmt="junit")
        names = {(c.get("classname"), c.get("name")) for c in ET.fromstring(xml).findall(".//testcase")
                 if c.find("failure") is not None}
        assert ("su1-r1-leaf", "interface swp33s0") in names and ("spine1", "bgp swp2s0") in names
    finally:
        subprocess.run(["ip", "-n", ns, "link", "set", "swp33s0", "up"], check=True)
        # FRR 8.4 + kernel nexthop objects: after the flap the kernel's group has lost the swp33s0 next hop while
        # zebra still believes the 8-way group installed (seen: `show nexthop-group rib` 8, `ip route` 7, for
        # minutes; `clear bgp *` reuses the kept group). verify reports exactly that as an ECMP failure; the lab
        # heals it by restarting FRR on both ends
        for dev in ("su1-r1-leaf", "spine1"):
            assert _exec(lab, dev, "/usr/lib/frr/frrinit.sh", "restart").returncode == 0
    _healthy_at_the_end(lab)


def _lldp_tx_interval(lab: dict, devices: tuple[str, ...], interval: str) -> None:
    """lldpd's transmit interval on these nodes (TTL = 4 x interval: how long a neighbour keeps their stale
    adverts), then an advert at once (lldpcli(8) 1.0.16: `configure lldp tx-interval`, `update`)."""
    for dev in devices:
        for cmd in (("configure", "lldp", "tx-interval", interval), ("update",)):
            p = _exec(lab, dev, "lldpcli", *cmd)
            assert p.returncode == 0, (dev, cmd, p.stdout + p.stderr)


def test_swapped_cables_name_both_ends_of_both_cables(lab):
    from netauto.lab.cabling import swap_cables
    from netauto.lab.runtime import LLDPD_CONF

    _healthy_to_start(lab)
    st = lab["state"]
    # the four ends' nodes advertise every 1 s while re-cabled (the lab's 5 s made the stale neighbours of each
    # swap linger 20 s); their neighbours keep TTL-4 s adverts from here on. Put back (with a fresh advert) below.
    ends_nodes = ("su1-r0-leaf", "spine1", "spine2")
    lab_interval = LLDPD_CONF.split("tx-interval ")[1].split()[0]
    _lldp_tx_interval(lab, ends_nodes, "1")
    new = swap_cables(st, ("su1-r0-leaf", "swp33s0"), ("su1-r0-leaf", "swp34s0"))
    assert new == {"su1-r0-leaf swp33s0": "spine2 swp1s0", "su1-r0-leaf swp34s0": "spine1 swp1s0"}
    try:
        ends = {("lldp", "su1-r0-leaf", "swp33s0"), ("lldp", "su1-r0-leaf", "swp34s0"), ("lldp", "spine1", "swp1s0"),
                ("lldp", "spine2", "swp1s0")}
        doc = _until(lab, lambda d: ends <= _failed(d) and
                     all(f["actual"].count(",") == 0 for f in d["findings"] if f["check"] == "lldp" and f["status"] == "fail"),
                     60)
        lldp = {(f["device"], f["item"]): f for f in doc["findings"] if f["check"] == "lldp" and f["status"] == "fail"}
        assert set(lldp) == {(d, i) for _, d, i in ends}
        assert lldp[("su1-r0-leaf", "swp33s0")]["expected"] == "spine1 swp1s0"
        assert lldp[("su1-r0-leaf", "swp33s0")]["actual"] == "spine2 swp1s0"
        assert lldp[("spine1", "swp1s0")]["actual"] == "su1-r0-leaf swp34s0"
        assert ("bgp", "su1-r0-leaf", "swp33s0") in _failed(doc)  # the session came up, with the wrong spine
    finally:
        swap_cables(st, ("su1-r0-leaf", "swp33s0"), ("su1-r0-leaf", "swp34s0"))
    try:
        _until(lab, lambda d: d["ok"], 60)  # the stale neighbours age out (LLDP TTL 4 x 1 s)
    finally:
        _lldp_tx_interval(lab, ends_nodes, lab_interval)
    _healthy_at_the_end(lab)


def test_removed_bgp_neighbour_fails_on_both_sides(lab):
    _healthy_to_start(lab)
    p = _exec(lab, "spine3", "vtysh", "-c", "configure terminal", "-c", "router bgp 65100", "-c",
              "no neighbor swp2s1 interface")
    assert p.returncode == 0, p.stdout + p.stderr
    try:
        doc = _until(lab, lambda d: ("bgp", "su1-r1-leaf", "swp35s1") in _failed(d))
        bgp = {(f["device"], f["item"]): f for f in doc["findings"] if f["check"] == "bgp" and f["status"] == "fail"}
        assert bgp[("spine3", "swp2s1")]["actual"] == "no such neighbour in the running config"
        assert ("su1-r1-leaf", "swp35s1") in bgp
    finally:
        assert _exec(lab, "spine3", "/usr/lib/frr/frr-reload.py", "--reload", "/etc/frr/frr.conf").returncode == 0
    _healthy_at_the_end(lab)


def test_hand_drain_fails_and_drain_undrain_commands_move_traffic(lab):
    _healthy_to_start(lab)
    p = _exec(lab, "spine2", "vtysh", "-c", "configure terminal", "-c", "router bgp 65100", "-c", "bgp graceful-shutdown")
    assert p.returncode == 0
    doc = _until(lab, lambda d: ("drain", "spine2", "graceful-shutdown") in _failed(d))
    assert _failed(doc) == {("drain", "spine2", "graceful-shutdown")}  # ECMP expects the drained widths
    und = _netauto("undrain", "spine2", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"])
    assert und.returncode == 0, und.stdout + und.stderr
    _healthy(lab)

    dr = _netauto("drain", "spine1", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"])
    assert dr.returncode == 0, dr.stdout + dr.stderr
    text = " ".join(dr.stdout.split())
    assert "'su1-r0-leaf': 8" in text and "'su1-r0-leaf': 6" in text  # neighbours' ECMP shrank 8 -> 6
    _, doc = _verify(lab, "--checks", "drain,ecmp")
    assert _failed(doc) == {("drain", "spine1", "graceful-shutdown")}
    ecmp = next(f for f in doc["findings"] if f["check"] == "ecmp" and f["device"] == "su1-r0-leaf")
    assert ecmp["actual"] == "6 paths"
    und = _netauto("undrain", "spine1", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"])
    assert und.returncode == 0, und.stdout + und.stderr
    assert "'su1-r0-leaf': 8" in " ".join(und.stdout.split())
    _healthy_at_the_end(lab)


def _driver(lab: dict, device: str, name: str = "netauto_cumulus"):
    import napalm

    from netauto.lab.runtime import NODE_MARKER

    from netauto.lab.state import lab_dir

    ssh = lab_dir(lab["name"]) / "ssh"
    addr = lab["state"]["nodes"][device]["mgmt_address"].split("/")[0]
    return napalm.get_network_driver(name)(addr, "root", "", optional_args={
        "key_file": str(ssh / "id_ed25519"), "known_hosts": str(ssh / "known_hosts"),
        "netns": f"na-{lab['name']}-mgmt", "guard": f"/etc/{NODE_MARKER}"})


def test_napalm_getters_return_the_models_sessions_and_cabling(lab, default_model):
    from netauto.verify.expect import build_intent

    it = build_intent(default_model)
    for device in ("su1-r2-leaf", "spine4"):
        d = _driver(lab, device)
        d.open()
        try:
            assert d.get_facts()["hostname"] == device
            peers = d.get_bgp_neighbors()["global"]["peers"]
            assert set(peers) == set(it.sessions[device])
            assert all(p["is_up"] for p in peers.values())
            lldp = d.get_lldp_neighbors()
            want = {p: [{"hostname": peer.device, "port": peer.port}] for p, peer in it.cabling[device].items()
                    if peer and peer.device in lab["state"]["nodes"]}
            assert lldp == want
        finally:
            d.close()
    host = _driver(lab, "gpu01", "netauto_linux")
    host.open()
    try:
        assert host.get_lldp_neighbors() == {p: [{"hostname": peer.device, "port": peer.port}]
                                             for p, peer in it.cabling["gpu01"].items() if peer}
    finally:
        host.close()


def test_napalms_own_harness_passes_against_a_lab_switch_and_server(lab):
    """napalm.base.test.getters.BaseTestGetters with NAPALM_TEST_MOCK=0: every getter netauto implements, on a
    live switch and a live server, validated against NAPALM's models; signatures unchanged."""
    from napalm_drivers.harness import lab_device, run_live

    for device, driver in (("su1-r2-leaf", "netauto_cumulus"), ("gpu01", "netauto_linux")):
        addr, opts = lab_device(lab["name"], device)
        p = run_live(driver, addr, "root", opts)
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
        assert " passed" in p.stdout and "failed" not in p.stdout.splitlines()[-1]


def test_stock_nornir_tasks_run_against_the_lab_with_only_the_documented_options(lab):
    """InitNornir with the NetautoInventory plugin's `lab` option and nothing else (no environment, no helper):
    stock nornir_netmiko and nornir_napalm tasks reach a switch and a server of the lab."""
    from nornir import InitNornir
    from nornir_napalm.plugins.tasks import napalm_get
    from nornir_netmiko.tasks import netmiko_send_command

    nr = InitNornir(runner={"plugin": "threaded", "options": {"num_workers": 2}}, logging={"enabled": False},
                    inventory={"plugin": "NetautoInventory",
                               "options": {"inventory": str(DEFAULT_INVENTORY), "lab": lab["name"]}})
    devices = ("su1-r1-leaf", "gpu01")
    sub = nr.filter(filter_func=lambda h: h.name in devices)
    try:
        sent = sub.run(task=netmiko_send_command, command_string="hostname")
        got = sub.run(task=napalm_get, getters=["facts"])
    finally:
        nr.close_connections()
    assert set(nr.inventory.hosts) == set(lab["state"]["nodes"])  # the lab's devices, no others
    for d in devices:
        assert not sent[d].failed, sent[d][0].exception
        assert sent[d][0].result.strip() == d
        assert not got[d].failed, got[d][0].exception
        assert got[d][0].result["facts"]["hostname"] == d


def _fingerprint(lab: dict, device: str) -> tuple[str, str]:
    f = _exec(lab, device, "sha256sum", "/etc/frr/frr.conf").stdout.split()[0]
    return f, _exec(lab, device, "vtysh", "-c", "show running-config").stdout


def test_napalm_replace_commit_rollback_leaves_the_switch_byte_identical(lab):
    device = "su1-r5-leaf"
    before = _fingerprint(lab, device)
    d = _driver(lab, device)
    d.open()
    try:
        text = d.get_config()["startup"]
        cand = text.replace(" bgp bestpath as-path multipath-relax\n",
                            " bgp bestpath as-path multipath-relax\n bgp bestpath compare-routerid\n", 1)
        assert cand != text
        d.load_replace_candidate(config=cand)
        diff = d.compare_config()
        added = [l for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++")]
        assert added == ["+ bgp bestpath compare-routerid"]
        d.commit_config()
        assert "bgp bestpath compare-routerid" in _fingerprint(lab, device)[1]
        assert d.compare_config() == ""  # candidate consumed
        d.rollback()
        assert _fingerprint(lab, device) == before
        # commit confirmed: pending until confirmed; rollback restores through the armed on-device rollback
        d.load_replace_candidate(config=cand)
        d.commit_config(revert_in=120)
        assert d.has_pending_commit()
        d.rollback()
        assert not d.has_pending_commit()
        assert _fingerprint(lab, device) == before
    finally:
        d.close()


def test_nornir_napalm_uses_the_driver(lab):
    from nornir.core import Nornir
    from nornir.core.inventory import ConnectionOptions, Defaults, Groups, Host, Hosts, Inventory
    from nornir.core.plugins.connections import ConnectionPluginRegister
    from nornir.plugins.runners import ThreadedRunner
    from nornir_napalm.plugins.connections import Napalm
    from nornir_napalm.plugins.tasks import napalm_get

    from netauto.lab.state import lab_dir

    ConnectionPluginRegister.register("napalm", Napalm)
    ssh = lab_dir(lab["name"]) / "ssh"
    opts = {"key_file": str(ssh / "id_ed25519"), "known_hosts": str(ssh / "known_hosts"),
            "netns": f"na-{lab['name']}-mgmt"}
    hosts = Hosts({d: Host(name=d, hostname=lab["state"]["nodes"][d]["mgmt_address"].split("/")[0], username="root",
                           platform="netauto_cumulus",
                           connection_options={"napalm": ConnectionOptions(extras={"optional_args": opts})})
                   for d in ("spine1", "spine2")})
    nr = Nornir(inventory=Inventory(hosts=hosts, groups=Groups(), defaults=Defaults()),
                runner=ThreadedRunner(num_workers=2))
    try:
        res = nr.run(task=napalm_get, getters=["facts", "bgp_neighbors"])
    finally:
        nr.close_connections()
    for d in ("spine1", "spine2"):
        assert not res[d].failed, res[d].exception
        assert res[d][0].result["facts"]["hostname"] == d
        assert len(res[d][0].result["bgp_neighbors"]["global"]["peers"]) == 16


def test_backup_is_deterministic_and_drift_names_the_edited_file(lab):
    a, b = lab["tmp"] / "backup-a", lab["tmp"] / "backup-b"
    for dest in (a, b):
        p = _netauto("backup", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"], "-o", str(dest))
        assert p.returncode == 0, p.stdout + p.stderr
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files_a)  # git sees no change
    node = lab["state"]["nodes"]["spine2"]["dir"]
    saved = (a / "spine2" / "files" / "etc" / "frr" / "frr.conf").read_bytes()
    assert saved == (Path(node) / "etc" / "frr" / "frr.conf").read_bytes()
    assert "router bgp 65100" in (a / "spine2" / "state" / "frr-running.conf").read_text()
    assert json.loads((a / "gpu01" / "state" / "ip-rule.json").read_text())

    path = Path(node) / "etc" / "frr" / "frr.conf"
    original = path.read_bytes()
    path.write_bytes(original.replace(b"log syslog informational", b"log syslog debugging"))
    try:
        out = lab["tmp"] / "drift.xml"
        p = _netauto("drift", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"], "--format", "junit", "-o", str(out))
        assert p.returncode == 1, p.stdout + p.stderr
        failed = {(c.get("classname"), c.get("name")) for c in ET.parse(out).findall(".//testcase")
                  if c.find("failure") is not None}
        assert failed == {("spine2", "drift /etc/frr/frr.conf")}
        assert "not the running state" in p.stderr  # drift says what it does not compare
        assert out.stat().st_mode & 0o777 == 0o600  # drift -o: device content
    finally:
        path.write_bytes(original)
    modes = {p.stat().st_mode & 0o777 for p in a.rglob("*")}
    assert modes == {0o600, 0o700} and a.stat().st_mode & 0o777 == 0o700  # backup: 0600 files in 0700 folders


def test_secrets_never_reach_backup_or_drift(lab):
    """A hand-added BGP password and key chain on spine2: backup and drift -o show the keyword, never the secret,
    and keep its neighbours (`key chain KC1`)."""
    path = Path(lab["state"]["nodes"]["spine2"]["dir"]) / "etc" / "frr" / "frr.conf"
    original = path.read_bytes()
    path.write_bytes(original + b"key chain KC1\n key 1\n  key-string Hunter2Key\nexit\n"
                     b"router bgp 65100\n neighbor 10.9.9.9 password Hunter2Pw\n")
    try:
        dest, report = lab["tmp"] / "backup-secret", lab["tmp"] / "drift-secret.json"
        p = _netauto("backup", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"], "-o", str(dest), "--limit", "spine2")
        assert p.returncode == 0, p.stdout + p.stderr
        p = _netauto("drift", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"], "--limit", "spine2", "--format", "json",
                     "-o", str(report))
        assert p.returncode == 1, p.stdout + p.stderr
        saved = (dest / "spine2" / "files" / "etc" / "frr" / "frr.conf").read_text()
        assert "key chain KC1" in saved and "key-string <redacted>" in saved and "password <redacted>" in saved
        texts = [f.read_text() for f in dest.rglob("*") if f.is_file()] + [report.read_text(), p.stdout + p.stderr]
        assert not any("Hunter2" in t for t in texts) and "key-string <redacted>" in report.read_text()
    finally:
        path.write_bytes(original)
