"""SONiC everywhere: `fabric.nos.default: sonic` sets the NOS of every switch of every network (the compute
fabric, storage, frontend) unless a network or device says otherwise; the OOB switches, which netauto renders for
Cumulus only, are named when the inventory does not say so; verify's expected port names follow the NOS."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES

from netauto.errors import NetautoError
from netauto.pipeline import build_cluster
from netauto.verify.expect import build_intents


def _sonic_everywhere(tmp_path: Path, oob_nos: bool = True) -> Path:
    """examples/cluster-64 as a SONiC-only shop writes it: the fabric's default sonic, no `nos:` per network."""
    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLES / "cluster-64" / "inventory", inv)
    fabric = inv / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("nos: {default: cumulus}", "nos: {default: sonic}"))
    features = inv / "features.yaml"
    features.write_text(re.sub(r"adaptive_routing: true", "adaptive_routing: false", features.read_text()))
    networks = inv / "networks.yaml"
    text = re.sub(r"\n    nos: cumulus", "", networks.read_text())
    networks.write_text(text.replace("\noob:\n", "\noob:\n  nos: cumulus\n") if oob_nos else text)
    return inv


def test_every_network_inherits_the_fabrics_sonic_and_verify_expects_sonic_ports(tmp_path):
    cluster = build_cluster(_sonic_everywhere(tmp_path))
    networks = cluster.fabrics()
    assert {net for net, _ in networks} >= {"compute", "storage", "frontend"}
    for net, fab in networks:
        assert {sw.nos for sw in fab.switches} == {"sonic"}, net  # storage/frontend no longer stay Cumulus
    for intent in build_intents(networks):
        switches = {sw.name for sw in intent.model.switches}
        ports = {p for dev, cabled in intent.cabling.items() if dev in switches for p in cabled}
        assert ports and all(p.startswith(("Ethernet", "PortChannel")) for p in ports), (intent.network, ports)


def test_oob_switches_in_a_sonic_everywhere_inventory_are_named(tmp_path):
    with pytest.raises(NetautoError, match=r"fabric.nos.default is sonic, but the OOB switches \(oob-agg1, "
                                           r"oob-agg2, .*rendered for Cumulus only.*oob.nos: cumulus"):
        build_cluster(_sonic_everywhere(tmp_path, oob_nos=False))


def test_a_network_may_still_say_cumulus(tmp_path):
    inv = _sonic_everywhere(tmp_path)
    networks = inv / "networks.yaml"
    networks.write_text(networks.read_text().replace("    role: storage\n", "    role: storage\n    nos: cumulus\n", 1))
    nos = {net: {sw.nos for sw in fab.switches} for net, fab in build_cluster(inv).fabrics()}
    assert nos["storage"] == {"cumulus"} and nos["frontend"] == {"sonic"}
