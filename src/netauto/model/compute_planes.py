"""Compute planes (`topology.compute_planes`): every plane is another compute fabric built by the same builder.

Plane p (1-based) is `model.compute.build` run on a derived inventory, so each plane gets the whole numbering,
port plan, underlay, host addressing and QoS of a single-plane fabric. What the plane changes is a formula:
- names: every switch name gets the prefix `p<p>-` (servers keep theirs: one server sits on every plane);
- ASNs: the single-plane ASN + (p - 1) * `asn_offset` (0: the planes reuse them; they never peer);
- addresses: each loopback pool and the host-link pool is cut into `count` equal parts, plane p takes part p
  (so `rail_prefix_len` stays, and a pool too small for a plane is refused where the single fabric would be);
  switch management addresses follow each other plane after plane in the one management pool;
- servers: a rail NIC's own port is its plane-1 port, `plane_ports[p]` its port on plane p; routing tables and
  rule priorities of plane p follow those of plane p - 1.
Plane 1 is the cluster's `compute` network; plane p > 1 is the network `compute-p<p>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netauto.errors import InventoryError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.schema import Asns, Inventory
from netauto.inventory.servers import RailNic, ServerHost, ServerProfile
from netauto.model import ipam, numbering
from netauto.model.compute import build, checked
from netauto.model.naming import Namer, inventory_namer, name_devices
from netauto.model.topology import Counts
from netauto.model.types import FabricModel
from netauto.platforms import nics as nic_facts

__all__ = ["NETWORK", "build_planes", "inputs_of", "network_name", "plane_of"]

NETWORK = "compute"


def network_name(plane: int) -> str:
    """The cluster network of compute plane `plane`: "compute" for plane 1, "compute-p<plane>" after it."""
    return NETWORK if plane == 1 else f"{NETWORK}-p{plane}"


def plane_of(network: str) -> int | None:
    """The compute plane of a network name (`network_name` inverted), None for a network that is none."""
    if network == NETWORK:
        return 1
    head, _, tail = network.rpartition("-p")
    return int(tail) if head == NETWORK and tail.isdigit() else None


def inputs_of(network: str) -> str:
    """The network whose per-network inputs (bom cable runs, NIC cages) a network takes: every compute plane
    the compute fabric's (`bom.cable_length_m.compute`), every other network its own."""
    return NETWORK if plane_of(network) is not None else network


def prefix(plane: int) -> str:
    return f"p{plane}-"


@dataclass(frozen=True)
class _PlaneSource:
    """Quacks like LoadedInventory for the compute builder: plane p's derived inventory, errors at the operator's keys."""

    inventory: Inventory
    outer: LoadedInventory

    @property
    def root(self) -> Path:
        return self.outer.root

    def where(self, *path: str | int) -> dict[str, Any]:
        return self.outer.where(*path)


