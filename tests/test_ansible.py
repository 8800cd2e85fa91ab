"""ansible_compat/: the inventory plugin and `netauto export ansible` under real ansible-core, and the playbooks.

The run against lab hosts over SSH is tests/test_ansible_lab.py (root + lab); here the playbooks get
`--syntax-check` and one check-mode run with a local connection (nothing is written, no handler and no drain runs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEFAULT_INVENTORY, EXAMPLES, ROOT, require_tool

from netauto.pipeline import build_model

ANSIBLE_DIR = ROOT / "ansible_compat"
PLAYBOOKS = sorted((ANSIBLE_DIR / "playbooks").glob("*.yml"))


def ansible(*args: str, cwd: Path = ANSIBLE_DIR, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ANSIBLE_CONFIG=str(ANSIBLE_DIR / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCAL_TEMP=str(Path(os.environ.get("TMPDIR", "/tmp")) / "netauto-ansible-tmp"))
    proc = subprocess.run(list(args), cwd=cwd, env=env, text=True, capture_output=True, timeout=180)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def _plain(value):
    """ansible-core >= 2.19 lists strings from inventory plugins as {"__ansible_unsafe": ...} (never templated)."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def inventory_list(source: Path) -> dict:
    return _plain(json.loads(ansible(require_tool("ansible-inventory", "pip install ansible-core"), "-i", str(source), "--list").stdout))


def hosts_of(data: dict, group: str) -> set[str]:
    """Every host in a group, through its children."""
    node = data.get(group, {})
    found = set(node.get("hosts", []))
    for child in node.get("children", []):
        found |= hosts_of(data, child)
    return found


@pytest.fixture(scope="module")
def plugin_default() -> dict:
    return inventory_list(ANSIBLE_DIR / "inventories" / "gpu-pod1.netauto.yml")


def test_plugin_inventory_groups_and_host_vars(plugin_default, default_model):
    data = plugin_default
    switches = {s.name for s in default_model.switches}
    servers = {s.name for s in default_model.servers}
    assert hosts_of(data, "switches") == switches
    assert hosts_of(data, "gpu_servers") == servers == {f"gpu{i:02d}" for i in range(1, 9)}
    assert set(data["switches"]["children"]) == {"leaf", "spine"}
    assert hosts_of(data, "leaf") == {f"su1-r{r}-leaf" for r in range(8)}
    assert hosts_of(data, "spine") == {f"spine{i}" for i in range(1, 5)}
    assert hosts_of(data, "nos_cumulus") == switches
    assert hosts_of(data, "su1") == hosts_of(data, "leaf") | servers
    assert hosts_of(data, "pod1") == switches | servers
    assert hosts_of(data, "rail3") == {"su1-r3-leaf"}

    hv = data["_meta"]["hostvars"]
    assert set(hv) == switches | servers
    leaf = default_model.switch("su1-r0-leaf")
    lv = hv["su1-r0-leaf"]
    assert lv["ansible_host"] == leaf.mgmt_address.split("/")[0]
    assert lv["ansible_user"] == "cumulus"
    assert (lv["netauto_role"], lv["netauto_nos"], lv["netauto_su"], lv["netauto_rail"]) == ("leaf", "cumulus", 1, 0)
    assert lv["netauto_asn"] == 65101 and lv["netauto_loopback"] == leaf.loopback
    assert lv["netauto_bgp_peers"] == [nb.interface for nb in leaf.bgp.neighbors]
    assert lv["netauto_drained"] is False
    assert lv["netauto_fabric"] == "gpu-pod1"  # group var of all
    assert lv["netauto_source"] == str(DEFAULT_INVENTORY)
    files = {f["dest"]: f for f in lv["netauto_files"]}
    assert files["/etc/frr/frr.conf"]["src"] == str(ROOT / "build/gpu-pod1/su1-r0-leaf/etc/frr/frr.conf")
    assert "/etc/cumulus/ports.conf" in files  # the default fabric splits its 800G cages 2 x 400G
    assert hv["spine1"]["netauto_asn"] == 65100 and hv["spine2"]["netauto_asn"] == 65100

    server = default_model.servers[0]
    sv = hv[server.name]
    assert sv["ansible_host"] == server.mgmt_address.split("/")[0]
    assert sv["ansible_user"] == "ubuntu"
    assert sv["netauto_role"] == "gpu_server" and sv["netauto_su"] == 1
    assert [r["address"] for r in sv["netauto_rails"]] == [r.address for r in server.rails]
    assert [r["leaf"] for r in sv["netauto_rails"]] == [f"su1-r{r}-leaf" for r in range(8)]
    sfiles = {f["dest"]: f["mode"] for f in sv["netauto_files"]}
    assert sfiles == {
        "/etc/netplan/60-rails.yaml": "0600",
        "/etc/sysctl.d/90-gpu-rails.conf": "0644",
        "/usr/local/sbin/netauto-roce-qos.sh": "0755",
        "/etc/nccl.conf": "0644",
        "/etc/systemd/system/netauto-roce-qos.service": "0644",
        "/etc/systemd/system/netauto-roce-qos@.service": "0644",
        "/etc/udev/rules.d/90-netauto-rails.rules": "0644",
        "/usr/local/sbin/netauto-nic-firmware.sh": "0755",
        "/usr/local/sbin/netauto-roce-counters.sh": "0755",  # RoCE counters for Prometheus (docs/monitoring.md)
        "/etc/systemd/system/netauto-roce-counters.service": "0644",
        "/etc/systemd/system/netauto-roce-counters.timer": "0644",
    }


