"""The OOB network's own switches: what their NVUE startup.yaml holds (rendered by netauto.render.nvue).

The shape of NVIDIA's OOB designs (DGX SuperPOD/BasePOD: SN2201 access switches, 1G RJ45 to every BMC and
switch management port), on the cabling `resolve_oob` plans:

* access switch: every cabled port an STP edge port untagged in the VLAN of the management pool of the device
  plugged in (one VLAN per pool: the BMCs, the OOB switches themselves, each network's switch management pool;
  `layout: blocks` puts each network on access switches of its own, so a switch mostly carries one VLAN), the
  uplinks to the aggregation one LACP bond trunking the switch's VLANs, managed at an SVI in the OOB switches'
  VLAN (their eth0 is not cabled: the OOB network is its own management network) with a static default.
* aggregation (a pair: MLAG, as the frontend network's access pairs in netauto.model.mlag.bond_access): one
  MLAG bond per access switch, one SVI per pool whose VRR address is the gateway the pool's devices already
  point to (taken from the model, never recomputed), .2/.3 the pair's own addresses. No routing protocol: the
  management subnets are connected routes of the aggregation and of nothing else; the only way out is an
  optional routed port per aggregation switch to the site's management network (`oob.site_uplink`).
"""

from __future__ import annotations

import re
from functools import cache
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from typing import Any

from netauto.errors import InventoryError, NetautoError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.oob import OutOfBand
from netauto.inventory.schema import SPEEDS_MBPS
from netauto.model import ipam, numbering
from netauto.model.cluster import Bmc, ClusterModel, OobModel, OobSwitch, OobVlan
from netauto.model.mlag import MLAG_MAC_BASE, MLAG_PRIORITY, VRR_MAC, mac_str
from netauto.model.naming import hostname
from netauto.model.numbering import MGMT_FIRST_HOST
from netauto.model.types import BondPort, IfKind, Interface, Link, Mlag, Route, Svi
from netauto.netutil.ip import DEFAULT_ROUTE, ip_of
from netauto.platforms import hardware
from netauto.platforms.optics import cage_type

# .1 is a pool's gateway (numbering.default_gateway, the VRR address), .2/.3 the aggregation switches' own SVI
# addresses; every device of a pool starts at numbering.MGMT_FIRST_HOST (.10), so neither collides by
# construction. `_check_collisions` still refuses an inventory whose gateway or devices land on them.
PAIR_HOSTS = (2, 3)
MGMT_VRF = "mgmt"  # Cumulus's management VRF, eth0's home (CL Management VRF page)
# The aggregation is the spanning tree's root: the lowest STP bridge priority NVUE takes (4096..61440 in steps
# of 4096, nvueschema bridge domain stp priority), the same on both MLAG peers (Cumulus MLAG page: "STP")
ROOT_PRIORITY = 4096
UPLINK_BOND = "uplink"  # the access switch's LACP bond to the aggregation
BMC_PORT = "bmc"
# Cumulus reserves 44:38:39:ff:00:00-ff:ff for MLAG system MACs; the frontend's pairs take MLAG_MAC_BASE + group
# (mlag.bond_access), the OOB pair the top of the range
OOB_MLAG_MAC = MLAG_MAC_BASE + 0xFF00


