"""Tenants (inventory `tenants:`): each a VRF with its own L3VNI on the compute fabric's leaves, the spines unaware.

The tenant's VNI is pinned (`vni:`) or its name hashed into `vni_pool` (sha256, so the same name gets the same VNI
on every run and in every order). A hash that lands on a VNI already taken is refused with the next free VNI to
pin, never moved: probing would let a new tenant's position in the file decide an older tenant's VNI, and adding
a tenant must never renumber another. Route target: <route_target_asn>:<vni>, import and export.

Applied to the resolved compute fabric: the server-facing ports of a tenant's servers join its VRF, every fabric
switch activates l2vpn-evpn on its underlay sessions (a spine relays type-5 routes, holds no VRF), each leaf with
tenant ports is a VTEP (its loopback) and no longer announces host links in the default VRF (they are in the
tenants' VRFs now, announced as type-5 routes). On a SONiC leaf the VRF is named as SONiC requires
(platforms.vxlan.sonic_vrf_name) and its L3VNI rides a VLAN of the leaf (netauto.sonic.tenants).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from netauto.errors import InventoryError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.tenants import Tenants
from netauto.model.tenant_prefixes import check_prefixes, leaf_routes
from netauto.model.types import Evpn, FabricModel, Switch, Tenant, TenantVrf, VxlanQos
from netauto.netutil.ip import ip_of
from netauto.platforms.vxlan import (
    DECAP_DSCP_ACTION,
    ENCAP_DSCP_ACTION,
    SONIC_DECAP_DSCP_ACTION,
    SONIC_ENCAP_DSCP_ACTION,
    SONIC_VRF_NAME_MAX,
    SONIC_VRF_PREFIX,
    VXLAN_OVERHEAD,
    sonic_l3vni_vlan,
    sonic_vrf_name,
)


def hashed_vni(name: str, first: int, size: int) -> int:
    """The VNI a tenant's name hashes to: `first` + sha256(name) mod `size` (independent of every other tenant)."""
    return first + int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") % size


def allocate(loaded: LoadedInventory, spec: Tenants) -> dict[str, tuple[int, str]]:
    """tenant -> (VNI, "pinned"|"hashed"). Pinned VNIs first; a collision is an error naming both tenants."""
    pool = spec.vni_pool
    holder: dict[int, str] = {}
    out: dict[str, tuple[int, str]] = {}
    for name, t in spec.members.items():
        if t.vni is not None:
            if t.vni in holder:
                raise InventoryError(f"VNI collision: tenant {name} pins VNI {t.vni}, which tenant {holder[t.vni]} "
                                     "already has", hint="pin another VNI or remove `vni:` to hash into the pool",
                                     **loaded.where("tenants", "members", name, "vni"))
            holder[t.vni] = name
            out[name] = (t.vni, "pinned")
    hashed = {name: hashed_vni(name, pool.first, pool.size) for name, t in spec.members.items() if t.vni is None}
    for name, vni in hashed.items():
        if vni in holder:
            # the file's order says nothing about which of the two is new: the operator pins the new one, on a VNI
            # that is neither pinned nor any tenant's hash (else the pin collides in turn)
            taken = set(holder) | set(hashed.values())
            free = next((v for v in range(pool.first, pool.last + 1) if v not in taken), None)
            raise InventoryError(
                f"VNI collision: tenant {name} hashes to VNI {vni} of vni_pool, which tenant {holder[vni]} has "
                "(netauto never moves a tenant's VNI: that would renumber one of them)",
                hint=f"pin `vni: {free}` on whichever of {holder[vni]} and {name} is new (the other keeps {vni})"
                if free else f"the pool is full: pin a `vni:` outside it on whichever of {holder[vni]} and {name} is "
                "new (widening vni_pool renumbers every tenant without `vni:`)",
                **loaded.where("tenants", "members", name))
        holder[vni] = name
        out[name] = (vni, "hashed")
    return out


