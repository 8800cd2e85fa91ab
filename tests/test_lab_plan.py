"""netauto lab, the parts that need no root: lab variants of rendered files and the lab plan."""

from __future__ import annotations

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.errors import NetautoError
from netauto.lab import adapt
from netauto.lab.check import _recompute
from netauto.lab.plan import build_plan, check_name
from netauto.pipeline import render


@pytest.fixture(scope="module")
def plan():
    model, artifacts = render(DEFAULT_INVENTORY)
    return model, artifacts, build_plan(model, artifacts, "unit")


def test_links_follow_the_cabling(plan):
    model, _, p = plan
    assert len(p.links) == len(model.links)
    ends = {(l.a_ns, l.a_port) for l in p.links} | {(l.b_ns, l.b_port) for l in p.links}
    assert len(ends) == 2 * len(model.links)  # every port used once
    for link, veth in zip(model.links, p.links):
        assert veth.a_ns == f"na-unit-{link.a_device}" and veth.a_port == link.a_port
        assert veth.b_ns == f"na-unit-{link.b_device}" and veth.b_port == link.b_port


def test_frr_conf_is_the_rendered_file_unmodified(plan):
    _, artifacts, p = plan
    for a in artifacts:
        if a.path == "etc/frr/frr.conf":
            assert p.nodes[a.device].files["etc/frr/frr.conf"] == a.content


def test_interfaces_lab_variant_drops_mgmt_vrf_only(plan):
    _, artifacts, p = plan
    text = p.nodes["su1-r0-leaf"].files["etc/network/interfaces"]
    assert "vrf-table" not in text and "vrf mgmt" not in text and "gateway" not in text
    assert "auto mgmt" not in text
    rendered = next(a.content for a in artifacts if a.device == "su1-r0-leaf" and a.path == "etc/network/interfaces")
    for line in rendered.splitlines():
        if line.strip() and not any(k in line for k in ("vrf", "gateway", "mgmt", "127.0.0.1/8", "::1/128")):
            assert line in text
    assert any("dropped VRF stanza 'mgmt'" in n for n in p.notes)


def test_expectations(plan):
    model, _, p = plan
    assert len(p.sessions) == sum(len(s.bgp.neighbors) for s in model.switches) == 128
    # 4 spines x 2 links: every other leaf's loopback and /24 aggregate over 8 paths
    assert set(p.ecmp) == {s.name for s in model.switches if s.role == "leaf"}
    for prefixes in p.ecmp.values():
        assert len(prefixes) == 14 and set(prefixes.values()) == {8}
    drained = _recompute(p.to_state(), {"spine1"})
    assert all(set(v.values()) == {6} for v in drained.values())
    assert {x.via for x in p.pings} == {"leaf", "spine"} and len(p.pings) == 128


def test_server_subset_keeps_leaf_ports_on_stubs():
    model, artifacts = render(DEFAULT_INVENTORY)
    p = build_plan(model, artifacts, "unit", servers_per_su=1)
    assert sum(1 for n in p.nodes.values() if n.kind == "server") == 1
    assert len(p.stub_links) == 7 * 8 and all(l.b_ns == "na-unit-void" for l in p.stub_links)
    assert len(p.links) + len(p.stub_links) == len(model.links)


def test_netplan_applied_with_ip(plan):
    _, _, p = plan
    batch = p.nodes["gpu01"].ip_batch
    assert "addr add 10.0.0.1/31 dev rail0" in batch
    assert "route add 10.0.0.0/12 via 10.0.0.0 dev rail0 table 101 proto static" in batch
    assert "rule add from 10.0.0.1/32 lookup 101 priority 1001 proto static" in batch
    assert "link set dev rail0 addrgenmode none" in batch  # link-local: []


def test_leaf_subnet_bridge_becomes_plain():
    inv = EXAMPLES / "2su-leaf-subnet" / "inventory"
    model, artifacts = render(inv)
    p = build_plan(model, artifacts, "unit")
    leaf = next(s for s in model.switches if s.role == "leaf")
    text = p.nodes[leaf.name].files["etc/network/interfaces"]
    assert "bridge-vlan-aware" not in text and "bridge-access" not in text and "vlan-raw-device" not in text
    stanza = text.split("iface br_default", 1)[1].split("\n\n", 1)[0]
    assert "bridge-ports" in stanza and leaf.svi.address in stanza
    assert "bridge-stp no" in stanza and "mstpctl-" not in text  # no mstpd: edge ports/BPDU guard not emulated
    assert any("folded into plain bridge" in n for n in p.notes)


