"""ansible_compat/ playbooks run by real ansible-core over SSH against a `netauto lab up --ssh` lab.

ansible-playbook runs inside the lab's management namespace (na-<name>-mgmt: the only place the devices'
management addresses exist) with the lab's client key and known_hosts, host key checking on. The inventory is
`netauto export ansible` over files `netauto render` wrote to a tmp folder.

GPU servers (gpu_servers.yml, two lab servers): --check --diff reports the change and writes nothing; a real run
lands netplan (0600), the sysctl file (applied with `sysctl -p`: the rail sysctls are per network namespace, so
this is real on a lab server) and the RoCE QoS script, byte for byte; a second run reports changed=0. The lab
has no systemd-networkd and no ConnectX/mlnx tools, so `netauto_apply_netplan=false netauto_apply_roce_qos=false`
(documented in the playbook) and the run says NOT APPLIED for those two.

Every lab node has a private /etc (and servers a private /usr/local) from `lab up`; before anything is written
the test checks it with a probe file that must not reach the host.

Switches (switches.yml, one lab leaf): the leaf's frr.conf drifts (file and running config); the playbook drains
with graceful-shutdown, installs, reloads FRR, waits for every session, undrains; `lab check` passes after it and
a second run changes nothing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import DEFAULT_INVENTORY, ROOT, require_tool
from test_deploy_lab import lab_up
from netauto.lab.state import labs_root, load_state
from netauto.lab.preflight import preflight

pytestmark = pytest.mark.lab

ANSIBLE_DIR = ROOT / "ansible_compat"
SERVERS = ("gpu01", "gpu02")  # `lab up --servers 2`: the first two servers of SU 1
LEAF = "su1-r0-leaf"
SERVER_FILES = {  # on-device path -> mode
    "etc/netplan/60-rails.yaml": 0o600,
    "etc/sysctl.d/90-gpu-rails.conf": 0o644,
    "usr/local/sbin/netauto-roce-qos.sh": 0o755,
    "etc/nccl.conf": 0o644,
    "etc/systemd/system/netauto-roce-qos.service": 0o644,
    "etc/systemd/system/netauto-roce-qos@.service": 0o644,
    "etc/udev/rules.d/90-netauto-rails.rules": 0o644,
    "usr/local/sbin/netauto-nic-firmware.sh": 0o755,
}
COPY_TASKS = 5  # the four single-file copies + one loop over the provisioning units, udev rule, firmware script
GSHUT = re.compile(r"^ bgp graceful-shutdown$", re.MULTILINE)  # under `router bgp` (the GSHUT community-list is not it)
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.MULTILINE)


def _netauto(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "netauto", *args], capture_output=True, text=True, timeout=timeout, check=False,
                          cwd=ROOT)


def _require_lab() -> None:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("the Ansible lab test needs root in CI")
        pytest.skip("netauto lab needs root")
    for tool in ("ip", "vtysh", "frr-reload.py", "ifup", "nsenter", "unshare", "sshd", "ssh-keygen", "netplan"):
        require_tool(tool)

    pf = preflight(ssh=True)
    if not pf.ok:
        if os.environ.get("CI"):
            pytest.fail("lab preflight: " + "; ".join(pf.problems))
        pytest.skip("lab preflight: " + "; ".join(pf.problems))


class Lab:
    def __init__(self, name: str, tmp: Path):

        self.name, self.tmp = name, tmp
        self.st = load_state(name)
        self.dir = Path(self.st["dir"])
        self.playbook = require_tool("ansible-playbook", "pip install ansible-core")
        self.hosts = tmp / "hosts.yml"
        self.build = tmp / "build"
        self.vars = tmp / "lab-vars.yml"

    def write_vars(self, **extra: object) -> None:
        """The lab's connection variables: root over the lab's sshd with the lab key, host keys from the lab's
        known_hosts (checking on); what a lab server cannot apply switched off (no systemd-networkd, no ConnectX
        NICs / mlnx tools)."""
        ssh = self.dir / "ssh"
        self.vars.write_text(yaml.safe_dump({
            "ansible_user": "root",
            "ansible_become": False,
            "ansible_ssh_private_key_file": str(ssh / "id_ed25519"),
            "ansible_ssh_common_args": f"-o UserKnownHostsFile={ssh / 'known_hosts'} -o GlobalKnownHostsFile=/dev/null "
                                       "-o StrictHostKeyChecking=yes -o IdentitiesOnly=yes",
            "ansible_python_interpreter": "/usr/bin/python3",
            "netauto_apply_netplan": False,
            "netauto_apply_roce_qos": False,
            **extra,
        }))

    def exec(self, device: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        from netauto.lab import runtime

        p = subprocess.run(runtime.exec_argv(self.st, device, list(cmd)), capture_output=True, text=True, timeout=60,
                           check=False)
        if check and p.returncode != 0:
            raise AssertionError(f"lab exec {device} {' '.join(cmd)}: rc {p.returncode}\n{p.stdout}{p.stderr}")
        return p

    def read(self, device: str, path: str) -> bytes:
        from netauto.lab import runtime

        return subprocess.run(runtime.exec_argv(self.st, device, ["cat", path]), capture_output=True, timeout=30,
                              check=True).stdout

    def ansible(self, playbook: str, *args: str, check: bool = True) -> tuple[str, dict[str, dict[str, int]]]:
        env = dict(
            os.environ, ANSIBLE_CONFIG=str(ANSIBLE_DIR / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
            ANSIBLE_HOST_KEY_CHECKING="True", ANSIBLE_RETRY_FILES_ENABLED="False",
            ANSIBLE_SSH_CONTROL_PATH_DIR=str(self.tmp / "cp"),  # never share a master with another lab's same IPs
            ANSIBLE_LOCAL_TEMP=str(self.tmp / "ansible-local"),
            ANSIBLE_SSH_ARGS="-o ControlMaster=auto -o ControlPersist=120s",  # the default adds -C: CPU for nothing here
        )
        argv = ["ip", "netns", "exec", f"na-{self.name}-mgmt", self.playbook, "-i", str(self.hosts),
                "-e", f"@{self.vars}", f"playbooks/{playbook}", *args]
        t0 = time.monotonic()
        p = subprocess.run(argv, cwd=ANSIBLE_DIR, env=env, capture_output=True, text=True, timeout=240, check=False)
        log = p.stdout + p.stderr
        print(f"\n$ ansible-playbook playbooks/{playbook} {' '.join(args)}   ({time.monotonic() - t0:.1f} s)\n"
              + log[log.rfind("PLAY RECAP"):])
        if check and p.returncode != 0:
            raise AssertionError(f"ansible-playbook {playbook} {' '.join(args)} exited {p.returncode}\n{log}")
        recap = {m[1]: {"ok": int(m[2]), "changed": int(m[3]), "unreachable": int(m[4]), "failed": int(m[5])}
                 for m in RECAP.finditer(log[log.rfind("PLAY RECAP"):])}
        return log, recap


def _section(log: str, name: str) -> str:
    """The output of one task or handler."""
    start = re.search(rf"^(TASK|RUNNING HANDLER) \[{re.escape(name)}\]", log, re.MULTILINE)
    assert start, f"no task {name!r} in the output"
    rest = log[start.end():]
    end = re.search(r"^(TASK|RUNNING HANDLER|PLAY) \[|^PLAY RECAP", rest, re.MULTILINE)
    return rest[: end.start() if end else None]


def _private_root(lab: Lab, server: str) -> None:
    """A lab server has its own /etc and /usr/local (overlays set up by `lab up`): check it, then reset it to a
    fresh host's state."""
    marker = lab.exec(server, "cat", "/etc/.netauto-lab-node", check=False)
    assert marker.stdout.strip() == server, f"{server}: no private /etc in this lab; refusing to run Ansible"
    # prove it: a file written there on the server is not on the host
    probe = f"/etc/.netauto-ansible-probe-{lab.name}"
    lab.exec(server, "sh", "-c", f"echo {server} > {probe}")
    assert not Path(probe).exists(), f"{server}: /etc is the host's /etc; refusing to run Ansible against it"
    # a fresh host: none of the managed files, rail sysctls at the kernel default (lab up applied them)
    lab.exec(server, "rm", "-f", probe, *("/" + p for p in SERVER_FILES))
    lab.exec(server, "sysctl", "-q", "-w", "net.ipv4.conf.all.arp_ignore=0", "net.ipv4.conf.all.rp_filter=0")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    _require_lab()
    require_tool("ansible-playbook", "pip install ansible-core")
    name = f"ans{os.getpid() % 100000}"
    _netauto("lab", "down", "--name", name)  # leftovers of a crashed run with the same pid
    tmp = tmp_path_factory.mktemp("ansible-lab")
    try:
        t0 = time.monotonic()
        up = lab_up(name, "-i", str(DEFAULT_INVENTORY), "--ssh", "--servers", str(len(SERVERS)))
        assert up.returncode == 0, up.stdout + up.stderr
        print(f"\nlab up {time.monotonic() - t0:.1f} s")
        lab = Lab(name, tmp)
        for args in (("render", "-i", str(DEFAULT_INVENTORY), "-o", str(lab.build)),
                     ("export", "ansible", "-i", str(DEFAULT_INVENTORY), "--rendered", str(lab.build),
                      "-o", str(lab.hosts))):
            p = _netauto(*args)
            assert p.returncode == 0, p.stdout + p.stderr
        lab.write_vars(netauto_render_first=False,  # rendered above, into the tmp folder the inventory points at
                       netauto_drain_wait=2)
        for server in SERVERS:
            _private_root(lab, server)
        yield lab
    finally:
        down = _netauto("lab", "down", "--name", name)
        from netauto.lab import netns

        assert netns.list_netns(f"na-{name}-") == [], down.stdout + down.stderr
        assert not (labs_root() / name).exists()