def _owners(loaded: LoadedInventory, spec: Tenants, fabric: FabricModel) -> dict[str, str]:
    """server -> tenant; every server of the fabric in exactly one tenant."""
    known = {s.name for s in fabric.servers}
    owner: dict[str, str] = {}
    for name, t in spec.members.items():
        for i, srv in enumerate(t.servers):
            if srv not in known:
                raise InventoryError(f"tenant {name}: no GPU server named {srv} in this fabric",
                                     hint="name a server of the compute fabric (`netauto show model`)",
                                     **loaded.where("tenants", "members", name, "servers", i))
            if owner.get(srv) == name:
                raise InventoryError(f"tenant {name}: server {srv} is listed twice",
                                     hint=f"remove one {srv} from tenant {name}'s servers",
                                     **loaded.where("tenants", "members", name, "servers", i))
            if srv in owner:
                raise InventoryError(
                    f"server {srv} is in two tenants ({owner[srv]} and {name}): a server is never split, its rails "
                    "share one NCCL communicator and GPU memory", hint=f"remove {srv} from one of them",
                    **loaded.where("tenants", "members", name, "servers", i))
            owner[srv] = name
    missing = [s.name for s in fabric.servers if s.name not in owner]
    if missing:
        raise InventoryError(
            f"server(s) {', '.join(missing[:4])}{' ...' if len(missing) > 4 else ''} in no tenant: a port outside "
            "every tenant VRF would sit in the default VRF, next to the underlay", hint="add them to a tenant "
            "(spare servers: a tenant of their own)", **loaded.where("tenants", "members"))
    return owner


def _check_platform(loaded: LoadedInventory, fabric: FabricModel) -> None:
    if fabric.host_link_mode != "p2p":
        raise InventoryError("tenants need host_links mode p2p: each server port its own /31 can join its tenant's "
                             "VRF; leaf-subnet puts every server of a leaf in one subnet",
                             hint="set addressing.host_links.mode: p2p", **loaded.where("tenants"))


def _check_mtu(loaded: LoadedInventory, fabric: FabricModel) -> None:
    """The underlay carries the hosts' largest frame plus the VXLAN header (platforms.vxlan.VXLAN_OVERHEAD)."""
    host_mtu = max((r.mtu for s in fabric.servers for r in s.rails), default=0)
    for sw in fabric.switches:
        for i in sw.fabric_ports:
            if i.mtu < host_mtu + VXLAN_OVERHEAD:
                raise InventoryError(
                    f"{sw.name} {i.name}: fabric MTU {i.mtu} below the hosts' MTU {host_mtu} + {VXLAN_OVERHEAD} "
                    "bytes of VXLAN: tenant frames would be dropped", hint=f"raise the fabric MTU to at least "
                    f"{host_mtu + VXLAN_OVERHEAD} or lower the hosts' MTU", **loaded.where("tenants"))


def _leaf_vrfs(sw: Switch, owner: dict[str, str], vrf_of: dict[str, TenantVrf], order: list[str],
               routes: dict[tuple[str, str], list[tuple[str, str]]]) -> None:
    used: set[str] = set()
    for iface in sw.host_ports:
        tenant = owner.get(iface.peer_device or "")
        if tenant is not None:
            iface.vrf = tenant
            used.add(tenant)
    if not used:
        return
    sw.vrfs = [replace(vrf_of[t], routes=tuple(routes.get((sw.name, t), []))) for t in order if t in used]
    sw.vxlan_source = ip_of(sw.loopback)
    sw.vxlan_qos = VxlanQos(ENCAP_DSCP_ACTION, DECAP_DSCP_ACTION)
    if sw.nos == "sonic":
        sonic_leaf_vrfs(sw)  # SONiC's VRF names, no DSCP setting (config_db's tables: netauto.sonic.tenants)
    sw.vxlan_mtu = min(i.mtu for i in sw.fabric_ports) - VXLAN_OVERHEAD if sw.fabric_ports else None
    # the host links live in the tenant VRFs now (type-5 routes); the default VRF announces the loopback only
    sw.bgp.connected_prefixes = []
    sw.bgp.aggregates = []


# netdevs every leaf has besides its ports: the loopback and the management port (model.oob: eth0 in VRF mgmt)
LEAF_NETDEVS = ("lo", "eth0")


