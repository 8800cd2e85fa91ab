"""The shared readers of on-device formats (netauto.formats) and the netutil helpers: input/expected tables.

Each reader serves validate and the lab from one parse; these tests pin both views of the same text."""

from __future__ import annotations

import pytest
import yaml

from netauto.formats import fastyaml
from netauto.formats.ifupdown import parse_interfaces, render_blocks
from netauto.formats.netplan import NetplanError, parse_netplan
from netauto.formats.sysctl import parse_sysctl
from netauto.lab.adapt import netplan_links
from netauto.netutil.interface import port_sort_key
from netauto.netutil.ip import host_cidr, ip_of, ipv4_interface, prefix_len

INTERFACES = """# rendered
source /etc/network/interfaces.d/*

auto lo
iface lo inet loopback
    address 10.10.0.1/32
    # a comment inside
    address 127.0.0.1/8

auto swp1
iface swp1
    mtu 9216
    link-speed 400000
allow-hotplug swp2
    mtu 1500
iface swp3
    mtu 9000
not-a-keyword here
    mtu 1
iface swp3
    alias second stanza
"""


def test_ifupdown_stanzas_are_what_ifupdown2_applies():
    st = parse_interfaces(INTERFACES).stanzas
    assert st["lo"].addresses == ["10.10.0.1/32", "127.0.0.1/8"] and st["lo"].auto
    assert st["swp1"].int_("mtu") == 9216 and st["swp1"].auto and st["swp1"].attr_lines["mtu"] == 12
    assert "swp2" not in st  # allow-hotplug alone is no stanza; its body lines belong to none
    assert st["swp3"].attrs == {"mtu": ["9000"], "alias": ["second stanza"]}  # repeated stanzas merge
    assert not st["swp3"].auto


def test_ifupdown_blocks_keep_the_file_as_written():
    parsed = parse_interfaces(INTERFACES)
    assert parsed.preamble == ["# rendered", "source /etc/network/interfaces.d/*", ""]
    assert [(b.name, len(b.header)) for b in parsed.blocks] == [("lo", 2), ("swp1", 2), ("swp2", 1), ("swp3", 1),
                                                               ("swp3", 1)]
    assert "    # a comment inside" in parsed.blocks[0].body
    assert parsed.blocks[3].body == ["    mtu 9000", "not-a-keyword here", "    mtu 1"]
    out = render_blocks(parsed.preamble, parsed.blocks, "# again")
    again = {n: (s.auto, s.attrs) for n, s in parse_interfaces(out).stanzas.items()}
    assert again == {n: (s.auto, s.attrs) for n, s in parse_interfaces(INTERFACES).stanzas.items()}


NETPLAN = """network:
  version: 2
  ethernets:
    rail0:
      # named by udev
      match: {macaddress: "aa:bb:cc:00:00:01"}
      set-name: rail0x
      mtu: 9000
      link-local: []
      addresses: [10.0.0.9/31]
      routes:
        - to: 10.0.0.0/16
          via: 10.0.0.8
      routing-policy:
        - from: 10.0.0.9/32
          table: 101
    eth9:
      dhcp4: true
  bonds:
    bond0:
      interfaces: [rail0]
      mtu: "1500"
"""


def test_netplan_links():
    plan = parse_netplan(NETPLAN)
    rail = plan.ethernets["rail0"]
    assert (rail.key, rail.name, rail.mtu, rail.addresses, rail.link_local) == ("rail0", "rail0x", 9000,
                                                                                 ["10.0.0.9/31"], False)
    assert rail.routes == [{"to": "10.0.0.0/16", "via": "10.0.0.8"}] and rail.routing_policy[0]["table"] == 101
    assert rail.match == {"macaddress": "aa:bb:cc:00:00:01"} and plan.ethernets["eth9"].dhcp
    assert plan.ethernets["eth9"].link_local and plan.ethernets["eth9"].name == "eth9"
    assert plan.bonds["bond0"].interfaces == ["rail0"] and plan.bonds["bond0"].mtu == 1500
    assert plan.sections == ["version", "ethernets", "bonds"]
    links, notes = netplan_links(NETPLAN)  # the lab's view of the same file
    assert [l.name for l in links] == ["rail0x", "eth9"]
    assert notes == ["eth9: dhcp not emulated", "netplan section 'bonds' not emulated"]


@pytest.mark.parametrize("text", ["- a\n- b\n", "network: [1]\n", "network:\n  ethernets:\n    rail0: text\n"])
def test_netplan_bad_shape_is_one_clear_error(text):
    with pytest.raises(NetplanError):
        parse_netplan(text)


def test_sysctl_d_syntax():
    text = "# comment\n; also a comment\n\n  net.a = 1\nnet.b=2 # not a comment: part of the value\nnet.a = 3\njunk\n"
    assert parse_sysctl(text) == [("net.a", "1"), ("net.b", "2 # not a comment: part of the value"), ("net.a", "3")]
    assert dict(parse_sysctl(text))["net.a"] == "3"  # the later one wins, as systemd-sysctl applies them


def test_fastyaml_indented_comments_stay_fast_and_equal():
    text = "a:\n  # indented comment\n  b: 1\n  c: [x, y]\n"
    lines = fastyaml._lines(text)  # no Unsupported: the fast reader takes it
    assert lines == [("", "a:"), ("  ", "b: 1"), ("  ", "c: [x, y]")]  # (indentation as its spaces, content)
    assert fastyaml.load(text) == yaml.safe_load(text)
    with pytest.raises(fastyaml.Unsupported):
        fastyaml._lines("a: 1 # trailing\n")  # a trailing comment still goes to PyYAML
    assert fastyaml.load("a: 1 # trailing\n") == {"a": 1}


@pytest.mark.parametrize("cidr,ip,plen,host", [
    ("10.0.0.1/31", "10.0.0.1", 31, "10.0.0.1/31"),
    ("10.0.0.1", "10.0.0.1", None, "10.0.0.1/32"),
    ("fd00::1/64", "fd00::1", 64, "fd00::1/64"),
    ("10.0.0.1/x", "10.0.0.1", None, "10.0.0.1/x"),
])
def test_ip_helpers(cidr, ip, plen, host):
    assert ip_of(cidr) == ip and prefix_len(cidr) == plen and host_cidr(cidr) == host


def test_ipv4_interface():
    assert str(ipv4_interface("10.0.0.1/31").network) == "10.0.0.0/31"
    assert ipv4_interface("fd00::1/64") is None and ipv4_interface("junk") is None


@pytest.mark.parametrize("names,expected", [
    (["swp10", "swp1s1", "swp2", "swp1", "swp1s0"], ["swp1", "swp1s0", "swp1s1", "swp2", "swp10"]),
    (["Ethernet8", "Ethernet0", "Ethernet128", "Ethernet4"], ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet128"]),
    (["Ethernet8|10.0.0.10/31", "Ethernet8|10.0.0.9/31", "Ethernet0|10.0.0.1/31"],
     ["Ethernet0|10.0.0.1/31", "Ethernet8|10.0.0.9/31", "Ethernet8|10.0.0.10/31"]),
    (["rail1", "bond0", "rail0"], ["bond0", "rail0", "rail1"]),
])
def test_port_sort_key(names, expected):
    assert sorted(names, key=port_sort_key) == expected
