"""netutil: small pure functions, one per concept, with input/expected tables (in the manner of netutils)."""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest

from netauto.formats.frr import PrefixListEntry, parse_frr
from netauto.netutil import prefix_list

E = PrefixListEntry
N = IPv4Network


# ---------------------------------------------------------------- FRR prefix-list matching
@pytest.mark.parametrize(("entries", "net", "expected"), [
    ([E(5, "permit", "any")], "10.1.2.0/24", True),
    ([E(5, "deny", "any")], "10.1.2.0/24", False),
    ([E(5, "permit", "any")], "0.0.0.0/0", True),
    ([], "10.0.0.0/8", False),  # implicit deny
    (None, "10.0.0.0/8", False),  # a list that does not exist
    ([E(5, "permit", "10.0.0.0/8")], "10.0.0.0/8", True),  # exact length only
    ([E(5, "permit", "10.0.0.0/8")], "10.1.0.0/16", False),
    ([E(5, "permit", "10.0.0.0/8", le=32)], "10.1.0.0/16", True),
    ([E(5, "permit", "10.0.0.0/8", le=16)], "10.1.1.0/24", False),
    ([E(5, "permit", "10.0.0.0/8", ge=24)], "10.1.1.0/24", True),  # ge alone: up to /32
    ([E(5, "permit", "10.0.0.0/8", ge=24)], "10.1.1.1/32", True),
    ([E(5, "permit", "10.0.0.0/8", ge=24)], "10.1.0.0/16", False),
    ([E(5, "permit", "10.0.0.0/8", ge=16, le=24)], "10.1.1.0/25", False),
    ([E(5, "permit", "10.0.0.0/8", le=32)], "11.0.0.0/8", False),  # outside
    ([E(10, "permit", "10.0.0.0/8", le=32), E(5, "deny", "10.1.0.0/16", le=32)], "10.1.2.0/24", False),  # by seq
    ([E(10, "permit", "10.0.0.0/8", le=32), E(5, "deny", "10.1.0.0/16", le=32)], "10.2.0.0/24", True),
    ([E(5, "permit", "2001:db8::/32", le=128), E(10, "permit", "any")], "10.0.0.0/8", True),  # IPv6: no match
    ([E(5, "deny", "0.0.0.0/0"), E(10, "permit", "any")], "0.0.0.0/0", False),
    ([E(5, "deny", "0.0.0.0/0"), E(10, "permit", "any")], "10.0.0.0/8", True),
])
def test_permits(entries: list[PrefixListEntry] | None, net: str, expected: bool) -> None:
    assert prefix_list.permits(entries, N(net)) is expected


@pytest.mark.parametrize(("entries", "expected"), [
    ([E(5, "permit", "any")], ["0.0.0.0/0"]),
    ([E(5, "permit", "10.0.0.0/8", le=32), E(10, "deny", "any")], ["10.0.0.0/8"]),
    ([E(5, "permit", "10.0.0.1/8")], ["10.0.0.0/8"]),  # host bits as FRR accepts them
    ([E(5, "permit", "2001:db8::/32")], []),
    (None, []),
])
def test_permitted_space(entries: list[PrefixListEntry] | None, expected: list[str]) -> None:
    assert prefix_list.permitted_space(entries) == [N(n) for n in expected]


def test_route_simulation_originates_through_a_permit_any_prefix_list() -> None:
    """`redistribute connected route-map X` whose prefix-list is `permit any` originates every connected
    prefix (the simulation's own copy skipped `any`: ipv4_network("any") is None, so nothing was originated)."""
    from netauto.validate.routesim import Node, originated

    conf = parse_frr("ip prefix-list ALL seq 5 permit any\n"
                     "route-map CONNECTED permit 10\n match ip address prefix-list ALL\nexit\n"
                     "router bgp 65001\n address-family ipv4 unicast\n  redistribute connected route-map CONNECTED\n"
                     " exit-address-family\nexit\n")
    node = Node("leaf1", "leaf", 65001, conf, gshut=False, prepend=False, relax=True, max_paths=64,
                connected=[N("10.0.0.1/32"), N("172.16.0.0/31")])
    assert originated(node) == {N("10.0.0.1/32"), N("172.16.0.0/31")}
