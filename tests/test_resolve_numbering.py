"""Formula-based numbering (issue #16): every number of a device is a pure function of its identity.

The numbering functions are checked on input/expected tables; then, on the shipped fabrics and a small
three-tier fabric, each device's numbers computed alone must equal the full resolve, and building the
switches in reverse order must give the same switches (a running counter, as the resolver had for management
addresses, fails both).
"""

from __future__ import annotations

import dataclasses
import importlib
import ipaddress
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import ROOT, shipped_inventories

from netauto.inventory.loader import LoadedInventory, load_inventory
from netauto.model import addressing, ipam, numbering
from netauto.model.resolve import resolve
from netauto.model.networks import resolve_cluster
from netauto.model.topology import Counts, SwitchId, leaf_id, spine_id, super_spine_id, switch_ids
from netauto.model.types import FabricModel, Switch

resolve_module = importlib.import_module("netauto.model.compute")  # the module that builds the compute fabric
SMALL = [p for p in shipped_inventories() if "10k" not in str(p)]
IDS = [p.parent.name if p.parent != ROOT else p.name for p in SMALL]
TEN_K = ROOT / "examples" / "10k-3tier" / "inventory"


# ---------------------------------------------------------------- the formulas, by table
@pytest.mark.parametrize(("su", "per_pod", "pod"), [(1, 4, 1), (4, 4, 1), (5, 4, 2), (32, 4, 8), (3, 1, 3)])
def test_pod_of_su(su: int, per_pod: int, pod: int) -> None:
    assert numbering.pod_of_su(su, per_pod) == pod


@pytest.mark.parametrize(("su", "rail", "rails", "number"), [(1, 0, 8, 1), (1, 7, 8, 8), (2, 0, 8, 9), (3, 1, 2, 6)])
def test_leaf_number(su: int, rail: int, rails: int, number: int) -> None:
    assert numbering.leaf_number(su, rail, rails) == number


@pytest.mark.parametrize(("su", "rail", "per_pod", "rails", "offset"),
                         [(1, 0, 4, 8, 0), (4, 7, 4, 8, 31), (5, 0, 4, 8, 0), (6, 3, 4, 8, 11)])
def test_pod_leaf_offset(su: int, rail: int, per_pod: int, rails: int, offset: int) -> None:
    assert numbering.pod_leaf_offset(su, rail, per_pod, rails) == offset


@pytest.mark.parametrize(("fn", "args", "expected"), [
    (numbering.spine_number, (1, 1, 32), 1), (numbering.spine_number, (2, 3, 32), 35),
    (numbering.super_spine_number, (1, 4, 4), 4), (numbering.super_spine_number, (3, 1, 4), 9),
    (numbering.server_offset, (1, 1, 32), 0), (numbering.server_offset, (2, 5, 32), 36),
    (numbering.group_slot, (0, 16), (1, 1)), (numbering.group_slot, (17, 16), (2, 2)),
    (numbering.firsts, ([3, 0, 2, 5],), [0, 3, 3, 5]), (numbering.firsts, ([],), []),
    (numbering.port_offset, (0, 0, 1), 0), (numbering.port_offset, (3, 1, 2), 7),
    (numbering.leaf_asn, (4200000000, 1), 4200000000), (numbering.leaf_asn, (65100, 9), 65108),
    (numbering.spine_asn, (65000, 3), 65002),
    (numbering.loopback, (0x0A000000, 1), 0x0A000001),
    (numbering.mgmt_host, (0xC0A80000, 0), 0xC0A8000A), (numbering.top_host, (0xC0A80000, 256, 0), 0xC0A800FE),
    (numbering.default_gateway, (0xC0A80000,), 0xC0A80001),
    (numbering.p2p_gateway, (100, 1), 100), (numbering.p2p_gateway, (100, 3), 104),
    (numbering.shared_gateway, (100,), 101), (numbering.shared_host, (100, 1), 102),
    (numbering.rail_table, (100, 0), 101), (numbering.rail_rule_priority, (1000, 7), 1008),
])
def test_formula_table(fn, args, expected) -> None:  # noqa: ANN001
    assert fn(*args) == expected


def test_switch_mgmt_offset_tiers_in_order() -> None:
    """The switch pool numbers super-spines, then spines, then leaves (the goldens' management addresses)."""
    kw = {"spines": 8, "super_spines": 16}
    assert numbering.switch_mgmt_offset("super_spine", 1, **kw) == 0
    assert numbering.switch_mgmt_offset("super_spine", 16, **kw) == 15
    assert numbering.switch_mgmt_offset("spine", 1, **kw) == 16
    assert numbering.switch_mgmt_offset("leaf", 1, **kw) == 24
    assert numbering.switch_mgmt_offset("leaf", 3, spines=2, super_spines=0) == 4
    with pytest.raises(ValueError, match="no switch role"):
        numbering.switch_mgmt_offset("server", 1, **kw)


# ---------------------------------------------------------------- fabrics
def three_tier() -> LoadedInventory:
    """The 10k example cut to 2 pods of 1 SU and 4 spines per pod: 16 leaves, 8 spines, 16 super-spines."""
    loaded = load_inventory(TEN_K)
    inv = loaded.inventory
    topo = inv.topology.model_copy(update={"pods": 2, "sus_per_pod": 1, "spines_per_pod": 4})
    return dataclasses.replace(loaded, inventory=inv.model_copy(update={"topology": topo}))


@lru_cache(maxsize=None)
def loaded_of(key: str) -> LoadedInventory:
    return three_tier() if key == "three-tier" else load_inventory(Path(key))


