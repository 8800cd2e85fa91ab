"""Routing tables as FRR's zebra and the Linux kernel print them, reduced to what forwarding needs: for each
prefix, the interfaces its next hops leave by.

- zebra: `vtysh -c 'show ip route json'` (FRR 8.4.4, run in the lab): prefix -> list of route entries; the
  entry zebra chose has `"selected": true`, `"installed": true` once it is in the kernel, and each next hop
  `"active": true` (in the RIB's choice) and `"fib": true` (installed in the FIB), `"interfaceName"`.
- kernel: `ip -j -4 route show` (iproute2 6.1, run in the lab): `{"dst": "10.1.0.0/24", "nexthops": [{"dev":
  "swp33s0", ...}]}` for ECMP, `{"dst": "10.0.0.1", "dev": ...}` for one next hop (a /32 prints without its
  length, `default` for 0.0.0.0/0). On a Cumulus switch the kernel table is what switchd programs into the ASIC.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from netauto.formats import device_json


@dataclass(frozen=True)
class RibEntry:
    """zebra's selected route for one prefix: the interfaces of its active next hops and of those in the FIB."""

    rib: frozenset[str] = field(default_factory=frozenset)
    fib: frozenset[str] = field(default_factory=frozenset)
    installed: bool = False


@device_json.shaped("show ip route json")
def parse_zebra_routes(text: str) -> dict[str, RibEntry]:
    """`show ip route json` -> prefix -> its selected entry (prefixes without one are left out)."""
    doc: dict[str, list[dict[str, Any]]] = device_json.loads(text or "{}")  # device output: bounded nesting
    out = {}
    for prefix, entries in doc.items():
        for entry in entries:
            if not entry.get("selected"):
                continue
            hops = entry.get("nexthops", [])
            out[prefix] = RibEntry(frozenset(h["interfaceName"] for h in hops if h.get("active") and "interfaceName" in h),
                                   frozenset(h["interfaceName"] for h in hops if h.get("fib") and "interfaceName" in h),
                                   bool(entry.get("installed")))
    return out


def _kernel_routes(text: str) -> Iterator[tuple[str, list[dict]]]:
    """`ip -j -4 route show ...` -> (prefix as CIDR, its next hops: `nexthops`, else the route itself)."""
    for route in device_json.loads(text or "[]"):
        dst = route.get("dst", "")
        if dst == "default":
            dst = "0.0.0.0/0"
        elif "/" not in dst:
            dst += "/32"
        yield dst, route.get("nexthops") or [route]


@device_json.shaped("ip -j route")
def parse_kernel_routes(text: str) -> dict[str, frozenset[str]]:
    """`ip -j -4 route show` (main table) -> prefix -> the interfaces its next hops leave by."""
    return {dst: frozenset(h["dev"] for h in hops if "dev" in h) for dst, hops in _kernel_routes(text)}


@device_json.shaped("ip -j route")
def route_widths(text: str) -> dict[str, int]:
    """`ip -j -4 route show proto bgp`: prefix -> number of kernel next hops (the ECMP width as forwarded)."""
    return {dst: len(hops) for dst, hops in _kernel_routes(text)}
