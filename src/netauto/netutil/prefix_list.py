"""FRR prefix-list semantics, as pure functions on entries (one copy: validate/upstream_sessions.py's exit checks and the
route simulation's route-map matches both ask here).

FRR (lib/plist.c, docs "IP Prefix List"): entries are tried in `seq` order, the first that matches decides
(permit or deny), no match is an implicit deny. `any` matches every prefix. An entry `P/len` matches a prefix
inside P whose length is `len` exactly; `ge G` widens it to lengths G..32, `le L` to len..L, both to G..L.
"""

from __future__ import annotations

from collections.abc import Iterable
from ipaddress import IPv4Network
from typing import Protocol

from netauto.netutil.ip import DEFAULT_ROUTE, ipv4_network

__all__ = ["Entry", "matches", "permits", "permitted_space"]


class Entry(Protocol):
    """One `ip prefix-list NAME seq S ACTION PREFIX [ge G] [le L]` line (formats.frr.PrefixListEntry)."""

    @property
    def seq(self) -> int: ...
    @property
    def action(self) -> str: ...
    @property
    def prefix(self) -> str: ...
    @property
    def ge(self) -> int | None: ...
    @property
    def le(self) -> int | None: ...


def matches(entry: Entry, net: IPv4Network) -> bool:
    """Whether `entry` matches `net` (its action aside); an entry whose prefix is not IPv4 matches nothing."""
    if entry.prefix == "any":
        return True
    p = ipv4_network(entry.prefix)
    if p is None:
        return False
    lo = entry.ge if entry.ge is not None else p.prefixlen
    hi = entry.le if entry.le is not None else (32 if entry.ge is not None else p.prefixlen)
    return net.subnet_of(p) and lo <= net.prefixlen <= hi


def permits(entries: Iterable[Entry] | None, net: IPv4Network) -> bool:
    """Whether the prefix-list `entries` permits `net`: the first matching entry by seq decides, implicit deny
    (also for a list that does not exist: None)."""
    for e in sorted(entries or (), key=lambda e: e.seq):
        if matches(e, net):
            return e.action == "permit"
    return False


def permitted_space(entries: Iterable[Entry] | None) -> list[IPv4Network]:
    """What a prefix-list lets through, as covering networks (`permit 10.0.0.0/8 le 32` -> 10.0.0.0/8, `permit
    any` -> 0.0.0.0/0), in the list's order; denies and non-IPv4 prefixes are left out."""
    out = []
    for e in entries or ():
        if e.action != "permit":
            continue
        net = ipv4_network(DEFAULT_ROUTE if e.prefix == "any" else e.prefix)
        if net is not None:
            out.append(net)
    return out