def _check_netdevs(loaded: LoadedInventory, sw: Switch) -> None:
    """A VRF is a Linux netdev of the leaf (`iface <tenant>` / `vrf-table auto`): its name may not be a port's,
    the loopback's or another VRF's L3VNI device's (VXLAN `vni<vni>`, bridge `br<vni>`)."""
    taken = {i.name for i in sw.interfaces} | set(LEAF_NETDEVS)
    taken |= {d for v in sw.vrfs for d in (v.vxlan_device, v.bridge)}
    for v in sw.vrfs:
        if v.name in taken:
            raise InventoryError(f"tenant {v.tenant or v.name}: its VRF {v.name} would share its name with interface "
                                 f"{v.name} of leaf {sw.name}", hint="rename the tenant",
                                 **loaded.where("tenants", "members", v.tenant or v.name))


def apply_tenants(loaded: LoadedInventory, fabric: FabricModel) -> None:
    spec = loaded.inventory.tenants
    if spec is None:
        return
    _check_platform(loaded, fabric)
    _check_mtu(loaded, fabric)
    vnis = allocate(loaded, spec)
    owner = _owners(loaded, spec, fabric)
    check_prefixes(loaded, spec)
    routes = leaf_routes(spec, fabric)
    order = list(spec.members)
    fabric.tenants = [Tenant(name, vnis[name][0], f"{spec.route_target_asn}:{vnis[name][0]}", list(t.servers),
                             vnis[name][1]) for name, t in spec.members.items()]
    vrf_of = {t.name: TenantVrf(t.name, t.vni, t.route_target, t.name) for t in fabric.tenants}
    for sw in fabric.switches:
        if sw.role == "leaf":
            _leaf_vrfs(sw, owner, vrf_of, order, routes)
            _check_netdevs(loaded, sw)
        sw.evpn = Evpn()  # l2vpn-evpn on the underlay sessions; no L2 VTEP (vtep None)
    check_sonic_tenants(loaded, fabric)


def sonic_leaf_vrfs(sw: Switch) -> None:
    """A SONiC leaf's tenant VRFs and ports under SONiC's VRF names; the DSCP through VXLAN is SAI's default."""
    names = {v.tenant: sonic_vrf_name(v.tenant) for v in sw.vrfs}
    sw.vrfs = [replace(v, name=names[v.tenant]) for v in sw.vrfs]
    for iface in sw.host_ports:
        if iface.vrf is not None:
            iface.vrf = names[iface.vrf]
    sw.vxlan_qos = VxlanQos(SONIC_ENCAP_DSCP_ACTION, SONIC_DECAP_DSCP_ACTION)


def check_sonic_tenants(loaded: LoadedInventory, fabric: FabricModel) -> None:
    """What SONiC cannot hold, refused in one line: a VRF name over IFNAMSIZ, two tenants on one L3VNI VLAN."""
    for sw in fabric.switches:
        if sw.nos != "sonic" or not sw.vrfs:
            continue
        vlans: dict[int, str] = {}
        for v in sw.vrfs:
            if len(v.name) > SONIC_VRF_NAME_MAX:
                room = SONIC_VRF_NAME_MAX - len(SONIC_VRF_PREFIX)
                raise InventoryError(
                    f"tenant {v.tenant}: its VRF on SONiC leaf {sw.name} would be {v.name}, longer than SONiC's "
                    f"{SONIC_VRF_NAME_MAX} characters (sonic-vrf.yang: name pattern Vrf..., interface_name 1..15)",
                    hint=f"shorten the tenant's name to at most {room} characters",
                    **loaded.where("tenants", "members", v.tenant))
            vlan = sonic_l3vni_vlan(v.vni)
            if vlan in vlans:
                raise InventoryError(
                    f"tenants {vlans[vlan]} and {v.tenant} need the same L3VNI VLAN {vlan} on SONiC leaf {sw.name} "
                    "(VNI mod 2000: SONiC maps an L3VNI through a VLAN, sonic-utilities add_vrf_vni_map)",
                    hint=f"pin another `vni:` on whichever of {vlans[vlan]} and {v.tenant} is new (pinning the other "
                    "renumbers a running tenant)", **loaded.where("tenants", "members", v.tenant))
            vlans[vlan] = v.tenant
