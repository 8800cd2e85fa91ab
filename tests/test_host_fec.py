"""FEC of server-facing ports matches the NIC, per network and speed: the NIC's FEC at the host link speed
(platforms/data/nics.yaml fec_by_speed, IEEE PMD facts) unless the network sets its own; fabric links keep
fabric.fec. Before, fabric.fec (rs) was forced onto every port, the frontend's 25G server ports included."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import EXAMPLES

from netauto.pipeline import build_cluster
from netauto.platforms.nics import host_fec


def _fecs(inv: Path) -> dict[str, dict[str, set]]:
    out: dict[str, dict[str, set]] = {}
    for net, fab in build_cluster(inv).fabrics():
        for sw in fab.switches:
            for iface in sw.interfaces:
                out.setdefault(net, {}).setdefault(iface.kind, set()).add((iface.speed, iface.fec))
    return out


def test_a_network_sets_the_fec_of_its_server_ports_and_the_fabric_links_keep_theirs(tmp_path):
    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLES / "cluster-64" / "inventory", inv)
    networks = inv / "networks.yaml"
    networks.write_text(networks.read_text().replace("    mtu: 1500\n", "    mtu: 1500\n    server_fec: none\n", 1))
    fecs = _fecs(inv)
    assert fecs["frontend"]["host"] == {("25G", "none")}  # a 25G DAC frontend: no FEC, as its NICs run
    assert fecs["frontend"]["fabric"] == {("100G", "rs")}
    assert fecs["compute"]["host"] == {("400G", "rs")}


def test_by_default_server_ports_run_the_nics_fec_at_their_speed():
    assert (host_fec("25G"), host_fec("400G"), host_fec("10G")) == ("rs", "rs", "none")
    fecs = _fecs(EXAMPLES / "cluster-64" / "inventory")
    assert fecs["frontend"]["host"] == {("25G", "rs")} and fecs["storage"]["host"] == {("200G", "rs")}
