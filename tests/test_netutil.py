"""One copy of each concept: netutil's small pure functions and the one reader per on-device format, with
input/expected tables (in the manner of netutils)."""

from __future__ import annotations

import json
from ipaddress import IPv4Network

import pytest

from netauto.formats.bgp_summary import BgpPeer, parse_bgp_summary
from netauto.formats.frr import PrefixListEntry, parse_frr
from netauto.netutil import prefix_list
from netauto.netutil.ecmp import ecmp_width
from netauto.netutil.ip import overlaps

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


# ---------------------------------------------------------------- `show bgp summary json` (formats.bgp_summary)
PEER = {"state": "Established", "remoteAs": 65101, "localAs": 65001, "hostname": "spine1", "peerUptimeMsec": 1500,
        "pfxRcd": 3, "pfxSnt": 4, "desc": "to spine1"}


@pytest.mark.parametrize(("text", "established", "peer"), [
    ('{"routerId": "10.0.0.1", "as": 65001, "peers": {"swp1": %s}}' % json.dumps(PEER), {"swp1"},
     BgpPeer("swp1", "Established", 65101, 65001, "spine1", 1.5, 3, 4, "to spine1")),
    ('{"ipv4Unicast": {"as": 65001, "peers": {"swp1": {"state": "Active"}}}}', set(),  # `show bgp summary json`
     BgpPeer("swp1", "Active", 0, 65001, None, 0.0, 0, 0)),
    ("{}", set(), None),  # bgpd without IPv4 unicast peers
    ("", set(), None),
    ('{"peers": {"swp1": "Established"}}', set(), None),  # hostile: a peer that is no object
    ('{"peers": ["swp1"]}', set(), None),
    ("[1, 2]", set(), None),
    ('{"peers": {"swp1": {"state": 7, "remoteAs": "65101", "hostname": ["x"], "peerUptimeMsec": true}}}', set(),
     BgpPeer("swp1", "?", 0, 0, None, 0.0, 0, 0)),
])
def test_parse_bgp_summary(text: str, established: set[str], peer: BgpPeer | None) -> None:
    summary = parse_bgp_summary(text)
    assert summary.established() == established
    assert summary.peers.get("swp1") == peer


def test_parse_bgp_summary_refuses_what_is_not_json() -> None:
    with pytest.raises(ValueError):
        parse_bgp_summary("% Unknown command")


def test_one_reader_of_the_bgp_summary() -> None:
    """deploy, the lab and the NAPALM driver read `show bgp summary json` through formats.bgp_summary alone."""
    import re
    from pathlib import Path

    import netauto

    src = Path(netauto.__file__).parent
    readers = {p.relative_to(src).as_posix() for p in src.rglob("*.py")
               if re.search(r"""\.get\(["']peers["']|\[["']peers["']\]""", p.read_text())}
    assert readers == {"formats/bgp_summary.py"}


# ---------------------------------------------------------------- ECMP width, prefix overlap
@pytest.mark.parametrize(("hops", "maximum_paths", "drained", "expected"), [
    (["spine1", "spine2", "spine3", "spine4"], 64, (), 4),
    (["spine1", "spine2", "spine3", "spine4"], 2, (), 2),  # maximum-paths caps the set
    (["spine1", "spine2", "spine3", "spine4"], 64, {"spine2"}, 3),  # a drained spine's paths lose
    (["spine1", "spine1", "spine2"], 64, (), 3),  # parallel links: one path each
    (["spine1", "spine1", "spine2"], 64, {"spine1"}, 1),
    ([], 64, (), 0),
])
def test_ecmp_width(hops: list[str], maximum_paths: int, drained: set[str], expected: int) -> None:
    assert ecmp_width(hops, maximum_paths, drained) == expected


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("10.0.0.0/8", "10.1.0.0/16", True),
    ("10.1.0.0/16", "10.0.0.0/8", True),
    ("10.0.0.0/16", "10.1.0.0/16", False),
    ("10.0.0.1/24", "10.0.0.0/24", True),  # host bits allowed
    ("10.0.0.0/8", "2001:db8::/32", False),  # never across versions
    ("2001:db8::/32", "2001:db8:1::/48", True),
    ("0.0.0.0/0", "::/0", False),  # subnet_of would raise TypeError
])
def test_overlaps(a: str, b: str, expected: bool) -> None:
    assert overlaps(a, b) is expected
