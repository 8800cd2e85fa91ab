"""`netauto deploy` against a real lab over SSH (root; frr, frr-pythontools, ifupdown2, openssh-server).

One lab (unique name, torn down in a finalizer even on failure) is shared by the module. Every test
snapshots every lab switch (SHA-256 of each file under its private /etc, plus `show running-config`)
before and after, so "modifies nothing" and "byte-identical after rollback" are checked, not assumed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY
from netauto.lab.state import labs_root, load_state

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[1]

QOS_DIR = "/etc/cumulus/datapath/qos/"  # the Linux-files QoS the lab installs and nothing applies (no switchd)


def start_lab(request, tmp_path_factory, inventory: Path, prefix: str, what: str, servers: int = 1) -> dict:
    """A deploy-test lab (--ssh, `servers` per SU) that passed `lab check`, torn down by a finalizer even when
    `up` fails half-way. Without root or a tool: skipped, but failed in CI (a broken runner, not a reason)."""
    problems = ["root"] if os.geteuid() != 0 else None
    if problems is None:
        from netauto.lab.preflight import preflight

        problems = preflight(ssh=True).problems
    if problems:
        msg = f"{what} need: " + "; ".join(problems)
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    from netauto.lab import netns, runtime

    name = f"{prefix}{os.getpid() % 1_000_000}"

    def teardown() -> None:
        runtime.down(name)
        assert not netns.list_netns(f"na-{name}-"), "namespaces left behind"
        assert not (labs_root() / name).exists()

    request.addfinalizer(teardown)  # before `up`: a half-built lab is removed too
    up = lab_up(name, "-i", str(inventory), "--ssh", "--servers", str(servers))
    assert up.returncode == 0, up.stdout + up.stderr
    base = _netauto("lab", "check", "--name", name, "--no-ping")
    assert base.returncode == 0, base.stdout
    return {"name": name, "state": load_state(name), "tmp": tmp_path_factory.mktemp(prefix)}


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    return start_lab(request, tmp_path_factory, DEFAULT_INVENTORY, "dep", "deploy lab tests")


def _netauto(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "netauto", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env=env)


def _killed_note(proc: subprocess.CompletedProcess) -> str:
    """What the machine says about a process that died of a signal netauto never sends itself: the signal, the
    memory left, the kernel's last OOM lines."""
    sig = signal.Signals(-proc.returncode).name if -proc.returncode in signal.valid_signals() else str(proc.returncode)
    mem = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/meminfo").read_text().splitlines()
                if ln.startswith("MemAvailable:")), "?")
    kern = subprocess.run(["dmesg"], capture_output=True, text=True, check=False).stdout.splitlines()
    oom = [ln for ln in kern if "oom" in ln.lower() or "killed process" in ln.lower()][-5:]
    return f"killed by {sig} (MemAvailable {mem}; kernel: {' | '.join(oom) or 'no OOM line'})"


