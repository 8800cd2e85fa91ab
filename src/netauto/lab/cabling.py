"""Re-cable a running lab: swap the far ends of two cables (a test helper for `netauto verify`'s cabling check).

`swap_cables(state, ("su1-r0-leaf", "swp33"), ("su1-r0-leaf", "swp35"))`: the cable on su1-r0-leaf swp33 (to
spine1 swp1) and the one on swp35 (to spine2 swp1) swap far ends, as a technician plugging them into each other's
port would. The veths are re-created with the same names in the same namespaces; each of the four ports keeps
its MTU, addresses, alias and admin state; lldpd on the four nodes is asked to send at once.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from typing import Any

from netauto.errors import NetautoError
from netauto.lab import netns
from netauto.lab.runtime import exec_argv


@dataclass(slots=True)
class End:
    device: str
    ns: str
    port: str
    link: dict[str, Any]  # `ip -j -d link show` of the port
    addrs: list[dict[str, Any]]  # its addr_info (global/link addresses the node configured)


def _ns_of(st: dict[str, Any], device: str) -> str:
    if device not in st["nodes"]:
        raise NetautoError(f"no device {device!r} in lab {st['name']}")
    return st["nodes"][device]["ns"]


def _end(st: dict[str, Any], device: str, ns: str, port: str) -> End:
    p = netns.run(["ip", "-n", ns, "-j", "-d", "addr", "show", "dev", port], check=False)
    if p.returncode != 0:
        raise NetautoError(f"{device}: no port {port} in the lab")
    link = json.loads(p.stdout)[0]
    addrs = [a for a in link.get("addr_info", []) if a.get("scope") != "link" or a.get("family") == "inet"]
    return End(device, ns, port, link, addrs)


def _peer(st: dict[str, Any], end: End) -> End:
    if (end.link.get("linkinfo") or {}).get("info_kind") != "veth" or "link_netnsid" not in end.link:
        raise NetautoError(f"{end.device} {end.port} is not a lab cable (veth to another node)")
    ids = netns.run(["ip", "-n", end.ns, "netns", "list-id"]).stdout
    m = re.search(rf"nsid {end.link['link_netnsid']} \(iproute2 netns name: (\S+)\)", ids)
    if not m:
        raise NetautoError(f"{end.device} {end.port}: cannot find the namespace of its far end")
    peer_ns = m.group(1)
    device = next((d for d, n in st["nodes"].items() if n["ns"] == peer_ns), peer_ns)
    links = json.loads(netns.run(["ip", "-n", peer_ns, "-j", "link", "show"]).stdout)
    name = next((l["ifname"] for l in links if l["ifindex"] == end.link["link_index"]), None)
    if name is None:
        raise NetautoError(f"{end.device} {end.port}: far end not found in {peer_ns}")
    return _end(st, device, peer_ns, name)


def _restore(end: End) -> list[str]:
    cmds = [f"link set dev {end.port} mtu {end.link['mtu']}"]
    if end.link.get("ifalias"):
        cmds.append(f"link set dev {end.port} alias {json.dumps(end.link['ifalias'])}")
    for a in end.addrs:
        if a.get("family") in ("inet", "inet6") and a.get("scope") != "link":
            cmds.append(f"addr add {a['local']}/{a['prefixlen']} dev {end.port}")
    if "UP" in end.link.get("flags", []):
        cmds.append(f"link set dev {end.port} up")
    return cmds


def swap_cables(st: dict[str, Any], a: tuple[str, str], b: tuple[str, str]) -> dict[str, str]:
    """Swap the far ends of the cables on ports a and b. Returns the new cabling of the four ports."""
    ea = _end(st, a[0], _ns_of(st, a[0]), a[1])
    eb = _end(st, b[0], _ns_of(st, b[0]), b[1])
    pa, pb = _peer(st, ea), _peer(st, eb)
    if {(pa.device, pa.port), (pb.device, pb.port)} & {(ea.device, ea.port), (eb.device, eb.port)}:
        raise NetautoError("the two ports are the ends of one cable: nothing to swap")
    netns.run(["ip", "-n", ea.ns, "link", "del", ea.port])
    netns.run(["ip", "-n", eb.ns, "link", "del", eb.port])
    netns.ip_batch([f"link add {ea.port} netns {ea.ns} type veth peer name {pb.port} netns {pb.ns}",
                    f"link add {eb.port} netns {eb.ns} type veth peer name {pa.port} netns {pa.ns}"])
    for end in (ea, eb, pa, pb):
        netns.ip_batch(_restore(end), end.ns, force=True)  # an address may already be back (ifupdown2 none here)
    for dev in {ea.device, eb.device, pa.device, pb.device}:
        subprocess.run(exec_argv(st, dev, ["lldpcli", "update"]), capture_output=True, timeout=20)
    return {f"{ea.device} {ea.port}": f"{pb.device} {pb.port}", f"{eb.device} {eb.port}": f"{pa.device} {pa.port}"}