def check(loaded: LoadedInventory) -> int:
    """The plane count after the checks: every NIC can be split that way, every NIC names one port per plane,
    every port is on exactly one plane, the balancing mode fits the count."""
    inv = loaded.inventory
    cp = inv.topology.compute_planes
    where = loaded.where
    if (cp.count > 1) != (cp.balancing != "none"):
        raise InventoryError(f"{cp.count} compute plane(s) with balancing {cp.balancing!r}",
                             **where("topology", "compute_planes", "balancing"),
                             hint="one plane balances nothing (none); two or four planes need swplb or hwplb")
    if cp.count == 1:
        for pname, prof in inv.servers.profiles.items():  # plane ports on one plane: silently dropped otherwise
            for i, nic in enumerate(prof.nics):
                if nic.plane_ports:
                    raise InventoryError(f"rail {nic.rail} names its ports on planes {sorted(nic.plane_ports)}, but "
                                         "the fabric has one compute plane", **where("servers", "profiles", pname, "nics", i),
                                         hint="set topology.compute_planes: {count: 2, balancing: swplb} (or 4), or "
                                              "remove plane_ports")
        return 1
    if inv.tenants is not None:  # tenant VRFs would reach plane 1's leaves only: refused, not half-rendered
        raise InventoryError("tenants: is not rendered for compute planes yet (the VRFs would reach plane 1 only)",
                             **where("tenants"), hint="remove tenants: or use topology.compute_planes.count: 1")
    if not inv.servers.profiles:
        raise InventoryError("compute planes need server profiles (each rail NIC's port per plane)",
                             **where("servers"), hint="describe the servers under servers.profiles (docs/compute-planes.md)")
    for pname, prof in inv.servers.profiles.items():
        _check_profile(loaded, pname, prof, cp.count, cp.balancing)
    if cp.balancing == "hwplb":
        # Refused, not half-rendered (docs/compute-planes.md, "Why hwplb is refused"). The hosts' hwplb data path is
        # set up by NVIDIA's Spectrum-X Operator from a SpectrumXRailPoolConfig whose railTopology lists every plane
        # PF of a rail (Mellanox/spectrum-x-operator 246268d, internal/controller/
        # spectrumxrailpoolconfig_host_flows_controller.go: SR-IOV switchdev policies with the devlink parameters
        # esw_multiport=true and flow_steering_mode=hmfs, an OVS bridge per rail over the plane PFs, the xPlane
        # DaemonSet; internal/controller/flows.go: ARP out of every plane PF, per-plane fast-failover groups into an
        # all-planes hash group). netauto renders none of those objects (not in its checked CRD set) and a netplan
        # address on a plane PF would be a second owner of it. The addressing is one /31 per node and rail "covering
        # all of its planes" (Network Operator 26.7 quick start, Mellanox/network-operator-docs 0cddb4c4
        # docs/spectrum-x/quick-start.rst, Step 7 hwplb: CIDRPool perNodeNetworkPrefix 31, gatewayIndex 0); that every
        # plane's leaf answers that /31's gateway is read out of the operator's flows, not from a switch configuration.
        raise InventoryError("balancing hwplb is refused: its hosts' rail data path (switchdev e-switch with "
                             "esw_multiport over the plane PFs, an OVS bridge per rail, xPlane) is NVIDIA's Spectrum-X "
                             "Operator's, which netauto does not render, and the per-rail /31 every plane's leaf would "
                             "share is not built",
                             **where("topology", "compute_planes", "balancing"),
                             hint='use balancing: swplb (one address per plane port), or run hwplb with the Spectrum-X '
                                  'Operator; docs/compute-planes.md, "Why hwplb is refused"')
    return cp.count


def _check_profile(loaded: LoadedInventory, pname: str, prof: ServerProfile, count: int, mode: str) -> None:
    seen: dict[str, str] = {}
    speed = loaded.inventory.fabric.host_link_speed
    for i, nic in enumerate(prof.nics):
        at = loaded.where("servers", "profiles", pname, "nics", i)
        kind = nic.kind or prof.nic_kind
        if mode == "hwplb" and mode not in nic_facts.plane_modes(kind):
            raise InventoryError(f"a {nic_facts.label(kind)} cannot balance compute planes in the NIC (hwplb: NIC LAG "
                                 f"over its plane ports); it runs: {', '.join(nic_facts.plane_modes(kind)) or 'none'}",
                                 **at, hint="use ConnectX-8 SuperNICs (nic_kind: connectx-8) or balancing: swplb")
        if count not in nic_facts.plane_counts(kind):
            raise InventoryError(f"a {nic_facts.label(kind)} cannot be split into {count} compute planes "
                                 f"(it can: {', '.join(map(str, nic_facts.plane_counts(kind)))})", **at,
                                 hint="use ConnectX-8 SuperNICs (nic_kind: connectx-8) or topology.compute_planes.count: 1")
        port = nic_facts.plane_port_speed(kind, count)  # 800G, 2 x 400G, 4 x 200G (platforms/data/nics.yaml)
        if port is not None and int(speed.rstrip("G")) > int(port.rstrip("G")):
            raise InventoryError(f"a {nic_facts.label(kind)} split into {count} compute planes has {port} ports; "
                                 f"fabric.host_link_speed is {speed} (profile {pname}, rail {nic.rail})",
                                 **loaded.where("fabric", "host_link_speed"),
                                 hint=f"set fabric.host_link_speed: {port}, or fewer compute planes")
        want = set(range(2, count + 1))
        if set(nic.plane_ports) != want:
            raise InventoryError(f"rail {nic.rail} names its ports on planes {sorted(nic.plane_ports) or 'none'}; "
                                 f"a {count}-plane fabric needs planes {sorted(want)}", **at,
                                 hint="list plane_ports: {2: {name: ..., rdma: ...}, ...} (its own name is plane 1)")
        # name, RDMA device and PCI function (udev names each plane's PF by it) are each one plane port's
        ports = [(1, nic.name, nic.rdma, nic.pci)] + [(p, pp.name, pp.rdma, pp.pci)
                                                      for p, pp in sorted(nic.plane_ports.items())]
        for plane, *values in ports:
            for value in filter(None, values):
                if value in seen:
                    raise InventoryError(f"port {value!r} is on plane {plane} (rail {nic.rail}) and also {seen[value]}: "
                                         "each NIC port is on exactly one plane", **at,
                                         hint="give every plane port its own name, RDMA device and PCI function")
                seen[value] = f"plane {plane} (rail {nic.rail})"


