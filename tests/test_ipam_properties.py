"""Property tests of addressing and port numbering on random fabric shapes (rule IP-01 and "a port is
used once"): two tiers and three tiers, p2p and leaf-subnet host links."""

from __future__ import annotations

import ipaddress
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netauto.model.types import FabricModel
from netauto.pipeline import build_model


@st.composite
def fabrics(draw) -> dict:
    rails = draw(st.integers(1, 8))
    three_tier = draw(st.booleans())
    pods = draw(st.integers(1, 3)) if three_tier else 1
    sus_per_pod = draw(st.integers(1, 3))
    spines = draw(st.integers(1, 8))
    links = draw(st.integers(1, 4))
    topology = {
        "rails": rails,
        "servers_per_su": draw(st.integers(1, 64)),
        "sus_per_pod": sus_per_pod,
        "pods": pods,
        "spines_per_pod": spines,
        "leaf_spine_links": links,
        "super_spines_per_group": draw(st.integers(1, 4)) if three_tier else 0,
        "spine_super_spine_links": draw(st.integers(1, 2)),
    }
    return {
        "fabric": {"name": "prop", "cumulus_release": draw(st.sampled_from(["5.14", "5.15"]))},
        "topology": topology,
        # real SN5600 cages (64 x 8 lanes); 400G links are 2x breakouts (platforms.hardware), so a leaf holds
        # 64 down + 32 up and a spine 96 down (3 SUs x 8 rails x 4 links) + 8 up
        "ports": {
            "leaf": {"cages": 64, "downlinks": {"first": 1}, "uplinks": {"first": 33}},
            "spine": {"cages": 64, "downlinks": {"first": 1}, "uplinks": {"first": 49}},
            "super_spine": {"cages": 64, "downlinks": {"first": 1}},
        },
        "servers": {"nics": [f"rail{i}" for i in range(rails)], "rdma_devices": [f"mlx5_{i}" for i in range(rails)]},
        "addressing": {
            "host_links": {"mode": draw(st.sampled_from(["p2p", "leaf-subnet"])), "pool": "10.0.0.0/12",
                           "rail_prefix_len": 16, "leaf_prefix_len": 24},
            "management": {"switch_pool": "192.168.200.0/24", "server_pool": "192.168.208.0/20"},
        },
        "asns": {"leaf_base": 65200, "spine_base": 65100, "super_spine": 65000},
    }


def build(inventory: dict) -> FabricModel:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fabric.yaml"
        path.write_text(yaml.safe_dump(inventory, sort_keys=False))
        return build_model(Path(tmp))


def allocations(model: FabricModel) -> list[tuple[ipaddress.IPv4Network, str]]:
    """Every allocated block: host-link subnets once each, every other owned address as a /32."""
    out: list[tuple[ipaddress.IPv4Network, str]] = []
    subnets: set[str] = set()
    for sw in model.switches:
        out.append((ipaddress.ip_network(sw.loopback), f"{sw.name} lo"))
        out.append((ipaddress.ip_network(sw.mgmt_address.split("/")[0] + "/32"), f"{sw.name} mgmt"))
        for iface in sw.interfaces:
            if iface.address:
                subnets.add(str(ipaddress.ip_interface(iface.address).network))
        if sw.svi:
            subnets.add(str(ipaddress.ip_interface(sw.svi.address).network))
    for server in model.servers:
        out.append((ipaddress.ip_network(server.mgmt_address.split("/")[0] + "/32"), f"{server.name} mgmt"))
        for rail in server.rails:
            subnets.add(rail.subnet)
    out += [(ipaddress.ip_network(s), "host subnet") for s in sorted(subnets)]
    return out


def assert_no_overlap(blocks: list[tuple[ipaddress.IPv4Network, str]]) -> None:
    ordered = sorted(blocks, key=lambda b: (int(b[0].network_address), -b[0].prefixlen))
    for (a, an), (b, bn) in zip(ordered, ordered[1:]):
        assert int(a.broadcast_address) < int(b.network_address), f"{an} {a} overlaps {bn} {b}"


def check_addressing(model: FabricModel) -> None:
    assert_no_overlap(allocations(model))
    supernets = [ipaddress.ip_network(s) for s in model.rail_supernets]
    assert_no_overlap([(s, f"rail {i}") for i, s in enumerate(supernets)])
    pool = ipaddress.ip_network(model.host_pool)
    ips = Counter()
    for server in model.servers:
        for rail in server.rails:
            subnet = ipaddress.ip_network(rail.subnet)
            assert subnet.subnet_of(supernets[rail.index]) and subnet.subnet_of(pool)
            ips[rail.ip] += 1
    for sw in model.switches:
        assert not ipaddress.ip_network(sw.loopback).subnet_of(pool)
        for iface in sw.interfaces:
            if iface.address:
                ips[iface.address.split("/")[0]] += 1
        if sw.svi:
            ips[sw.svi.address.split("/")[0]] += 1
    assert max(ips.values(), default=1) == 1, [a for a, n in ips.items() if n > 1][:5]


def check_p2p(model: FabricModel) -> None:
    """Every /31 has exactly two endpoints: the leaf on the even address, the NIC on the odd one."""
    ends: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for sw in model.switches:
        for iface in sw.interfaces:
            if iface.address:
                addr = ipaddress.ip_interface(iface.address)
                assert addr.network.prefixlen == 31
                ends[str(addr.network)].append(("leaf", int(addr.ip)))
    for server in model.servers:
        for rail in server.rails:
            addr = ipaddress.ip_interface(rail.address)
            assert addr.network.prefixlen == 31
            ends[str(addr.network)].append(("nic", int(addr.ip)))
            assert rail.gateway == str(addr.network.network_address)
    assert ends
    for net, members in ends.items():
        assert sorted(members) == [("leaf", int(ipaddress.ip_network(net).network_address)),
                                   ("nic", int(ipaddress.ip_network(net).network_address) + 1)], (net, members)


def check_ports(model: FabricModel) -> None:
    for sw in model.switches:
        names = [i.name for i in sw.interfaces]
        assert len(names) == len(set(names)), f"{sw.name}: port used twice"
        plain = {n for n in names if "s" not in n[3:]}
        parents = {i.breakout_parent for i in sw.interfaces if i.breakout_parent}
        assert not plain & parents, f"{sw.name}: a cage used both whole and broken out: {sorted(plain & parents)}"
    ends = Counter()
    for link in model.links:
        ends[(link.a_device, link.a_port)] += 1
        ends[(link.b_device, link.b_port)] += 1
    assert max(ends.values()) == 1, [k for k, v in ends.items() if v > 1][:5]
    for sw in model.switches:
        assert {(sw.name, i.name) for i in sw.interfaces} <= set(ends) | {
            (sw.name, i.name) for i in sw.interfaces if i.peer_device is None}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_random_fabrics_allocate_disjoint_addresses_and_ports(inventory):
    model = build(inventory)
    t = inventory["topology"]
    sus = t["pods"] * t["sus_per_pod"]
    assert len(model.servers) == sus * t["servers_per_su"]
    assert sum(sw.role == "leaf" for sw in model.switches) == sus * t["rails"]
    check_addressing(model)
    if inventory["addressing"]["host_links"]["mode"] == "p2p":
        check_p2p(model)
    else:
        assert all(sw.svi for sw in model.switches if sw.role == "leaf")
    check_ports(model)
    assert build(inventory) == model, "same inventory, different model"
