"""One holder per address across the cluster: management, loopback, rail, BMC and network addresses.

The pools are checked for overlap where they are read (`model.networks`); what can still put one address on two
devices is the inventory's own choice of an address (`overrides.devices.<name>.mgmt_ip`). A duplicate is an
inventory error naming both holders and the key that set the address, never a fabric that validates clean
(and an Ansible inventory with two hosts on one `ansible_host`).
"""

from __future__ import annotations

from collections.abc import Iterator

from netauto.errors import InventoryError
from netauto.inventory.loader import LoadedInventory
from netauto.model.cluster import ClusterModel
from netauto.model.types import FabricModel
from netauto.netutil.ip import ip_of

Holder = tuple[str, str]  # (device, what: "management", "loopback", "BMC" or an interface name)


def _fabric_holders(fab: FabricModel) -> Iterator[tuple[str, Holder]]:
    for sw in fab.switches:
        yield ip_of(sw.mgmt_address), (sw.name, "management")
        yield ip_of(sw.loopback), (sw.name, "loopback")
        for iface in sw.interfaces:
            if iface.address:
                yield ip_of(iface.address), (sw.name, iface.name)
        # SVIs: an access pair carries the same gateway by design (rule IP-01 checks them in the rendered files)
    for srv in fab.servers:
        yield ip_of(srv.mgmt_address), (srv.name, "management")
        for rail in srv.rails:
            if rail.ip:  # a bond member has no address of its own
                yield rail.ip, (srv.name, rail.nic)
        if srv.bond is not None:
            yield ip_of(srv.bond.address), (srv.name, srv.bond.name)


def holders(cluster: ClusterModel) -> Iterator[tuple[str, Holder]]:
    """(address without prefix length, holder) of every address a device or server of the cluster takes."""
    for _, fab in cluster.fabrics():
        yield from _fabric_holders(fab)
    for g in cluster.groups:
        yield ip_of(g.mgmt_address), (g.name, "management")
    if cluster.oob is not None:
        for s in cluster.oob.switches:
            yield ip_of(s.mgmt_address), (s.name, "management")
        for b in cluster.oob.bmcs:
            yield b.ip, (b.device, "BMC")


def check_unique(loaded: LoadedInventory, cluster: ClusterModel) -> None:
    """Refuse an address held by two devices (or twice by one), naming both and the key that set it."""
    seen: dict[str, Holder] = {}
    for ip, holder in holders(cluster):
        first = seen.setdefault(ip, holder)
        if first != holder:
            _refuse(loaded, ip, first, holder)


def _refuse(loaded: LoadedInventory, ip: str, first: Holder, second: Holder) -> None:
    overrides = loaded.inventory.overrides.devices
    chosen = [h for h in (second, first) if h[1] == "management"
              and (o := overrides.get(h[0])) is not None and o.mgmt_ip == ip]
    if chosen:
        dev = chosen[0][0]
        other = first if chosen[0] == second else second
        raise InventoryError(f"{ip} ({dev} management) is also {other[0]}'s {other[1]} address: every address in "
                             "the cluster has one holder",
                             **loaded.where("overrides", "devices", dev, "mgmt_ip"),
                             hint=f"give {dev} a free address, or remove its mgmt_ip to take its pool's")
    raise InventoryError(f"{ip} is both {first[0]}'s {first[1]} and {second[0]}'s {second[1]} address: every address "
                         "in the cluster has one holder", **loaded.where("addressing"),
                         hint="give every network and device its own addresses")
