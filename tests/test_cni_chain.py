"""The pods' rail networks run for real: each rendered network's CNI chain (Debian's containernetworking-plugins:
host-device, static, tuning, sbr) with CNI_COMMAND=ADD into a pod network namespace (netauto.lab.cni), then the
pod's routing is read back with `ip`:

  - the default route stays on the pod's own primary interface (eth0, standing in for the cluster network),
  - each rail reaches its rail subnet and the fabric through its own NIC, from its own address (ip rule per rail),
  - a destination outside the fabric leaves through eth0.

Spiderpool/whereabouts IPAM run as `static` with the same address, gateway and routes (netauto.lab.cni says which
part stands in for what). Root (network namespaces): the lab job of .ci/run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from ipaddress import IPv4Interface, IPv4Network
from pathlib import Path

import pytest
import yaml
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.formats.cni_networks import NETWORK_KINDS, pool
from netauto.lab.cni import CNI_PATH, add, runnable
from netauto.pipeline import build

pytestmark = pytest.mark.lab
INVENTORIES = {"gpu-pod1 (attach: pf)": DEFAULT_INVENTORY, "gpu-2su (attach: vf)": EXAMPLES / "2su-leaf-subnet" / "inventory"}


def _ip(ns: str, *args: str) -> str:
    return subprocess.run(["ip", "-n", ns, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def namespaces(request):
    if os.geteuid() != 0 or not all((CNI_PATH / p).is_file() for p in ("host-device", "static", "tuning", "sbr")):
        why = "root and containernetworking-plugins (/usr/lib/cni: host-device, static, tuning, sbr)"
        if os.environ.get("CI"):
            pytest.fail(f"the CNI chain test needs {why}")
        pytest.skip(f"needs {why}")
    tag = f"cni{os.getpid() % 100000}"
    node, pod = f"{tag}-node", f"{tag}-pod"
    for ns in (node, pod):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    request.addfinalizer(lambda: [subprocess.run(["ip", "netns", "del", ns], check=False) for ns in (node, pod)])
    # the pod's primary network (the cluster CNI's eth0) with its default route
    subprocess.run(["ip", "-n", node, "link", "add", "pod0", "type", "veth", "peer", "name", "eth0", "netns", pod],
                   check=True)
    for cmd in (["addr", "add", "192.168.77.2/24", "dev", "eth0"], ["link", "set", "eth0", "up"],
                ["link", "set", "lo", "up"], ["route", "add", "default", "via", "192.168.77.1", "dev", "eth0"]):
        _ip(pod, *cmd)
    _ip(node, "link", "set", "pod0", "up")
    return node, pod


def _whereabouts(tmp: Path) -> Path:
    """gpu-2su with one SU (one leaf per rail) on SriovNetwork + whereabouts: the rdma/tuning/sbr metaPlugins chain."""
    dst = tmp / "inventory"
    shutil.copytree(INVENTORIES["gpu-2su (attach: vf)"], dst)
    f = dst / "fabric.yaml"
    data = yaml.safe_load(f.read_text())
    data["topology"]["sus_per_pod"] = 1
    data["overrides"] = {"devices": {}, "ports": []}
    data["kubernetes"] = {"ipam": "whereabouts", "pool_size": 32, "vfs_per_nic": 1}
    f.write_text(yaml.safe_dump(data, sort_keys=False))
    return dst


def _manifests(inv: Path) -> list[dict]:
    docs = []
    for a in build(inv).artifacts:
        if a.device == "kubernetes" and a.path.endswith(".yaml"):
            docs += [d for d in yaml.safe_load_all(a.content) if d]
    return docs


@pytest.mark.parametrize("inv", [*INVENTORIES.values(), None], ids=[*INVENTORIES, "gpu-2su 1 SU (whereabouts)"])
def test_rail_chains_keep_the_default_route_on_eth0_and_source_route_each_rail(inv, namespaces, tmp_path):
    node_ns, pod_ns = namespaces
    docs = _manifests(inv or _whereabouts(tmp_path))
    pools = {p.name: p for p in (pool(d) for d in docs if d["kind"] == "SpiderIPPool")}
    networks = sorted((d for d in docs if d["kind"] in NETWORK_KINDS), key=lambda d: int(d["metadata"]["name"][4:]))
    node = next(n for p in pools.values() for n in p.nodes) if pools else "any"
    assert networks, "no rail networks rendered"
    attached = []  # (ifname, pod address, result routes)
    for i, doc in enumerate(networks):
        device = f"nic{i}"  # the rail NIC (attach: pf) or its VF (attach: vf) on the node
        _ip(node_ns, "link", "add", device, "type", "veth", "peer", "name", f"{device}p")  # no dummy module here
        _ip(node_ns, "link", "set", f"{device}p", "up")
        chain = runnable(doc, pools, node, device)
        ifname = f"net{i + 1}"  # Multus's names for the additional networks
        result = add(chain, Path(f"/run/netns/{pod_ns}"), ifname, "c0ffee", node_ns)
        attached.append((ifname, IPv4Interface(result["ips"][0]["address"]), result.get("routes") or []))

    defaults = _ip(pod_ns, "-4", "route", "show", "table", "main", "default").splitlines()
    assert defaults == ["default via 192.168.77.1 dev eth0 "] or [d.strip() for d in defaults] == [
        "default via 192.168.77.1 dev eth0"], f"the pod's main table has {defaults}"
    rules = _ip(pod_ns, "-4", "rule", "show")
    assert _ip(pod_ns, "-4", "route", "get", "1.1.1.1").split(" dev ")[1].split()[0] == "eth0"
    for ifname, addr, routes in attached:
        assert f"from {addr.ip} lookup" in rules, f"no source rule for {ifname} {addr.ip}:\n{rules}"
        fabric = [IPv4Network(r["dst"]) for r in routes if r["dst"] != "0.0.0.0/0"]
        assert fabric, f"{ifname}: no fabric route"
        targets = [addr.network[-2] if addr.network.num_addresses > 2 else addr.network[0]]
        targets += [n[-2] for n in fabric if not n.subnet_of(addr.network)]
        for dst in targets:
            got = _ip(pod_ns, "-4", "route", "get", str(dst), "from", str(addr.ip))
            assert f" dev {ifname} " in got, f"{dst} from {addr.ip} leaves by {got.strip()}, not {ifname}"

