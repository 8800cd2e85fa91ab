"""Checks of the inventory as a whole (what the schema cannot see key by key): sizes, pools, ASN ranges,
routing tables, features, and the device names that overrides refer to."""

from __future__ import annotations

import difflib
from typing import Any
from ipaddress import IPv4Network

from netauto.errors import InventoryError
from netauto.inventory.base import ASN_MAX
from netauto.inventory.schema import Inventory
from netauto.model import ipam, limits
from netauto.model.context import Where
from netauto.model.drain import drain_set
from netauto.model.numbering import MGMT_FIRST_HOST
from netauto.model.topology import Counts
from netauto.model.types import Switch
from netauto.platforms.nos import sonic_adaptive_routing

RT_TABLE_MAX = 252  # 253-255 are the kernel's (default, main, local)


def check_size(switches: int, servers: int, where: dict[str, Any], allow_huge: bool | None = None,
               what: str = "this cluster") -> None:
    """The one size guard (`limits`), applied after every expansion: the topology's counts, then the server
    groups, the networks and the OOB network of the cluster (`where`: the inventory key that made the last ones).
    `allow_huge` None: NETAUTO_ALLOW_HUGE (what --allow-huge sets)."""
    over = limits.too_big(switches, servers)
    if over and not (limits.allow_huge_from_env() if allow_huge is None else allow_huge):
        raise InventoryError(
            f"{what} has {over}: far beyond any real cluster, it would render for minutes in GiBs",
            **where,
            hint="check pods, sus_per_pod, servers_per_su, rails and the server groups' and networks' counts for a "
                 f"typo; if you mean it, run `netauto --allow-huge ...` or set {limits.ALLOW_HUGE_ENV}=1",
        )


def check_tables(inv: Inventory, n: Counts, where: Where) -> None:
    """The per-rail routing tables of a server fit below the kernel's."""
    base = inv.servers.table_base
    if base + n.rails > RT_TABLE_MAX:
        raise InventoryError(
            f"routing tables {base + 1}..{base + n.rails} exceed 252 (253-255 are the kernel's)",
            **where("servers", "table_base"), hint="lower table_base",
        )


def check_pools(inv: Inventory, n: Counts, where: Where) -> None:
    """The address pools do not overlap and hold what the fabric needs."""
    a = inv.addressing
    pools: dict[tuple[str, ...], IPv4Network] = {
        ("addressing", "loopbacks", "leaf"): ipam.net(a.loopbacks.leaf),
        ("addressing", "loopbacks", "spine"): ipam.net(a.loopbacks.spine),
        ("addressing", "host_links", "pool"): ipam.net(a.host_links.pool),
        ("addressing", "management", "switch_pool"): ipam.net(a.management.switch_pool),
        ("addressing", "management", "server_pool"): ipam.net(a.management.server_pool),
    }
    if n.three_tier:
        pools[("addressing", "loopbacks", "super_spine")] = ipam.net(a.loopbacks.super_spine)
    clash = ipam.first_overlap({".".join(k): v for k, v in pools.items()})
    if clash:
        first, second = clash
        raise InventoryError(
            f"overlaps {first} ({pools[tuple(first.split('.'))]})",
            **where(*second.split(".")), hint="give every pool its own address range",
        )
    need = {
        ("addressing", "loopbacks", "leaf"): n.leaves,
        ("addressing", "loopbacks", "spine"): n.spines,
        ("addressing", "loopbacks", "super_spine"): n.super_spines,
        ("addressing", "management", "switch_pool"): MGMT_FIRST_HOST + n.leaves + n.spines + n.super_spines,
        ("addressing", "management", "server_pool"): MGMT_FIRST_HOST + n.servers,
    }
    for key, count in need.items():
        if key not in pools:
            continue
        usable = pools[key].num_addresses - 2 if pools[key].prefixlen < 31 else pools[key].num_addresses
        if count > usable:
            raise InventoryError(
                f"pool {pools[key]} is too small: the fabric needs {count} addresses, it has {usable}",
                **where(*key), hint="use a shorter prefix",
            )
    hl = a.host_links
    host_pool = pools[("addressing", "host_links", "pool")]
    if ipam.subnet_count(host_pool, hl.rail_prefix_len) < n.rails:
        raise InventoryError(
            f"pool {host_pool} holds {ipam.subnet_count(host_pool, hl.rail_prefix_len)} /{hl.rail_prefix_len} "
            f"rail supernets, the fabric has {n.rails} rails",
            **where("addressing", "host_links", "pool"), hint="use a shorter prefix or a longer rail_prefix_len",
        )
    if ipam.subnet_count(ipam.nth_subnet(host_pool, hl.rail_prefix_len, 0), hl.leaf_prefix_len) < n.sus:
        raise InventoryError(
            f"a /{hl.rail_prefix_len} rail supernet holds fewer /{hl.leaf_prefix_len} leaf blocks than the "
            f"{n.sus} scalable units",
            **where("addressing", "host_links", "leaf_prefix_len"),
            hint="use a longer leaf_prefix_len or a shorter rail_prefix_len",
        )
    block = 1 << (32 - hl.leaf_prefix_len)
    per_leaf = 2 * n.servers_per_su if hl.mode == "p2p" else n.servers_per_su + 3
    if per_leaf > block:
        raise InventoryError(
            f"a /{hl.leaf_prefix_len} leaf block has {block} addresses, {hl.mode} mode needs {per_leaf} "
            f"for {n.servers_per_su} servers",
            **where("addressing", "host_links", "leaf_prefix_len"), hint="use a shorter leaf_prefix_len",
        )


