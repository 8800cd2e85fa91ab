"""Run a rendered pod network's CNI chain for real: Debian's containernetworking-plugins in a network namespace.

A pod's rail network is a chain (netauto.formats.cni_networks.plugins); this runs it the way libcni runs a conflist
(CNI spec 0.4.0 "Network configuration lists": each plugin gets the list's name and cniVersion and the previous
plugin's result as prevResult, CNI_COMMAND=ADD, CNI_NETNS, CNI_IFNAME, CNI_CONTAINERID, CNI_PATH).

What cannot run here is replaced by what does the same to the pod's network namespace, and listed in `stand_ins`:
  sriov (a VF netdev moved into the pod)  -> host-device with a device created for it (sriov-cni moves the VF the
                                             same way: netlink LinkSetNsFd, rename to CNI_IFNAME)
  host-device with Multus's deviceID      -> host-device by device name
  Spiderpool / whereabouts IPAM           -> `static` with the same address, gateway and routes (Spiderpool: a
                                             pool's gateway is also a default route, docs/usage/route.md)
  rdma (moves the RDMA device)            -> left out: no RDMA device here
Spiderpool's `coordinator` is not packaged: a chain holding it is refused (CniChainError), never run half.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path
from typing import Any

from netauto.formats.cni_networks import PoolRoutes, plugins

CNI_PATH = Path("/usr/lib/cni")  # Debian containernetworking-plugins
CNI_VERSION = "0.4.0"
NOT_HERE = {"rdma"}


class CniChainError(RuntimeError):
    pass


@dataclass
class Chain:
    name: str
    plugins: list[dict[str, Any]]
    stand_ins: list[str] = field(default_factory=list)


def _static(address: IPv4Address, subnet: str, gateway: str | None, routes: list[tuple[str, str]]) -> dict[str, Any]:
    prefix = IPv4Network(subnet, strict=False).prefixlen
    addr: dict[str, Any] = {"address": f"{address}/{prefix}"}
    if gateway:
        addr["gateway"] = gateway
    out_routes = [{"dst": dst, "gw": gw} for dst, gw in routes]
    return {"type": "static", "addresses": [addr], "routes": out_routes}


def _spiderpool(ipam: dict[str, Any], pools: dict[str, PoolRoutes], node: str, index: int) -> dict[str, Any]:
    mine = [pools[n] for n in ipam.get("default_ipv4_ippool") or [] if n in pools and node in pools[n].nodes]
    if not mine:
        raise CniChainError(f"no SpiderIPPool of {ipam.get('default_ipv4_ippool')} serves node {node}")
    p = mine[0]
    first = IPv4Address(p.ips[0].partition("-")[0])
    routes = [*p.routes, *([("0.0.0.0/0", p.gateway)] if p.gateway else [])]  # docs/usage/route.md
    return _static(first + index, p.subnet, p.gateway, routes)


def _whereabouts(ipam: dict[str, Any], index: int) -> dict[str, Any]:
    routes = [(str(r.get("dst")), str(r.get("gw"))) for r in ipam.get("routes") or []]
    return _static(IPv4Address(str(ipam.get("range_start"))) + index, str(ipam.get("range")), ipam.get("gateway"),
                   routes)


def runnable(doc: dict[str, Any], pools: dict[str, PoolRoutes], node: str, device: str, index: int = 0) -> Chain:
    """The chain of network object `doc` for a pod on `node`, with `device` as its NIC (the `index`-th address)."""
    chain = Chain(str((doc.get("metadata") or {}).get("name")), [])
    for plugin in plugins(doc):
        p = dict(plugin)
        kind = p.get("type")
        if kind in NOT_HERE:
            chain.stand_ins.append(f"{kind}: left out (no RDMA device here)")
            continue
        if kind == "coordinator":
            raise CniChainError(f"{chain.name}: Spiderpool's coordinator is in the chain and cannot run here")
        if kind in ("sriov", "host-device"):
            chain.stand_ins.append(f"{kind}: host-device of {device}")
            p = {"type": "host-device", "device": device, **({"ipam": p["ipam"]} if "ipam" in p else {})}
        ipam = p.get("ipam")
        if isinstance(ipam, dict) and ipam.get("type") == "spiderpool":
            p["ipam"] = _spiderpool(ipam, pools, node, index)
            chain.stand_ins.append("spiderpool IPAM: static with the pool's address, gateway and routes")
        elif isinstance(ipam, dict) and ipam.get("type") == "whereabouts":
            p["ipam"] = _whereabouts(ipam, index)
            chain.stand_ins.append("whereabouts IPAM: static with the range's address, gateway and routes")
        if not (CNI_PATH / str(p.get("type"))).is_file():
            raise CniChainError(f"{chain.name}: CNI plugin {p.get('type')!r} is not in {CNI_PATH}")
        chain.plugins.append(p)
    return chain


def add(chain: Chain, netns: Path, ifname: str, container_id: str, node_netns: str) -> dict[str, Any]:
    """CNI_COMMAND=ADD of every plugin in order, run in the node's namespace `node_netns` (where the devices are);
    the last result. A plugin's error is a CniChainError."""
    prev: dict[str, Any] | None = None
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CNI_COMMAND": "ADD", "CNI_CONTAINERID": container_id,
           "CNI_NETNS": str(netns), "CNI_IFNAME": ifname, "CNI_PATH": str(CNI_PATH)}
    for plugin in chain.plugins:
        conf = {"cniVersion": CNI_VERSION, "name": chain.name, **plugin}
        if prev is not None:
            conf["prevResult"] = prev
        cmd = ["ip", "netns", "exec", node_netns, str(CNI_PATH / str(plugin["type"]))]
        proc = subprocess.run(cmd, input=json.dumps(conf), capture_output=True,
                              text=True, env=env, timeout=30)
        if proc.returncode != 0:
            raise CniChainError(f"{chain.name}: {plugin['type']} ADD failed: {(proc.stdout + proc.stderr).strip()[:400]}")
        prev = json.loads(proc.stdout)
    return prev or {}
