"""A device's addresses and ASN from its identity (the formulas of `numbering` applied to the inventory's
pools). Each function answers for one device on its own: no state, no dependence on what else was resolved."""

from __future__ import annotations

from functools import lru_cache
from ipaddress import IPv4Network

from netauto.inventory.schema import Inventory
from netauto.model import ipam, numbering
from netauto.model.topology import Counts, SwitchId


@lru_cache(maxsize=64)
def pool(value: str) -> IPv4Network:
    """A pool of the inventory, parsed once."""
    return ipam.net(value)


@lru_cache(maxsize=64)
def pool_text(value: str) -> str:
    """A pool of the inventory in canonical form ("10.0.0.0/16")."""
    return str(pool(value))


def mgmt_address(pool_value: str, gateway: str | None, offset: int, override: str | None) -> tuple[str, str]:
    """(address/len, gateway) of the `offset`-th device of a management pool; `override` is the inventory's
    own address for the device."""
    network = pool(pool_value)
    base = int(network.network_address)
    gw = gateway or ipam.ip_str(numbering.default_gateway(base))
    addr = override or ipam.ip_str(numbering.mgmt_host(base, offset))
    return f"{addr}/{network.prefixlen}", gw


def _mgmt_override(inv: Inventory, name: str) -> str | None:
    over = inv.overrides.devices.get(name)
    return over.mgmt_ip if over else None


def switch_mgmt(inv: Inventory, n: Counts, sw: SwitchId, name: str) -> tuple[str, str]:
    """(address/len, gateway) of a switch in the switch management pool."""
    mg = inv.addressing.management
    return mgmt_address(mg.switch_pool, mg.gateway_switch, sw.mgmt_offset(n), _mgmt_override(inv, name))


def server_mgmt(inv: Inventory, n: Counts, su: int, index: int, name: str) -> tuple[str, str]:
    """(address/len, gateway) of server `index` of SU `su` in the server management pool."""
    mg = inv.addressing.management
    offset = numbering.server_offset(su, index, n.servers_per_su)
    return mgmt_address(mg.server_pool, mg.gateway_server, offset, _mgmt_override(inv, name))


def switch_loopback(inv: Inventory, sw: SwitchId) -> str:
    """The switch's loopback address (no prefix length): its tier number in its tier's pool."""
    lo_pool = pool(getattr(inv.addressing.loopbacks, sw.role))
    return ipam.ip_str(numbering.loopback(int(lo_pool.network_address), sw.number))


def switch_asn(inv: Inventory, sw: SwitchId) -> int:
    """RFC 7938 numbering: an ASN per leaf, per pod's spines, one for all super-spines."""
    asns = inv.asns
    if sw.role == "leaf":
        return numbering.leaf_asn(asns.leaf_base, sw.number)
    if sw.role == "spine":
        return numbering.spine_asn(asns.spine_base, sw.pod)
    return asns.super_spine


def rail_supernet(inv: Inventory, rail: int) -> IPv4Network:
    """Rail `rail`'s supernet of the host pool."""
    hl = inv.addressing.host_links
    return ipam.nth_subnet(pool(hl.pool), hl.rail_prefix_len, rail)


def leaf_block(inv: Inventory, su: int, rail: int) -> int:
    """Start (integer address) of the host block of the leaf of SU `su` on rail `rail`."""
    hl = inv.addressing.host_links
    return ipam.block_start(rail_supernet(inv, rail), hl.leaf_prefix_len, su - 1)
