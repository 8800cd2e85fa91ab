"""The pods' rail networks run for real: each rendered network's CNI chain (Debian's containernetworking-plugins:
host-device, static, tuning, sbr) with CNI_COMMAND=ADD into a pod network namespace (netauto.lab.cni), then the
pod's routing is read back with `ip`:

  - the default route stays on the pod's own primary interface (eth0, standing in for the cluster network),
  - each rail reaches its rail subnet and the fabric through its own NIC, from its own address (ip rule per rail),
  - a destination outside the fabric leaves through eth0.

b300-2plane (swplb, a network per rail and plane port): one source table per port with its pool's address and
gateway, and no destination leaves from one port by another (the other plane's by eth0). gpu-cloud-tenants: each
tenant's networks on its node hand every rail address to its own leaf port (its tenant's VRF), never eth0.

Spiderpool/whereabouts IPAM run as `static` with the same address, gateway and routes (netauto.lab.cni says which
part stands in for what). Root (network namespaces): the lab job of .ci/run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from ipaddress import IPv4Interface, IPv4Network
from pathlib import Path

import pytest
import yaml
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.formats.cni_networks import NETWORK_KINDS, PoolRoutes, plugins, pool
from netauto.lab.cni import CNI_PATH, add, runnable
from netauto.pipeline import build

pytestmark = pytest.mark.lab
INVENTORIES = {"gpu-pod1 (attach: pf)": DEFAULT_INVENTORY, "gpu-2su (attach: vf)": EXAMPLES / "2su-leaf-subnet" / "inventory"}
PLANES = EXAMPLES / "b300-2plane" / "inventory"  # swplb: one network per (rail, plane) port
TENANTS = EXAMPLES / "gpu-cloud-tenants" / "inventory"  # one copy of the rail networks per tenant namespace


def _ip(ns: str, *args: str) -> str:
    return subprocess.run(["ip", "-n", ns, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def namespaces(request):
    if os.geteuid() != 0 or not all((CNI_PATH / p).is_file() for p in ("host-device", "static", "tuning", "sbr")):
        why = "root and containernetworking-plugins (/usr/lib/cni: host-device, static, tuning, sbr)"
        if os.environ.get("CI"):
            pytest.fail(f"the CNI chain test needs {why}")
        pytest.skip(f"needs {why}")
    tag = f"cni{os.getpid() % 100000}"
    node, pod = f"{tag}-node", f"{tag}-pod"
    for ns in (node, pod):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    request.addfinalizer(lambda: [subprocess.run(["ip", "netns", "del", ns], check=False) for ns in (node, pod)])
    # the pod's primary network (the cluster CNI's eth0) with its default route
    subprocess.run(["ip", "-n", node, "link", "add", "pod0", "type", "veth", "peer", "name", "eth0", "netns", pod],
                   check=True)
    for cmd in (["addr", "add", "192.168.77.2/24", "dev", "eth0"], ["link", "set", "eth0", "up"],
                ["link", "set", "lo", "up"], ["route", "add", "default", "via", "192.168.77.1", "dev", "eth0"]):
        _ip(pod, *cmd)
    _ip(node, "link", "set", "pod0", "up")
    return node, pod


def _whereabouts(tmp: Path) -> Path:
    """gpu-2su with one SU (one leaf per rail) on SriovNetwork + whereabouts: the rdma/tuning/sbr metaPlugins chain."""
    dst = tmp / "inventory"
    shutil.copytree(INVENTORIES["gpu-2su (attach: vf)"], dst)
    f = dst / "fabric.yaml"
    data = yaml.safe_load(f.read_text())
    data["topology"]["sus_per_pod"] = 1
    data["overrides"] = {"devices": {}, "ports": []}
    data["kubernetes"] = {"ipam": "whereabouts", "pool_size": 32, "vfs_per_nic": 1}
    f.write_text(yaml.safe_dump(data, sort_keys=False))
    return dst


def _manifests(inv: Path) -> list[dict]:
    docs = []
    for a in build(inv).artifacts:
        if a.device == "kubernetes" and a.path.endswith(".yaml"):
            docs += [d for d in yaml.safe_load_all(a.content) if d]
    return docs


def _natural(name: str) -> tuple[int, ...]:
    """rail2 < rail10, rail0p2 < rail1p1: the networks in rail (then plane) order."""
    return tuple(int(n) for n in re.findall(r"\d+", name))


def _attach(networks: list[dict], pools: dict, node: str, node_ns: str, pod_ns: str) -> list[tuple[str, IPv4Interface, list]]:
    """Each network's chain ADDed for a pod on `node`, its NIC a fresh veth in the node's namespace: (ifname, pod
    address, the result's routes) per network, in order."""
    attached = []
    for i, doc in enumerate(networks):
        device = f"nic{i}"  # the rail NIC (attach: pf), its VF (attach: vf) or its plane port (swplb) on the node
        _ip(node_ns, "link", "add", device, "type", "veth", "peer", "name", f"{device}p")  # no dummy module here
        _ip(node_ns, "link", "set", f"{device}p", "up")
        chain = runnable(doc, pools, node, device)
        ifname = f"net{i + 1}"  # Multus's names for the additional networks
        result = add(chain, Path(f"/run/netns/{pod_ns}"), ifname, "c0ffee", node_ns)
        attached.append((ifname, IPv4Interface(result["ips"][0]["address"]), result.get("routes") or []))
    return attached


def _default_stays_on_eth0(pod_ns: str) -> None:
    defaults = _ip(pod_ns, "-4", "route", "show", "table", "main", "default").splitlines()
    assert [d.strip() for d in defaults] == ["default via 192.168.77.1 dev eth0"], f"the pod's main table has {defaults}"
    assert _ip(pod_ns, "-4", "route", "get", "1.1.1.1").split(" dev ")[1].split()[0] == "eth0"


def _leaves_by(pod_ns: str, dst: object, src: object) -> str:
    """The interface `ip route get <dst> from <src>` picks in the pod."""
    return _ip(pod_ns, "-4", "route", "get", str(dst), "from", str(src)).split(" dev ")[1].split()[0]


def _source_tables(pod_ns: str) -> dict[str, str]:
    """pod address -> the table its `from <address> lookup <table>` rule names (one rule per address, or fail)."""
    out: dict[str, str] = {}
    for line in _ip(pod_ns, "-4", "rule", "show").splitlines():
        m = re.search(r"from (\S+) lookup (\S+)", line)
        if m and m.group(1) != "all":
            assert m.group(1) not in out, f"two source rules for {m.group(1)}"
            out[m.group(1)] = m.group(2)
    return out


@pytest.mark.parametrize("inv", [*INVENTORIES.values(), None], ids=[*INVENTORIES, "gpu-2su 1 SU (whereabouts)"])
def test_rail_chains_keep_the_default_route_on_eth0_and_source_route_each_rail(inv, namespaces, tmp_path):
    node_ns, pod_ns = namespaces
    docs = _manifests(inv or _whereabouts(tmp_path))
    pools = {p.name: p for p in (pool(d) for d in docs if d["kind"] == "SpiderIPPool")}
    networks = sorted((d for d in docs if d["kind"] in NETWORK_KINDS), key=lambda d: _natural(d["metadata"]["name"]))
    node = next(n for p in pools.values() for n in p.nodes) if pools else "any"
    assert networks, "no rail networks rendered"
    attached = _attach(networks, pools, node, node_ns, pod_ns)
    _default_stays_on_eth0(pod_ns)
    rules = _ip(pod_ns, "-4", "rule", "show")
    for ifname, addr, routes in attached:
        assert f"from {addr.ip} lookup" in rules, f"no source rule for {ifname} {addr.ip}:\n{rules}"
        fabric = [IPv4Network(r["dst"]) for r in routes if r["dst"] != "0.0.0.0/0"]
        assert fabric, f"{ifname}: no fabric route"
        targets = [addr.network[-2] if addr.network.num_addresses > 2 else addr.network[0]]
        targets += [n[-2] for n in fabric if not n.subnet_of(addr.network)]
        for dst in targets:
            got = _ip(pod_ns, "-4", "route", "get", str(dst), "from", str(addr.ip))
            assert f" dev {ifname} " in got, f"{dst} from {addr.ip} leaves by {got.strip()}, not {ifname}"


def _node_pool(doc: dict, pools: dict[str, PoolRoutes], node: str) -> PoolRoutes:
    """The SpiderIPPool the network's IPAM lists for `node`, read from the manifests (not from the chain's result)."""
    names = plugins(doc)[0]["ipam"]["default_ipv4_ippool"]
    mine = [pools[n] for n in names if node in pools[n].nodes]
    assert len(mine) == 1, f"{doc['metadata']['name']}: {len(mine)} pools for {node}"
    return mine[0]


def _table(pod_ns: str, table: str) -> list[str]:
    return [line.strip() for line in _ip(pod_ns, "-4", "route", "show", "table", table).splitlines()]


def test_plane_port_chains_source_route_each_port_and_never_cross_planes(namespaces):
    """b300-2plane (swplb): every (rail, plane) port's network runs for a pod on one node. The pod keeps its default
    on eth0; each plane port has its own source rule and table holding exactly what its pool says (the node's /31
    address, the plane's rail prefix via the leaf's end of the /31), and no destination of any port's prefix leaves
    from one port's address by another port, of its plane or the other one."""
    node_ns, pod_ns = namespaces
    docs = _manifests(PLANES)
    pools = {p.name: p for p in (pool(d) for d in docs if d["kind"] == "SpiderIPPool")}
    networks = sorted((d for d in docs if d["kind"] in NETWORK_KINDS), key=lambda d: _natural(d["metadata"]["name"]))
    node = sorted({n for p in pools.values() for n in p.nodes})[0]
    mine = [_node_pool(d, pools, node) for d in networks]
    ports = {_natural(d["metadata"]["name"]) for d in networks}  # rail<r>p<plane>, the manifests' names
    assert len(ports) == len(networks) and {p[1] for p in ports} == {1, 2}, sorted(ports)
    attached = _attach(networks, pools, node, node_ns, pod_ns)
    _default_stays_on_eth0(pod_ns)
    tables = _source_tables(pod_ns)
    assert len({tables.get(str(a.ip)) for _, a, _ in attached}) == len(attached), f"not one table per port: {tables}"
    main = _table(pod_ns, "main")
    assert not [r for r in main if " dev net" in r], f"a plane port's route left in the main table: {main}"
    for (ifname, addr, _), p in zip(attached, mine, strict=True):
        assert (str(addr.ip), addr.network) == (p.ips[0], IPv4Network(p.subnet)), (ifname, addr, p)
        routes = _table(pod_ns, tables[str(addr.ip)])
        assert all(f" dev {ifname} " in f"{r} " for r in routes), f"{ifname}'s table routes by another port: {routes}"
        assert not [r for r in routes if r.startswith("default")], f"{ifname}'s table has a default: {routes}"
        for dst, gw in p.routes:
            assert any(r.startswith(f"{dst} via {gw} dev {ifname}") for r in routes), (ifname, dst, gw, routes)
    plane = [_natural(d["metadata"]["name"])[1] for d in networks]
    for (ifname, addr, _), p, x in zip(attached, mine, plane, strict=True):
        own = [IPv4Network(p.subnet), *(IPv4Network(d) for d, _ in p.routes)]
        for other, y in zip(mine, plane, strict=True):
            for net in [IPv4Network(other.subnet), *(IPv4Network(d) for d, _ in other.routes)]:
                dst = net[-2] if net.num_addresses > 2 else net[0]
                # the other plane is another fabric (no link between the planes): never by a plane port
                want = ifname if x == y and any(dst in o for o in own) else "eth0"
                assert _leaves_by(pod_ns, dst, addr.ip) == want, f"{dst} (plane {y}) from {ifname} {addr.ip} not by {want}"


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_tenant_pod_routes_hand_the_fabric_only_to_its_own_tenant(tenant, namespaces):
    """gpu-cloud-tenants: the tenant's networks (its namespace) run for a pod on its first node. The pod keeps its
    default on eth0; each rail is source-routed to the leaf's end of its own /31, a port of the tenant's own VRF
    (docs/tenants.md), so every fabric address, its tenant's peers' and another tenant's alike, leaves by that
    rail into its own VRF, never by eth0 or another rail; the VRF then keeps other tenants out (validate's route
    simulation, not run here)."""
    node_ns, pod_ns = namespaces
    docs = _manifests(TENANTS)
    pools = {p.name: p for p in (pool(d) for d in docs if d["kind"] == "SpiderIPPool")}
    tenancy = {d["metadata"]["name"]: d["metadata"]["labels"]["netauto.io/tenant"] for d in docs
               if d["kind"] == "SpiderIPPool"}
    networks = sorted((d for d in docs if d["kind"] in NETWORK_KINDS
                       and d["metadata"]["labels"].get("netauto.io/tenant") == tenant),
                      key=lambda d: _natural(d["metadata"]["name"]))
    assert networks, f"no rail networks for tenant {tenant}"
    node = sorted(n for name, p in pools.items() if tenancy[name] == tenant for n in p.nodes)[0]
    mine = [_node_pool(d, pools, node) for d in networks]
    attached = _attach(networks, pools, node, node_ns, pod_ns)
    _default_stays_on_eth0(pod_ns)
    tables = _source_tables(pod_ns)
    for doc, (ifname, addr, _), p in zip(networks, attached, mine, strict=True):
        assert str(addr.ip) == p.ips[0] and tenancy[p.name] == tenant, (ifname, addr, p.name)
        routes = _table(pod_ns, tables[str(addr.ip)])
        assert not [r for r in routes if r.startswith("default")], f"{ifname}'s table has a default: {routes}"
        vias = {f"via {gw} dev {ifname}" for _, gw in p.routes}  # the leaf's end of the node's own /31
        assert all(f" dev {ifname} " in f"{r} " and ("via" not in r or any(v in r for v in vias)) for r in routes), (
            f"{ifname}'s table routes past its own leaf port {vias}: {routes}")
        listed = set(plugins(doc)[0]["ipam"]["default_ipv4_ippool"])
        for name, q in pools.items():
            if not any(IPv4Network(q.subnet).subnet_of(IPv4Network(d)) for d, _ in p.routes):
                continue  # another rail's pool
            assert (name in listed) == (tenancy[name] == tenant), f"{tenant}'s {ifname} network lists {name}"
            if q is not p:  # the pod's own address is local
                assert _leaves_by(pod_ns, q.ips[0], addr.ip) == ifname, f"{name} ({tenancy[name]}) not by {ifname}"
