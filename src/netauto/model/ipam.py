"""Small pure IPAM helpers on top of `ipaddress` (no string arithmetic anywhere)."""

from __future__ import annotations

import ipaddress
import socket
from ipaddress import IPv4Address, IPv4Interface, IPv4Network


def net(value: str) -> IPv4Network:
    return IPv4Network(value, strict=True)


def subnet_count(parent: IPv4Network, prefixlen: int) -> int:
    if prefixlen < parent.prefixlen:
        return 0
    return 1 << (prefixlen - parent.prefixlen)


def nth_subnet(parent: IPv4Network, prefixlen: int, n: int) -> IPv4Network:
    """The n-th (0-based) subnet of `parent` with `prefixlen`, without enumerating the others."""
    if not 0 <= n < subnet_count(parent, prefixlen):
        raise IndexError(f"{parent} has no subnet /{prefixlen} number {n}")
    size = 1 << (32 - prefixlen)
    return IPv4Network((int(parent.network_address) + n * size, prefixlen))


def nth_address(parent: IPv4Network, n: int) -> IPv4Address:
    if not 0 <= n < parent.num_addresses:
        raise IndexError(f"{parent} has no address number {n}")
    return parent.network_address + n


def ip_str(value: int) -> str:
    """Dotted quad of an integer address (the hot path of large fabrics: no parsing involved)."""
    return socket.inet_ntoa(value.to_bytes(4, "big"))


def block_start(parent: IPv4Network, prefixlen: int, n: int) -> int:
    """Integer network address of the n-th /prefixlen subnet of parent."""
    if not 0 <= n < subnet_count(parent, prefixlen):
        raise IndexError(f"{parent} has no subnet /{prefixlen} number {n}")
    return int(parent.network_address) + n * (1 << (32 - prefixlen))


def with_prefix(address: IPv4Address, network: IPv4Network) -> str:
    return str(IPv4Interface((address, network.prefixlen)))


def first_overlap(named: dict[str, IPv4Network]) -> tuple[str, str] | None:
    """The first pair of names whose networks overlap (a handful of pools: pairwise is fine)."""
    names = list(named)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if named[a].overlaps(named[b]):
                return a, b
    return None


def is_private_ipv4(value: str) -> bool:
    return ipaddress.IPv4Address(value).is_private
