"""K8S-04, read back from the rendered manifests: every pod range (a SpiderIPPool's `ips`, an SR-IOV network's
host-local `ipam`) lies on its rail's leaf subnet, hands the pod the host's gateway and routes, and holds no
address of a host, a switch or another pod range (attach: pf: the node's own rail address, which moves into the
pod with its NIC, is the one exception).
"""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, summarize_address_range
from typing import Any

from netauto.formats import device_json
from netauto.model.cluster import ClusterModel
from netauto.model.kubernetes import KubernetesModel
from netauto.validate.k8s_tenants import Docs, Err
from netauto.validate.k8s_tenants import label as _label

Pool = tuple[str, dict[str, Any], str, IPv4Network, IPv4Address, IPv4Address, str, list[tuple[str, str]]]


def _used(cluster: ClusterModel) -> tuple[dict[IPv4Address, str], dict[IPv4Address, tuple[str, int]]]:
    """Every host and switch address (-> whose it is), and every compute rail address (-> (server, rail))."""
    used: dict[IPv4Address, str] = {}
    rail_owner: dict[IPv4Address, tuple[str, int]] = {}
    for _, fab in cluster.fabrics():
        for s in fab.servers:
            for r in s.rails:
                used[IPv4Interface(r.address).ip] = f"{s.name} {r.nic}"
                if any(fab is c for c in cluster.compute_fabrics()):  # every plane's port: the same rail
                    rail_owner[IPv4Interface(r.address).ip] = (s.name, r.index)
            used[IPv4Interface(s.mgmt_address).ip] = f"{s.name} management"
        for sw in fab.switches:
            for i in sw.interfaces:
                if i.address:
                    used[IPv4Interface(i.address).ip] = f"{sw.name} {i.name}"
            if sw.svi:
                used[IPv4Interface(sw.svi.address).ip] = f"{sw.name} {sw.svi.name}"
            used[IPv4Interface(sw.loopback).ip] = f"{sw.name} loopback"
    return used, rail_owner


def check_ranges(cluster: ClusterModel, k8s: KubernetesModel, kind: Docs, err: Err) -> None:
    used, rail_owner = _used(cluster)
    expected = {p.name: p for n in k8s.networks for p in n.pools}
    seen: dict[IPv4Address, str] = {}
    for path, doc, pool_name, subnet, first, last, gw, routes in _pools(k8s, kind, err):
        want = expected.get(pool_name)
        label = _label(doc)
        if want is None:
            err("K8S-04", path, f"{label}: no rail leaf pool of that name in the model")
            continue
        leaf_net = IPv4Network(want.subnet)
        if subnet != leaf_net or not (first in leaf_net and last in leaf_net):
            err("K8S-04", path, f"{label}: range {first}-{last} (subnet {subnet}) is not on rail {want.rail}'s "
                f"leaf subnet {leaf_net} of {want.leaf}")
        want_gw = gw if doc.get("kind") == "SpiderIPPool" else want.gateway  # a pool's gateway: K8S-09
        if gw != want_gw or sorted(routes) != sorted(want.routes):
            err("K8S-04", path, f"{label}: gateway {gw} / routes {routes} are not the host's "
                f"({want.gateway} / {want.routes})")
        own = {IPv4Address(a) for a in (want.first,) if want.first == want.last and len(want.nodes) == 1}
        if k8s.settings.attach == "pf" and (first, last) != (IPv4Address(want.first), IPv4Address(want.last)):
            err("K8S-04", path, f"{label}: attach: pf gives the pod its node's own rail {want.rail} address "
                f"{want.first}, not {first}-{last}")
            own = set()
        for net in summarize_address_range(first, last) if first <= last else []:
            for addr in net:
                if k8s.settings.attach == "pf" and addr in own and rail_owner.get(addr) == (want.nodes[0], want.rail):
                    pass  # the NIC moved into the pod with its address
                elif addr in used:
                    err("K8S-04", path, f"{label}: pod address {addr} is {used[addr]}'s address")
                elif addr in seen and seen[addr] != label:
                    err("K8S-04", path, f"{label}: pod address {addr} is also in {seen[addr]}")
                seen[addr] = label


def _pools(k8s: KubernetesModel, kind: Docs, err: Err) -> Iterator[Pool]:
    """(path, document, pool name, subnet, first, last, gateway, routes) of every pod range; a document that does
    not read as one (read back with --configs: outside input) is a finding, never a traceback."""
    for kind_name, rows in (("SpiderIPPool", _spider_pool), ("SriovNetwork", _sriov_network)):
        for path, doc in kind(kind_name):
            try:
                found = list(rows(k8s, path, doc))
            except (ValueError, TypeError, AttributeError) as e:  # json.JSONDecodeError is a ValueError
                err("K8S-04", path, f"{_label(doc)}: unreadable pod range ({type(e).__name__}: {str(e)[:80]})")
                continue
            yield from found


def _spider_pool(k8s: KubernetesModel, path: str, doc: dict[str, Any]) -> Iterator[Pool]:
    spec = doc.get("spec") or {}
    for rng in spec.get("ips") or []:
        a, _, b = str(rng).partition("-")
        yield (path, doc, str((doc.get("metadata") or {}).get("name")), IPv4Network(spec.get("subnet")),
               IPv4Address(a), IPv4Address(b or a), str(spec.get("gateway")),
               [(r.get("dst"), r.get("gw")) for r in spec.get("routes") or []])


def _sriov_network(k8s: KubernetesModel, path: str, doc: dict[str, Any]) -> Iterator[Pool]:
    ipam = device_json.loads((doc.get("spec") or {}).get("ipam") or "{}")  # --configs: bounded nesting
    pool = next((p for n in k8s.networks if n.name == (doc.get("metadata") or {}).get("name") for p in n.pools), None)
    yield (path, doc, pool.name if pool else "", IPv4Network(ipam.get("range")),
           IPv4Address(ipam.get("range_start")), IPv4Address(ipam.get("range_end")), str(ipam.get("gateway")),
           [(r.get("dst"), r.get("gw")) for r in ipam.get("routes") or []])