@lru_cache(maxsize=None)
def model_of(key: str) -> FabricModel:
    return resolve(loaded_of(key))


FABRICS = [str(p) for p in SMALL] + ["three-tier"]
FABRIC_IDS = IDS + ["three-tier"]


def identity(n: Counts, sw: Switch) -> SwitchId:
    """The switch's identity read back from the model record, then rebuilt from the identity alone."""
    if sw.role == "leaf":
        assert sw.su is not None and sw.rail is not None
        return leaf_id(n, sw.su, sw.rail)
    if sw.role == "spine":
        return spine_id(n, sw.pod, sw.index)
    assert sw.group is not None
    return super_spine_id(n, sw.group, sw.index)


def test_three_tier_fabric_has_every_tier() -> None:
    roles = {sw.role for sw in model_of("three-tier").switches}
    assert roles == {"leaf", "spine", "super_spine"}


@pytest.mark.parametrize("key", FABRICS, ids=FABRIC_IDS)
def test_each_switch_alone_matches_the_full_resolve(key: str) -> None:
    inv = loaded_of(key).inventory
    n = Counts.of(inv)
    model = model_of(key)
    for sw in model.switches:
        ident = identity(n, sw)
        assert addressing.switch_mgmt(inv, n, ident, sw.name) == (sw.mgmt_address, sw.mgmt_gateway), sw.name
        assert f"{addressing.switch_loopback(inv, ident)}/32" == sw.loopback, sw.name
        assert addressing.switch_asn(inv, ident) == sw.bgp.asn, sw.name


@pytest.mark.parametrize("key", FABRICS, ids=FABRIC_IDS)
def test_each_server_alone_matches_the_full_resolve(key: str) -> None:
    inv = loaded_of(key).inventory
    n = Counts.of(inv)
    for srv in model_of(key).servers:
        assert addressing.server_mgmt(inv, n, srv.su, srv.index, srv.name) == (srv.mgmt_address, srv.mgmt_gateway)
        for rail in srv.rails:
            block = addressing.leaf_block(inv, srv.su, rail.index)
            if inv.addressing.host_links.mode == "p2p":
                gw = numbering.p2p_gateway(block, srv.index)
                assert (rail.gateway, rail.ip) == (ipam.ip_str(gw), ipam.ip_str(gw + 1)), srv.name
            else:
                assert rail.ip == ipam.ip_str(numbering.shared_host(block, srv.index)), srv.name
            assert rail.table == numbering.rail_table(inv.servers.table_base, rail.index)


def reversed_ids(n: Counts) -> Iterator[SwitchId]:
    yield from reversed(list(switch_ids(n)))


@pytest.mark.parametrize("key", ["three-tier", str(ROOT / "examples" / "mixed-sonic" / "inventory")],
                         ids=["three-tier", "mixed-sonic"])
def test_switches_built_in_reverse_order_are_the_same(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Build order is free: the same switch records (addresses, ASNs, ports, sessions) either way."""
    forward = {sw.name: sw for sw in model_of(key).switches}
    monkeypatch.setattr(resolve_module, "switch_ids", reversed_ids)
    backward = resolve(loaded_of(key))
    assert [sw.name for sw in backward.switches] == list(reversed(forward))  # the patch took effect
    for sw in backward.switches:
        assert sw == forward[sw.name], sw.name
    assert backward.servers == model_of(key).servers
    assert backward.links == model_of(key).links


def test_management_addresses_of_the_goldens_spec() -> None:
    """The goldens are the spec: gpu-pod1 (the default inventory, switch pool 192.168.200.0/24) has spine1 at
    .10 and su1-r0-leaf at .14 (golden_configs/gpu-pod1/*/etc/network/interfaces), computed alone."""
    inv = loaded_of(str(ROOT / "inventory")).inventory
    n = Counts.of(inv)
    assert addressing.switch_mgmt(inv, n, spine_id(n, 1, 1), "spine1") == ("192.168.200.10/24", "192.168.200.1")
    assert addressing.switch_mgmt(inv, n, leaf_id(n, 1, 0), "su1-r0-leaf") == ("192.168.200.14/24", "192.168.200.1")
    golden = (ROOT / "golden_configs" / "gpu-pod1" / "su1-r0-leaf" / "etc" / "network" / "interfaces").read_text()
    assert "address 192.168.200.14/24" in golden


def test_three_tier_management_order() -> None:
    """Three tiers: super-spines take the first addresses of the switch pool, then spines, then leaves."""
    tt = model_of("three-tier")
    hosts: dict[str, list[int]] = {"super_spine": [], "spine": [], "leaf": []}
    for sw in tt.switches:
        hosts[sw.role].append(int(ipaddress.IPv4Interface(sw.mgmt_address).ip) & 0xFF)
    assert sorted(hosts["super_spine"]) == list(range(10, 26))
    assert sorted(hosts["spine"]) == list(range(26, 34))
    assert sorted(hosts["leaf"]) == list(range(34, 50))


def test_networks_resolve_through_the_split_resolver() -> None:
    """The storage/frontend networks still resolve on the same steps (their switches numbered the same way)."""
    inv = ROOT / "examples" / "cluster-64" / "inventory"
    loaded = load_inventory(inv)
    cluster = resolve_cluster(loaded, resolve(loaded))
    assert cluster.networks
    for network in cluster.networks:
        mgmt = [sw.mgmt_address for sw in network.fabric.switches]
        assert len(set(mgmt)) == len(mgmt), network.name
