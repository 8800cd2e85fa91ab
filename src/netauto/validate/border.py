"""Reading the frontend's exit back from the parsed files: numbered eBGP sessions to upstream routers.

A fabric session is unnumbered (`neighbor swpN interface ...`); a session named by an IPv4 address is a
session out of the cluster. Used by BORDER-01 (the session as intended), PLANE-06 (no such session outside
the frontend, nothing of another network in what it advertises) and the route simulation (where the default
route enters).
"""

from __future__ import annotations

from functools import lru_cache
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from netauto.formats.frr import FrrConf, PrefixListEntry
from netauto.validate.state import SwitchState

DEFAULT = IPv4Network("0.0.0.0/0")


@lru_cache(maxsize=4096)
def is_address(name: str) -> bool:
    try:
        IPv4Address(name)
    except ValueError:
        return False
    return True


def numbered_neighbors(conf: FrrConf) -> list[str]:
    """The neighbours named by an address: sessions to routers outside the cluster's fabrics."""
    return sorted(n for n in conf.neighbors if is_address(n))


def port_towards(st: SwitchState, address: str) -> str | None:
    """The up port whose subnet holds `address` (where a numbered session to it can come up)."""
    ip = IPv4Address(address)
    for name, port in st.ports.items():
        if not port.up:
            continue
        for a in port.addresses:
            try:
                mine = IPv4Interface(a)
            except ValueError:
                continue
            if ip in mine.network and ip != mine.ip:
                return name
    return None


def permits(entries: list[PrefixListEntry] | None, net: IPv4Network) -> bool:
    """FRR prefix-list semantics: first matching entry decides, implicit deny."""
    for e in sorted(entries or (), key=lambda e: e.seq):
        if e.prefix == "any":
            return e.action == "permit"
        try:
            p = IPv4Network(e.prefix, strict=False)
        except ValueError:
            continue
        lo = e.ge if e.ge is not None else p.prefixlen
        hi = e.le if e.le is not None else (32 if e.ge is not None else p.prefixlen)
        if net.subnet_of(p) and lo <= net.prefixlen <= hi:
            return e.action == "permit"
    return False


def permitted_space(entries: list[PrefixListEntry] | None) -> list[IPv4Network]:
    """What a prefix-list lets through, as covering networks (`permit 10.0.0.0/8 le 32` -> 10.0.0.0/8)."""
    out = []
    for e in entries or ():
        if e.action != "permit":
            continue
        try:
            out.append(DEFAULT if e.prefix == "any" else IPv4Network(e.prefix, strict=False))
        except ValueError:
            continue
    return out