def lab_up(name: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`netauto lab up --name NAME ARGS`. A run killed by a signal from outside (netauto never sends one to
    itself: a fault of the machine, not an answer of netauto's) is named, torn down and run once more; a second
    such death, like any exit code, is the caller's to assert."""
    up = _netauto("lab", "up", "--name", name, *args, timeout=timeout)
    if up.returncode >= 0:
        return up
    from netauto.lab import runtime

    note = _killed_note(up)
    runtime.down(name)
    print(f"\nlab {name}: `lab up` {note}; torn down and started again")
    again = _netauto("lab", "up", "--name", name, *args, timeout=timeout)
    if again.returncode < 0:
        again.stderr += f"\nfirst try {note}; second {_killed_note(again)}"
    return again


def _deploy(lab: dict, *args: str, inventory: Path = DEFAULT_INVENTORY) -> tuple[subprocess.CompletedProcess, dict]:
    out = lab["tmp"] / f"result-{time.monotonic_ns()}.json"
    proc = _netauto("deploy", "-i", str(inventory), "--lab", lab["name"], "--results", str(out), *args)
    doc = json.loads(out.read_text()) if out.exists() else {}
    return proc, doc


def _switches(lab: dict) -> list[str]:
    return [d for d, n in lab["state"]["nodes"].items() if n["kind"] == "switch"]


def _node_dir(lab: dict, device: str) -> Path:
    return Path(lab["state"]["nodes"][device]["dir"])


def _snapshot_one(lab: dict, device: str) -> dict[str, str]:
    from netauto.lab.runtime import vtysh

    etc = _node_dir(lab, device) / "etc"  # the node's private /etc (overlay upper + frr, network)
    snap = {str(p.relative_to(etc)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(etc.rglob("*")) if p.is_file()}
    running = vtysh(lab["state"], device, "show running-config")
    assert running.returncode == 0, running.stderr
    snap["<running-config>"] = running.stdout
    return snap


def _snapshot(lab: dict) -> dict[str, dict[str, str]]:
    devices = _switches(lab)
    with ThreadPoolExecutor(max_workers=6) as ex:
        return dict(zip(devices, ex.map(lambda d: _snapshot_one(lab, d), devices)))


def _changed(before: dict, after: dict) -> dict[str, list[str]]:
    return {d: sorted(k for k in set(before[d]) | set(after[d]) if before[d].get(k) != after[d].get(k))
            for d in before if before[d] != after[d]}


def _by_device(doc: dict) -> dict[str, dict]:
    return {r["device"]: r for r in doc["devices"]}


def _changed_inventory(lab: dict) -> Path:
    """The shipped inventory with a new ECN threshold and new BGP timers (FRR-visible)."""
    inv = lab["tmp"] / "inventory-changed"
    if not inv.exists():
        shutil.copytree(DEFAULT_INVENTORY, inv)
        features = inv / "features.yaml"
        features.write_text(features.read_text().replace("min_threshold: 150000", "min_threshold: 180000"))
        fabric = inv / "fabric.yaml"
        fabric.write_text(fabric.read_text().replace("keepalive: 3, holdtime: 9", "keepalive: 2, holdtime: 6"))
    return inv


def _fault_templates(lab: dict, label: str, block: str) -> Path:
    """A --templates override: the shipped frr.conf template plus `block` (a fault the device must refuse)."""
    from netauto.render.fingerprint import builtin_templates

    tdir = lab["tmp"] / f"templates-{label}"
    (tdir / "cumulus").mkdir(parents=True, exist_ok=True)
    original = (builtin_templates() / "cumulus" / "frr.conf.j2").read_text()
    (tdir / "cumulus" / "frr.conf.j2").write_text(original.rstrip("\n") + "\n" + block)
    return tdir


# ------------------------------------------------------------------------------------------------ (a)


def test_dry_run_shows_exactly_the_hand_edits_and_changes_nothing(lab):
    edits = {  # device -> (on-device path, old text, new text)
        "su1-r2-leaf": ("etc/frr/frr.conf", "log syslog informational", "log syslog debugging"),
        "spine2": ("etc/network/interfaces", "    mtu 9216\n", "    mtu 9000\n"),
        "su1-r3-leaf": ("etc/cumulus/datapath/qos/qos_features.conf", "min_threshold_bytes = 150000",
                        "min_threshold_bytes = 150001"),
    }
    originals = {}
    for dev, (rel, old, new) in edits.items():
        f = _node_dir(lab, dev) / rel
        originals[dev] = f.read_bytes()
        text = originals[dev].decode()
        assert old in text, f"{dev}:{rel} has no {old!r}"
        f.write_text(text.replace(old, new, 1))  # by hand, as an operator would with an editor
    try:
        before = _snapshot(lab)
        proc, doc = _deploy(lab, "--dry-run", "--limit", "switches", "--workers", "12")
        after = _snapshot(lab)
        assert _changed(before, after) == {}, "dry-run modified a device"
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = _by_device(doc)
        changed = {d for d, r in results.items() if r["result"] == "changed"}
        assert changed == set(edits)
        assert {r["result"] for d, r in results.items() if d not in edits} == {"unchanged"}
        for dev, (rel, old, new) in edits.items():
            diff = results[dev]["diff"]
            assert list(diff) == ["/" + rel]
            minus = [ln for ln in diff["/" + rel].splitlines() if ln.startswith("-") and not ln.startswith("---")]
            plus = [ln for ln in diff["/" + rel].splitlines() if ln.startswith("+") and not ln.startswith("+++")]
            assert len(minus) == len(plus) == 1  # running (hand-edited) side, intent side
            assert new.strip() in minus[0] and old.strip() in plus[0]
            assert f"running:{dev}:/{rel}" in proc.stdout  # the diffs are printed (naming the device), not only in the JSON
    finally:
        for dev, (rel, _, _) in edits.items():
            (_node_dir(lab, dev) / rel).write_bytes(originals[dev])


# ------------------------------------------------------------------------------------------------ (b)


def test_inventory_change_deploys_with_visible_gshut_drain(lab):
    from netauto.lab.runtime import vtysh
    from netauto.pipeline import render

    inv = _changed_inventory(lab)
    before = _snapshot(lab)
    t0 = time.monotonic()
    proc, doc = _deploy(lab, "--limit", "su1-r0-leaf,spine1", "--yes", "--session-timeout", "30", inventory=inv)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = _by_device(doc)
    # FRR applied, the ECN file only installed (no switchd in the lab): said so, not "applied"
    assert {d: r["result"] for d, r in results.items()} == {"su1-r0-leaf": "partly-applied",
                                                            "spine1": "partly-applied"}
    # exactly the two devices changed, and each now holds the rendered intent byte for byte
    after = _snapshot(lab)
    assert set(_changed(before, after)) == {"su1-r0-leaf", "spine1"}
    _, artifacts = render(inv)
    for art in artifacts:
        if art.device in ("su1-r0-leaf", "spine1") and art.path in ("etc/frr/frr.conf",
                                                                    "etc/cumulus/datapath/qos/qos_features.conf"):
            assert (_node_dir(lab, art.device) / art.path).read_text() == art.content
    assert "180000" in (_node_dir(lab, "spine1") / "etc/cumulus/datapath/qos/qos_features.conf").read_text()
    assert "timers bgp 2 6" in vtysh(lab["state"], "spine1", "show running-config").stdout
    # the ECN file is installed but, honestly, applied by nothing in the lab
    assert any("installed, not applied" in n and "qos_features.conf" in n for n in results["spine1"]["notes"])
    # gshut drain of spine1, seen by its 8 neighbours: ECMP 8 paths -> 6 (2 links to spine1) -> 8
    drain = results["spine1"]["drain"]
    assert set(drain["before"]) == {f"su1-r{r}-leaf" for r in range(8)}
    assert all(w == 8 for w in drain["before"].values()), drain
    assert all(w == 6 for w in drain["drained"].values()), drain
    assert all(w == 8 for w in drain["restored"].values()), drain
    # a leaf's only paths stay (no alternative) but carry GSHUT local-pref 0 at every spine before it proceeds
    assert set(results["su1-r0-leaf"]["drain"]["drained"]) == {"spine1", "spine2", "spine3", "spine4"}
    check = _netauto("lab", "check", "--name", lab["name"])
    assert check.returncode == 0, check.stdout + check.stderr
    print(f"\ndeploy of 2 devices: {elapsed:.1f} s; spine1 drain: {drain}")


def test_qos_only_change_drains_at_runtime_and_verifies_after_undrain(lab):
    """frr.conf unchanged: the drain is runtime-only (`bgp graceful-shutdown` via vtysh) and must be lifted
    before the running config is verified against the file, else every QoS-only push would roll back."""
    from netauto.lab.runtime import vtysh

    inv = lab["tmp"] / "inventory-ecn-only"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    features = inv / "features.yaml"
    features.write_text(features.read_text().replace("min_threshold: 150000", "min_threshold: 170000"))
    proc, doc = _deploy(lab, "--limit", "su1-r5-leaf", "--yes", "--session-timeout", "30", inventory=inv)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = _by_device(doc)["su1-r5-leaf"]
    assert result["result"] == "installed-not-applied", result  # the lab has no switchd to apply the ECN file
    assert "/etc/frr/frr.conf" not in result["diff"]
    steps = list(result["timings"])
    assert steps.index("drain") < steps.index("undrain") < steps.index("verify"), steps
    assert "170000" in (_node_dir(lab, "su1-r5-leaf") / "etc/cumulus/datapath/qos/qos_features.conf").read_text()
    running = vtysh(lab["state"], "su1-r5-leaf", "show running-config").stdout.splitlines()
    assert " bgp graceful-shutdown" not in running  # undrained (the GSHUT community-list stays, as intended)


def test_linux_files_qos_infra_keeps_the_platforms_keys_and_sets_netautos(lab):
    """A switch's qos_infra.conf holds the platform's whole buffer allocation; netauto owns a few keys of it.
    The device's file here holds platform keys netauto does not render and old values of keys it owns: the
    dry-run shows only the owned keys changing, the push keeps every platform line and sets netauto's keys."""
    from netauto.formats.kv import parse_kv
    from netauto.pipeline import render

    device, rel = "su1-r6-leaf", "etc/mlx/datapath/qos/qos_infra.conf"
    path = _node_dir(lab, device) / rel
    original = path.read_bytes()
    platform = ("# platform defaults (abridged)\nport.management.headroom_buffer.reserved = 0\n"
                "buffer_config.alpha_values = platform\ningress_service_pool.0.percent = 100.0\n"
                "cos_egr_queue.cos_3.uc = 1\n")
    path.write_text(platform)
    try:
        proc, doc = _deploy(lab, "--dry-run", "--limit", device)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        diff = _by_device(doc)[device]["diff"]["/" + rel]
        assert [ln for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")] == \
            ["-ingress_service_pool.0.percent = 100.0", "-cos_egr_queue.cos_3.uc = 1"], diff
        proc, doc = _deploy(lab, "--limit", device, "--yes", "--session-timeout", "30")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert _by_device(doc)[device]["result"] in ("applied", "partly-applied", "installed-not-applied")
        after = path.read_text()
        assert "port.management.headroom_buffer.reserved = 0\n" in after
        assert "buffer_config.alpha_values = platform\n" in after
        _, artifacts = render(DEFAULT_INVENTORY)
        ours = parse_kv(next(a.content for a in artifacts if a.device == device and a.path == rel))
        assert {k: v for k, v in parse_kv(after).items() if k in ours} == ours
        proc, doc = _deploy(lab, "--dry-run", "--limit", device)
        assert _by_device(doc)[device]["result"] == "unchanged", doc
    finally:
        path.write_bytes(original)


def test_gpu_server_drift_is_shown_and_repaired_inside_the_lab_only(lab):
    """Lab servers have a private /etc: a drifted sysctl file shows in the dry-run, the deploy reinstalls it and
    applies it with `sysctl -p` (the value is per network namespace: really changed), and the host's /etc is
    never touched."""
    from netauto.lab.runtime import exec_argv

    def node_exec(st: dict, device: str, cmd: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(exec_argv(st, device, cmd), capture_output=True, text=True, timeout=30)

    rel = "etc/sysctl.d/90-gpu-rails.conf"
    host_before = sorted(p.name for p in Path("/etc/sysctl.d").iterdir())
    drift = f"echo 'net.ipv4.conf.all.arp_ignore = 0' >> /{rel} && sysctl -q -w net.ipv4.conf.all.arp_ignore=0"
    assert node_exec(lab["state"], "gpu01", ["sh", "-c", drift]).returncode == 0
    proc, doc = _deploy(lab, "--dry-run", "--limit", "gpu01")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list(_by_device(doc)["gpu01"]["diff"]) == [f"/{rel}"]
    assert "-net.ipv4.conf.all.arp_ignore = 0" in _by_device(doc)["gpu01"]["diff"][f"/{rel}"]
    proc, doc = _deploy(lab, "--limit", "gpu01", "--yes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = _by_device(doc)["gpu01"]
    assert result["result"] == "applied" and "sysctl" in result["timings"], result
    value = node_exec(lab["state"], "gpu01", ["sysctl", "-n", "net.ipv4.conf.all.arp_ignore"]).stdout.strip()
    assert value == "1"
    assert sorted(p.name for p in Path("/etc/sysctl.d").iterdir()) == host_before


def test_a_hand_chmod_is_drift_and_deploy_restores_the_rendered_mode(lab):
    """Modes are intent: `lab up` installs each file with its rendered mode (script 0755, netplan 0600, FRR 0640);
    a hand chmod of the server's netplan file to 0644 shows in the dry-run and in drift, and the push restores
    0600 without changing a byte."""
    from netauto.lab.runtime import exec_argv

    def node_exec(device: str, cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(exec_argv(lab["state"], device, ["sh", "-c", cmd]), capture_output=True, text=True,
                              timeout=30)

    modes = node_exec("gpu01", "stat -c '%a %n' /etc/netplan/60-rails.yaml /usr/local/sbin/netauto-roce-qos.sh "
                               "/etc/sysctl.d/90-gpu-rails.conf").stdout.split()
    assert modes == ["600", "/etc/netplan/60-rails.yaml", "755", "/usr/local/sbin/netauto-roce-qos.sh",
                     "644", "/etc/sysctl.d/90-gpu-rails.conf"]
    assert node_exec("spine1", "stat -c '%a %U:%G' /etc/frr/frr.conf").stdout.strip() == "640 frr:frr"
    netplan = "/etc/netplan/60-rails.yaml"
    content = node_exec("gpu01", f"sha256sum {netplan}").stdout
    assert node_exec("gpu01", f"chmod 0644 {netplan}").returncode == 0
    proc, doc = _deploy(lab, "--dry-run", "--limit", "gpu01")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _by_device(doc)["gpu01"]["diff"] == {netplan: "mode 0644 -> 0600 (running -> intent)\n"}
    report = lab["tmp"] / "drift-mode.json"
    proc = _netauto("drift", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"], "--limit", "gpu01", "--format", "json",
                    "-o", str(report))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = [f for f in json.loads(report.read_text())["findings"] if f["status"] == "fail"]
    assert [(f["item"], f["actual"]) for f in failed] == [(netplan, "mode 0644 -> 0600")], failed
    proc, doc = _deploy(lab, "--limit", "gpu01", "--yes")
    # the mode is restored; the lab server applies no netplan: the result says installed, not applied
    assert proc.returncode == 0 and _by_device(doc)["gpu01"]["result"] == "installed-not-applied", proc.stdout
    assert node_exec("gpu01", f"stat -c %a {netplan}").stdout.strip() == "600"
    assert node_exec("gpu01", f"sha256sum {netplan}").stdout == content
    proc, doc = _deploy(lab, "--dry-run", "--limit", "gpu01")
    assert _by_device(doc)["gpu01"]["result"] == "unchanged", doc


# ------------------------------------------------------------------------------------------------ (c)


def _assert_stopped_and_restored(proc, doc, before, lab, failed: str, untouched: str) -> dict:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = _by_device(doc)
    assert doc["stopped_at"] == failed and untouched in doc["untouched"]
    assert untouched not in results  # never connected to, let alone changed
    assert _changed(before, _snapshot(lab)) == {}, "a device is not byte-identical to before"
    assert f"rollout stopped at {failed}" in proc.stdout
    return results[failed]


def test_refused_line_is_caught_and_rolled_back(lab):
    tdir = _fault_templates(lab, "refused", "route-map NETAUTO-FAULT permit 10\n set local-preference 99999999999\nexit\n!\n")
    before = _snapshot(lab)
    # the validation gate refuses first (bgpd -C rejects the value)...
    gated, _ = _deploy(lab, "--templates", str(tdir), "--limit", "su1-r1-leaf", "--yes")
    assert gated.returncode != 0 and "validation found" in (gated.stdout + gated.stderr)
    assert _changed(before, _snapshot(lab)) == {}
    # ...and with the explicit escape hatch the device itself refuses it (vtysh --dryrun accepts it: only
    # bgpd does not, and frr-reload exits 0 anyway: the "%" line in its output is what catches it)
    proc, doc = _deploy(lab, "--templates", str(tdir), "--limit", "su1-r1-leaf,su1-r2-leaf", "--batch", "1",
                        "--yes", "--skip-validate")
    res = _assert_stopped_and_restored(proc, doc, before, lab, "su1-r1-leaf", "su1-r2-leaf")
    assert res["result"] == "rolled-back"
    assert "refused" in res["error"] and "% [BGP]" in res["error"]
    assert "rollback" in res["timings"]


def test_session_down_after_apply_fails_post_check_and_rolls_back(lab):
    tdir = _fault_templates(lab, "down", "router bgp {{ sw.bgp.asn }}\n neighbor swp33s0 shutdown\nexit\n!\n")
    before = _snapshot(lab)
    proc, doc = _deploy(lab, "--templates", str(tdir), "--limit", "su1-r5-leaf,su1-r6-leaf", "--batch", "1",
                        "--yes", "--skip-validate", "--session-timeout", "6")
    res = _assert_stopped_and_restored(proc, doc, before, lab, "su1-r5-leaf", "su1-r6-leaf")
    assert res["result"] == "rolled-back"
    assert "post-check: BGP up before the push, down after" in res["error"] and "swp33s0 (spine1 " in res["error"]
    check = _netauto("lab", "check", "--name", lab["name"], "--no-ping", "--timeout", "60")
    assert check.returncode == 0, check.stdout  # the session came back with the old config


def _established(lab: dict, device: str) -> set[str]:
    from netauto.lab.runtime import vtysh

    peers = json.loads(vtysh(lab["state"], device, "show bgp summary json").stdout)["ipv4Unicast"]["peers"]
    return {n for n, p in peers.items() if p["state"] == "Established"}


def test_session_whose_peer_is_not_configured_yet_waits_and_the_push_succeeds(lab):
    """Growing a fabric pushes one side of a new link first. A session that was not up before the push and whose
    peer sends nothing back (no neighbour configured there) does not roll the push back: the push succeeds and
    names the session and the peer to deploy next. The sessions that were up must still all come back."""
    from netauto.lab.runtime import exec_argv, vtysh

    leaf, spine = "su1-r7-leaf", "spine4"
    # the spine forgets its neighbours for this leaf, as a spine not yet configured for a new leaf would be
    vtysh(lab["state"], spine, "configure terminal", "router bgp 65100", "no neighbor swp8s0", "no neighbor swp8s1")
    deadline = time.monotonic() + 30
    while {"swp36s0", "swp36s1"} & _established(lab, leaf) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not {"swp36s0", "swp36s1"} & _established(lab, leaf)
    tdir = _fault_templates(lab, "growth", "ip prefix-list NETAUTO-GROWTH seq 5 permit 10.255.255.0/24\n!\n")
    try:
        proc, doc = _deploy(lab, "--templates", str(tdir), "--limit", leaf, "--yes", "--skip-validate",
                            "--session-timeout", "20")
        res = _by_device(doc)[leaf]
        assert proc.returncode == 0 and res["result"] == "applied", proc.stdout + proc.stderr
        note = next(n for n in res["notes"] if n.startswith("BGP: 2 session(s) new to this device"))
        assert "swp36s0 (spine4 swp8s0)" in note and "swp36s1 (spine4 swp8s1)" in note and "deploy spine4" in note
        assert "NETAUTO-GROWTH" in vtysh(lab["state"], leaf, "show running-config").stdout
    finally:  # the spine gets its configuration back; the leaf its rendered one
        subprocess.run(exec_argv(lab["state"], spine, ["/usr/lib/frr/frr-reload.py", "--reload", "/etc/frr/frr.conf"]),
                       capture_output=True, timeout=60, check=False)
        proc, _ = _deploy(lab, "--limit", leaf, "--yes", "--skip-validate", "--session-timeout", "30")
        assert proc.returncode == 0, proc.stdout + proc.stderr
    check = _netauto("lab", "check", "--name", lab["name"], "--no-ping", "--timeout", "60")
    assert check.returncode == 0, check.stdout


def _sshd_pids(lab: dict, device: str) -> list[int]:
    from netauto.lab import netns

    ns = lab["state"]["nodes"][device]["ns"]
    pids = netns.pids_in_netns([ns])[ns]
    return [p for p in pids if Path(f"/proc/{p}/comm").exists() and Path(f"/proc/{p}/comm").read_text().strip() == "sshd"]


def _restart_sshd(lab: dict, device: str) -> None:
    d = _node_dir(lab, device)
    anchor = lab["state"]["nodes"][device]["anchor"]
    subprocess.run(["nsenter", "-t", str(anchor), "-m", "-u", "-n", "--", "/usr/sbin/sshd", "-f",
                    str(d / "ssh/sshd_config"), "-E", str(d / "sshd.log")], check=True, timeout=20)


# the shortest watchdog the CLI accepts with these waits: 2 x 8 + 15 + 30 = 61 s
FAST = ("--drain-timeout", "8", "--session-timeout", "15", "--confirm-timeout", "61")
# a run the test kills (or cuts off) mid-push, whose watchdog deadline the test then waits for: it never reaches
# the session wait, and its drain takes ~0.8 s in the lab (drained_after_s), so the shortest watchdog the CLI
# accepts for these waits: 2 x 5 + 1 + 30 = 41 s. Same checks as FAST, 20 s less waiting per watchdog test.
DEAD_RUN = ("--drain-timeout", "5", "--session-timeout", "1", "--confirm-timeout", "41")


def _state_dir(lab: dict, device: str) -> Path:
    return _node_dir(lab, device) / "vartmp" / "netauto"  # the node's /var/tmp/netauto


def _history(lab: dict, device: str) -> str:
    f = _state_dir(lab, device) / "history.log"
    return f.read_text() if f.exists() else ""


def _stages(lab: dict, device: str) -> list[Path]:
    return sorted(_state_dir(lab, device).glob("run.*"))


def _wait_for(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.3)


def _popen_deploy(lab: dict, inv: Path, out: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.Popen([sys.executable, "-m", "netauto", "deploy", "-i", str(inv), "--lab", lab["name"],
                             "--results", str(out), "--yes", "--skip-validate", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def _until_installed(proc: subprocess.Popen, frr: Path, original: bytes) -> None:
    """Mid-push: the new (drained) frr.conf is on the device."""
    deadline = time.monotonic() + 120
    while frr.read_bytes() == original:
        assert proc.poll() is None and time.monotonic() < deadline, "deploy ended before the push"
        time.sleep(0.02)


def _node_run(lab: dict, device: str, script: str) -> subprocess.CompletedProcess:
    from netauto.lab.runtime import exec_argv

    return subprocess.run(exec_argv(lab["state"], device, ["sh", "-c", script]), capture_output=True, text=True,
                          timeout=60)


def _other_inventory(lab: dict) -> Path:
    """A second intent, different from _changed_inventory's: other timers and ECN threshold."""
    inv = lab["tmp"] / "inventory-other"
    if not inv.exists():
        shutil.copytree(DEFAULT_INVENTORY, inv)
        features = inv / "features.yaml"
        features.write_text(features.read_text().replace("min_threshold: 150000", "min_threshold: 190000"))
        fabric = inv / "fabric.yaml"
        fabric.write_text(fabric.read_text().replace("keepalive: 3, holdtime: 9", "keepalive: 4, holdtime: 12"))
    return inv


def _holds_intent(lab: dict, inv: Path, device: str) -> None:
    """The device's files are `inv`'s rendered intent, its running config has them, and it is undrained."""
    from netauto.lab.runtime import vtysh
    from netauto.pipeline import render

    _, artifacts = render(inv)
    for art in artifacts:
        if art.device == device and art.path in ("etc/frr/frr.conf", "etc/cumulus/datapath/qos/qos_features.conf"):
            assert (_node_dir(lab, device) / art.path).read_text() == art.content, art.path
    running = vtysh(lab["state"], device, "show running-config").stdout.splitlines()
    assert " bgp graceful-shutdown" not in running, "left drained"


def test_sshd_killed_mid_push_is_restored_by_the_on_device_watchdog_even_after_a_reboot(lab):
    """SSH lost mid-push: the push cannot roll back, the device does. The watchdog's process is killed as a
    reboot would (state on disk), the boot-time hook's command restarts it, and at the deadline it restores
    the files (they still hash to what the push installed), proves it and releases the lock."""
    inv = _changed_inventory(lab)
    device, later = "su1-r3-leaf", "su1-r4-leaf"
    frr = _node_dir(lab, device) / "etc/frr/frr.conf"
    original = frr.read_bytes()
    before = _snapshot(lab)
    out = lab["tmp"] / "result-sshd.json"
    deploy = _popen_deploy(lab, inv, out, "--limit", f"{device},{later}", "--batch", "1", *DEAD_RUN)
    try:
        _until_installed(deploy, frr, original)
        for pid in _sshd_pids(lab, device):
            os.kill(pid, signal.SIGKILL)
        stdout, _ = deploy.communicate(timeout=180)
    finally:
        if deploy.poll() is None:
            deploy.kill()
    try:
        assert deploy.returncode == 1, stdout
        doc = json.loads(out.read_text())
        res = _by_device(doc)[device]
        assert res["result"] == "failed" and "SSH lost: the on-device watchdog" in res["error"], res
        assert doc["stopped_at"] == device and later in doc["untouched"] and later not in _by_device(doc)
        # a reboot: the watchdog process dies; the state on disk stays. The boot hook starts watchdog.sh again.
        (stage,) = _stages(lab, device)
        pid = int((stage / "watchdog.pid").read_text())
        os.killpg(pid, signal.SIGKILL)
        assert (lab["state"]["nodes"][device]["dir"])  # the node itself keeps running
        deadline = int((stage / "deadline").read_text())
        from netauto.deploy.boot_unit import BOOT_UNIT_TEXT

        exec_start = next(ln for ln in BOOT_UNIT_TEXT.splitlines() if ln.startswith("ExecStart="))
        boot = exec_start.removeprefix("ExecStart=/bin/sh -c ").strip("'")
        _node_run(lab, device, f"setsid sh -c {shlex.quote(boot)} </dev/null >/dev/null 2>&1 &")
        _wait_for(lambda: "watchdog restored" in _history(lab, device), deadline - time.time() + 60,
                  "the resumed watchdog never restored")
        assert time.time() >= deadline - 1, "restored before the deadline"
        assert _changed(before, _snapshot(lab)) == {}, "not byte-identical after the watchdog rollback"
        assert _stages(lab, device) == [] and not (_state_dir(lab, device) / "lock").exists()
    finally:
        _restart_sshd(lab, device)
    proc, doc = _deploy(lab, "--dry-run", "--limit", device)
    assert proc.returncode == 0 and _by_device(doc)[device]["result"] == "unchanged", proc.stdout


def test_kill_then_rerun_is_refused_until_cleared_and_nothing_is_restored_behind_the_operator(lab):
    """The deploy process dies mid-push (SIGKILL: no handler runs). A re-run is refused, naming the holder;
    `deploy status` shows the watchdog; `deploy clear` rolls the dead run back (verified) and frees the device;
    the re-run then applies, and when the dead run's deadline passes nothing is restored."""
    device = "su1-r4-leaf"
    frr = _node_dir(lab, device) / "etc/frr/frr.conf"
    original = frr.read_bytes()
    before = _snapshot(lab)
    first = _popen_deploy(lab, _changed_inventory(lab), lab["tmp"] / "result-killed.json", "--limit", device,
                          *DEAD_RUN)
    try:
        _until_installed(first, frr, original)
    finally:
        first.kill()  # SIGKILL
        first.wait(timeout=30)
    (stage,) = _stages(lab, device)
    deadline = int((stage / "deadline").read_text())
    lock = (_state_dir(lab, device) / "lock" / "info").read_text()
    assert f"pid={first.pid}" in lock

    second = _other_inventory(lab)
    proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", *FAST, inventory=second)
    assert proc.returncode == 1, proc.stdout
    res = _by_device(doc)[device]
    assert res["result"] == "locked", res
    assert f"pid {first.pid}" in res["error"] and "watchdog" in res["error"] and "deploy clear" in res["error"]
    assert frr.read_bytes() != original and _stages(lab, device) == [stage], "the refused run touched the device"

    status = _netauto("deploy", "status", "--lab", lab["name"], "--limit", device)
    assert status.returncode == 1 and f"pid {first.pid}" in status.stdout and "watchdog" in status.stdout, status.stdout
    cleared = _netauto("deploy", "clear", "--lab", lab["name"], "--limit", device)
    assert cleared.returncode == 0, cleared.stdout + cleared.stderr
    assert "rolled back" in cleared.stdout
    assert _changed(before, _snapshot(lab)) == {}, "clear did not restore the device byte-identical"
    assert _stages(lab, device) == [] and not (_state_dir(lab, device) / "lock").exists()

    proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", *FAST, inventory=second)
    assert proc.returncode == 0, proc.stdout
    # the new ECN threshold's QoS file is installed, applied by nothing in the lab (no switchd): said, not hidden
    assert _by_device(doc)[device]["result"] == "partly-applied"
    assert _by_device(doc)[device]["not_applied"] and all(
        p.startswith(QOS_DIR) for p in _by_device(doc)[device]["not_applied"])
    time.sleep(max(0.0, deadline - time.time()) + 5)  # past the dead run's watchdog deadline
    _holds_intent(lab, second, device)
    assert "watchdog restored" not in _history(lab, device)
    assert _netauto("deploy", "status", "--lab", lab["name"], "--limit", device).returncode == 0


def test_two_deploys_at_once_one_is_refused_and_the_rerun_lands_undrained(lab):
    """Two operators push different intents to one switch at the same moment: the lock lets exactly one in;
    the other changes nothing and says who holds the device. Re-run after, the second intent lands, undrained,
    with no stage dir, lock or watchdog left."""
    device = "su1-r2-leaf"
    intents = {"a": _changed_inventory(lab), "b": _other_inventory(lab)}
    outs = {k: lab["tmp"] / f"result-race-{k}.json" for k in intents}
    procs = {k: _popen_deploy(lab, inv, outs[k], "--limit", device, *FAST) for k, inv in intents.items()}
    for p in procs.values():
        p.communicate(timeout=300)
    results = {k: _by_device(json.loads(outs[k].read_text()))[device] for k in intents}
    # the winner's ECN threshold lands in a QoS file the lab installs and nothing applies (no switchd)
    assert sorted(r["result"] for r in results.values()) == ["locked", "partly-applied"], results
    loser = next(k for k, r in results.items() if r["result"] == "locked")
    winner = "a" if loser == "b" else "b"
    assert f"pid {procs[winner].pid}" in results[loser]["error"]
    assert procs[loser].returncode == 1 and procs[winner].returncode == 0
    _holds_intent(lab, intents[winner], device)  # the refused run changed nothing, drained nothing

    proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", *FAST, inventory=intents[loser])
    assert proc.returncode == 0 and _by_device(doc)[device]["result"] == "partly-applied", proc.stdout
    _holds_intent(lab, intents[loser], device)
    assert _stages(lab, device) == [] and not (_state_dir(lab, device) / "lock").exists()


def test_ctrl_c_rolls_back_the_device_in_flight_writes_results_and_starts_nothing_new(lab):
    device, later = "su1-r6-leaf", "su1-r7-leaf"  # --batch 1: one leaf per wave, in name order
    frr = _node_dir(lab, device) / "etc/frr/frr.conf"
    original = frr.read_bytes()
    before = _snapshot(lab)
    out = lab["tmp"] / "result-sigint.json"
    deploy = _popen_deploy(lab, _changed_inventory(lab), out, "--limit", f"{device},{later}", "--batch", "1", *FAST)
    try:
        _until_installed(deploy, frr, original)
        deploy.send_signal(signal.SIGINT)
        stdout, _ = deploy.communicate(timeout=120)
    finally:
        if deploy.poll() is None:
            deploy.kill()
    assert deploy.returncode == 130, stdout
    assert f"{device}: DRAINED" in stdout or f"{device}: not drained" in stdout  # what was in flight, by name
    doc = json.loads(out.read_text())
    assert doc["interrupted"] is True and later in doc["untouched"] and later not in _by_device(doc)
    res = _by_device(doc)[device]
    assert res["result"] == "rolled-back" and "interrupted" in res["error"], res
    assert _changed(before, _snapshot(lab)) == {}, "not byte-identical after the interrupted push"
    assert _stages(lab, device) == [] and not (_state_dir(lab, device) / "lock").exists()


def test_second_ctrl_c_exits_at_once_names_the_device_and_leaves_it_to_its_watchdog(lab):
    """Ctrl-C twice: exit 130 at once, but with a results file that names the device in flight, its drain and
    its watchdog deadline; the device keeps its lock until `deploy clear` (or the watchdog) restores it."""
    device = "su1-r7-leaf"
    frr = _node_dir(lab, device) / "etc/frr/frr.conf"
    original = frr.read_bytes()
    before = _snapshot(lab)
    out = lab["tmp"] / "result-sigint2.json"
    deploy = _popen_deploy(lab, _changed_inventory(lab), out, "--limit", device, *FAST)
    try:
        _until_installed(deploy, frr, original)
        deploy.send_signal(signal.SIGINT)
        time.sleep(0.2)
        deploy.send_signal(signal.SIGINT)
        stdout, _ = deploy.communicate(timeout=30)
    finally:
        if deploy.poll() is None:
            deploy.kill()
    assert deploy.returncode == 130, stdout
    assert f"{device}: DRAINED" in stdout and "its watchdog restores the previous files at" in stdout, stdout
    doc = json.loads(out.read_text())
    res = _by_device(doc)[device]
    assert doc["hard_exit"] is True and res["result"] == "interrupted", res
    assert "watchdog restores" in res["device_state"]
    assert (_state_dir(lab, device) / "lock").exists()
    cleared = _netauto("deploy", "clear", "--lab", lab["name"], "--limit", device)
    assert cleared.returncode == 0, cleared.stdout + cleared.stderr
    assert _changed(before, _snapshot(lab)) == {}, "not byte-identical after clear"


def test_secrets_on_the_device_never_reach_output_and_results_are_private(lab):
    device = "su1-r5-leaf"
    frr = _node_dir(lab, device) / "etc/frr/frr.conf"
    original = frr.read_bytes()
    secret = "Xy-s3cret-4711"
    text = original.decode()
    marker = "router bgp "
    i = text.index(marker)
    j = text.index("\n", i) + 1
    frr.write_text(text[:j] + f" neighbor swp33 password {secret}\n" + text[j:])  # hand-added on the device
    try:
        out = lab["tmp"] / "private" / "dry.json"
        proc = _netauto("deploy", "-i", str(DEFAULT_INVENTORY), "--lab", lab["name"], "--results", str(out),
                        "--dry-run", "--limit", device)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert secret not in proc.stdout + proc.stderr + out.read_text()
        assert "-neighbor swp33 password <redacted>" in proc.stdout.replace("- neighbor", "-neighbor")
        assert (out.stat().st_mode & 0o777, out.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    finally:
        frr.write_bytes(original)


def test_host_key_modes(lab, tmp_path):
    """strict refuses a changed key; accept-new trusts a new host (and records it) but refuses a changed key;
    off connects, says so loudly, and records that the key differs from known_hosts."""
    import paramiko

    from netauto.deploy.connection import open_session
    from netauto.deploy.lab_access import lab_access
    from netauto.errors import NetautoError

    access, creds = lab_access(lab["name"])
    device = "spine3"
    host = access.addresses[device]
    wrong = tmp_path / "known_wrong"
    wrong.write_text(f"{host} ssh-ed25519 {paramiko.Ed25519Key.generate().get_base64()}\n"
                     if hasattr(paramiko.Ed25519Key, "generate") else
                     f"{host} ssh-rsa {paramiko.RSAKey.generate(1024).get_base64()}\n")
    fresh = tmp_path / "known_fresh"
    opts = {"key_file": str(creds.key_file), "netns": access.netns}

    with pytest.raises(NetautoError, match="BadHostKey|not found in known_hosts|Server"):
        open_session(host, 22, "root", known_hosts=str(wrong), host_keys="strict", **opts)
    with pytest.raises(NetautoError, match="BadHostKey"):
        open_session(host, 22, "root", known_hosts=str(wrong), host_keys="accept-new", **opts)
    s = open_session(host, 22, "root", known_hosts=str(fresh), host_keys="accept-new", **opts)
    try:
        assert s.host_key.startswith("new host: trusted on first use") and s.run("true").ok
    finally:
        s.close()
    assert host in fresh.read_text() and fresh.stat().st_mode & 0o777 == 0o600
    s = open_session(host, 22, "root", known_hosts=str(fresh), host_keys="accept-new", **opts)
    s.close()
    assert s.host_key == "verified (known_hosts)"
    s = open_session(host, 22, "root", known_hosts=str(wrong), host_keys="off", **opts)
    s.close()
    assert s.host_key.startswith("CHANGED host key accepted only because of --no-host-key-check")
    # the CLI: a loud warning, and the mode and each device's key status in the results
    out = lab["tmp"] / "result-nohostkey.json"
    proc = _netauto("deploy", "--lab", lab["name"], "--results", str(out), "--dry-run", "--limit", device,
                    "--no-host-key-check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING: --no-host-key-check" in proc.stderr
    doc = json.loads(out.read_text())
    assert doc["host_key_check"] == "off"
    assert _by_device(doc)[device]["host_key"].startswith("NOT CHECKED (--no-host-key-check): matches known_hosts")


def test_stage_dir_and_uploads_are_private_on_the_device(lab):
    from netauto.deploy import devstate
    from netauto.deploy.connection import open_session
    from netauto.deploy.lab_access import lab_access
    from netauto.deploy.targets import session_options

    access, creds = lab_access(lab["name"])
    device = "spine4"
    from netauto.deploy.targets import Target

    t = Target(device, "switch", "spine", "cumulus", access.addresses[device], 22, "root", access.netns, {})
    s = open_session(t.host, 22, "root", **session_options(t, creds))  # type: ignore[arg-type]
    try:
        stage = devstate.acquire(s, devstate.RunInfo.new())
        with pytest.raises(devstate.Locked, match=r"locked by run .* \(pid \d+ on"):
            devstate.acquire(s, devstate.RunInfo.new())  # a second run is refused while the lock is held
        s.upload(stage, {f"{stage}/intent/etc/netplan/x.yaml": b"secret-ish\n", f"{stage}/a.sh": b"true\n"})
        modes = s.run(f"stat -c '%a %n' {devstate.ROOT} {stage} {stage}/intent/etc/netplan/x.yaml {stage}/a.sh; "
                      f"ls -d /tmp/.netauto-upload.* 2>/dev/null | wc -l").stdout.split("\n")
        assert modes[:4] == [f"700 {devstate.ROOT}", f"700 {stage}", f"600 {stage}/intent/etc/netplan/x.yaml",
                             f"600 {stage}/a.sh"], modes
        assert modes[4].strip() == "0"  # the upload dir is gone
        devstate.release(s, stage, "test: released")
        assert not devstate.status(s).busy
    finally:
        s.close()


def test_watchdog_leaves_files_an_operator_changed_and_says_so(lab):
    """Kept last (it leaves its device drained until cleared). The deploy dies mid-push, the operator then
    fixes frr.conf by hand: at the deadline the watchdog must not overwrite that fix with the old file. It
    records why, keeps the lock, `clear` refuses to restore, `clear --keep` releases the device."""
    device = "su1-r1-leaf"
    frr = _node_dir(lab, device) / "etc/frr/frr.conf"
    original = frr.read_bytes()
    first = _popen_deploy(lab, _changed_inventory(lab), lab["tmp"] / "result-guard.json", "--limit", device,
                          *DEAD_RUN)
    try:
        _until_installed(first, frr, original)
    finally:
        first.kill()
        first.wait(timeout=30)
    (stage,) = _stages(lab, device)
    deadline = int((stage / "deadline").read_text())
    time.sleep(1)  # let the killed push's last command end
    fixed = frr.read_text() + "! fixed by hand\n"
    frr.write_text(fixed)
    _wait_for(lambda: "did NOT restore" in _history(lab, device), deadline - time.time() + 60,
              "the watchdog never reported")
    assert frr.read_text() == fixed, "the watchdog overwrote the operator's fix"
    assert (_state_dir(lab, device) / "lock").exists() and _stages(lab, device) == [stage]
    status = _netauto("deploy", "status", "--lab", lab["name"], "--limit", device)
    assert status.returncode == 1 and "did NOT restore" in status.stdout, status.stdout
    refused = _netauto("deploy", "clear", "--lab", lab["name"], "--limit", device)
    assert refused.returncode == 1 and "not restored" in refused.stdout, refused.stdout
    assert frr.read_text() == fixed
    kept = _netauto("deploy", "clear", "--keep", "--lab", lab["name"], "--limit", device)
    assert kept.returncode == 0, kept.stdout
    assert frr.read_text() == fixed and _stages(lab, device) == []
    assert not (_state_dir(lab, device) / "lock").exists()


# ------------------------------------------------------------------------------------------------ NVUE mode
# No NVUE here: tests/nv_standin.py plays `nv` on one lab leaf (calls recorded, NVUE's documented output
# formats). This tests deploy's NVUE mode up to the NVUE boundary; it does not verify NVUE itself.

NV_STATE = "/etc/nvue-standin"
BASELINE = {  # what a real switch's NVUE config holds beyond netauto's subtrees: must survive every push
    "system": {"aaa": {"user": {"cumulus": {"role": "system-admin", "hashed-password": "$6$abc$def"}}},
               "ssh-server": {"vrf": {"mgmt": {}}}, "control-plane": {"acl": {"acl-default-dos": {"inbound": {}}}}},
    "service": {"ntp": {"mgmt": {"server": {"192.0.2.123": {}}}}, "dns": {"mgmt": {"server": {"192.0.2.53": {}}}},
                "syslog": {"mgmt": {"server": {"192.0.2.9": {}}}}},
    "vrf": {"mgmt": {}},
    "acl": {"acl-default-dos": {"type": "ipv4"}},
}


def _nv_seed(inv: Path, device: str) -> dict:
    """NVUE's applied config as a real switch would hold it: the intent's subtrees plus a baseline."""
    import copy

    from netauto.deploy import nvue
    from netauto.pipeline import render

    _, artifacts = render(inv)
    text = next(a.content for a in artifacts if a.device == device and a.path == "etc/nvue.d/startup.yaml")
    tree = copy.deepcopy(BASELINE)
    for path in nvue.OWNED:
        value = nvue._get(nvue.parse(text, "seed").set, path)
        if value is not None:
            nvue._put(tree, path, value)
    return tree


def _nv_write(lab: dict, device: str, name: str, text: str) -> None:
    from netauto.lab.runtime import exec_argv

    res = subprocess.run(exec_argv(lab["state"], device, ["sh", "-c", f"cat > {NV_STATE}/{name}"]), input=text,
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr


def _nv_read(lab: dict, device: str, name: str) -> str:
    res = _node_run(lab, device, f"cat {NV_STATE}/{name} 2>/dev/null || true")
    return res.stdout


def _nv_applied(lab: dict, device: str) -> dict:
    import yaml

    return next(i["set"] for i in yaml.safe_load(_nv_read(lab, device, "applied.yaml")) if "set" in i)


@pytest.fixture
def nv_leaf(lab):
    """su1-r3-leaf with the stand-in `nv` on its PATH (a tmpfs over /usr/local/bin inside the node's own mount
    namespace only) and NVUE state seeded from the shipped inventory, Cumulus 5.15."""
    import yaml

    device = "su1-r3-leaf"
    setup = (f"mkdir -p {NV_STATE} && mount -t tmpfs -o size=1m,mode=755 netauto-nv /usr/local/bin && "
             f"printf '#!/bin/sh\\nexec /usr/bin/python3 {NV_STATE}/nv.py \"$@\"\\n' > /usr/local/bin/nv && "
             f"chmod 755 /usr/local/bin/nv")
    res = _node_run(lab, device, setup)
    assert res.returncode == 0, res.stderr
    _nv_write(lab, device, "nv.py", (REPO / "tests" / "nv_standin.py").read_text())
    header = {"model": "vx", "nvue-api-version": "nvue_v1", "rev-id": 1.0, "version": "Cumulus Linux 5.15.0"}
    _nv_write(lab, device, "applied.yaml", yaml.safe_dump([{"header": header},
                                                           {"set": _nv_seed(DEFAULT_INVENTORY, device)}]))
    yield device
    _node_run(lab, device, f"umount /usr/local/bin; rm -rf {NV_STATE}")


def _nv_calls(lab: dict, device: str) -> list[str]:
    return [ln for ln in _nv_read(lab, device, "calls.log").splitlines() if ln]


def test_nvue_mode_dry_run_diffs_nvue_state_not_the_files_it_generates(lab, nv_leaf):
    device = nv_leaf
    frr = _node_dir(lab, device) / "etc/frr/frr.conf"
    proc, doc = _deploy(lab, "--dry-run", "--limit", device, "--cumulus-mode", "nvue")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = _by_device(doc)[device]
    assert res["result"] == "unchanged" and any("NVUE mode" in n for n in res["notes"]), res
    # a hand change in NVUE (a port's MTU) is the one diff; a hand edit of NVUE's generated frr.conf is not
    # (NVUE would overwrite it at its next apply)
    import yaml

    applied = yaml.safe_load(_nv_read(lab, device, "applied.yaml"))
    port, link = next((name, i["link"]) for name, i in sorted(applied[1]["set"]["interface"].items())
                      if isinstance(i.get("link"), dict) and "mtu" in i["link"])
    mtu, link["mtu"] = link["mtu"], 9000  # by hand, in NVUE
    _nv_write(lab, device, "applied.yaml", yaml.safe_dump(applied))
    original = frr.read_bytes()
    frr.write_bytes(original.replace(b"log syslog informational", b"log syslog debugging"))
    try:
        proc, doc = _deploy(lab, "--dry-run", "--limit", device, "--cumulus-mode", "nvue")
    finally:
        frr.write_bytes(original)
    res = _by_device(doc)[device]
    assert res["result"] == "changed" and list(res["diff"]) == ["nv config (applied)"], res
    lines = [ln for ln in res["diff"]["nv config (applied)"].splitlines() if ln[:1] in "+-" and ln[:3] not in "+++---"]
    assert [ln[0] + ln[1:].strip() for ln in lines] == ["-mtu: 9000", f"+mtu: {mtu}"], (port, lines)
    assert _nv_calls(lab, device) == ["config show -o yaml", "config show -o yaml"]  # read only


def test_nvue_mode_apply_drains_with_nvue_confirms_and_keeps_the_baseline(lab, nv_leaf):
    from netauto.deploy import nvue
    from netauto.lab.runtime import vtysh

    device = nv_leaf
    files_before = {k: v for k, v in _snapshot_one(lab, device).items() if k != "<running-config>"}
    inv = _changed_inventory(lab)
    proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", "--cumulus-mode", "nvue", *FAST,
                        inventory=inv)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = _by_device(doc)[device]
    assert res["result"] == "applied", res
    calls = _nv_calls(lab, device)
    stage = next(c.split()[-1].rsplit("/", 1)[0] for c in calls if c.endswith("/merged.yaml"))
    assert calls == [
        "config show -o yaml",
        f"config replace {stage}/merged.yaml", "config diff -o yaml", "config detach",  # check, nothing applied
        "set router bgp graceful-shutdown enabled", "config apply -y",  # drain the NVUE way (5.15 spelling)
        f"config replace {stage}/drained.yaml", "config apply -y --confirm 61s",  # NVUE's confirm timer
        "config apply --confirm-yes",
        f"config replace {stage}/merged.yaml", "config apply -y",  # undrain
        "config show -o yaml",  # verify
    ], calls
    applied = _nv_applied(lab, device)
    assert nvue.owned_view(applied) == nvue.owned_view(_nv_seed(inv, device))  # the new intent
    for key in ("aaa", "ssh-server", "control-plane"):
        assert applied["system"][key] == BASELINE["system"][key]  # users, SSH, control-plane ACL kept
    assert applied["service"] == BASELINE["service"] and applied["acl"] == BASELINE["acl"]
    assert "mgmt" in applied["vrf"] and "graceful-shutdown" not in applied["router"]["bgp"]
    # the drain was real (the neighbours saw it) and is lifted; NVUE mode wrote no Linux file
    assert set(res["drain"]["drained"]) == {"spine1", "spine2", "spine3", "spine4"}  # every spine saw GSHUT
    assert " bgp graceful-shutdown" not in vtysh(lab["state"], device, "show running-config").stdout.splitlines()
    after = {k: v for k, v in _snapshot_one(lab, device).items() if k != "<running-config>"}
    assert {k for k in set(after) | set(files_before) if after.get(k) != files_before.get(k)} <= {
        "nvue-standin/applied.yaml", "nvue-standin/calls.log", "nvue-standin/pending.yaml",
        "nvue-standin/confirm.yaml"}
    assert _stages(lab, device) == [] and not (_state_dir(lab, device) / "lock").exists()


def test_nvue_mode_failure_after_apply_rolls_nvue_back(lab, nv_leaf):
    from netauto.lab.runtime import vtysh

    device = nv_leaf
    before = _nv_applied(lab, device)
    _nv_write(lab, device, "fail", "--confirm-yes")  # NVUE refuses to keep the applied revision
    proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", "--cumulus-mode", "nvue", *FAST,
                        inventory=_other_inventory(lab))
    assert proc.returncode == 1, proc.stdout
    res = _by_device(doc)[device]
    assert res["result"] == "rolled-back" and "injected failure" in res["error"], res
    calls = _nv_calls(lab, device)
    assert "config apply --confirm-no" in calls and any(c.endswith("/backup.yaml") for c in calls), calls
    assert _nv_applied(lab, device) == before  # exactly as before, baseline included
    assert " bgp graceful-shutdown" not in vtysh(lab["state"], device, "show running-config").stdout.splitlines()
    assert _stages(lab, device) == [] and not (_state_dir(lab, device) / "lock").exists()


# ------------------------------------------------------------------------------------------ linux-files + NVUE
# The stand-in `nv` again (NOT NVUE): a linux-files push onto a switch where NVUE would still own the files.

NV_STARTUP, NV_ENV = "/etc/nvue.d/startup.yaml", "/etc/default/nvued"


def test_linux_files_push_is_refused_while_nvue_owns_the_files_and_disable_nvue_switches_it_off(lab, nv_leaf):
    from netauto.lab.runtime import vtysh

    device = nv_leaf
    etc = _node_dir(lab, device) / "etc"
    startup, env = b"- set:\n    system:\n      hostname: netauto-test\n", b"# nvued\nPASSWORD_NVUE_SYNC=yes\n"
    seeded = _node_run(lab, device, f"mkdir -p /etc/nvue.d /etc/default && printf %s {shlex.quote(startup.decode())} "
                                    f"> {NV_STARTUP} && printf %s {shlex.quote(env.decode())} > {NV_ENV}")
    assert seeded.returncode == 0, seeded.stderr
    try:
        before = _snapshot_one(lab, device)
        inv = _changed_inventory(lab)
        # 1. refused before any file changes: one line naming the device, what was found and the fix
        proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", *FAST, inventory=inv)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        res = _by_device(doc)[device]
        assert res["result"] == "failed" and "\n" not in res["error"], res
        for part in (f"{device}: NVUE still owns the Linux files", "auto-save on (auto-save state enabled)",
                     f"{NV_STARTUP} present", "PASSWORD_NVUE_SYNC in /etc/default/nvued not 'no' (=yes)",
                     "--disable-nvue"):
            assert part in res["error"], (part, res["error"])
        # nothing read for a push (only the fabric's identity, deploy.identity)
        assert list(res["timings"]) == ["connect", "lock", "watch-lock", "fabric", "nvue-preflight"], res["timings"]
        assert _changed({device: before}, {device: _snapshot_one(lab, device)}) == {
            device: ["nvue-standin/calls.log"]}
        assert _nv_calls(lab, device) == ["show system config -o json"]
        # 2. --dry-run says what --disable-nvue would do
        proc, doc = _deploy(lab, "--dry-run", "--limit", device, inventory=inv)
        notes = " ".join(_by_device(doc)[device]["notes"])
        assert "`nv set system config auto-save state disabled` + `nv config apply -y`" in notes, notes
        assert f"move {NV_STARTUP} to /var/tmp/netauto/nvue-off/<run id>{NV_STARTUP}" in notes, notes
        # 3. with --disable-nvue but a push that fails after the switch-off: the rollback restores NVUE too
        tdir = _fault_templates(lab, "down-nv", "router bgp {{ sw.bgp.asn }}\n neighbor swp33s0 shutdown\nexit\n!\n")
        proc, doc = _deploy(lab, "--templates", str(tdir), "--limit", device, "--yes", "--skip-validate",
                            "--disable-nvue", "--drain-timeout", "8", "--session-timeout", "6",
                            "--confirm-timeout", "61")
        res = _by_device(doc)[device]
        assert res["result"] == "rolled-back" and "post-check" in res["error"], res
        assert list(res["timings"])[:7] == ["connect", "lock", "watch-lock", "fabric", "nvue-preflight", "read+diff",
                                            "upload"]
        assert (etc / "nvue.d/startup.yaml").read_bytes() == startup and (etc / "default/nvued").read_bytes() == env
        assert _nv_applied(lab, device)["system"]["config"]["auto-save"] == {"state": "enabled"}
        assert _nv_calls(lab, device)[-2:] == ["set system config auto-save state enabled", "config apply -y"]
        assert _stages(lab, device) == [] and not (_state_dir(lab, device) / "lock").exists()
        # 4. with --disable-nvue: switched off inside the lock before the push, then pushed
        proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", "--disable-nvue", *FAST, inventory=inv)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        res = _by_device(doc)[device]
        # the intent's new ECN threshold is a QoS file the lab installs and nothing applies (no switchd)
        assert res["result"] == "partly-applied" and res["not_applied"], res
        assert all(p.startswith(QOS_DIR) for p in res["not_applied"]), res
        steps = list(res["timings"])
        assert steps.index("arm-rollback") < steps.index("disable-nvue") < steps.index("install"), steps
        run = doc["run"]
        assert not (etc / "nvue.d/startup.yaml").exists()
        moved = _state_dir(lab, device) / "nvue-off" / run / "etc/nvue.d/startup.yaml"
        assert moved.read_bytes() == startup  # moved aside, not deleted
        assert (etc / "default/nvued").read_bytes() == b"# nvued\nPASSWORD_NVUE_SYNC=no\n"
        assert _nv_applied(lab, device)["system"]["config"]["auto-save"] == {"state": "disabled"}
        assert any(f"moved to /var/tmp/netauto/nvue-off/{run}" in n for n in res["notes"]), res["notes"]
        assert "timers bgp 2 6" in vtysh(lab["state"], device, "show running-config").stdout
        # 5. nothing left to switch off: the next run passes the preflight without the flag
        proc, doc = _deploy(lab, "--limit", device, "--yes", "--skip-validate", *FAST, inventory=inv)
        assert proc.returncode == 0 and _by_device(doc)[device]["result"] == "unchanged", proc.stdout
    finally:
        _node_run(lab, device, f"rm -f {NV_STARTUP} {NV_ENV}")
