"""GPU servers and their rail links: each leaf's host block, each server's port, addresses, routes and
routing tables on every rail, all from (SU, server index, rail)."""

from __future__ import annotations

from dataclasses import dataclass

from netauto.errors import InventoryError
from netauto.inventory.servers import RailNic, ServerProfile
from netauto.model import addressing, ipam, numbering
from netauto.model.context import Context
from netauto.model.hosts import firmware, nccl, port_buffer_owner
from netauto.model.naming import Names
from netauto.model.portplan import breakout
from netauto.model.ports import slot
from netauto.model.profiles import server_profile
from netauto.model.types import Interface, Link, PrefixRule, Qos, Rail, Route, Server, Svi, Switch
from netauto.model.wiring import interface

RAIL_VLAN = 100


@dataclass(frozen=True, slots=True)
class LeafBlock:
    """The host block of one leaf: its rail's supernet, its first address and its prefix."""

    supernet: str
    start: int
    prefix: str


@dataclass(frozen=True, slots=True)
class HostAddress:
    """One server end of a rail link: gateway and address (integers), prefix length, the subnet they share."""

    gateway: int
    ip: int
    prefixlen: int
    subnet: str


def host_address(block: LeafBlock, index: int, mode: str, leaf_prefix_len: int) -> HostAddress:
    """Server `index` (1-based) on a leaf block: its own /31 in p2p mode, else a host of the shared subnet."""
    if mode == "p2p":
        gw = numbering.p2p_gateway(block.start, index)
        return HostAddress(gw, gw + 1, 31, f"{ipam.ip_str(gw)}/31")
    return HostAddress(numbering.shared_gateway(block.start), numbering.shared_host(block.start, index),
                       leaf_prefix_len, block.prefix)


def leaf_blocks(ctx: Context, names: Names, switches: dict[str, Switch], su: int) -> list[LeafBlock]:
    """The host block of each rail's leaf of SU `su`, rail by rail; each leaf announces its block (p2p:
    aggregated, leaf-subnet: on its rail SVI)."""
    inv = ctx.inv
    hl = inv.addressing.host_links
    out = []
    for r in range(ctx.counts.rails):
        start = addressing.leaf_block(inv, su, r)
        block = LeafBlock(str(addressing.rail_supernet(inv, r)), start, f"{ipam.ip_str(start)}/{hl.leaf_prefix_len}")
        out.append(block)
        leaf = switches[names.leaves[(su, r)]]
        leaf.bgp.connected_prefixes.append(PrefixRule(block.prefix, 32))
        if hl.mode == "p2p":
            leaf.bgp.aggregates.append(block.prefix)
        else:
            leaf.svi = Svi(name=f"{'Vlan' if leaf.nos == 'sonic' else 'vlan'}{RAIL_VLAN}", vlan=RAIL_VLAN,
                           address=f"{ipam.ip_str(numbering.shared_gateway(start))}/{hl.leaf_prefix_len}",
                           members=[])
    return out


def rail(ctx: Context, leaf: Switch, port: Interface, r: int, nic: RailNic, prof: ServerProfile,
         block: LeafBlock, addr: HostAddress, mac: str | None) -> Rail:
    """Server side of rail `r`: address, gateway, its routing table and routes, the NIC's facts."""
    inv = ctx.inv
    gw, ip = ipam.ip_str(addr.gateway), ipam.ip_str(addr.ip)
    table = numbering.rail_table(inv.servers.table_base, r)
    routes = [Route(to=block.supernet, via=gw),
              Route(to=addressing.pool_text(inv.addressing.host_links.pool), via=gw, table=table)]
    if inv.addressing.host_links.mode != "p2p":
        routes.append(Route(to=addr.subnet, via=None, table=table, scope="link"))
    return Rail(
        index=r, nic=nic.name, rdma_device=nic.rdma, address=f"{ip}/{addr.prefixlen}",
        ip=ip, gateway=gw, subnet=addr.subnet, leaf=leaf.name, leaf_port=port.name,
        mtu=inv.fabric.mtu.host, table=table, rule_priority=numbering.rail_rule_priority(inv.servers.rule_priority_base, r),
        routes=routes, pci=nic.pci, mac=mac, kind=nic.kind or prof.nic_kind, gpus=list(nic.gpus),
        kernel_name=prof.nic_names == "kernel",
    )