def _nic_on(nic: RailNic, plane: int) -> RailNic:
    if plane == 1:
        return nic.model_copy(update={"plane_ports": {}})
    port = nic.plane_ports[plane]
    return nic.model_copy(update={"name": port.name, "rdma": port.rdma, "pci": port.pci, "plane_ports": {}})


def _hosts_on(inv: Inventory, plane: int) -> dict[str, ServerHost]:
    """Per-server facts on plane `plane`: the MACs of its ports on that plane. A MAC of another plane's port is
    that plane's; a name on no plane stays on every plane, so plane 1's build names it."""
    ports: dict[int, set[str]] = {}
    for prof in inv.servers.profiles.values():
        for nic in prof.nics:
            ports.setdefault(1, set()).add(nic.name)
            for p, pp in nic.plane_ports.items():
                ports.setdefault(p, set()).add(pp.name)
    elsewhere = set().union(*(names for p, names in ports.items() if p != plane)) - ports.get(plane, set())
    return {name: h.model_copy(update={"macs": {k: v for k, v in h.macs.items() if k not in elsewhere}})
            for name, h in inv.servers.hosts.items()}


def _part(value: str, plane: int, count: int) -> str:
    """Part `plane` (1-based) of `count` equal parts of a pool."""
    pool = ipam.net(value)
    bits = (count - 1).bit_length()
    return str(ipam.nth_subnet(pool, min(pool.prefixlen + bits, 32), plane - 1)) if bits else value


def derived(inv: Inventory, plane: int, count: int, server_names: frozenset[str] = frozenset()) -> Inventory:
    """Plane `plane`'s inventory: the operator's, with the plane's pools, ASNs, NIC ports and tables. `server_names`:
    the servers (on every plane, whatever they start with: `p1-gpu01` is no plane-1 switch)."""
    cp = inv.topology.compute_planes
    a = inv.addressing
    lo = a.loopbacks.model_copy(update={r: _part(getattr(a.loopbacks, r), plane, count)
                                        for r in ("leaf", "spine", "super_spine")})
    hl = a.host_links.model_copy(update={"pool": _part(a.host_links.pool, plane, count)})
    shift = (plane - 1) * cp.asn_offset
    asns = Asns.model_construct(leaf_base=inv.asns.leaf_base + shift, spine_base=inv.asns.spine_base + shift,
                                super_spine=inv.asns.super_spine + shift)
    s = inv.servers
    rails = inv.topology.rails
    profiles = {k: p.model_copy(update={"nics": [_nic_on(n, plane) for n in p.nics]}) for k, p in s.profiles.items()}
    servers = s.model_copy(update={"profiles": profiles, "hosts": _hosts_on(inv, plane),
                                   "table_base": s.table_base + (plane - 1) * rails,
                                   "rule_priority_base": s.rule_priority_base + (plane - 1) * rails})
    n = inv.naming
    naming = n.model_copy(update={r: prefix(plane) + getattr(n, r) for r in ("leaf", "spine", "super_spine")})
    others = tuple(prefix(q) for q in range(1, count + 1) if q != plane)

    def elsewhere(name: str) -> bool:  # a switch of another plane
        return name.startswith(others) and name not in server_names

    devices = {k: v for k, v in inv.overrides.devices.items() if not elsewhere(k)}
    ports = [o for o in inv.overrides.ports if not elsewhere(o.device)]
    gs = inv.features.gshut
    features = inv.features.model_copy(update={"gshut": gs.model_copy(
        update={"drain": [d for d in gs.drain if not d.startswith(others)]})})
    return inv.model_copy(update={
        "fabric": inv.fabric.model_copy(update={"name": inv.fabric.name if plane == 1 else f"{inv.fabric.name}-p{plane}"}),
        "topology": inv.topology.model_copy(update={"compute_planes": cp.model_copy(update={"count": 1, "balancing": "none"})}),
        "addressing": a.model_copy(update={"loopbacks": lo, "host_links": hl}),
        "asns": asns, "servers": servers, "naming": naming, "features": features,
        "overrides": inv.overrides.model_copy(update={"devices": devices, "ports": ports}),
    })