def _oob_blocks(cluster: ClusterModel, layout: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(block, OOB ends) in cabling order. `blocks`: each network's switch ports and each server group's BMCs
    on access switches of their own, so growing one block never moves a cable of another."""
    blocks: list[tuple[str, list[tuple[str, str]]]] = [
        (f"sw-{net}", [(sw.name, "eth0") for sw in fab.switches]) for net, fab in cluster.fabrics()]
    blocks.append(("bmc-compute", [(s.name, "bmc") for s in cluster.compute.servers]))
    for group in dict.fromkeys(g.group for g in cluster.groups):
        blocks.append((f"bmc-{group}", [(g.name, "bmc") for g in cluster.groups if g.group == group]))
    if layout == "packed":
        return [("all", [end for _, ends in blocks for end in ends])]
    return [(b, ends) for b, ends in blocks if ends]


def resolve_oob(loaded: LoadedInventory, cluster: ClusterModel) -> OobModel:
    """The OOB network of `cluster`: access switches per block, the aggregation, every cable, every BMC address."""
    o = loaded.inventory.oob
    assert o is not None
    blocks = _oob_blocks(cluster, o.layout)
    for block in o.reserve:
        if block not in {b for b, _ in blocks}:
            raise InventoryError(f"no OOB block {block!r} (blocks: {', '.join(b for b, _ in blocks)})",
                                 **loaded.where("oob", "reserve", block), hint="reserve access switches for a listed block")
    plan: list[tuple[str, list[tuple[str, str]], int, int]] = []  # block, ends, switches needed, slots reserved
    for block, ends in blocks:
        need = -(-len(ends) // o.access_ports)
        reserved = o.reserve.get(block, need)
        if reserved < need:
            raise InventoryError(f"block {block} needs {need} access switches, {reserved} are reserved",
                                 **loaded.where("oob", "reserve", block), hint=f"reserve at least {need}")
        plan.append((block, ends, need, reserved))
    slots = sum(r for *_, r in plan)
    bmc_pool, sw_pool = ipam.net(o.bmc_pool), ipam.net(o.switch_pool)
    if MGMT_FIRST_HOST + len(cluster.server_names()) > bmc_pool.num_addresses - 2:
        raise InventoryError(f"pool {bmc_pool} is too small for {len(cluster.server_names())} BMCs",
                             **loaded.where("oob", "bmc_pool"), hint="use a shorter prefix")
    if MGMT_FIRST_HOST + slots + o.aggregation > sw_pool.num_addresses - 2:
        raise InventoryError(f"pool {sw_pool} is too small for the OOB switches", **loaded.where("oob", "switch_pool"),
                             hint="use a shorter prefix")

    def fmt(role: str, **fields: object) -> str:
        pattern = getattr(o.naming, role)
        try:
            name = pattern.format(**fields)
        except (KeyError, IndexError, ValueError) as exc:
            raise InventoryError(f"cannot format {pattern!r}: {exc}", **loaded.where("oob", "naming", role),
                                 hint="use the fields index and (access) block") from None
        return hostname(name, pattern, loaded.where("oob", "naming", role))

    def mgmt(n: int) -> str:
        return f"{ipam.ip_str(numbering.mgmt_host(int(sw_pool.network_address), n))}/{sw_pool.prefixlen}"

    # the aggregation switches are managed at their own SVI address in the OOB switches' VLAN (.2/.3, below
    # MGMT_FIRST_HOST: no device's address); the access switches keep their places from .10 + aggregation
    aggs = [OobSwitch(fmt("aggregation", index=j, block="aggregation"), "oob-aggregation", j,
                      f"{ipam.ip_str(int(sw_pool.network_address) + PAIR_HOSTS[j - 1])}/{sw_pool.prefixlen}",
                      slots, hardware=o.hardware.aggregation)
            for j in range(1, o.aggregation + 1)]
    links: list[Link] = []
    access: list[OobSwitch] = []
    # the access switch's place in the aggregation port plan: the slots reserved by the blocks before its
    # block, plus its index in the block
    for (block, ends, need, _reserved), first in zip(plan, numbering.firsts([r for *_, r in plan])):
        for i in range(1, need + 1):
            slot = first + i - 1
            acc = OobSwitch(fmt("access", index=i, block=block), "oob-access", i, mgmt(o.aggregation + slot),
                            o.access_ports + o.aggregation, hardware=o.hardware.access)
            access.append(acc)
            for k, (dev, port) in enumerate(ends[(i - 1) * o.access_ports: i * o.access_ports]):
                links.append(Link(acc.name, f"swp{k + 1}", dev, port, o.access_speed, "oob-access", network="oob"))
            for j, agg in enumerate(aggs):
                links.append(Link(acc.name, f"swp{o.access_ports + j + 1}", agg.name,
                                  f"swp{o.aggregation_first_port + slot}", o.uplink_speed, "oob-uplink", network="oob"))
    switches = aggs + access
    names = {s.name for s in switches}
    clash = names & ({sw.name for sw in cluster.all_switches()} | set(cluster.server_names()))
    if len(names) != len(switches) or clash:
        raise InventoryError(f"OOB switch names clash: {sorted(clash) or 'duplicates'}", **loaded.where("oob", "naming"),
                             hint="give the OOB switches their own names (layout blocks: put {block} in naming.access)")
    gw = ipam.ip_str(numbering.default_gateway(int(bmc_pool.network_address)))
    bmcs = []
    base = int(bmc_pool.network_address)
    hosts = [numbering.mgmt_host(base, i) for i in range(len(cluster.compute.servers))]  # GPU servers from the bottom,
    hosts += [numbering.top_host(base, bmc_pool.num_addresses, i) for i in range(len(cluster.groups))]  # groups from the top
    for s, host in zip(cluster.server_names(), hosts):
        ip = ipam.ip_str(host)
        bmcs.append(Bmc(s, f"{ip}/{bmc_pool.prefixlen}", ip, str(bmc_pool.netmask), gw))
    oob = OobModel(switches=switches, links=links, bmcs=bmcs, bmc_pool=str(bmc_pool), switch_pool=str(sw_pool),
                   bmc_gateway=gw, switch_gateway=ipam.ip_str(numbering.default_gateway(int(sw_pool.network_address))))
    configure(loaded, cluster, oob)
    return oob


def _where(loaded: LoadedInventory, *key: str) -> dict[str, Any]:
    return loaded.where("oob", *key)


def _gateway(loaded: LoadedInventory, net: str, gateways: set[str]) -> str:
    if len(gateways) != 1:
        raise InventoryError(f"the switches of the {net} network point to {len(gateways)} management gateways "
                             f"({', '.join(sorted(gateways)) or 'none'}): the OOB aggregation answers one per pool",
                             **_where(loaded), hint="give every switch of a network the same management gateway")
    return next(iter(gateways))


def oob_vlans(loaded: LoadedInventory, cluster: ClusterModel, oob: OobModel, o: OutOfBand) -> list[OobVlan]:
    """One VLAN per management pool, in a growth-stable order: BMCs, OOB switches, then each network in
    inventory order (a new network appends a VLAN, nothing is renumbered)."""
    out = [OobVlan(o.vlan_base, "bmc", oob.bmc_pool, oob.bmc_gateway),
           OobVlan(o.vlan_base + 1, "oob", oob.switch_pool, oob.switch_gateway)]
    pools = {p.name: p.pools["switch_mgmt_pool"] for p in cluster.networks}
    pools["compute"] = cluster.compute_pools.get("management.switch_pool", "")
    for i, (net, fab) in enumerate(cluster.fabrics()):
        if not fab.switches:
            continue
        vlan = o.vlan_base + 2 + i
        if vlan > 4093:  # 4094 is the MLAG peerlink's own VLAN on Cumulus (peerlink.4094)
            raise InventoryError(f"the {net} network's OOB VLAN would be {vlan}", **_where(loaded, "vlan_base"),
                                 hint="use a lower vlan_base")
        out.append(OobVlan(vlan, net, pools[net], _gateway(loaded, net, {sw.mgmt_gateway for sw in fab.switches})))
    return out


def _check_collisions(loaded: LoadedInventory, cluster: ClusterModel, oob: OobModel, vlans: list[OobVlan],
                      pair: int) -> None:
    """No pool's gateway and no device's management address on the aggregation's own SVI addresses."""
    addresses = [(b.device, b.ip) for b in oob.bmcs]
    addresses += [(sw.name, ip_of(sw.mgmt_address)) for sw in cluster.all_switches()]
    addresses += [(s.name, ip_of(s.mgmt_address)) for s in oob.switches if s.role == "oob-access"]
    for v in vlans:
        net = IPv4Network(v.pool)
        own = {str(net.network_address + h): h for h in PAIR_HOSTS[:pair]}
        if v.gateway in own:
            raise InventoryError(f"the {v.network} pool's gateway {v.gateway} is an OOB aggregation switch's own "
                                 f"address (.{own[v.gateway]})", **_where(loaded),
                                 hint=f"keep .{', .'.join(map(str, PAIR_HOSTS))} of every management pool free")
        if IPv4Address(v.gateway) not in net:
            raise InventoryError(f"the {v.network} pool's gateway {v.gateway} is outside {net}", **_where(loaded),
                                 hint="put the management gateway inside its pool")
        for dev, ip in addresses:
            if ip in own:
                raise InventoryError(f"{dev}'s management address {ip} is an OOB aggregation switch's own address",
                                     **_where(loaded), hint=f"keep .{', .'.join(map(str, PAIR_HOSTS))} of {net} free")


def _checked_port(loaded: LoadedInventory, model: str, cage: int, speed: str, key: tuple[str, ...]) -> list[int]:
    """The lanes of a whole-cage port at `speed`, or an inventory error naming the key that put it there."""
    try:
        hw = hardware.load_hardware(model)
        hw.port(cage, None, 1, SPEEDS_MBPS[speed], where=f"{model} port {cage}")
    except NetautoError as exc:
        raise InventoryError(str(exc), **_where(loaded, *key), hint="use a cage and speed the switch model has") from None
    return hw.lanes(cage, None, 1)


def _iface(name: str, kind: IfKind, speed: str, mtu: int, lanes: list[int], cage: int,  # noqa: PLR0913
           peer: tuple[str, str] | None, description: str, *, access_vlan: int | None = None,
           address: str | None = None) -> Interface:
    """A whole-cage port of an OOB switch: no FEC (RJ45, 10G SFP+), no PFC (lossy management traffic)."""
    return Interface(name=name, kind=kind, speed=speed, speed_mbps=SPEEDS_MBPS[speed], mtu=mtu, fec=None,
                     enabled=True, peer_device=peer[0] if peer else None, peer_port=peer[1] if peer else None,
                     description=description, address=address, access_vlan=access_vlan, pfc=False, cage=cage,
                     lanes=lanes)


_SWP = re.compile(r"swp([0-9]+)")


@cache
def _copper(model: str, cage: int) -> bool:
    """An RJ45 cage (platforms/data/optics.yaml): 1000BASE-T, speed by auto-negotiation only."""
    try:
        return cage_type(model, cage) == "RJ45"
    except NetautoError:
        return False


def oob_cage(port: str) -> int | None:
    """The cage of an OOB switch's port: one port per cage, named swp<cage> (None for any other name)."""
    m = _SWP.fullmatch(port)
    return int(m.group(1)) if m else None


def _cage(port: str) -> int:
    cage = oob_cage(port)
    if cage is None:
        raise NetautoError(f"OOB port {port!r} is not swp<cage>")
    return cage


def configure(loaded: LoadedInventory, cluster: ClusterModel, oob: OobModel) -> None:
    """Fill every OOB switch's ports, bonds, SVIs, MLAG and routes."""
    o = loaded.inventory.oob
    assert o is not None
    inv = loaded.inventory
    mtu, release = inv.fabric.mtu.switch, inv.fabric.cumulus_release
    vlans = oob_vlans(loaded, cluster, oob, o)
    oob.vlans = vlans
    aggs = [s for s in oob.switches if s.role == "oob-aggregation"]
    if o.nos is None and inv.fabric.nos.default == "sonic":
        names = [s.name for s in oob.switches]
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        raise InventoryError(f"fabric.nos.default is sonic, but the OOB switches ({shown}) are rendered for Cumulus "
                             f"only (netauto has no SONiC OOB renderer: access VLANs, LACP uplinks, MLAG aggregation)",
                             **_where(loaded), hint="set oob.nos: cumulus to run them on Cumulus Linux")
    _check_collisions(loaded, cluster, oob, vlans, len(aggs))
    by_net = {v.network: v for v in vlans}
    net_of = {sw.name: net for net, fab in cluster.fabrics() for sw in fab.switches}
    oob_vlan = by_net["oob"].vlan

    def vlan_of(device: str, port: str) -> int:
        return by_net["bmc" if port == BMC_PORT else net_of[device]].vlan

    uplinks: dict[str, list[Link]] = {}
    ends: dict[str, list[Link]] = {}
    for link in oob.links:
        if link.kind == "oob-uplink":
            uplinks.setdefault(link.a_device, []).append(link)
        elif link.kind == "oob-access":
            ends.setdefault(link.a_device, []).append(link)
    carried: dict[str, list[int]] = {}
    for sw in oob.switches:
        if sw.role != "oob-access":
            continue
        sw.cumulus_release, sw.nos, sw.ssh_user = release, "cumulus", inv.addressing.management.switch_user
        sw.cumulus_config_mode = inv.fabric.cumulus_config_mode
        seen = {oob_vlan}
        for link in ends.get(sw.name, []):
            vlan = vlan_of(link.b_device, link.b_port)
            seen.add(vlan)
            lanes = _checked_port(loaded, sw.hardware, _cage(link.a_port), link.speed, ("access_speed",))
            iface = _iface(link.a_port, "host", link.speed, mtu, lanes, _cage(link.a_port),
                           (link.b_device, link.b_port), f"{link.b_device} {link.b_port}", access_vlan=vlan)
            iface.autoneg_only = _copper(sw.hardware, iface.cage or 0)
            sw.interfaces.append(iface)
        members = []
        for link in uplinks.get(sw.name, []):
            lanes = _checked_port(loaded, sw.hardware, _cage(link.a_port), link.speed, ("uplink_speed",))
            sw.interfaces.append(_iface(link.a_port, "fabric", link.speed, mtu, lanes, _cage(link.a_port),
                                        (link.b_device, link.b_port), f"{link.b_device} {link.b_port}"))
            members.append(link.a_port)
        sw.vlans = sorted(seen)
        carried[sw.name] = sw.vlans
        sw.bonds = [BondPort(UPLINK_BOND, members, 0, 0, f"{', '.join(a.name for a in aggs)} (OOB aggregation)",
                             mtu, trunk_vlans=sw.vlans)]
        sw.svis = [Svi(name=f"vlan{oob_vlan}", vlan=oob_vlan, address=sw.mgmt_address, members=[UPLINK_BOND])]
        sw.routes = [Route(to=DEFAULT_ROUTE, via=oob.switch_gateway)]
    _aggregation(loaded, oob, aggs, vlans, carried, mtu, release, uplinks)


def _aggregation(loaded: LoadedInventory, oob: OobModel, aggs: list[OobSwitch], vlans: list[OobVlan],  # noqa: PLR0913
                 carried: dict[str, list[int]], mtu: int, release: str, uplinks: dict[str, list[Link]]) -> None:
    o = loaded.inventory.oob
    assert o is not None
    pair = len(aggs) == 2
    o_user = loaded.inventory.addressing.management.switch_user
    hw = hardware.load_hardware(aggs[0].hardware) if aggs else None
    taken: dict[int, str] = {}  # cage -> what uses it, on every aggregation switch

    def take(cage: int, what: str, key: tuple[str, ...]) -> None:
        if cage in taken:
            raise InventoryError(f"aggregation cage {cage} is both {taken[cage]} and {what}", **_where(loaded, *key),
                                 hint="give the peerlink and the site uplink cages of their own")
        taken[cage] = what

    peer_cages: list[int] = []
    if pair and hw is not None:
        first = o.peerlink_first or max(hw.cages) - 1  # default: the last two cages (SN3420: QSFP28 59-60)
        peer_cages = [first, first + 1]
    for n, agg in enumerate(aggs):
        agg.cumulus_release, agg.nos, agg.ssh_user = release, "cumulus", o_user
        agg.cumulus_config_mode = loaded.inventory.fabric.cumulus_config_mode
        agg.vlans = [v.vlan for v in vlans]
        agg.stp_priority = ROOT_PRIORITY
        downlinks = [link for links in uplinks.values() for link in links if link.b_device == agg.name]
        for link in downlinks:
            cage = _cage(link.b_port)
            if n == 0:
                take(cage, f"the downlink to {link.a_device}", ("aggregation_first_port",))
            lanes = _checked_port(loaded, agg.hardware, cage, link.speed, ("aggregation_first_port",))
            agg.interfaces.append(_iface(link.b_port, "fabric", link.speed, mtu, lanes, cage,
                                         (link.a_device, link.a_port), f"{link.a_device} {link.a_port}"))
            slot = cage - o.aggregation_first_port + 1
            agg.bonds.append(BondPort(f"bond{slot}", [link.b_port], slot if pair else 0, 0,
                                      f"{link.a_device} {UPLINK_BOND}", mtu, trunk_vlans=carried[link.a_device]))
        peer = aggs[1 - n] if pair else None
        if peer is not None and hw is not None:
            for cage in peer_cages:
                if n == 0:
                    take(cage, "the MLAG peerlink", ("peerlink_first",))
                speed = f"{hw.cages[cage].max_speed_mbps // 1000}G" if cage in hw.cages else "100G"
                lanes = _checked_port(loaded, agg.hardware, cage, speed, ("peerlink_first",))
                agg.interfaces.append(_iface(f"swp{cage}", "peerlink", speed, mtu, lanes, cage,
                                             (peer.name, f"swp{cage}"), f"peerlink to {peer.name}"))
        up = o.site_uplink
        if up is not None:
            if len(up.addresses) != len(aggs):
                raise InventoryError(f"{len(up.addresses)} site uplink address(es) for {len(aggs)} aggregation switches",
                                     **_where(loaded, "site_uplink", "addresses"), hint="one address per aggregation switch")
            if n == 0:
                take(up.port, "the site uplink", ("site_uplink", "port"))
            lanes = _checked_port(loaded, agg.hardware, up.port, up.speed, ("site_uplink", "port"))
            agg.interfaces.append(_iface(f"swp{up.port}", "fabric", up.speed, mtu, lanes, up.port, None,
                                         "site management network", address=str(IPv4Interface(up.addresses[n]))))
            agg.routes = [Route(to=DEFAULT_ROUTE, via=up.gateways[n])]
        members = [b.name for b in agg.bonds] + (["peerlink"] if pair else [])
        for v in vlans:
            net = IPv4Network(v.pool)
            agg.svis.append(Svi(name=f"vlan{v.vlan}", vlan=v.vlan,
                                address=f"{ipam.ip_str(int(net.network_address) + PAIR_HOSTS[n])}/{net.prefixlen}",
                                members=members, vrr_address=f"{v.gateway}/{net.prefixlen}", vrr_mac=VRR_MAC))
        if peer is not None:
            # the backup must not depend on the peerlink (CL MLAG page): the peer's SVI is reachable only over
            # it (an access switch's uplink bond may hash agg1 -> agg2 traffic back to agg1), so the pair has a
            # cable of its own, eth0 to eth0 in the mgmt VRF, as the frontend pairs' backup runs over eth0
            backup = IPv4Network(o.mlag_backup_subnet)
            agg.backup_address = f"{backup.network_address + 1 + n}/{backup.prefixlen}"
            agg.mlag = Mlag(peer=peer.name, peerlink_members=[f"swp{c}" for c in peer_cages],
                            mac_address=mac_str(OOB_MLAG_MAC), priority=MLAG_PRIORITY[n],
                            backup_ip=str(backup.network_address + 2 - n), backup_vrf=MGMT_VRF)
            if n == 0:
                oob.links.append(Link(agg.name, "eth0", peer.name, "eth0", "1G", "mlag-backup", network="oob"))
