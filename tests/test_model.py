"""Invariants of the resolved model of every shipped fabric (domain.md section 5: BGP-01..03, IP-01,
TOPO-01, TOPO-04) and determinism of the whole inventory -> artifacts flow."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import subprocess
import sys
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import ROOT, shipped_inventories

from netauto.inventory.loader import load_inventory
from netauto.model.types import FabricModel
from netauto.pipeline import build_model, render

FABRICS = shipped_inventories()
IDS = [p.parent.name if p.parent != ROOT else p.name for p in FABRICS]
RENDER_TWICE_MAX_SWITCHES = 100  # the 10k scale example: model determinism only (rendering it twice is slow)

pytestmark = pytest.mark.parametrize("inv", FABRICS, ids=IDS)


@lru_cache(maxsize=None)
def model_of(inv: Path) -> FabricModel:
    return build_model(inv)


@lru_cache(maxsize=None)
def topology_of(inv: Path):
    return load_inventory(inv).inventory


def ip(value: str) -> str:
    return value.split("/", 1)[0]


@lru_cache(maxsize=None)
def ports_of(inv: Path) -> dict[tuple[str, str], object]:
    return {(sw.name, i.name): i for sw in model_of(inv).switches for i in sw.interfaces}


# ------------------------------------------------------------------ BGP
def test_every_leaf_has_one_unnumbered_neighbour_per_spine_link(inv):
    model, t = model_of(inv), topology_of(inv).topology
    per_leaf = t.spines_per_pod * t.leaf_spine_links
    links = defaultdict(list)
    for link in model.links:
        if link.kind == "leaf-spine":
            links[link.a_device].append(link)
    leaves = [sw for sw in model.switches if sw.role == "leaf"]
    assert leaves
    for leaf in leaves:
        assert len(links[leaf.name]) == per_leaf, f"{leaf.name}: {len(links[leaf.name])} spine links, expected {per_leaf}"
        spines = Counter(link.b_device for link in links[leaf.name])
        assert len(spines) == t.spines_per_pod and set(spines.values()) == {t.leaf_spine_links}, leaf.name
        up = [link for link in links[leaf.name] if link.enabled]
        spine_nbrs = [nb for nb in leaf.bgp.neighbors if nb.peer_group == "SPINE"]
        assert len(spine_nbrs) == len(up), f"{leaf.name}: {len(spine_nbrs)} neighbours for {len(up)} usable links"
        assert sorted((nb.interface, nb.peer_device, nb.peer_port) for nb in spine_nbrs) == sorted(
            (link.a_port, link.b_device, link.b_port) for link in up)
        for nb in leaf.bgp.neighbors:
            iface = ports_of(inv)[(leaf.name, nb.interface)]
            assert iface.kind == "fabric" and iface.enabled and iface.address is None, (leaf.name, nb.interface)
        assert len({nb.interface for nb in leaf.bgp.neighbors}) == len(leaf.bgp.neighbors), leaf.name


def test_only_disabled_ports_remove_a_spine_session(inv):
    """A leaf has fewer sessions than spine links only where an override disables one end of the link."""
    model, overrides = model_of(inv), topology_of(inv).overrides
    disabled = {(po.device, po.port) for po in overrides.ports if po.disabled}
    for link in model.links:
        if link.kind != "server-leaf":
            assert link.enabled == ((link.a_device, link.a_port) not in disabled
                                    and (link.b_device, link.b_port) not in disabled), link


def test_every_neighbour_has_the_mirror_neighbour(inv):
    model, ports = model_of(inv), ports_of(inv)
    sessions = Counter((sw.name, nb.interface) for sw in model.switches for nb in sw.bgp.neighbors)
    assert max(sessions.values(), default=1) == 1, "two sessions on one interface"
    index = {(sw.name, nb.interface): nb for sw in model.switches for nb in sw.bgp.neighbors}
    for sw in model.switches:
        for nb in sw.bgp.neighbors:
            peer = model.switch(nb.peer_device)
            assert nb.peer_asn == peer.bgp.asn, (sw.name, nb)
            m = index.get((peer.name, nb.peer_port))
            assert m is not None, f"{sw.name} {nb.interface} -> {peer.name} {nb.peer_port}: no mirror session"
            assert (m.peer_device, m.peer_port, m.peer_asn) == (sw.name, nb.interface, sw.bgp.asn), (sw.name, nb, m)
            assert ports[(peer.name, nb.peer_port)].peer_device == sw.name


def test_asn_plan_rfc7938(inv):
    model = model_of(inv)
    by_role = defaultdict(list)
    for sw in model.switches:
        by_role[sw.role].append(sw)
    leaf_asns = [sw.bgp.asn for sw in by_role["leaf"]]
    assert len(set(leaf_asns)) == len(leaf_asns), "leaf ASNs must be unique"
    pod_asn: dict[int, set[int]] = defaultdict(set)
    for sw in by_role["spine"]:
        pod_asn[sw.pod].add(sw.bgp.asn)
    assert all(len(asns) == 1 for asns in pod_asn.values()), f"spines of a pod must share one ASN: {dict(pod_asn)}"
    spine_asns = [next(iter(a)) for a in pod_asn.values()]
    assert len(set(spine_asns)) == len(spine_asns), "each pod has its own spine ASN"
    super_asns = {sw.bgp.asn for sw in by_role["super_spine"]}
    assert len(super_asns) <= 1, "super-spines share one ASN"
    assert not set(leaf_asns) & (set(spine_asns) | super_asns) and not set(spine_asns) & super_asns


def test_router_id_is_the_unique_loopback(inv):
    model = model_of(inv)
    for sw in model.switches:
        assert sw.bgp.router_id == ip(sw.loopback), sw.name
    assert len({sw.bgp.router_id for sw in model.switches}) == len(model.switches)


# ------------------------------------------------------------------ addressing
def test_no_ip_address_is_assigned_twice(inv):
    model = model_of(inv)
    owners: dict[str, list[str]] = defaultdict(list)
    for sw in model.switches:
        owners[ip(sw.loopback)].append(f"{sw.name} lo")
        owners[ip(sw.mgmt_address)].append(f"{sw.name} eth0")
        for iface in sw.interfaces:
            if iface.address:
                owners[ip(iface.address)].append(f"{sw.name} {iface.name}")
        if sw.svi:
            owners[ip(sw.svi.address)].append(f"{sw.name} {sw.svi.name}")
    for server in model.servers:
        owners[ip(server.mgmt_address)].append(f"{server.name} mgmt")
        for rail in server.rails:
            assert rail.ip == ip(rail.address)
            owners[rail.ip].append(f"{server.name} {rail.nic}")
    dup = {a: o for a, o in owners.items() if len(o) > 1}
    assert not dup, f"addresses assigned twice: {dict(list(dup.items())[:10])}"
    gateways = {sw.mgmt_gateway for sw in model.switches} | {s.mgmt_gateway for s in model.servers}
    assert not gateways & set(owners), "a management gateway address is assigned to a device"


def test_host_gateway_is_the_leaf_address_in_the_same_subnet(inv):
    model, ports = model_of(inv), ports_of(inv)
    supernets = [ipaddress.ip_network(s) for s in model.rail_supernets]
    for server in model.servers:
        for rail in server.rails:
            leaf = model.switch(rail.leaf)
            owned = leaf.svi.address if model.host_link_mode == "leaf-subnet" else ports[(leaf.name, rail.leaf_port)].address
            assert owned and ip(owned) == rail.gateway, (server.name, rail.nic)
            subnet = ipaddress.ip_network(rail.subnet)
            assert ipaddress.ip_interface(owned).network == subnet == ipaddress.ip_interface(rail.address).network
            assert subnet.subnet_of(supernets[rail.index]), (server.name, rail.nic, rail.subnet)


# ------------------------------------------------------------------ rails
def test_nic_k_lands_on_the_rail_k_leaf_of_its_su(inv):
    model, spec, ports = model_of(inv), topology_of(inv), ports_of(inv)
    leaf_of = {(sw.su, sw.rail): sw for sw in model.switches if sw.role == "leaf"}
    assert model.servers
    for server in model.servers:
        if spec.servers.profiles:  # the server model's rail NICs; its absent rails have none
            nics = {n.rail: n.name for n in spec.servers.profiles[server.profile].nics}
        else:
            nics = dict(enumerate(spec.servers.nics or [f"rail{i}" for i in range(spec.topology.rails)]))
        assert [r.index for r in server.rails] == sorted(nics), server.name
        assert len({r.leaf for r in server.rails}) == len(server.rails), f"{server.name}: two NICs on one leaf"
        for rail in server.rails:
            k = rail.index
            assert rail.nic == nics[k]
            leaf = leaf_of[(server.su, k)]
            assert rail.leaf == leaf.name, f"{server.name} {rail.nic} on {rail.leaf}, expected {leaf.name}"
            port = ports[(leaf.name, rail.leaf_port)]
            assert (port.kind, port.peer_device, port.peer_port) == ("host", server.name, rail.nic)


def test_cabling_plan_matches_the_interfaces(inv):
    model, ports = model_of(inv), ports_of(inv)
    seen = Counter()
    for link in model.links:
        for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            seen[(dev, port)] += 1
        a = ports[(link.a_device, link.a_port)]
        assert (a.peer_device, a.peer_port) == (link.b_device, link.b_port) or (
            link.kind == "server-leaf" and a.peer_device is None), link
    assert max(seen.values()) == 1, [k for k, v in seen.items() if v > 1][:5]


# ------------------------------------------------------------------ determinism
def _digest(artifacts) -> str:
    h = hashlib.sha256()
    for a in artifacts:
        h.update(f"{a.device}\0{a.path}\0{a.mode}\0".encode())
        h.update(a.content.encode())
        h.update(b"\0")
    return h.hexdigest()


def test_rendering_twice_gives_byte_identical_artifacts(inv):
    model = model_of(inv)
    if len(model.switches) > RENDER_TWICE_MAX_SWITCHES:
        assert build_model(inv) == model  # dataclass equality, field by field
        return
    _, first = render(inv)
    _, second = render(inv)
    assert [(a.device, a.path, a.mode, a.content) for a in first] == [(a.device, a.path, a.mode, a.content) for a in second]


def test_output_does_not_depend_on_the_hash_seed(inv):
    """Set/dict-order bugs only show across interpreter runs: render under two PYTHONHASHSEEDs."""
    if len(model_of(inv).switches) > RENDER_TWICE_MAX_SWITCHES:
        pytest.skip("scale example: covered by the model determinism check")
    code = (
        "import hashlib,sys\nfrom netauto.pipeline import render\nh=hashlib.sha256()\n"
        "for a in render(sys.argv[1])[1]:\n"
        "    h.update(f'{a.device}\\0{a.path}\\0{a.mode}\\0'.encode()); h.update(a.content.encode()); h.update(b'\\0')\n"
        "print(h.hexdigest())\n"
    )
    digests = set()
    for seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code, str(inv)], capture_output=True, text=True, env=env,
                             check=True, timeout=120)
        digests.add(out.stdout.strip())
    digests.add(_digest(render(inv)[1]))
    assert len(digests) == 1, "rendered bytes depend on PYTHONHASHSEED"