def test_plugin_inventory_of_two_su_example():
    data = inventory_list(ANSIBLE_DIR / "inventories" / "gpu-2su.netauto.yml")
    model = build_model(EXAMPLES / "2su-leaf-subnet" / "inventory")
    assert len(hosts_of(data, "gpu_servers")) == len(model.servers) == 63  # su2-gpu32 is absent
    assert "su2-gpu32" not in data["_meta"]["hostvars"]
    assert len(hosts_of(data, "su1")) == 8 + 32 and len(hosts_of(data, "su2")) == 8 + 31
    assert hosts_of(data, "rail0") == {"su1-r0-leaf", "su2-r0-leaf"}
    leaf = data["_meta"]["hostvars"]["su2-r7-leaf"]
    assert leaf["netauto_asn"] == 4200001001 + 15
    assert "/etc/cumulus/ports.conf" in {f["dest"] for f in leaf["netauto_files"]}  # 2x400G breakouts
    assert data["_meta"]["hostvars"]["su1-gpu01"]["netauto_host_link_mode"] == "leaf-subnet"


def test_static_export_equals_plugin(tmp_path, plugin_default):
    hosts = tmp_path / "hosts.yml"
    subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "export", "ansible",
                    "-i", str(DEFAULT_INVENTORY), "--rendered", str(ROOT / "build"), "-o", str(hosts)],
                   check=True, capture_output=True, text=True)
    static = inventory_list(hosts)
    assert static["_meta"]["hostvars"] == plugin_default["_meta"]["hostvars"]
    for group in ("switches", "leaf", "spine", "gpu_servers", "nos_cumulus", "su1", "pod1", "rail0"):
        assert hosts_of(static, group) == hosts_of(plugin_default, group), group


def test_every_playbook_passes_syntax_check():
    assert {p.name for p in PLAYBOOKS} >= {"gpu_servers.yml", "switches.yml", "site.yml"}
    out = ansible(require_tool("ansible-playbook", "pip install ansible-core"), "--syntax-check", *map(str, PLAYBOOKS))
    for playbook in PLAYBOOKS:
        assert f"playbook: {playbook}" in out.stdout or f"playbook: playbooks/{playbook.name}" in out.stdout