def attach_host_port(leaf: Switch, port: Interface, addr: HostAddress, mode: str) -> None:
    """The leaf side of a live rail link: the /31 on the port (p2p), or the port in the rail VLAN."""
    if mode == "p2p":
        port.address = addr.subnet
        return
    port.access_vlan = RAIL_VLAN
    if port.enabled:
        assert leaf.svi is not None  # leaf_blocks made it
        leaf.svi.members.append(port.name)


def server(ctx: Context, names: Names, switches: dict[str, Switch], su: int, index: int, blocks: list[LeafBlock],
           qos: Qos, disabled: set[tuple[str, str]]) -> tuple[Server | None, list[Link]]:
    """Server `index` of SU `su` and its rail links; an absent server (or a rail its model lacks) keeps its
    leaf port, disabled and described as reserved, and yields no Server."""
    inv, n = ctx.inv, ctx.counts
    hl = inv.addressing.host_links
    speed = inv.fabric.host_link_speed
    name = names.servers[(su, index)]
    over = inv.overrides.devices.get(name)
    absent = bool(over and over.absent)
    pname, prof = server_profile(ctx, name, su)
    by_rail = {nic.rail: nic for nic in prof.nics}
    host = inv.servers.hosts.get(name)
    macs = dict(host.macs) if host else {}
    unknown = sorted(set(macs) - {nic.name for nic in prof.nics})
    if unknown:
        raise InventoryError(f"{name}: no rail NIC {unknown[0]!r} in profile {pname!r}",
                             **ctx.where("servers", "hosts", name, "macs", unknown[0]),
                             hint=f"use the profile's NIC names: {', '.join(nic.name for nic in prof.nics)}")
    ps = slot(inv.ports.leaf.downlinks.first, breakout(ctx, "leaf", "downlinks"), index - 1)
    rails: list[Rail] = []
    links: list[Link] = []
    for r in range(n.rails):
        leaf = switches[names.leaves[(su, r)]]
        spec = by_rail.get(r)
        if absent or spec is None:
            why = "absent" if absent else f"no rail {r} NIC in profile {pname}"
            port = interface(ctx, leaf, ps, "host", None, None, speed, f"reserved for {name} ({why})", disabled)
            port.enabled = False
            continue
        port = interface(ctx, leaf, ps, "host", name, spec.name, speed, f"{name} {spec.name}", disabled)
        addr = host_address(blocks[r], index, hl.mode, hl.leaf_prefix_len)
        attach_host_port(leaf, port, addr, hl.mode)
        rails.append(rail(ctx, leaf, port, r, spec, prof, blocks[r], addr, macs.get(spec.name)))
        links.append(Link(leaf.name, port.name, name, spec.name, speed, "server-leaf", port.enabled))
    if absent:
        return None, links
    mg = inv.addressing.management
    mgmt, gw = addressing.server_mgmt(inv, n, su, index, name)
    return Server(name=name, su=su, index=index, mgmt_address=mgmt, mgmt_gateway=gw, ssh_user=mg.server_user,
                  rails=rails, qos=qos, profile=pname, model=prof.model, absent_rails=sorted(prof.absent_rails),
                  nccl=nccl(inv, rails, prof, qos), firmware=firmware(inv, rails, qos),
                  adaptive_routing=inv.features.adaptive_routing, port_buffer_owner=port_buffer_owner(inv)), links


def servers(ctx: Context, names: Names, switches: dict[str, Switch], qos: Qos,
            disabled: set[tuple[str, str]]) -> tuple[list[Server], list[Link]]:
    """Every server and its rail links, SU by SU (the leaves' host blocks first)."""
    out: list[Server] = []
    links: list[Link] = []
    for s in range(1, ctx.counts.sus + 1):
        blocks = leaf_blocks(ctx, names, switches, s)
        for k in range(1, ctx.counts.servers_per_su + 1):
            srv, srv_links = server(ctx, names, switches, s, k, blocks, qos, disabled)
            links += srv_links
            if srv is not None:
                out.append(srv)
    return out, links
