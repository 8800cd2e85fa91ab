"""Address and prefix helpers. String-level where that is exact (these run per interface on 10k-GPU fabrics);
`ipaddress` where a value must be understood."""

from __future__ import annotations

from functools import lru_cache
from ipaddress import IPv4Interface, IPv4Network, ip_network

DEFAULT_ROUTE = "0.0.0.0/0"


def ip_of(cidr: str) -> str:
    """The address part of `address/prefix`: "10.0.0.1/31" -> "10.0.0.1"; an address without a prefix is itself."""
    return cidr.partition("/")[0]


def prefix_len(cidr: str) -> int | None:
    """The prefix length of `address/prefix`: "10.0.0.1/31" -> 31; None without one (or a non-numeric one)."""
    _, slash, plen = cidr.partition("/")
    return int(plen) if slash and plen.isdigit() else None


def host_cidr(address: str) -> str:
    """An address as a prefix: "10.0.0.1" -> "10.0.0.1/32"; "10.0.0.1/31" stays as it is."""
    return address if "/" in address else f"{address}/32"


@lru_cache(maxsize=1 << 17)
def ipv4_interface(addr: str) -> IPv4Interface | None:
    """`addr` ("10.0.0.1/31", or an address: /32) as an IPv4Interface; None when it is not one (IPv6, junk)."""
    try:
        return IPv4Interface(addr)
    except ValueError:
        return None


@lru_cache(maxsize=1 << 17)
def ipv4_network(text: str) -> IPv4Network | None:
    """`text` ("10.0.0.0/24", "10.0.0.1/31": host bits allowed, "10.0.0.1": /32) as an IPv4Network; None when it is
    not one. Cached: the route simulation reads the same prefixes once per switch (networks are immutable)."""
    try:
        return IPv4Network(text, strict=False)
    except ValueError:
        return None


def overlaps(a: str, b: str) -> bool:
    """One prefix contains the other ("10.0.0.0/8", "10.1.0.0/16": True); never across IP versions; host bits
    allowed."""
    na, nb = ip_network(a, strict=False), ip_network(b, strict=False)
    if na.version != nb.version:
        return False
    return na.subnet_of(nb) or nb.subnet_of(na)  # type: ignore[arg-type]  # same version, checked above