def test_gpu_servers_playbook_check_apply_idempotent(lab):
    limit = ("--limit", ",".join(SERVERS))
    rendered = {s: {p: (lab.build / "gpu-pod1" / s / p).read_bytes() for p in SERVER_FILES} for s in SERVERS}

    # 1. check mode: every file reported as a change, with its diff; nothing written, nothing applied
    log, recap = lab.ansible("gpu_servers.yml", "--check", "--diff", *limit)
    for s in SERVERS:
        assert recap[s]["failed"] == 0 and recap[s]["unreachable"] == 0, log
        assert recap[s]["changed"] == COPY_TASKS, log
        assert f"+++ after: {lab.build}/gpu-pod1/{s}/etc/netplan/60-rails.yaml" in log
        for p in SERVER_FILES:
            assert lab.exec(s, "test", "-e", "/" + p, check=False).returncode == 1, f"{s}: check mode wrote /{p}"
        assert lab.exec(s, "sysctl", "-n", "net.ipv4.conf.all.arp_ignore").stdout.strip() == "0"
    assert "NOT APPLIED" not in log

    # 2. real run: the files land, byte for byte, with their modes; sysctls applied; the two steps the lab
    #    cannot do are reported as not applied
    log, recap = lab.ansible("gpu_servers.yml", *limit)
    for s in SERVERS:
        assert recap[s]["failed"] == 0 and recap[s]["changed"] >= COPY_TASKS + 1, log
        for p, mode in SERVER_FILES.items():
            assert lab.read(s, "/" + p) == rendered[s][p], f"{s}: /{p} differs from the rendered file"
            st = lab.exec(s, "stat", "-c", "%a %U %G", "/" + p).stdout.split()
            assert st == [f"{mode:o}", "root", "root"], (s, p, st)
        assert lab.exec(s, "sysctl", "-n", "net.ipv4.conf.all.arp_ignore").stdout.strip() == "1"
        assert lab.exec(s, "sysctl", "-n", "net.ipv4.conf.all.rp_filter").stdout.strip() == "2"
        assert lab.exec(s, "sysctl", "-n", "net.ipv4.conf.rail3.arp_announce").stdout.strip() == "2"
    for s in SERVERS:
        assert f"changed: [{s}]" in _section(log, "Apply sysctls")
        for handler in ("Apply netplan", "Apply host RoCE QoS"):
            assert f"skipping: [{s}]" in _section(log, handler) and "changed:" not in _section(log, handler)
    assert _section(log, "Netplan installed, not applied (netauto_apply_netplan=false)").count(
        "NOT APPLIED: /etc/netplan/60-rails.yaml changed") == len(SERVERS)
    assert _section(log, "RoCE QoS script installed, not run (netauto_apply_roce_qos=false)").count(
        "NOT APPLIED: /usr/local/sbin/netauto-roce-qos.sh changed") == len(SERVERS)
    for p in SERVER_FILES:  # nothing reached the host's own /etc or /usr/local
        assert not Path("/" + p).exists() or Path("/" + p).read_bytes() not in {r[p] for r in rendered.values()}

    # 3. second run: nothing to do
    log, recap = lab.ansible("gpu_servers.yml", *limit)
    for s in SERVERS:
        assert recap[s]["failed"] == 0 and recap[s]["changed"] == 0, log
    assert "RUNNING HANDLER" not in log

    # 4. the apply switches are honest: with the default (apply everything) a lab server fails on netplan
    #    (no systemd) and names the variable, after a change
    lab.exec(SERVERS[0], "sh", "-c", "echo '# drift' >> /etc/netplan/60-rails.yaml")
    log, recap = lab.ansible("gpu_servers.yml", "--limit", SERVERS[0], "-e", "netauto_apply_netplan=true", check=False)
    assert recap[SERVERS[0]]["failed"] == 1, log
    assert "netplan apply` needs systemd" in log and "netauto_apply_netplan=false" in log
    assert lab.read(SERVERS[0], "/etc/netplan/60-rails.yaml") == rendered[SERVERS[0]]["etc/netplan/60-rails.yaml"]