def test_check_mode_changes_nothing_and_skips_handlers_and_drain(tmp_path):
    """site.yml in --check --diff over a local connection: renders, diffs, but applies nothing."""
    playbook = require_tool("ansible-playbook", "pip install ansible-core")
    hosts = tmp_path / "hosts.yml"
    build = tmp_path / "build"
    subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "export", "ansible",
                    "-i", str(DEFAULT_INVENTORY), "--rendered", str(build), "-o", str(hosts)],
                   check=True, capture_output=True, text=True)
    proc = ansible(
        playbook, "-i", str(hosts), "playbooks/site.yml", "--check", "--diff", "--limit", "gpu01,su1-r0-leaf",
        "-c", "local", "-e", "ansible_become=false", "-e", f"ansible_python_interpreter={sys.executable}",
        "-e", f"netauto_command={Path(sys.executable).with_name('netauto')}",
        "-e", "netauto_drain_wait=0", check=False,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    # the render pre-task ran for real on the control node
    assert (build / "gpu-pod1/gpu01/etc/netplan/60-rails.yaml").is_file()
    # the diff of the netplan file was shown (it is not on this machine, or differs)
    assert "+++ after: " + str(build / "gpu-pod1/gpu01/etc/netplan/60-rails.yaml") in log
    # nothing applied: handlers and the drain/reload block are skipped in check mode
    for skipped in ("Apply netplan", "Apply sysctls", "Apply host RoCE QoS", "2. Drain with BGP graceful shutdown",
                    "3. Stage the rendered files", "5. Install the Linux files (previous versions kept as backups)",
                    "5. Reload FRR (drained variant while drained)", "7. Undrain (reload the real frr.conf)"):
        section = log.split(skipped, 1)[1].split("TASK [", 1)[0].split("RUNNING HANDLER [", 1)[0]
        assert "skipping:" in section and "changed:" not in section, (skipped, section)
    assert "gpu01" in log and "failed=0" in log


def test_cluster_export_has_network_switches_servers_and_network_groups(tmp_path):
    """A cluster's storage/frontend switches are `switches` members, each network a group to --limit, and a
    server's network files are host vars (what playbooks/networks.yml copies)."""
    from netauto.pipeline import build_cluster

    inv = EXAMPLES / "cluster-lab" / "inventory"
    hosts = tmp_path / "hosts.yml"
    subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "export", "ansible",
                    "-i", str(inv), "--rendered", str(tmp_path / "build"), "-o", str(hosts)],
                   check=True, capture_output=True, text=True)
    data = inventory_list(hosts)
    cluster = build_cluster(inv)
    storage, frontend = (p.fabric for p in cluster.networks)
    assert hosts_of(data, "network_storage") == {sw.name for sw in storage.switches} | {s.name for s in storage.servers}
    assert {sw.name for sw in frontend.switches} <= hosts_of(data, "switches") & hosts_of(data, "network_frontend")
    assert hosts_of(data, "network_compute") == {d.name for d in [*cluster.compute.switches, *cluster.compute.servers]}
    assert hosts_of(data, "group_servers") == {"stor1"} and "stor1" not in hosts_of(data, "gpu_servers")
    assert not {sw.name for sw in storage.switches} & hosts_of(data, "su1")  # su/pod groups stay the compute fabric's
    hv = data["_meta"]["hostvars"]
    assert "/etc/nvue.d/startup.yaml" in {f["dest"] for f in hv["fe-acc0"]["netauto_files"]}
    assert {f["dest"] for f in hv["gpu1"]["netauto_network_files"]} >= {"/etc/netplan/61-storage.yaml",
                                                                     "/etc/netplan/61-frontend.yaml"}
    assert "/etc/netplan/60-rails.yaml" in {f["dest"] for f in hv["gpu1"]["netauto_files"]}
    assert hv["stor1"]["netauto_networks"] == ["storage", "frontend"]
    # a storage node is reached at its group's management address (the network-side record holds a placeholder)
    stor1 = next(g for g in cluster.groups if g.name == "stor1")
    assert hv["stor1"]["ansible_host"] == stor1.mgmt_address.split("/")[0] != "240.0.0.10"
    # the plugin gives the same inventory
    plugin = tmp_path / "cluster.netauto.yml"
    plugin.write_text(f"plugin: netauto\ninventory: {inv}\nrendered: {tmp_path / 'build'}\n")
    assert inventory_list(plugin)["_meta"]["hostvars"] == hv
