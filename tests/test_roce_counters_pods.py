"""What a pod hides from the host, read by the rendered netauto-roce-counters.sh on a sysfs-shaped tree:

- SR-IOV VFs (attach: vf) keep the pods' queue-pair errors (out_of_sequence, packet_seq_err) on their own RDMA
  devices: the script reads them through the PF's virtfn links, labelled with the PF's port and the VF;
- attach: pf moves the NIC out of the host's namespace while a pod holds it: its counters stop, and the textfile
  says so (netauto_rail_nic_in_host 0) instead of going silent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from netauto.pipeline import render
from netauto.platforms import host, telemetry

INVENTORY = Path(__file__).resolve().parents[1] / "inventory"


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_vf_counters_and_nics_held_by_a_pod(tmp_path):
    model, artifacts = render(INVENTORY)
    srv = model.servers[0]
    script = next(a for a in artifacts if a.device == srv.name and a.path == host.ROCE_COUNTERS)
    (tmp_path / "run.sh").write_text(script.content)
    sys_ = tmp_path / "sys"
    held, home = srv.rails[0], srv.rails[1]  # rail 0's NIC is in a pod, rail 1's in the host with 2 VFs
    (sys_ / "class/net" / home.nic).mkdir(parents=True)
    pf = sys_ / "bus/pci/devices" / (home.pci or "0000:40:00.0")
    (sys_ / "class/infiniband" / home.rdma_device / "ports/1/hw_counters").mkdir(parents=True)
    (sys_ / "class/infiniband" / home.rdma_device / "device").symlink_to(pf)
    for n, vfdev in ((0, "mlx5_12"), (1, "mlx5_13")):
        hw = pf / f"virtfn{n}" / "infiniband" / vfdev / "ports/1/hw_counters"
        hw.mkdir(parents=True)
        (hw / "out_of_sequence").write_text(f"{n + 3}\n")
        (hw / "packet_seq_err").write_text("7\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "ethtool").write_text("#!/bin/sh\nexit 1\n")
    (bindir / "ethtool").chmod(0o755)
    out = tmp_path / "textfile"
    out.mkdir()
    env = {**os.environ, "NETAUTO_SYSFS": str(sys_), "NETAUTO_TEXTFILE_DIR": str(out), "PATH": f"{bindir}:/usr/bin:/bin"}
    subprocess.run(["sh", str(tmp_path / "run.sh")], env=env, check=True, timeout=30)
    text = (out / "netauto-roce.prom").read_text()
    assert f'{telemetry.RAIL_NIC_IN_HOST}{{port="{held.nic}"}} 0' in text
    assert f'{telemetry.RAIL_NIC_IN_HOST}{{port="{home.nic}"}} 1' in text
    assert (f'{telemetry.RDMA_VF_HW_COUNTER}{{port="{home.nic}",vf="virtfn1",rdma_device="mlx5_13",ib_port="1",'
            'counter="out_of_sequence"} 4') in text
    assert text.count(f"{telemetry.RDMA_VF_HW_COUNTER}{{") == 4
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
