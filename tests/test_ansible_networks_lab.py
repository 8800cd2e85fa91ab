"""ansible_compat/playbooks/networks.yml run by real ansible-core over SSH against the three-network lab
(examples/cluster-lab: compute + storage + frontend on real FRR, a GPU server and a storage node with sshd).

The inventory is `netauto export ansible` over files `netauto render` wrote to a tmp folder; ansible-playbook runs
inside the lab's management namespace with the lab's key and known_hosts (host key checking on), as
tests/test_ansible_lab.py does for the compute fabric. Each lab server has a private /etc and /usr/local.

--check --diff reports every network file and writes nothing; a real run lands them byte for byte with their modes,
applies the changed network sysctl files only (per network namespace: real on a lab server) and says NOT APPLIED for
what a lab server cannot do (no systemd-networkd, no ConnectX NICs / mlnx tools: netauto_apply_netplan=false,
netauto_apply_roce_qos=false); a second run changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES, require_tool
from test_ansible_lab import Lab, _netauto, _section
from test_deploy_lab import start_lab

pytestmark = pytest.mark.lab

CLUSTER_LAB = EXAMPLES / "cluster-lab" / "inventory"
FABRIC = "gpu-clusterlab"
SERVERS = {"gpu1": "stor0", "stor1": "ens1f0np0"}  # the lab's servers and one storage NIC of each


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    require_tool("ansible-playbook", "pip install ansible-core")
    started = start_lab(request, tmp_path_factory, CLUSTER_LAB, "apl", "network Ansible lab tests")
    lab = Lab(started["name"], started["tmp"])
    for args in (("render", "-i", str(CLUSTER_LAB), "-o", str(lab.build)),
                 ("export", "ansible", "-i", str(CLUSTER_LAB), "--rendered", str(lab.build), "-o", str(lab.hosts))):
        p = _netauto(*args)
        assert p.returncode == 0, p.stdout + p.stderr
    lab.write_vars()
    return lab


def _network_files(lab: Lab, server: str) -> dict[str, tuple[bytes, int]]:
    """On-device path -> (rendered bytes, mode) of the server's network files, as the exported inventory lists them."""
    data = yaml.safe_load(lab.hosts.read_text())
    hosts: dict = {}

    def walk(group: dict) -> None:
        for name, hv in (group.get("hosts") or {}).items():
            hosts.setdefault(name, {}).update(hv or {})
        for child in (group.get("children") or {}).values():
            walk(child)

    walk(data["all"])
    return {f["dest"]: (Path(f["src"]).read_bytes(), int(str(f["mode"]), 8)) for f in hosts[server]["netauto_network_files"]}


def _fresh(lab: Lab, server: str, files: dict[str, tuple[bytes, int]]) -> None:
    """A server without its network files and with the network sysctls at the kernel default, on its private /etc."""
    marker = lab.exec(server, "cat", "/etc/.netauto-lab-node", check=False)
    assert marker.stdout.strip() == server, f"{server}: no private /etc in this lab; refusing to run Ansible"
    probe = f"/etc/.netauto-ansible-probe-{lab.name}"
    lab.exec(server, "sh", "-c", f"echo {server} > {probe}")
    assert not Path(probe).exists(), f"{server}: /etc is the host's /etc; refusing to run Ansible against it"
    lab.exec(server, "rm", "-f", probe, *files)
    lab.exec(server, "sysctl", "-q", "-w", f"net.ipv4.conf.{SERVERS[server]}.arp_ignore=0")


def test_networks_playbook_check_apply_idempotent(lab):
    files = {s: _network_files(lab, s) for s in SERVERS}
    for s, fs in files.items():
        # the storage network is lossless: its QoS script, boot unit, per-NIC unit and udev rules go with it
        assert {"/usr/local/sbin/netauto-storage-qos.sh", "/etc/systemd/system/netauto-storage-qos.service",
                "/etc/systemd/system/netauto-storage-qos@.service", "/etc/udev/rules.d/91-netauto-storage.rules",
                "/etc/netplan/61-storage.yaml", "/etc/sysctl.d/91-storage.conf"} <= set(fs), (s, sorted(fs))
        assert "/etc/systemd/system/netauto-frontend-qos.service" not in fs  # lossy: no QoS units
        _fresh(lab, s, fs)
    limit = ("--limit", ",".join(SERVERS))

    # 1. check mode: both copy tasks report changes with diffs; nothing written, nothing applied
    log, recap = lab.ansible("networks.yml", "--check", "--diff", *limit)
    for s, fs in files.items():
        assert recap[s]["failed"] == 0 and recap[s]["unreachable"] == 0 and recap[s]["changed"] == 2, log
        for dest in fs:
            assert lab.exec(s, "test", "-e", dest, check=False).returncode == 1, f"{s}: check mode wrote {dest}"
        assert lab.exec(s, "sysctl", "-n", f"net.ipv4.conf.{SERVERS[s]}.arp_ignore").stdout.strip() == "0"
    assert "NOT APPLIED" not in log

    # 2. real run: every network file lands byte for byte with its mode; the changed network sysctls are applied;
    #    netplan and the storage QoS units are said to be installed, not applied
    log, recap = lab.ansible("networks.yml", *limit)
    for s, fs in files.items():
        assert recap[s]["failed"] == 0, log
        for dest, (data, mode) in fs.items():
            assert lab.read(s, dest) == data, f"{s}: {dest} differs from the rendered file"
            st = lab.exec(s, "stat", "-c", "%a %U %G", dest).stdout.split()
            assert st == [f"{mode:o}", "root", "root"], (s, dest, st)
        assert lab.exec(s, "sysctl", "-n", f"net.ipv4.conf.{SERVERS[s]}.arp_ignore").stdout.strip() == "1"
        assert f"changed: [{s}]" in _section(log, "Apply the changed network sysctls")
    not_run = _section(log, "Network QoS installed, not run (netauto_apply_roce_qos=false)")
    assert not_run.count("NOT APPLIED: netauto-storage-qos changed") == len(SERVERS), not_run
    assert "frontend" not in not_run
    assert _section(log, "Network netplan installed, not applied (netauto_apply_netplan=false)").count(
        "NOT APPLIED") == len(SERVERS)

    # 3. second run: nothing to do, no handler runs
    log, recap = lab.ansible("networks.yml", *limit)
    for s in SERVERS:
        assert recap[s]["failed"] == 0 and recap[s]["changed"] == 0, log
    assert "RUNNING HANDLER" not in log
