"""GPU servers: profiles in the source of truth, persistent NIC provisioning, NCCL from the fabric, NIC rules.

Real tools where this machine has them (systemd-analyze, sh, shellcheck, netplan). The provisioning and firmware
scripts run against a fake sysfs tree (NETAUTO_ROOT) and fake `mlnx_qos` / `mlxconfig` that print the real tools'
output formats: no ConnectX NIC exists here, so this tests the scripts' logic up to that boundary, not a NIC.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES, require_tool

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve
from netauto.pipeline import build_model, render
from netauto.validate import host_tools

from _validate_helpers import INVENTORY, Tree, errors, has, render_to, rendered, show, tree  # noqa: F401

MULTI = EXAMPLES / "multi-profile" / "inventory"
GPU = "gpu01"
SCRIPT = "usr/local/sbin/netauto-roce-qos.sh"
FIRMWARE = "usr/local/sbin/netauto-nic-firmware.sh"
NCCL = "etc/nccl.conf"
UNIT = "etc/systemd/system/netauto-roce-qos.service"
UDEV = "etc/udev/rules.d/90-netauto-rails.rules"


def _files(inv: Path, device: str) -> dict[str, str]:
    _, artifacts = render(inv)
    return {a.path: a.content for a in artifacts if a.device == device}


# ---------------------------------------------------------------- source of truth
def _inventory_with(tmp_path: Path, servers: dict) -> Path:
    inv = tmp_path / "inv"
    shutil.copytree(INVENTORY, inv)
    topo = yaml.safe_load((inv / "topology.yaml").read_text())
    topo["servers"] = servers
    (inv / "topology.yaml").write_text(yaml.safe_dump(topo, sort_keys=False))
    return inv


FOUR = {"model": "4-NIC", "nics": [{"rail": r, "name": f"rail{r}", "rdma": f"mlx5_{r}", "pci": f"0000:{r + 1:02x}:00.0"}
                                   for r in range(4)]}


def test_profile_with_fewer_rails_is_an_error_naming_the_rails(tmp_path: Path):
    inv = _inventory_with(tmp_path, {"profile": "four", "profiles": {"four": FOUR}})
    with pytest.raises(InventoryError) as exc:
        resolve(load_inventory(inv))
    text = str(exc.value)
    assert "servers.profiles.four.nics" in text and "no NIC for rail(s) [4, 5, 6, 7]" in text, text
    assert "absent_rails: [4, 5, 6, 7]" in text, text  # the fix


def test_explicit_absent_rails_render_and_reserve_the_leaf_ports(tmp_path: Path):
    inv = _inventory_with(tmp_path, {"profile": "four", "profiles": {"four": {**FOUR, "absent_rails": [4, 5, 6, 7]}}})
    model = resolve(load_inventory(inv))
    srv = model.servers[0]
    assert [r.index for r in srv.rails] == [0, 1, 2, 3] and srv.absent_rails == [4, 5, 6, 7]
    assert srv.nccl.ib_hca == "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"
    port = next(i for i in model.switch("su1-r5-leaf").host_ports if f"reserved for {srv.name} " in i.description)
    assert not port.enabled and "no rail 5 NIC in profile four" in port.description
    assert not any(link.b_device == srv.name and link.a_device == "su1-r5-leaf" for link in model.links)


@pytest.mark.parametrize("servers, key, text", [
    ({"profile": "nope", "profiles": {"four": {**FOUR, "absent_rails": [4, 5, 6, 7]}}}, "servers.profile",
     "no profile 'nope'"),
    ({"profiles": {"four": {**FOUR, "absent_rails": [4, 5, 6, 7]}}, "hosts": {"gpu99": {"macs": {}}}},
     "servers.hosts.gpu99", "no such server 'gpu99'"),
    ({"profiles": {"four": {**FOUR, "absent_rails": [4, 5, 6, 7]}},
      "hosts": {"gpu01": {"macs": {"eth9": "b8:3f:d2:00:00:01"}}}}, "servers.hosts.gpu01.macs.eth9", "no rail NIC 'eth9'"),
    ({"profiles": {"four": {**FOUR, "absent_rails": [4, 5, 6, 7]}}, "nics": ["a"]}, "servers.nics", "not both"),
    ({"profiles": {"four": {**FOUR, "absent_rails": [3, 4, 5, 6, 7]}}}, "servers.profiles.four.absent_rails",
     "both have a NIC and are listed in absent_rails"),
])
def test_bad_profiles_name_the_key(tmp_path: Path, servers: dict, key: str, text: str):
    inv = _inventory_with(tmp_path, servers)
    with pytest.raises(InventoryError) as exc:
        resolve(load_inventory(inv))
    assert exc.value.key == key and text in str(exc.value), str(exc.value)
    assert exc.value.file is not None and exc.value.line, str(exc.value)


def test_cli_bad_profile_one_line_exit_2(tmp_path: Path):
    inv = _inventory_with(tmp_path, {"profile": "four", "profiles": {"four": FOUR}})
    r = subprocess.run([os.sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(tmp_path / "out")],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")})
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "no NIC for rail(s) [4, 5, 6, 7]" in r.stderr, r.stderr


def test_older_nic_list_form_is_profile_default():
    model = build_model(EXAMPLES / "2su-leaf-subnet" / "inventory")
    srv = model.servers[0]
    assert srv.profile == "default" and [r.nic for r in srv.rails][:2] == ["rail0", "rail1"]
    assert srv.rails[0].pci == "0000:18:00.0" and srv.rails[0].match == "pci"


def test_two_profiles_assigned_per_su_and_per_server():
    model = build_model(MULTI)
    by = {s.name: s for s in model.servers}
    assert by["su1-gpu04"].profile == "dgx-h100" and len(by["su1-gpu04"].rails) == 8
    assert by["su2-gpu03"].profile == "bf3-4rail" and len(by["su2-gpu03"].rails) == 4
    assert {r.kind for r in by["su2-gpu03"].rails} == {"bluefield-3-supernic"}
    assert by["su2-gpu01"].profile == "dgx-h100" and by["su2-gpu01"].rails[0].match == "mac"
    assert by["su2-gpu01"].rails[2].match == "pci"
    # long haul between the two sites: QPs and a buffer covering 400G x 100 us RTT (5 MB -> 8 MiB)
    assert by["su2-gpu03"].nccl.qps_per_connection == 4 and by["su2-gpu03"].nccl.buffsize == 8 << 20
    assert build_model(INVENTORY).servers[0].nccl.qps_per_connection is None


# ---------------------------------------------------------------- rendered files
def test_nccl_conf_exact_hca_and_fabric_values():
    text = _files(INVENTORY, GPU)[NCCL]
    assert "NCCL_IB_HCA==mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1\n" in text
    assert "NCCL_IB_ADAPTIVE_ROUTING=1\n" in text and "NCCL_IB_TC=106\n" in text
    assert "NCCL_IB_GID_INDEX" not in re.sub(r"^#.*\n", "", text, flags=re.M)
    assert "NCCL_SOCKET_IFNAME==rail0\n" in text and "NCCL_IB_ADDR_FAMILY=AF_INET\n" in text


def test_netplan_matches_nics_and_names_them(tmp_path: Path):
    files = _files(MULTI, "su2-gpu01")
    net = yaml.safe_load(files["etc/netplan/60-rails.yaml"])["network"]["ethernets"]
    assert net["rail0"]["match"] == {"macaddress": "b8:3f:d2:10:00:01"} and net["rail0"]["set-name"] == "rail0"
    assert all(n["optional"] is True for n in net.values())
    rules = files[UDEV]
    assert 'ACTION=="add", SUBSYSTEM=="net", ENV{ID_PATH}=="pci-0000:4f:00.0", NAME="rail2"\n' in rules
    assert 'NAME="rail0"' not in rules  # renamed by netplan (MAC), not twice
    # the real netplan generator: the MAC match becomes a networkd .link with the new name
    netplan = require_tool("netplan")
    root = tmp_path / "root"
    (root / "etc/netplan").mkdir(parents=True)
    (root / "etc/netplan/60-rails.yaml").write_text(files["etc/netplan/60-rails.yaml"])
    (root / "etc/netplan/60-rails.yaml").chmod(0o600)
    r = subprocess.run([netplan, "generate", "--root-dir", str(root)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    generated = "".join(p.read_text() for p in (root / "run/systemd/network").glob("*rail0*.link"))
    assert "MACAddress=b8:3f:d2:10:00:01" in generated and "Name=rail0" in generated, generated


def _unit_root(tmp_path: Path, files: dict[str, str]) -> Path:
    dev = tmp_path / "gpu"
    for rel, text in files.items():
        p = dev / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (dev / SCRIPT).chmod(0o755)
    return dev


def test_units_pass_systemd_analyze_verify_and_a_broken_one_fails(tmp_path: Path):
    require_tool("systemd-analyze")
    dev = _unit_root(tmp_path, _files(INVENTORY, GPU))
    assert host_tools.systemd_units([(GPU, dev / UNIT)]) == []
    unit = dev / UNIT
    unit.write_text(unit.read_text().replace("ExecStart=/usr/local/sbin/netauto-roce-qos.sh",
                                             "ExecStart=/usr/local/sbin/netauto-roce-qos").replace("Type=oneshot", "Type=oneshoot"))
    found = host_tools.systemd_units([(GPU, unit)])
    text = "\n".join(f.message for f in found)
    assert "not executable" in text and "oneshoot" in text, text
    assert all(f.device == GPU for f in found)


def test_scripts_pass_sh_n_and_shellcheck_and_a_broken_one_fails(tmp_path: Path):
    require_tool("shellcheck", "apt-get install shellcheck (.ci/run)")
    files = _files(MULTI, "su2-gpu03")
    dev = _unit_root(tmp_path, files)
    refs = [("su2-gpu03", dev / SCRIPT), ("su2-gpu03", dev / FIRMWARE)]
    assert host_tools.shell_scripts(refs) == []
    (dev / SCRIPT).write_text((dev / SCRIPT).read_text().replace('put "$e/roce_np/cnp_dscp"', 'put $e/roce_np/cnp_dscp'))
    (dev / FIRMWARE).write_text((dev / FIRMWARE).read_text().replace("    esac\n}", "    esa\n}", 1))
    found = host_tools.shell_scripts(refs)
    assert any(f.rule == "EXT-shellcheck" and "SC2086" in f.message for f in found), found
    assert any(f.rule == "EXT-sh -n" and f.file.endswith("netauto-nic-firmware.sh") for f in found), found


def test_scripts_differing_only_in_the_quoted_server_name_are_checked_once(tmp_path: Path, monkeypatch):
    require_tool("shellcheck", "apt-get install shellcheck (.ci/run)")
    servers = ["su1-gpu01", "su1-gpu02", "su1-gpu03", "su1-gpu04"]  # one profile
    roots = {s: _unit_root(tmp_path / s, _files(MULTI, s)) for s in servers}
    refs = [(s, roots[s] / SCRIPT) for s in servers]
    # the rendered scripts differ in the server's name inside a double-quoted message: one group
    texts = {(roots[s] / SCRIPT).read_text().replace(s, "NAME") for s in servers}
    assert len(texts) == 1 and all(s in (roots[s] / SCRIPT).read_text() for s in servers)
    assert len(host_tools._groups(refs, by_name=True)) == 1
    calls: list[list[str]] = []
    run = host_tools._run

    def counting(cmd, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(list(cmd))
        return run(cmd, *a, **kw)

    monkeypatch.setattr(host_tools, "_run", counting)
    assert host_tools.shell_scripts(refs) == []
    assert sum("shellcheck" in c[0] for c in calls) == 1, calls
    # the name outside "..." is code, not text: that server's script is a group of its own
    odd = roots["su1-gpu04"] / SCRIPT
    clean = odd.read_text()
    odd.write_text(clean.replace("set -u", "set -u\nsu1-gpu04=1", 1))
    assert len(host_tools._groups(refs, by_name=True)) == 2
    at = 1 + next(i for i, ln in enumerate(clean.splitlines(), 1) if ln == "set -u")
    found = host_tools.shell_scripts(refs)
    assert found and {(f.device, f.line) for f in found} == {("su1-gpu04", at)}, found  # SC2276, its own line
    odd.write_text(clean)
    # a mutation on one server only is reported on that server, with the line of its own file
    bad = roots["su1-gpu03"] / SCRIPT
    lines = bad.read_text().splitlines()
    n = next(i for i, ln in enumerate(lines, 1) if 'put "$e/roce_np/cnp_dscp"' in ln)
    bad.write_text(bad.read_text().replace('put "$e/roce_np/cnp_dscp"', 'put $e/roce_np/cnp_dscp'))
    found = host_tools.shell_scripts(refs)
    assert found and {f.device for f in found} == {"su1-gpu03"}, found
    assert any(f.rule == "EXT-shellcheck" and "SC2086" in f.message and f.line == n and f.file == str(bad) for f in found)
    # one group, every copy broken alike: every server gets its own finding
    for s in servers[:3]:
        p = roots[s] / SCRIPT
        p.write_text(p.read_text().replace('put "$e/roce_np/cnp_dscp"', 'put $e/roce_np/cnp_dscp'))
    found = host_tools.shell_scripts(refs)
    assert {f.device for f in found if "SC2086" in f.message} == set(servers[:3]), found


def test_udev_rule_and_units_enable_the_per_rail_unit():
    files = _files(INVENTORY, GPU)
    assert 'NAME=="rail3", TAG+="systemd", ENV{SYSTEMD_WANTS}+="netauto-roce-qos@rail3.service"' in files[UDEV]
    assert "WantedBy=multi-user.target" in files[UNIT]
    assert "ExecStart=/usr/local/sbin/netauto-roce-qos.sh %i" in files["etc/systemd/system/netauto-roce-qos@.service"]


# ---------------------------------------------------------------- the provisioning script on a fake sysfs
FAKE_MLNX_QOS = r'''#!/bin/sh
# fake mlnx_qos: keeps trust/PFC per interface under $NETAUTO_ROOT/mlnx_qos, prints mlnx_qos's format
state=$NETAUTO_ROOT/mlnx_qos; mkdir -p "$state"
dev=""; trust=""; pfc=""; cable=""
for a in "$@"; do
  case "$a" in --trust=*) trust=${a#--trust=} ;; --pfc=*) pfc=${a#--pfc=} ;; --cable_len=*) cable=${a#--cable_len=} ;;
  -i) ;; *) dev=$a ;; esac
done
[ -e "$NETAUTO_ROOT/sys/class/net/$dev" ] || { echo "Netlink error: No such device" >&2; exit 1; }
[ -n "$trust" ] && echo "$trust" > "$state/$dev.trust"
[ -n "$pfc" ] && echo "$pfc" > "$state/$dev.pfc"
[ -n "$cable" ] && echo "$cable" > "$state/$dev.cable"
t=$(cat "$state/$dev.trust" 2>/dev/null || echo pcp); p=$(cat "$state/$dev.pfc" 2>/dev/null || echo 0,0,0,0,0,0,0,0)
echo "DCBX mode: OS controlled"
echo "Priority trust state: $t"
echo "Cable len: $(cat "$state/$dev.cable" 2>/dev/null || echo 7)"
echo "PFC configuration:"
echo "	priority    0   1   2   3   4   5   6   7"
echo "	enabled     $(echo "$p" | sed 's/,/   /g')   "
echo "	buffer      0   0   0   1   0   0   0   0   "
'''


# fake ethtool: -A <if> rx off tx off / -a <if> (ethtool's "Pause parameters" format), state under $NETAUTO_ROOT
FAKE_ETHTOOL = r'''#!/bin/sh
state=$NETAUTO_ROOT/ethtool; mkdir -p "$state"
case "$1" in
  -A) echo "$4 $6" > "$state/$2.pause" ;;
  -a) set -- "$2" $(cat "$state/$2.pause" 2>/dev/null || echo on on)
      printf 'Pause parameters for %s:\nAutonegotiate:\ton\nRX:\t\t%s\nTX:\t\t%s\n' "$1" "$2" "$3" ;;
  *) exit 1 ;;
esac
'''


def _nic(root: Path, name: str, rdma: str, pci: str, *, ecn: bool = True, cnp: bool = True) -> None:
    net = root / "sys/class/net" / name
    (net / "device/infiniband" / rdma).mkdir(parents=True)
    (net / "address").write_text("b8:3f:d2:00:00:01\n")
    pcidir = root / "sys/bus/pci/devices" / pci / "net"
    pcidir.mkdir(parents=True)
    (pcidir / name).mkdir()
    if ecn:
        for point in ("roce_np", "roce_rp"):
            (net / "ecn" / point / "enable").mkdir(parents=True)
            (net / "ecn" / point / "enable/3").write_text("0\n")
        if cnp:
            (net / "ecn/roce_np/cnp_dscp").write_text("4\n")
            (net / "ecn/roce_np/cnp_802p_prio").write_text("3\n")
    tc = root / "sys/class/infiniband" / rdma / "tc/1"
    tc.mkdir(parents=True)
    (tc / "traffic_class").write_text("Global tclass=0\n")
    cm = root / "sys/kernel/config/rdma_cm" / rdma / "ports/1"
    cm.mkdir(parents=True)
    (cm / "default_roce_tos").write_text("0\n")


@pytest.fixture
def fake_host(tmp_path: Path):
    files = _files(INVENTORY, GPU)
    script = tmp_path / "netauto-roce-qos.sh"
    script.write_text(files[SCRIPT])
    script.chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mlnx_qos").write_text(FAKE_MLNX_QOS)
    (bin_dir / "mlnx_qos").chmod(0o755)
    (bin_dir / "ethtool").write_text(FAKE_ETHTOOL)
    (bin_dir / "ethtool").chmod(0o755)
    root = tmp_path / "root"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "NETAUTO_ROOT": str(root), "NETAUTO_WAIT": "0"}
    return script, root, env


def _run(script: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", str(script), *args], capture_output=True, text=True, env=env, timeout=60)


def test_script_sets_and_reads_back_every_value_one_bad_rail_hides_nothing(fake_host):
    script, root, env = fake_host
    _nic(root, "rail0", "mlx5_0", "0000:18:00.0")
    _nic(root, "rail1", "mlx5_3", "0000:40:00.0", cnp=False)  # a driver without the CNP marking files
    _nic(root, "rail2", "mlx5_4", "0000:4f:00.0")
    r = _run(script, env, "rail0", "rail1", "rail2")
    log = r.stdout
    assert r.returncode == 1, log
    assert "netauto-roce-qos: rail0: OK" in log and "netauto-roce-qos: rail2: OK" in log, log
    assert "rail1: FAIL: CNP DSCP: no " in log and "netauto-roce-qos: rail1: FAILED" in log, log
    assert "2 of 3 rail(s) OK; FAILED: rail1" in log, log
    net = root / "sys/class/net/rail0"
    assert (net / "ecn/roce_np/cnp_dscp").read_text().strip() == "48"
    assert (net / "ecn/roce_np/cnp_802p_prio").read_text().strip() == "6"
    assert (net / "ecn/roce_np/enable/3").read_text().strip() == "1" == (net / "ecn/roce_rp/enable/3").read_text().strip()
    assert (root / "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos").read_text().strip() == "106"
    assert (root / "sys/class/infiniband/mlx5_0/tc/1/traffic_class").read_text().strip() == "106"
    assert (root / "mlnx_qos/rail0.trust").read_text().strip() == "dscp"
    assert (root / "mlnx_qos/rail2.pfc").read_text().strip() == "0,0,0,1,0,0,0,0"
    for what in ("trust dscp", "PFC 0,0,0,1,0,0,0,0", "RDMA-CM default ToS 106", "CNP DSCP 48", "CNP 802.1p priority 6",
                 "ECN notification point on priority 3", "RDMA device mlx5_4"):
        assert f"rail2: ok: {what}" in log, (what, log)
    # idempotent: a second run changes nothing and passes for the good rails
    again = _run(script, env, "rail0", "rail2")
    assert again.returncode == 0 and "2 of 2 rail(s) OK" in again.stdout, again.stdout


def test_script_check_mode_reports_drift_and_writes_nothing(fake_host):
    script, root, env = fake_host
    _nic(root, "rail0", "mlx5_0", "0000:18:00.0")
    r = _run(script, env, "--check", "rail0")
    assert r.returncode == 1
    assert "rail0: FAIL: trust is pcp, want dscp" in r.stdout and "CNP DSCP is 4, want 48" in r.stdout, r.stdout
    assert (root / "sys/class/net/rail0/ecn/roce_np/cnp_dscp").read_text().strip() == "4"
    assert not (root / "mlnx_qos/rail0.trust").exists()


def test_script_finds_a_misnamed_nic_by_pci_and_a_wrong_rdma_name(fake_host):
    script, root, env = fake_host
    _nic(root, "enp64s0np0", "mlx5_1", "0000:40:00.0")  # rail1 by PCI: not renamed, and not the RDMA name NCCL uses
    r = _run(script, env, "rail1")
    assert r.returncode == 1
    assert "rail1: FAIL: rail 1 NIC is named enp64s0np0, not rail1" in r.stdout, r.stdout
    assert "RDMA device is mlx5_1, the inventory (and NCCL_IB_HCA) says mlx5_3" in r.stdout, r.stdout
    assert (root / "sys/class/net/enp64s0np0/ecn/roce_np/cnp_dscp").read_text().strip() == "48"  # still provisioned


def test_script_missing_nic_and_no_tools(fake_host):
    script, root, env = fake_host
    _nic(root, "rail0", "mlx5_0", "0000:18:00.0")
    env = {**env, "PATH": "/nonexistent:/bin"}  # neither mlnx_qos nor dcb
    r = subprocess.run(["/bin/sh", str(script), "rail0", "rail7"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1
    assert "rail0: FAIL: neither mlnx_qos (MLNX_OFED/DOCA) nor dcb (iproute2) found" in r.stdout, r.stdout
    assert "rail7: FAIL: rail 7 NIC not found (name rail7, PCI 0000:dc:00.0" in r.stdout, r.stdout
    assert "rail0: ok: CNP DSCP 48" in r.stdout  # the other settings of the rail still ran


def test_script_usage_errors(fake_host):
    script, _, env = fake_host
    assert _run(script, env, "--bogus").returncode == 2
    r = _run(script, env, "rail9")
    assert r.returncode == 2 and "no rail NIC rail9 on gpu01" in r.stderr, r.stderr


FAKE_MLXCONFIG = r'''#!/usr/bin/env python3
# fake mlxconfig: per-device state in $FAKE_MLX (json {param: [current, next]}), mlxconfig's query layout
import json, os, sys
path = os.environ["FAKE_MLX"]; state = json.load(open(path)); args = sys.argv[1:]
dev = args[args.index("-d") + 1]
enums = {"LINK_TYPE_P1": {1: "IB", 2: "ETH"}, "ROCE_ADAPTIVE_ROUTING_EN": {0: "False", 1: "True"},
         "INTERNAL_CPU_OFFLOAD_ENGINE": {0: "ENABLED", 1: "DISABLED"}}
show = lambda p, v: f"{enums[p][v]}({v})" if v in enums.get(p, {}) else str(v)
if "query" in args:
    names = args[args.index("query") + 1:]
    print(f"\nDevice #1:\n----------\n\nDevice type:        ConnectX7\nDevice:             {dev}\n")
    print("Configurations:                                          Default         Current         Next Boot")
    for n in names:
        if n not in state: print(f"-E- The Device doesn't support {n} parameter"); sys.exit(3)
        cur, nxt = state[n]
        print(f"{'*' if cur != 0 else ' '}       {n:<45}{show(n, 0):<16}{show(n, cur):<16}{show(n, nxt)}")
elif "set" in args:
    for pv in args[args.index("set") + 1:]:
        n, v = pv.split("="); state[n][1] = int(v)
    json.dump(state, open(path, "w")); print("Apply new Configuration? (y/n) [n] : y\nApplying... Done!")
'''


def test_firmware_script_check_apply_pending_current(tmp_path: Path):
    files = _files(MULTI, "su2-gpu03")  # BlueField-3 SuperNICs: NIC mode too
    script = tmp_path / "fw.sh"
    script.write_text(files[FIRMWARE])
    fake = tmp_path / "bin/mlxconfig"
    fake.parent.mkdir()
    fake.write_text(FAKE_MLXCONFIG)
    fake.chmod(0o755)
    state = tmp_path / "mlx.json"
    start = {"INTERNAL_CPU_OFFLOAD_ENGINE": [0, 0], "LINK_TYPE_P1": [1, 1], "ROCE_CC_PRIO_MASK_P1": [255, 255],
             "CNP_DSCP_P1": [48, 48], "CNP_802P_PRIO_P1": [6, 6], "ROCE_ADAPTIVE_ROUTING_EN": [0, 0]}
    state.write_text(json.dumps(start))
    env = {"PATH": f"{fake.parent}:/usr/bin:/bin", "FAKE_MLX": str(state)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["sh", str(script), *args], capture_output=True, text=True, env=env, timeout=60)

    r = run("--check")
    assert r.returncode == 1, r.stdout
    assert "rail0 (0000:1a:00.0, bluefield-3-supernic): drift: INTERNAL_CPU_OFFLOAD_ENGINE is 0" in r.stdout, r.stdout
    assert "drift: ROCE_ADAPTIVE_ROUTING_EN is 0 (next boot 0), want 1" in r.stdout and "ok: CNP_DSCP_P1 48" in r.stdout
    r = run("--apply")
    # the BlueField-3 mode change (NIC mode) takes a host power cycle, never mlxfwreset (DOCA, BlueField modes)
    assert r.returncode == 3 and "rail0 (0000:1a:00.0): set INTERNAL_CPU_OFFLOAD_ENGINE=1" in r.stdout, r.stdout
    assert "power cycle the host (a BlueField mode change" in r.stdout and "mlxfwreset -d 0000:1a:00.0" not in r.stdout
    r = run("--check")
    assert r.returncode == 3 and "pending: LINK_TYPE_P1 is 1, 2 after: reboot or 'mlxfwreset" in r.stdout, r.stdout
    assert "pending: INTERNAL_CPU_OFFLOAD_ENGINE is 0, 1 after: power cycle the host" in r.stdout, r.stdout
    data = json.loads(state.read_text())
    state.write_text(json.dumps({k: [v[1], v[1]] for k, v in data.items()}))  # the reboot
    r = run("--check")
    assert r.returncode == 0 and "all rail NIC firmware settings current" in r.stdout, r.stdout
    assert run("--bogus").returncode == 2


# ---------------------------------------------------------------- rules, each broken once, naming the server
def check(tree: Tree, rule: str, device: str, text: str, also: set[str] = frozenset(), **kw) -> None:  # noqa: ANN003
    result = tree.validate(**kw)
    assert has(result, rule, device, text), show(result)
    assert errors(result) <= {rule} | set(also), show(result)


def test_ar04_one_servers_nccl_ar_differs_from_the_switches(tmp_path: Path):
    out = render_to(MULTI, tmp_path / "multi")
    t = Tree(out, tmp_path / "configs", fabric="gpu-multi")
    t.replace("su2-gpu03", NCCL, "NCCL_IB_ADAPTIVE_ROUTING=1", "NCCL_IB_ADAPTIVE_ROUTING=0")
    result = t.validate(MULTI)
    assert has(result, "AR-04", "su2-gpu03", "NCCL_IB_ADAPTIVE_ROUTING=0, the switches run adaptive routing on"), show(result)
    assert {f.device for f in result.findings if f.rule == "AR-04"} == {"su2-gpu03"}, show(result)
    assert errors(result) == {"AR-04"}, show(result)


def test_ar04_firmware_ar_differs(tmp_path: Path):
    """gpu-multi: the host script owns the firmware (gpu-pod1's NIC Configuration Operator owns it there: K8S-10)."""
    t = Tree(render_to(MULTI, tmp_path / "multi"), tmp_path / "configs", fabric="gpu-multi")
    t.replace("su2-gpu03", FIRMWARE, "ROCE_ADAPTIVE_ROUTING_EN=1", "ROCE_ADAPTIVE_ROUTING_EN=0")
    result = t.validate(MULTI)
    assert has(result, "AR-04", "su2-gpu03", "firmware ROCE_ADAPTIVE_ROUTING_EN=0, the switches run adaptive routing on"), \
        show(result)


def test_nccl01_prefix_matched_hca(tree: Tree):
    tree.replace(GPU, NCCL, "NCCL_IB_HCA==", "NCCL_IB_HCA=")
    check(tree, "NCCL-01", GPU, "NCCL_IB_HCA is prefix-matched (no leading `=`)")


def test_nccl01_incomplete_hca(tree: Tree):
    tree.replace(GPU, NCCL, ",mlx5_9:1", "")
    check(tree, "NCCL-01", GPU, "NCCL_IB_HCA lacks rail RDMA device(s) mlx5_9 (rail5)")


def test_q05_host_cnp_dscp_not_in_the_cnp_class(tree: Tree):
    tree.replace(GPU, SCRIPT, "CNP_DSCP=48", "CNP_DSCP=4")
    # the switches classify every DSCP (h-ports): DSCP 4 lands in the lossy default class, not the strict CNP one
    check(tree, "Q-05", GPU, "CNP DSCP 4 lands in class 0 on spine1, which is not the strict CNP class")


def test_q05_host_cnp_priority_differs(tree: Tree):
    tree.replace(GPU, SCRIPT, "CNP_PRIO=6", "CNP_PRIO=3")
    check(tree, "Q-05", GPU, "CNP 802.1p priority 3, the switches' CNP class is 6 (DSCP 48)")


def test_host06_rail_not_named_by_pci_is_unresolvable(tree: Tree):
    tree.replace(GPU, UDEV, 'ENV{ID_PATH}=="pci-0000:5e:00.0", NAME="rail3"', 'ENV{ID_PATH}=="pci-0000:5e:00.0"')
    check(tree, "HOST-06", GPU, "rail3: unresolvable (match has no macaddress and no udev rule names it by PCI path)")


def test_host06_one_pci_two_names(tree: Tree):
    tree.replace(GPU, UDEV, 'pci-0000:5e:00.0", NAME="rail3"', 'pci-0000:4f:00.0", NAME="rail3"')
    check(tree, "HOST-06", GPU, "PCI 0000:4f:00.0 is given two names (rail2, rail3)")


def test_host06_not_optional(tree: Tree):
    tree.replace(GPU, "etc/netplan/60-rails.yaml", "      optional: true\n", "")
    check(tree, "HOST-06", GPU, "rail0: not `optional: true`")


def test_host07_unit_not_enabled(tree: Tree):
    tree.replace(GPU, UNIT, "WantedBy=multi-user.target", "WantedBy=")
    check(tree, "HOST-07", GPU, "not enabled at boot")


def test_host07_unit_not_before_kubelet_and_slurmd(tree: Tree):
    tree.replace(GPU, UNIT, "Before=kubelet.service slurmd.service", "Before=kubelet.service")
    check(tree, "HOST-07", GPU, "not ordered Before=kubelet.service slurmd.service", also={"DRIFT-01"})


def test_host07_no_udev_rule_for_a_rail(tree: Tree):
    tree.replace(GPU, UDEV, 'ACTION=="add", SUBSYSTEM=="net", NAME=="rail2"', '# removed')
    check(tree, "HOST-07", GPU, "rail2: no udev rule starting netauto-roce-qos@rail2.service")


def test_host07_unit_missing(tree: Tree):
    tree.path(GPU, UNIT).unlink()
    check(tree, "HOST-07", GPU, "no etc/systemd/system/netauto-roce-qos.service", also={"DRIFT-01"})


def test_multi_profile_fabric_validates_clean_with_real_validators():
    from netauto.pipeline import validate

    result = validate(MULTI)
    assert [f for f in result.findings if f.severity != "info"] == [], show(result)
    ran = " ".join(result.notes)
    if shutil.which("systemd-analyze"):
        assert "ran: systemd-analyze verify (NIC provisioning units) on 8 file(s)" in ran, ran
    assert "ran: sh -n + shellcheck when installed (RoCE QoS script) on 8 file(s)" in ran, ran


# ---------------------------------------------------------------- deploy steps (recorded commands, no host)
class _Session:
    def __init__(self, rcs: dict[str, int]) -> None:
        self.rcs, self.commands = rcs, []

    def run(self, command: str, timeout: float = 120.0):  # noqa: ANN201
        from netauto.deploy.connection import CommandResult

        self.commands.append(command)
        rc = next((v for k, v in self.rcs.items() if k in command), 0)
        log = "netauto-roce-qos: rail3: FAIL: trust is pcp, want dscp\n" if rc or "journalctl" in command else ""
        return CommandResult(rc, log, "")


def _step(name, fn):  # noqa: ANN001, ANN202
    return fn()


def test_deploy_enables_and_runs_the_unit_only_when_provisioning_files_changed():
    from netauto.deploy import host_nic

    s, notes = _Session({}), []
    host_nic.provision(s, {"/etc/sysctl.d/90-gpu-rails.conf"}, _step, notes)
    assert s.commands == []
    host_nic.provision(s, {"/" + SCRIPT, "/" + UDEV}, _step, notes)
    assert any("systemctl enable netauto-roce-qos.service" in c for c in s.commands), s.commands
    assert s.commands[-1] == "systemctl restart netauto-roce-qos.service"
    assert any("next boot" in n for n in notes)


def test_deploy_unit_failure_carries_the_script_log():
    from netauto.deploy import host_nic
    from netauto.deploy.remote import StepFailed

    s = _Session({"systemctl restart": 1})
    with pytest.raises(StepFailed) as exc:
        host_nic.provision(s, {"/" + SCRIPT}, _step, [])
    assert "rail3: FAIL: trust is pcp" in str(exc.value)


@pytest.mark.parametrize("rc, says", [(0, "current"), (3, "pending: reboot"), (1, None)])
def test_deploy_firmware_step(rc: int, says: str | None):
    from netauto.deploy import host_nic
    from netauto.deploy.remote import StepFailed

    s, notes = _Session({"netauto-nic-firmware.sh --apply": rc}), []
    if says is None:
        with pytest.raises(StepFailed):
            host_nic.firmware(s, _step, notes)
    else:
        host_nic.firmware(s, _step, notes)
        assert says in notes[0], notes


def _host_owned(tmp_path: Path, cabling: str = "") -> Path:
    """The default inventory with netauto owning the NICs (kubernetes.nic_config: netauto), `cabling` added."""
    inv = tmp_path / "inv"
    shutil.copytree(INVENTORY, inv)
    k8s = inv / "kubernetes.yaml"
    k8s.write_text(k8s.read_text().replace("nic_config: nic-configuration-operator", "nic_config: netauto"))
    if cabling:
        (inv / "cabling.yaml").write_text(cabling)
    return inv


def test_script_sets_the_links_cable_length_and_global_pause_off(fake_host, tmp_path: Path):
    """Issue 34 item 4: mlx5 sizes the receive headroom for 7 m (port_buffer.h MLX5E_DEFAULT_CABLE_LEN) unless
    told; the rail's link is 100 m (fabric.cable_length_m; a `cabling.links` entry wins). Global pause goes off
    (PFC only). Both set and read back; --check reports the driver's 7 m."""
    script, root, env = fake_host
    script.write_text(_files(_host_owned(tmp_path), GPU)[SCRIPT])
    _nic(root, "rail0", "mlx5_0", "0000:18:00.0")
    check = _run(script, env, "--check", "rail0")
    assert "rail0: FAIL: cable length is 7 m, want 100 m" in check.stdout, check.stdout
    assert "rail0: FAIL: global pause is rx on tx on, want rx off tx off" in check.stdout, check.stdout
    r = _run(script, env, "rail0")
    assert r.returncode == 0, r.stdout
    assert "rail0: ok: cable length 100 m" in r.stdout and "rail0: ok: global pause rx off tx off" in r.stdout
    assert (root / "mlnx_qos/rail0.cable").read_text().strip() == "100"
    assert (root / "ethtool/rail0.pause").read_text().strip() == "off off"


def test_per_rail_cable_length_from_cabling_and_one_owner(fake_host, tmp_path: Path):
    """A `cabling.links` length reaches the host script of that rail only; with the NIC Configuration Operator
    owning the NICs (kubernetes.nic_config, the default inventory) the host script leaves cable length and pause
    to its NicConfigurationTemplate (cableLen, pauseFrames) and changes neither."""
    from netauto.pipeline import build_model

    srv = next(s for s in build_model(INVENTORY).servers if s.name == GPU)
    end = f"{srv.rails[1].leaf}:{srv.rails[1].leaf_port}"
    text = _files(_host_owned(tmp_path, f"cabling:\n  links:\n    {end}: 30\n"), GPU)[SCRIPT]
    assert "\n0 rail0 mlx5_0 0000:18:00.0 - 100\n1 rail1 mlx5_3 0000:40:00.0 - 30\n" in text, text[:3000]
    assert "PORT_BUFFER_OWNER=host" in text
    script, root, env = fake_host  # the default inventory: the operator owns them
    _nic(root, "rail0", "mlx5_0", "0000:18:00.0")
    r = _run(script, env, "rail0")
    assert "PORT_BUFFER_OWNER=nic-configuration-operator" in script.read_text()
    assert "rail0: info: cable length and global pause owned by the NIC Configuration Operator" in r.stdout, r.stdout
    assert not (root / "mlnx_qos/rail0.cable").exists() and not (root / "ethtool").exists()


def test_nccl_socket_on_the_frontend_bond_not_a_rail():
    """Issue 34: NCCL's bootstrap and socket traffic (NCCL_SOCKET_IFNAME) belongs on the frontend network; where a
    server has a frontend bond (examples/cluster-64: fe0 + fe1 in bond0) it is the bond, not rail0. A profile's
    own socket_ifname still wins; without a frontend network the first rail stays the default."""
    from conftest import EXAMPLES

    from netauto.pipeline import build_cluster

    cluster = build_cluster(EXAMPLES / "cluster-64" / "inventory")
    fe = next(p for p in cluster.networks if p.role == "frontend")
    bonded = {s.name: s.bond.name for s in fe.fabric.servers if s.bond is not None}
    assert bonded
    for srv in cluster.compute.servers:
        if srv.name in bonded and srv.nccl is not None:
            assert srv.nccl.socket_ifname == bonded[srv.name], (srv.name, srv.nccl.socket_ifname)
    plain = build_cluster(INVENTORY).compute.servers[0]
    assert plain.nccl is not None and plain.nccl.socket_ifname == plain.rails[0].nic