def check_asns(inv: Inventory, n: Counts, where: Where) -> None:
    """The ASN ranges of the tiers stay in the valid space and apart (RFC 7938)."""
    asns = inv.asns
    ranges = {
        "leaf_base": (asns.leaf_base, asns.leaf_base + n.leaves - 1),
        "spine_base": (asns.spine_base, asns.spine_base + n.pods - 1),
    }
    if n.three_tier:
        ranges["super_spine"] = (asns.super_spine, asns.super_spine)
    for key, (lo, hi) in ranges.items():
        if hi > ASN_MAX or lo <= 23456 <= hi:
            raise InventoryError(
                f"range {lo}..{hi} leaves the valid ASN space (1..{ASN_MAX}, 23456 excluded)",
                **where("asns", key), hint="move the base",
            )
    keys = list(ranges)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            (alo, ahi), (blo, bhi) = ranges[a], ranges[b]
            if alo <= bhi and blo <= ahi:
                raise InventoryError(
                    f"ASN range {blo}..{bhi} overlaps asns.{a} range {alo}..{ahi}",
                    **where("asns", b), hint="RFC 7938: leaves unique, spines per pod, super-spines apart",
                )


def check_features(inv: Inventory, where: Where) -> None:
    if inv.features.adaptive_routing and inv.fabric.fabric_link_speed == "800G":
        raise InventoryError(
            "adaptive routing is not supported on 800G links (Spectrum-4: 200G/400G only)",
            **where("features", "adaptive_routing"), hint="break fabric links out to 400G or disable AR",
        )


def check_ar_platforms(inv: Inventory, switches: dict[str, Switch], where: Where) -> None:
    # netauto renders adaptive routing for Cumulus only (SONiC has none: platforms/data/nos_sonic.yaml, cited);
    # AR on some switches and off on others collapses NCCL throughput, so a fabric with SONiC switches runs without
    supported, reason = sonic_adaptive_routing()
    sonic = sorted(name for name, sw in switches.items() if sw.nos == "sonic")
    if inv.features.adaptive_routing and sonic and not supported:
        shown = ", ".join(sonic[:3]) + (f" and {len(sonic) - 3} more" if len(sonic) > 3 else "")
        raise InventoryError(
            f"adaptive routing is on but SONiC runs on {shown}: {reason}; AR would be on for some switches and "
            "off for others",
            **where("features", "adaptive_routing"),
            hint="set features.adaptive_routing: false for a fabric with SONiC switches",
        )


def check_hosts(inv: Inventory, roles: dict[str, str], where: Where) -> None:
    """`servers.hosts` names servers of the fabric."""
    servers = {n for n, role in roles.items() if role == "server"}
    for name in inv.servers.hosts:
        if name not in servers:
            close = difflib.get_close_matches(str(name), sorted(servers), n=1, cutoff=0.8)
            raise InventoryError(f"no such server {name!r} in this fabric", **where("servers", "hosts", name),
                                 hint=f"did you mean {close[0]!r}?" if close else "use a server name from `netauto show model`")


def disabled_ports(inv: Inventory, roles: dict[str, str], where: Where) -> set[tuple[str, str]]:
    """(switch, port) of every port the overrides disable."""
    out = set()
    for i, po in enumerate(inv.overrides.ports):
        if po.device not in roles or roles[po.device] == "server":
            raise InventoryError(f"no such switch {po.device!r}", **where("overrides", "ports", i, "device"),
                                 hint="name a switch from `netauto show model`")
        if po.disabled:
            out.add((po.device, po.port))
    return out


def check_port_overrides(inv: Inventory, switches: dict[str, Switch], where: Where) -> None:
    for i, po in enumerate(inv.overrides.ports):
        names = {iface.name for iface in switches[po.device].interfaces}
        if po.port not in names:
            raise InventoryError(f"{po.device} has no port {po.port!r}", **where("overrides", "ports", i, "port"),
                                 hint="use a port from `netauto show cabling`")


def drained(inv: Inventory, roles: dict[str, str], where: Where) -> set[str]:
    """The switches drained by BGP graceful shutdown (`features.gshut.drain`, overrides `drain`)."""
    out = set()
    for i, name in enumerate(inv.features.gshut.drain):
        if name not in roles or roles[name] == "server":
            close = difflib.get_close_matches(str(name), [n for n, r in roles.items() if r != "server"], n=1, cutoff=0.8)
            raise InventoryError(f"no such switch {name!r}", **where("features", "gshut", "drain", i),
                                 hint=f"did you mean {close[0]!r}?" if close else "drain switches by name (see `netauto show model`)")
        out.add(name)
    return drain_set(out, override_drained(inv))


def override_drained(inv: Inventory) -> set[str]:
    """The devices drained by their override (`overrides.devices.<name>.drain`)."""
    return {name for name, o in inv.overrides.devices.items() if o.drain}