def _leaf_inventory(lab: Lab, leaf: str) -> None:
    """The leaf's files as the lab holds them: the lab variant of /etc/network/interfaces (no mgmt VRF: the kernel
    here has none), frr.conf and daemons as rendered (what `netauto deploy --lab` uses too)."""
    from netauto.lab.plan import build_plan
    from netauto.pipeline import render

    model, artifacts = render(DEFAULT_INVENTORY)
    node = build_plan(model, artifacts, lab.name, servers_per_su=0).nodes[leaf]
    root = lab.tmp / "lab-variant" / leaf
    files = []
    for path in ("etc/frr/frr.conf", "etc/frr/daemons", "etc/network/interfaces"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(node.files[path])
        files.append({"path": path, "src": str(root / path), "dest": "/" + path,
                      "mode": "0640" if path.startswith("etc/frr/") else "0644"})
    data = yaml.safe_load(lab.hosts.read_text())
    data["all"]["children"]["switches"]["children"]["leaf"]["hosts"][leaf]["netauto_files"] = files
    lab.hosts.write_text(yaml.safe_dump(data, sort_keys=False))


def test_switch_playbook_drains_pushes_reloads_undrains_one_leaf(lab):
    from netauto.lab import runtime
    from netauto.lab.check import check

    rep = check(lab.st, timeout=60, pings=False)
    assert rep.ok, [(r.device, r.item, r.actual) for r in rep.failures()]
    _leaf_inventory(lab, LEAF)
    intent = (lab.tmp / "lab-variant" / LEAF / "etc/frr/frr.conf").read_bytes()
    # drift on the leaf: a prefix-list nobody asked for, in the running config and in the file
    p = runtime.vtysh(lab.st, LEAF, "configure terminal", "ip prefix-list NETAUTO-DRIFT seq 5 permit 10.255.0.0/16",
                      "end", "write memory")
    assert p.returncode == 0, p.stdout + p.stderr
    assert b"NETAUTO-DRIFT" in lab.read(LEAF, "/etc/frr/frr.conf")

    # (check mode of switches.yml runs in test_ansible.py; here the real thing)
    log, recap = lab.ansible("switches.yml", "--limit", LEAF)
    assert recap[LEAF]["failed"] == 0 and recap[LEAF]["changed"] >= 1, log
    tasks = re.findall(r"^TASK \[([^\]]+)\]", log, re.MULTILINE)
    order = ["2. Drain with BGP graceful shutdown",
             "5. Install frr.conf with graceful-shutdown added (the reload keeps the switch drained)",
             "5. Reload FRR (drained variant while drained)", "6. Wait for every expected BGP session to be Established",
             "7. Undrain - install the intent frr.conf", "7. Undrain (reload the real frr.conf)",
             "8. Verify the running FRR config equals the intent"]
    assert [t for t in tasks if t in order] == order, tasks
    for t in order:
        assert "skipping:" not in _section(log, t) and "failed:" not in _section(log, t), (t, _section(log, t))
    running = runtime.vtysh(lab.st, LEAF, "show running-config").stdout
    assert "NETAUTO-DRIFT" not in running
    assert not GSHUT.search(running), "the leaf was left drained"
    assert lab.read(LEAF, "/etc/frr/frr.conf") == intent
    st = lab.exec(LEAF, "stat", "-c", "%a %U %G", "/etc/frr/frr.conf").stdout.split()
    assert st == ["640", "frr", "frr"], st
    rep = check(lab.st, timeout=60, pings=False)
    assert rep.ok, [(r.device, r.item, r.actual) for r in rep.failures()]

    log, recap = lab.ansible("switches.yml", "--limit", LEAF)
    assert recap[LEAF]["failed"] == 0 and recap[LEAF]["changed"] == 0, log
    assert "skipping:" in _section(log, "2. Drain with BGP graceful shutdown")  # nothing differs: not drained
    assert not GSHUT.search(runtime.vtysh(lab.st, LEAF, "show running-config").stdout)
