"""ansible_compat/playbooks/sonic_switches.yml against the SONiC switches of a real lab (the mixed example):
check mode reports a hand edit with its diff and changes nothing, a real run puts the switch back to intent
(through `netauto deploy`), a second run changes nothing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT
from test_deploy_lab import _changed, _node_dir, _snapshot, start_lab

pytestmark = pytest.mark.lab

MIXED = EXAMPLES / "mixed-sonic" / "inventory"
DB = "etc/sonic/config_db.json"
LEAF = "su1-r2-leaf"


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    if not shutil.which("ansible-playbook", path=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]):
        pytest.fail("ansible-playbook missing: pip install -e '.[test]'")
    return start_lab(request, tmp_path_factory, MIXED, "fas", "Ansible SONiC lab tests")


def _playbook(lab: dict, *args: str) -> tuple[subprocess.CompletedProcess, dict[str, int]]:
    hosts = lab["tmp"] / "hosts.yml"
    if not hosts.exists():
        export = subprocess.run([sys.executable, "-m", "netauto", "export", "ansible", "-i", str(MIXED), "-o",
                                 str(hosts)], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert export.returncode == 0, export.stderr
    bindir = Path(sys.executable).parent
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible_compat" / "ansible.cfg"),
           "PYTHONPATH": str(ROOT / "src"), "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
           "ANSIBLE_NOCOLOR": "1"}
    proc = subprocess.run(
        [str(bindir / "ansible-playbook"), "-i", str(hosts), str(ROOT / "ansible_compat" / "playbooks" /
                                                                 "sonic_switches.yml"),
         "--limit", LEAF, "-e", f"netauto_lab={lab['name']}", "-e", f"netauto_command={bindir / 'netauto'}",
         "-e", f"netauto_results_dir={lab['tmp'] / 'results'}", *args],
        capture_output=True, text=True, cwd=ROOT / "ansible_compat", env=env, timeout=600)
    recap = re.search(rf"^{re.escape(LEAF)}\s*:\s*(.*)$", proc.stdout, re.MULTILINE)
    counts = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", recap.group(1))} if recap else {}
    return proc, counts


def test_check_mode_diff_real_run_and_idempotence(lab):
    path = _node_dir(lab, LEAF) / DB
    intent = path.read_bytes()
    data = json.loads(intent)
    data["PORT"]["Ethernet0"]["mtu"] = "9100"  # a hand edit on the switch
    path.write_text(json.dumps(data, sort_keys=True, indent=4) + "\n")
    before = _snapshot(lab)

    proc, counts = _playbook(lab, "--check", "--diff")
    assert counts.get("changed") == 1 and counts.get("failed") == 0, proc.stdout + proc.stderr
    assert '-            \\"mtu\\": \\"9100\\",' in proc.stdout or '"mtu": "9100"' in proc.stdout, proc.stdout
    assert _changed(before, _snapshot(lab)) == {}, "check mode changed a device"

    proc, counts = _playbook(lab)
    assert counts.get("changed") == 1 and counts.get("failed") == 0, proc.stdout + proc.stderr
    assert json.loads(path.read_text())["PORT"]["Ethernet0"]["mtu"] == "9216"
    assert set(_changed(before, _snapshot(lab))) == {LEAF}

    proc, counts = _playbook(lab)
    assert counts.get("changed") == 0 and counts.get("failed") == 0, proc.stdout + proc.stderr
