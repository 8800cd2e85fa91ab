"""Resolve the cluster: the networks beside the compute fabric (storage, frontend), the server groups, the checks
across networks, and the OOB network (netauto.model.oob). A bonded network's access pairs are netauto.model.mlag's.

A network is resolved by the compute resolver itself, on a derived inventory: NIC k of every attached server
is "rail k", a leaf group of `servers_per_leaf` servers is a scalable unit, the network's spines are the pod's
spines. So a network gets exactly the compute fabric's numbering, port plan, eBGP unnumbered underlay, p2p
host /31s, per-NIC routing tables and QoS, and is rendered by the same templates. What differs is patched
here: real server names in the slots, per-group NIC names, the lossy QoS mode, the frontend default route.
Errors point at `networks.<name>...` keys of the operator's inventory, never at the derived one.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

from netauto.errors import InventoryError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.networks import COMPUTE_GROUP, Network
from netauto.inventory.schema import (
    RoleHardware,
    Addressing, Asns, DeviceOverride, Features, Gshut, HostLinks, Inventory, LoopbackPools, Management, Mtu,
    Naming, NosPlan, Overrides, PortRange, Ports, RolePorts, Topology,
)
from netauto.inventory.servers import KERNEL_NIC_PREFIXES, Servers
from netauto.model import border, ipam, numbering
from netauto.model.consistency import check_size
from netauto.model.cluster import ClusterModel, GroupServer, NetworkModel
from netauto.model.context import Where
from netauto.model.hosts import socket_on_frontend_bond
from netauto.model.mlag import bond_access
from netauto.model.naming import Namer, hostname
from netauto.model.oob import resolve_oob
from netauto.model.compute import build, checked
from netauto.model.types import FabricModel, Route
from netauto.netutil.ip import DEFAULT_ROUTE

# The derived inventory needs a server management pool; network-side server records never use it (a server's
# management address is the compute fabric's or its group's). 240.0.0.0/4 is reserved (RFC 1112 s4) so it
# can never clash with an operator's pool.
UNUSED_SERVER_POOL = "240.0.0.0/4"
DEFAULT_METRIC = 100  # NIC k's default route has metric 100 + k: NIC 0 carries it, NIC 1 takes over

# derived-inventory key path -> the network's own key (for error messages)
_KEY_MAP: dict[tuple[str, ...], tuple[str, ...]] = {
    ("topology",): ("servers_per_leaf",),
    ("servers",): ("attach",),
    ("ports", "leaf"): ("ports", "leaf"),
    ("ports", "spine"): ("ports", "spine"),
    ("addressing", "loopbacks", "leaf"): ("addressing", "leaf_loopbacks"),
    ("addressing", "loopbacks", "spine"): ("addressing", "spine_loopbacks"),
    ("addressing", "host_links", "pool"): ("addressing", "host_pool"),
    ("addressing", "host_links", "rail_prefix_len"): ("addressing", "nic_prefix_len"),
    ("addressing", "host_links", "leaf_prefix_len"): ("addressing", "leaf_prefix_len"),
    ("addressing", "management", "switch_pool"): ("addressing", "switch_mgmt_pool"),
    ("asns", "leaf_base"): ("asns", "leaf_base"),
    ("asns", "spine_base"): ("asns", "spine"),
    ("naming",): ("naming",),
    ("fabric", "sonic_hwsku"): ("sonic_hwsku",),
}


@dataclass(frozen=True)
class _NetworkLoaded:
    """Quacks like LoadedInventory for the compute resolver: derived inventory, errors at networks.<name>."""

    inventory: Inventory
    outer: LoadedInventory
    network: str

    @property
    def root(self) -> Path:
        return self.outer.root

    def where(self, *path: str | int) -> dict[str, Any]:
        keys = tuple(str(p) for p in path)
        for n in range(len(keys), 0, -1):
            if keys[:n] in _KEY_MAP:
                return self.outer.where("networks", self.network, *_KEY_MAP[keys[:n]])
        return self.outer.where("networks", self.network)


def _network_namer(spec: Network, slots: dict[tuple[int, int], str], where: Where) -> Namer:
    """A network's device names: its own leaf and spine patterns (fields group, rail, index), and the attached
    servers in their slots."""

    def name(role: str, *, su: int, rail: int, pod: int, group: int, index: int) -> str:
        # `group` here is the compute namer's super-spine group (a network has none); the network's own {group}
        # field is its leaf group, the `su` of its topology
        if role == "server":
            return slots[(su, index)]
        pattern = getattr(spec.naming, role)
        try:
            name = pattern.format(group=su, rail=rail, index=index)
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
            problem = f"unknown field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise InventoryError(f"cannot format {pattern!r}: {problem}", **where("naming", role),
                                 hint="leaf names use group, rail, index; spine names use index") from None
        return hostname(str(name), pattern, where("naming", role))

    return name


def _ports(network: Network, role: str) -> RolePorts:
    p = network.ports.get(role)  # type: ignore[call-overload]
    if p is None:
        return RolePorts()
    return RolePorts(cages=p.cages, downlinks=PortRange(first=p.downlinks_first, breakout=p.downlinks_breakout),
                     uplinks=PortRange(first=p.uplinks_first, breakout=p.uplinks_breakout))


def _network_hardware(inv: Inventory, name: str, network: Network) -> RoleHardware | str:
    """A network's switch models per tier (`networks.<name>.switch_hardware`), else the compute fabric's."""
    roles: dict[str, str] = {str(k): v for k, v in (network.switch_hardware or {}).items()}
    if not roles:
        return inv.fabric.switch_hardware
    return RoleHardware.model_construct(leaf=roles.get("leaf", "SN5600"), spine=roles.get("spine", "SN5600"),
                                        super_spine=roles.get("super_spine", "SN5600"))


def _derived(inv: Inventory, name: str, network: Network, members: int, free: list[str]) -> Inventory:
    groups = -(-members // network.servers_per_leaf)
    rails = len(network.attach[0].nics)
    first = network.attach[0]
    a = network.addressing
    mg = inv.addressing.management
    fabric = inv.fabric.model_copy(update={
        # the network's own `nos:`, else the fabric's default: SONiC everywhere means every network
        "name": f"{inv.fabric.name}-{name}", "nos": NosPlan(default=network.nos or inv.fabric.nos.default),
        # a network with its own switch models takes their default HWSKUs unless it names one
        "sonic_hwsku": network.sonic_hwsku or (inv.fabric.sonic_hwsku if network.switch_hardware is None else None),
        "mtu": Mtu(switch=inv.fabric.mtu.switch, host=network.mtu), "host_fec": network.server_fec,
        "host_link_speed": network.host_link_speed, "fabric_link_speed": network.fabric_link_speed,
        "switch_hardware": _network_hardware(inv, name, network),
    })
    return Inventory.model_construct(
        fabric=fabric,
        topology=Topology.model_construct(
            rails=rails, servers_per_su=network.servers_per_leaf, sus_per_pod=groups, pods=1,
            spines_per_pod=network.spines, leaf_spine_links=network.leaf_spine_links, super_spines_per_group=0,
            spine_super_spine_links=1, oversubscription=network.oversubscription),
        ports=Ports(leaf=_ports(network, "leaf"), spine=_ports(network, "spine")),
        naming=Naming(),
        addressing=Addressing(
            loopbacks=LoopbackPools(leaf=a.leaf_loopbacks, spine=a.spine_loopbacks),
            host_links=HostLinks(mode="p2p", pool=a.host_pool, rail_prefix_len=a.nic_prefix_len,
                                 leaf_prefix_len=a.leaf_prefix_len),
            management=Management(switch_pool=a.switch_mgmt_pool, server_pool=UNUSED_SERVER_POOL,
                                  switch_user=mg.switch_user, server_user=mg.server_user, vrf=mg.vrf),
        ),
        asns=Asns.model_construct(leaf_base=network.asns.leaf_base, spine_base=network.asns.spine,
                                  super_spine=network.asns.spine),
        features=Features(adaptive_routing=False, gshut=Gshut(honour=inv.features.gshut.honour,
                                                              prepend=inv.features.gshut.prepend, drain=[]),
                          telemetry=inv.features.telemetry),
        qos=inv.qos,
        servers=Servers.model_construct(
            nics=list(first.nics), rdma_devices=list(first.rdma_devices or first.nics),
            table_base=network.table_base, rule_priority_base=network.rule_priority_base,
            # an attach entry names no PCI address or MAC: nothing renames these NICs, so names in the kernel's
            # namespace (ens1f0np0, eno1) are the host's own; other names stay unresolved (HOST-06 says so)
            nic_names="kernel" if all(n.startswith(KERNEL_NIC_PREFIXES) for n in first.nics) else "renamed"),
        overrides=Overrides(devices={slot: DeviceOverride(absent=True) for slot in free}),
        server_groups={}, networks={}, oob=None, bom=None,
    )


def _resolve_network(loaded: LoadedInventory, name: str, network: Network, members: dict[str, list[str]],
                   profiles: dict[str, str]) -> NetworkModel:
    inv = loaded.inventory
    order: list[tuple[str, int]] = []  # (server, attach entry index)
    for i, att in enumerate(network.attach):
        if att.servers not in members:
            close = difflib.get_close_matches(att.servers, list(members), n=1)
            raise InventoryError(f"no server group {att.servers!r}", **loaded.where("networks", name, "attach", i, "servers"),
                                 hint=f"did you mean {close[0]!r}?" if close else
                                 f"use {COMPUTE_GROUP!r} or a name from server_groups")
        order += [(srv, i) for srv in members[att.servers]]
    per = network.servers_per_leaf
    slots: dict[tuple[int, int], str] = {}
    free: list[str] = []
    attach_of: dict[str, int] = {}
    groups = -(-len(order) // per)
    for n in range(groups * per):
        key = numbering.group_slot(n, per)
        if n < len(order):
            srv, i = order[n]
            slots[key] = srv
            attach_of[srv] = i
        else:
            slots[key] = f"{name}-free-g{key[0]}-{key[1]}"
            free.append(slots[key])
    if network.bond_redundancy == "evpn-mh" and network.nos is None and inv.fabric.nos.default == "sonic":
        raise InventoryError("bond_redundancy: evpn-mh is rendered for Cumulus only, and this network runs SONiC "
                             "(fabric.nos.default)", **loaded.where("networks", name, "bond_redundancy"),
                             hint=f"set networks.{name}.nos: cumulus, or bond_redundancy: mlag (SONiC MCLAG)")
    derived = _derived(inv, name, network, len(order), free)
    source = _NetworkLoaded(derived, loaded, name)
    fabric = build(checked(source), _network_namer(network, slots, source.where))
    _patch(fabric, name, network, attach_of, profiles)
    if network.host_routing == "bond":
        bond_access(loaded, fabric, name, network)
    fec = None if inv.fabric.fec == "default" else inv.fabric.fec
    border.apply_upstream(fabric, name, network, loaded.where, fec)
    a = network.addressing
    pools = {"leaf_loopbacks": a.leaf_loopbacks, "spine_loopbacks": a.spine_loopbacks, "host_pool": a.host_pool,
             "switch_mgmt_pool": a.switch_mgmt_pool}
    return NetworkModel(name=name, role=network.role, qos=network.qos, default_route=network.default_route, pools=pools,
                      fabric=fabric, oversubscription=network.oversubscription, bond=network.host_routing == "bond")


def _patch(fabric: FabricModel, name: str, network: Network, attach_of: dict[str, int], profiles: dict[str, str]) -> None:
    lossy = network.qos == "lossy"
    for sw in fabric.switches:
        sw.network = name
        if lossy:
            sw.qos.mode = "lossy"
            sw.qos.pfc_watchdog = False
            for iface in sw.interfaces:
                iface.pfc = iface.pfc_watchdog = False
    links_by_end = {(link.b_device, link.b_port): link for link in fabric.links if link.kind == "server-leaf"}
    for link in fabric.links:
        link.network = name
    for srv in fabric.servers:
        if lossy:
            srv.qos.mode = "lossy"
        att = network.attach[attach_of[srv.name]]
        for rail in srv.rails:
            old = rail.nic
            rail.nic = att.nics[rail.index]
            # nothing renames a network NIC (no PCI/MAC in attach): a name in the kernel's namespace is the host's own
            rail.kernel_name = rail.nic.startswith(KERNEL_NIC_PREFIXES)
            rail.rdma_device = (att.rdma_devices or att.nics)[rail.index]
            pcis = att.pci_of(profiles.get(srv.name, srv.profile))
            rail.pci = pcis[rail.index] if pcis else None
            if att.nic_names is not None:
                rail.kernel_name = att.nic_names == "kernel"
            link = links_by_end.pop((srv.name, old))
            link.b_port = rail.nic
            port = fabric.switch(rail.leaf).interface(rail.leaf_port)
            port.peer_port = rail.nic
            port.description = f"{srv.name} {rail.nic}"
            if network.default_route:
                rail.routes.append(Route(to=DEFAULT_ROUTE, via=rail.gateway, metric=DEFAULT_METRIC + rail.index))
                rail.routes.append(Route(to=DEFAULT_ROUTE, via=rail.gateway, table=rail.table))

def _groups(loaded: LoadedInventory, compute: FabricModel) -> list[GroupServer]:
    inv = loaded.inventory
    out: list[GroupServer] = []
    taken = set(compute.device_names())
    mg = inv.addressing.management
    pool = ipam.net(mg.server_pool)
    gw = mg.gateway_server or ipam.ip_str(int(pool.network_address) + 1)
    # numbered down from the top of the pool: the GPU servers count up from the bottom, so growing either
    # side never renumbers the other (a growth plan changes no existing address). A group's members follow
    # the members of the groups listed before it.
    firsts = numbering.firsts([spec.count for spec in inv.server_groups.values()])
    for (group, spec), first in zip(inv.server_groups.items(), firsts):
        if group == COMPUTE_GROUP:
            raise InventoryError(f"{COMPUTE_GROUP!r} names the GPU servers of the compute fabric",
                                 **loaded.where("server_groups", group), hint="rename the group")
        for i in range(1, spec.count + 1):
            try:
                name = spec.naming.format(index=i)
            except (KeyError, IndexError, ValueError) as exc:
                raise InventoryError(f"cannot format {spec.naming!r}: {exc}", **loaded.where("server_groups", group, "naming"),
                                     hint="use the field index, e.g. stor{index:02d}") from None
            hostname(name, spec.naming, loaded.where("server_groups", group, "naming"))
            if name in taken:
                raise InventoryError(f"produces the duplicate device name {name!r}",
                                     **loaded.where("server_groups", group, "naming"), hint="make every name unique")
            taken.add(name)
            host = numbering.top_host(int(pool.network_address), pool.num_addresses, first + i - 1)
            if host < numbering.mgmt_host(int(pool.network_address), len(compute.servers)):
                raise InventoryError(f"pool {pool} is too small for the GPU servers and the server groups",
                                     **loaded.where("addressing", "management", "server_pool"), hint="use a shorter prefix")
            out.append(GroupServer(name, group, i, f"{ipam.ip_str(host)}/{pool.prefixlen}", gw))
    return out


def _check_cluster(loaded: LoadedInventory, cluster: ClusterModel) -> None:
    """Across networks: names unique, pools apart, routing tables apart."""
    seen: dict[str, str] = {n: "compute" for n in cluster.compute.device_names()}
    seen.update({g.name: "server_groups" for g in cluster.groups})
    for p in cluster.networks:
        for sw in p.fabric.switches:
            if sw.name in seen:
                raise InventoryError(f"switch name {sw.name!r} is already used in {seen[sw.name]}",
                                     **loaded.where("networks", p.name, "naming"), hint="give the network's switches their own names")
            seen[sw.name] = p.name
    inv = loaded.inventory
    a = inv.addressing
    pools: dict[tuple[str | int, ...], IPv4Network] = {
        ("addressing", "loopbacks", "leaf"): ipam.net(a.loopbacks.leaf),
        ("addressing", "loopbacks", "spine"): ipam.net(a.loopbacks.spine),
        ("addressing", "host_links", "pool"): ipam.net(a.host_links.pool),
        ("addressing", "management", "switch_pool"): ipam.net(a.management.switch_pool),
        ("addressing", "management", "server_pool"): ipam.net(a.management.server_pool),
    }
    if any(sw.role == "super_spine" for sw in cluster.compute.switches):
        pools[("addressing", "loopbacks", "super_spine")] = ipam.net(a.loopbacks.super_spine)
    cluster.compute_pools = {".".join(map(str, k[1:])): str(v) for k, v in pools.items()}
    for p in cluster.networks:
        for key, prefix in p.pools.items():
            pools[("networks", p.name, "addressing", key)] = ipam.net(prefix)
    if inv.oob:
        pools[("oob", "bmc_pool")] = ipam.net(inv.oob.bmc_pool)
        pools[("oob", "switch_pool")] = ipam.net(inv.oob.switch_pool)
    for p in cluster.networks:  # the frontend's exit: its point-to-point links are addresses of the cluster too
        spec = inv.networks[p.name]
        border.check_accept(p.name, spec, dict(pools), loaded.where)
        for i, subnet in border.upstream_subnets(spec):
            pools[("networks", p.name, "upstream", "links", i, "address")] = subnet
    keys = list(pools)
    for i, k1 in enumerate(keys):
        for k2 in keys[i + 1:]:
            if pools[k1].overlaps(pools[k2]):
                first = ".".join(map(str, k1))
                raise InventoryError(f"overlaps {first} ({pools[k1]}): the networks of a cluster never share addresses",
                                     **loaded.where(*k2), hint="give every network its own address range")
    tables: dict[int, str] = {}
    for plane, fab in enumerate(cluster.compute_fabrics(), start=1):  # plane p's tables follow plane p-1's
        for srv in fab.servers[:1]:
            for r in srv.rails:
                tables[r.table] = "servers.table_base" + (f" (compute plane {plane})" if plane > 1 else "")
    for p in cluster.networks:
        for srv in p.fabric.servers[:1]:
            for r in srv.rails:
                if r.table in tables:
                    raise InventoryError(f"routing table {r.table} is also used by {tables[r.table]}",
                                         **loaded.where("networks", p.name, "table_base"), hint="give every network its own tables")
                tables[r.table] = f"networks.{p.name}.table_base"


def resolve_cluster(loaded: LoadedInventory, compute: FabricModel, compute_planes: list[FabricModel] | None = None) -> ClusterModel:
    inv = loaded.inventory
    cluster = ClusterModel(compute=compute, thresholds=dict(inv.features.verify.thresholds),
                           compute_planes=compute_planes or [])
    if not (inv.networks or inv.server_groups or inv.oob):
        return cluster
    switches, servers = sum(len(f.switches) for f in [compute, *cluster.compute_planes]), len(compute.servers)
    # the one size guard after every expansion: the groups' servers (before they are made), networks, OOB
    servers += sum(spec.count for spec in inv.server_groups.values())
    check_size(switches, servers, loaded.where("server_groups"))
    cluster.groups = _groups(loaded, compute)
    members: dict[str, list[str]] = {COMPUTE_GROUP: [s.name for s in compute.servers]}
    for g in cluster.groups:
        members.setdefault(g.group, []).append(g.name)
    for group in inv.server_groups:
        members.setdefault(group, [])
    for name, network in inv.networks.items():
        cluster.networks.append(_resolve_network(loaded, name, network, members, {s.name: s.profile for s in compute.servers}))
        switches += len(cluster.networks[-1].fabric.switches)
        check_size(switches, servers, loaded.where("networks", name))
        if network.role == "frontend" and cluster.networks[-1].bond:
            socket_on_frontend_bond(compute, cluster.networks[-1].fabric)
    _check_cluster(loaded, cluster)
    if inv.oob:
        cluster.oob = resolve_oob(loaded, cluster)
        check_size(switches + len(cluster.oob.switches), servers, loaded.where("oob"))
    return cluster