def test_sonic_config_db():
    db = '{"PORT": {"Ethernet0": {"admin_status": "up", "mtu": "9100"}}, "INTERFACE": {"Ethernet0": {}, ' \
         '"Ethernet0|10.0.0.0/31": {}}, "LOOPBACK_INTERFACE": {"Loopback0|10.1.0.1/32": {}}}'
    cmds, notes = adapt.sonic_config_db_batch(db)
    assert cmds == ["link set dev Ethernet0 mtu 9100", "link set dev Ethernet0 up", "addr add 10.0.0.0/31 dev Ethernet0",
                    "addr add 10.1.0.1/32 dev lo", "link set dev lo up"]
    assert notes


def test_lab_names():
    assert check_name("ci_1") == "ci_1"
    for bad in ("", "a-b", "x" * 21, "../x"):
        with pytest.raises(NetautoError):
            check_name(bad)


def test_sonic_switches_run_their_rendered_frr(tmp_path):
    import shutil

    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    fabric = inv / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("    default: cumulus", "    default: cumulus\n    leaf: sonic", 1))
    features = inv / "features.yaml"  # AR must be uniform, and netauto renders none for SONiC
    features.write_text(features.read_text().replace("adaptive_routing: true", "adaptive_routing: false", 1))
    model, artifacts = render(inv)
    leaf = next(s for s in model.switches if s.role == "leaf")
    assert leaf.nos == "sonic"
    p = build_plan(model, artifacts, "unit")
    rendered = next(a.content for a in artifacts if a.device == leaf.name and a.path == "etc/sonic/frr/frr.conf")
    node = p.nodes[leaf.name]
    # SONiC's layout: FRR's files under /etc/sonic/frr (mounted as /etc/frr), config_db.json installed, inert
    assert node.frr_dir == "etc/sonic/frr" and node.files["etc/sonic/frr/frr.conf"] == rendered
    assert "etc/frr/frr.conf" not in node.files and "etc/network/interfaces" not in node.files
    assert node.inert == ["etc/sonic/config_db.json"] and "etc/sonic/config_db.json" in node.files
    port = leaf.fabric_ports[0]
    assert f"link set dev {port.name} up" in node.ip_batch
    assert any(v.a_port == port.name or v.b_port == port.name for v in p.links)


def test_preflight_explains_missing_root_and_tools(monkeypatch):
    from netauto.lab import preflight as host

    monkeypatch.setattr(host.os, "geteuid", lambda: 1000)
    pf = host.preflight()
    assert not pf.ok and "root" in pf.problems[0]
    monkeypatch.setattr(host.os, "geteuid", lambda: 0)
    monkeypatch.setattr(host.shutil, "which", lambda name: "/sbin/ip" if name == "ip" else None)
    monkeypatch.setattr(host, "probe_kernel", lambda: {"veth": True, "bridge": True, "ipv6": True})
    pf = host.preflight(ssh=True)
    text = " ".join(pf.problems)
    assert "apt-get install -y" in text and "iputils-ping" in text and "openssh-client" in text
    assert any("vrf" in i for i in pf.info)


def test_tenant_vrf_of_a_port_stays_in_the_lab_file_as_a_comment():
    """No VRF devices in the lab, so a tenant port's `vrf <tenant>` cannot be applied; it stays in the lab's
    interfaces file as a comment ifupdown2 ignores, so a move between tenants is a diff against the lab device
    (before: the line was dropped and `deploy --dry-run --lab` saw no change at all). mgmt is still dropped."""
    model, artifacts = render(EXAMPLES / "gpu-cloud-tenants" / "inventory")
    text = build_plan(model, artifacts, "unit").nodes["r0-leaf"].files["etc/network/interfaces"]
    stanza = text.split("iface swp1s1\n", 1)[1].split("\n\n", 1)[0]
    assert "    # vrf acme (lab: no vrf devices; the tenant's VRF is not applied)" in stanza.splitlines()
    assert not any(l.split()[:1] == ["vrf"] for l in text.splitlines())
    assert "vrf mgmt" not in text and "iface acme" not in text
