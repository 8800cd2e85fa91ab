"""The drain is measured per session on each neighbour (netauto.deploy.forwarding): BGP selection, zebra's
RIB/FIB and the kernel, whatever the ASNs. Shapes are FRR 8.4.4's and iproute2 6.1's JSON, taken from the lab."""

from __future__ import annotations

import json

from netauto.deploy.forwarding import drain_view
from netauto.formats.routes import parse_kernel_routes, parse_zebra_routes

SPINE_ASN = 65100  # every spine: RFC 7938 5.2.1, netauto's default
PORTS = {"swp33s0", "swp33s1"}  # su1-r0-leaf's ports facing spine1 (one session each)


def path(host: str, *, selected: bool, lp0: bool = False, aspath: str = "65100 65102") -> dict:
    p = {"valid": True, "multipath": selected, "path": aspath, "nexthops": [{"hostname": host}]}
    if lp0:
        p["locPrf"] = 0
    return p


def bgp(spine1_selected: bool, lp0: bool = True) -> dict[str, list[dict]]:
    return {"10.1.0.0/24": [path("spine1", selected=spine1_selected, lp0=lp0),
                            path("spine1", selected=spine1_selected, lp0=lp0),
                            path("spine2", selected=True), path("spine2", selected=True)]}


def zebra(*ports: str, fib: bool = True) -> dict:
    hops = [{"flags": 3, "fib": fib, "ip": "fe80::1", "afi": "ipv6", "interfaceName": p, "active": True, "weight": 1}
            for p in ports]
    return parse_zebra_routes(json.dumps({"10.1.0.0/24": [{"prefix": "10.1.0.0/24", "protocol": "bgp",
                                                           "selected": True, "installed": True, "nexthops": hops}]}))


def kernel(*ports: str) -> dict:
    hops = [{"via": {"family": "inet6", "host": "fe80::1"}, "dev": p, "weight": 1, "flags": []} for p in ports]
    return parse_kernel_routes(json.dumps([{"dst": "10.1.0.0/24", "protocol": "bgp", "nexthops": hops},
                                           {"dst": "10.0.0.1", "dev": "swp33s0", "protocol": "bgp"}]))


def test_a_spine_still_selected_is_not_drained_although_every_spine_shares_its_asn():
    """The bug of issue 27: spine2's paths (AS path 65100 ...) were taken for paths through spine1, so the marked
    but still selected spine1 paths counted as drained."""
    v = drain_view(bgp(spine1_selected=True), "spine1", PORTS, SPINE_ASN)
    assert v.pending == 1 and "bgp" in v.forwarding[0], v


def test_bgp_moved_but_the_fib_still_forwards_through_the_spine():
    other = ("swp34s0", "swp34s1")
    v = drain_view(bgp(False), "spine1", PORTS, SPINE_ASN, zebra(*other, "swp33s0"), kernel(*other))
    assert (v.pending, v.forwarding) == (1, ["10.1.0.0/24 via swp33s0 (rib+fib)"])
    v = drain_view(bgp(False), "spine1", PORTS, SPINE_ASN, zebra(*other), kernel(*other, "swp33s1"))
    assert (v.pending, v.forwarding, v.fib_via) == (1, ["10.1.0.0/24 via swp33s1 (kernel)"], 1)
    v = drain_view(bgp(False), "spine1", PORTS, SPINE_ASN, zebra(*other), kernel(*other))
    assert (v.pending, v.forwarding, v.fib_via, v.fib) == (0, [], 0, "kernel")


def test_zebra_fib_flag_is_the_fib_where_the_kernel_is_unreadable():
    v = drain_view(bgp(False), "spine1", PORTS, SPINE_ASN, zebra("swp34s0", "swp33s0"), None)
    assert (v.pending, v.fib, v.fib_via) == (1, "zebra", 1)


def test_kernel_parser_normalises_host_routes_and_single_next_hops():
    k = kernel("swp34s0")
    assert k["10.0.0.1/32"] == frozenset({"swp33s0"}) and k["10.1.0.0/24"] == frozenset({"swp34s0"})


def test_a_prefix_only_behind_the_spine_is_drained_once_marked():
    own = {"10.255.0.1/32": [path("spine1", selected=True, lp0=False, aspath="65100")]}
    assert drain_view(own, "spine1", PORTS, SPINE_ASN).pending == 1
    own["10.255.0.1/32"][0]["locPrf"] = 0
    assert drain_view(own, "spine1", PORTS, SPINE_ASN, None, kernel("swp33s0")).pending == 0
