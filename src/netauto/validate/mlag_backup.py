"""MLAG-02: an MLAG pair's backup address never depends on the peerlink.

clagd uses the backup IP to tell a dead peer from a dead peerlink; if the backup address is only reachable over
the peerlink (the peer's SVI, a bond's VLAN), a peerlink failure makes both switches primary (CL MLAG page,
"backup IP": use the peer's eth0 in the mgmt VRF, or a routed loopback; domain.md Corrections "MLAG backup").
Checked on the NVUE documents of both switches: the backup IP must be the peer's eth0 address, in eth0's VRF, and
this switch's eth0 must be in the same subnet (the management network, or the pair's own backup cable).
"""

from __future__ import annotations

from ipaddress import IPv4Interface, ip_address
from typing import Any

from netauto.formats.nvue import dig


def _addresses(node: dict[str, Any]) -> list[IPv4Interface]:
    out = []
    for container in ("ip", "ipv4"):
        for a in (dig(node, container, "address") or {}):
            try:
                out.append(IPv4Interface(str(a)))
            except ValueError:
                continue
    return out


def _vrf(node: dict[str, Any]) -> str | None:
    vrf = node.get("vrf") or dig(node, "ip", "vrf")
    return str(vrf) if vrf else None


def backup_problems(tree: dict[str, Any], peer: str, peer_tree: dict[str, Any]) -> list[str]:
    """What is wrong with the MLAG backup of the switch `tree` (NVUE `- set:` document) towards `peer`."""
    backup = dig(tree, "mlag", "backup")
    if not isinstance(backup, dict) or not backup:
        return [f"no MLAG backup IP: a peerlink failure leaves no way to tell whether {peer} is alive"]
    out = []
    for ip_text, opts in backup.items():
        try:
            ip = ip_address(str(ip_text))
        except ValueError:
            out.append(f"MLAG backup {ip_text!r} is not an address")
            continue
        vrf = str((opts or {}).get("vrf")) if isinstance(opts, dict) and (opts or {}).get("vrf") else None
        where = [(name, node) for name, node in (dig(peer_tree, "interface") or {}).items()
                 if isinstance(node, dict) and any(a.ip == ip for a in _addresses(node))]
        if not where:
            out.append(f"MLAG backup {ip} is no address of {peer}")
            continue
        name, node = where[0]
        if str(name) != "eth0":
            out.append(f"MLAG backup {ip} is {peer}'s {name} ({node.get('type', 'interface')}), reachable only over the "
                       "peerlink: a peerlink failure makes both switches primary (use the peer's eth0, mgmt VRF)")
            continue
        if _vrf(node) != vrf:
            out.append(f"MLAG backup {ip} in VRF {vrf or 'default'}, {peer}'s eth0 is in VRF {_vrf(node) or 'default'}")
        own = (dig(tree, "interface", "eth0") or {})
        if not any(ip in a.network for a in _addresses(own)):
            out.append(f"MLAG backup {ip}: this switch's eth0 is not on {peer}'s eth0 subnet (no path off the peerlink)")
    return out