def _namer(inv: Inventory, loaded: LoadedInventory) -> Namer:
    return inventory_namer(inv, loaded.where)


def _shift_mgmt(loaded: LoadedInventory, fabric: FabricModel, plane: int) -> None:
    """Plane p's switches take the management addresses after those of planes 1..p-1, in the one pool."""
    pool = ipam.net(loaded.inventory.addressing.management.switch_pool)
    per = len(fabric.switches)
    chosen = {k for k, v in loaded.inventory.overrides.devices.items() if v.mgmt_ip}
    top = numbering.top_host(int(pool.network_address), pool.num_addresses, 0)
    for sw in fabric.switches:
        if sw.name in chosen:
            continue
        ip, _, plen = sw.mgmt_address.partition("/")
        host = int(ipam.net(f"{ip}/32").network_address) + (plane - 1) * per
        if host > top:
            raise InventoryError(f"pool {pool} is too small for the switches of {plane} compute planes",
                                 **loaded.where("addressing", "management", "switch_pool"), hint="use a shorter prefix")
        sw.mgmt_address = f"{ipam.ip_str(host)}/{plen}"


def build_planes(loaded: LoadedInventory) -> list[FabricModel]:
    """One fabric per compute plane, plane 1 first (the cluster's `compute`); a single plane: the fabric as ever."""
    count = check(loaded)
    if count == 1:
        return [build(checked(loaded))]
    out: list[FabricModel] = []
    inv = loaded.inventory
    server_names = frozenset(name_devices(Counts.of(inv), _namer(inv, loaded)).servers.values())
    for plane in range(1, count + 1):
        source = _PlaneSource(derived(inv, plane, count, server_names), loaded)
        fabric = build(checked(source), _namer(source.inventory, loaded))
        net = network_name(plane)
        for sw in fabric.switches:
            sw.network = net
        for link in fabric.links:
            link.network = net
        _shift_mgmt(loaded, fabric, plane)
        out.append(fabric)
    _nccl_over_planes(loaded.inventory, out)
    return out


def _nccl_over_planes(inv: Inventory, planes: list[FabricModel]) -> None:
    """swplb: NCCL spreads over every plane port of a server (NCCL_IB_HCA lists them rail by rail, plane by
    plane) and reaches peers across the whole host-link pool (NCCL_IB_ADDR_RANGE)."""
    by_name = [{s.name: s for s in fab.servers} for fab in planes]
    for srv in planes[0].servers:
        if srv.nccl is None:
            continue
        ports = [(r.index, p, r.rdma_device) for p, plane in enumerate(by_name) for r in plane[srv.name].rails]
        srv.nccl.ib_hca = "=" + ",".join(f"{dev}:1" for _, _, dev in sorted(ports))
        srv.nccl.addr_range = inv.addressing.host_links.pool
