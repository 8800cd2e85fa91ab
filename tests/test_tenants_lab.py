"""Lab (real FRR, real kernel VXLAN): tenant isolation of examples/gpu-cloud-tenants with its rendered frr.conf, and
of examples/gpu-cloud-tenants-sonic with its SONiC leaves' /etc/sonic/frr/frr.conf (the kernel side stands in for
vxlanmgrd/vrfmgrd the same way; what SONiC's daemons and the ASIC do with config_db is not run here).

This kernel has VXLAN and bridges but no VRF devices, so each tenant VRF of a leaf is a network namespace, FRR's
namespace VRF backend (`zebra -n`): one namespace per switch (the default VRF: underlay ports, loopback, VTEP
source), and inside the leaf's own mount namespace (its /run/netns, /etc/frr, /run/frr) one namespace per tenant
VRF holding the tenant's server ports and the L3VNI's bridge. The VXLAN device is created in the leaf's namespace
(its UDP socket stays there, on the underlay) and moved into the tenant's namespace, as the Linux-files rendering
enslaves it to the VRF's bridge. Hosts are namespaces with their rails (a routing table per rail).

What it proves: the rendered frr.conf (byte for byte) brings up the eBGP underlay with l2vpn-evpn, zebra sees each
tenant's L3VNI, bgpd exports each tenant's host links as type-5 routes with the tenant's route target and imports
only its own; a ping (DSCP 26, the RoCE class, `tos inherit` on the VXLAN device) crosses leaves inside a tenant
and fails between tenants. What it does not prove: the Cumulus VRF devices and the Spectrum ASIC's VXLAN pipeline
(DSCP copy in hardware, NVUE's `nve vxlan` keys), RoCE itself; those are the offline checks' (NVUE schema,
ifupdown2, TEN-01/02, the per-VRF route simulation) and docs/tenants.md says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import EXAMPLES

from netauto.pipeline import build_cluster
from netauto.platforms.nos import sonic_path
from netauto.render.engine import render_cluster
from netauto.render.output import write_tree

pytestmark = pytest.mark.lab

P = "htn"  # namespace prefix of this test
FRR = Path("/usr/lib/frr")
# the Cumulus example, and the same fabric with SONiC leaves (their /etc/sonic/frr/frr.conf: VRFs Vrf_<tenant>)
EXAMPLES_RUN = [EXAMPLES / "gpu-cloud-tenants" / "inventory", EXAMPLES / "gpu-cloud-tenants-sonic" / "inventory"]


def sh(*argv: str, check: bool = True) -> str:
    r = subprocess.run(list(argv), capture_output=True, text=True, timeout=60)
    if check and r.returncode:
        raise AssertionError(f"{' '.join(argv)}: {r.stderr.strip()}")
    return r.stdout


class Lab:
    def __init__(self) -> None:
        self.holders: dict[str, subprocess.Popen[bytes]] = {}

    def holder(self, name: str, private: bool) -> None:
        """Namespace P-name held by a sleeping process (in its own mount namespace for a switch)."""
        sh("ip", "netns", "add", f"{P}-{name}")
        sh("ip", "-n", f"{P}-{name}", "link", "set", "lo", "up")
        inner = ["sleep", "3600"]
        if private:
            setup = ("mount -t tmpfs tmpfs /run/netns && mount -t tmpfs tmpfs /etc/frr && mount -t tmpfs tmpfs "
                     "/run/frr && chown frr:frr /run/frr /etc/frr && exec sleep 3600")
            inner = ["unshare", "-m", "--propagation", "private", "sh", "-c", setup]
        self.holders[name] = subprocess.Popen(["ip", "netns", "exec", f"{P}-{name}", *inner],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def pid(self, name: str) -> str:
        return str(self.holders[name].pid)

    def ns(self, name: str, *argv: str, check: bool = True) -> str:
        return sh("nsenter", "-t", self.pid(name), "-m", "-n", *argv, check=check)

    def down(self) -> None:
        for name in list(self.holders):
            for p in sh("ip", "netns", "pids", f"{P}-{name}", check=False).split():
                if p.isdigit():
                    subprocess.run(["kill", p], capture_output=True)
        for proc in self.holders.values():
            proc.wait(timeout=10)
        for name in self.holders:
            sh("ip", "netns", "del", f"{P}-{name}", check=False)


@pytest.fixture(scope="module", params=EXAMPLES_RUN, ids=["cumulus", "sonic"])
def lab(request, tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    if not all((FRR / d).exists() for d in ("zebra", "bgpd")) or not shutil.which("vtysh"):
        pytest.skip("FRR not installed")
    if any(n.startswith(f"{P}-") for n in sh("ip", "netns", "list").split()):
        pytest.skip(f"namespaces {P}-* exist (another run of this test)")
    cluster = build_cluster(request.param)
    out = tmp_path_factory.mktemp("tenants")
    write_tree(render_cluster(cluster), out / cluster.name, manifest=False)
    fab = cluster.compute
    lab = Lab()
    try:
        for sw in fab.switches:
            lab.holder(sw.name, private=True)
        for srv in fab.servers:
            lab.holder(srv.name, private=False)
        time.sleep(0.5)
        for i, link in enumerate(fab.links):
            if link.kind != "leaf-spine":
                continue
            a, b = f"{P}a{i}", f"{P}b{i}"
            sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
            sh("ip", "link", "set", a, "netns", lab.pid(link.a_device), "name", link.a_port, "mtu", "9216", "up")
            sh("ip", "link", "set", b, "netns", lab.pid(link.b_device), "name", link.b_port, "mtu", "9216", "up")
        for sw in fab.switches:
            lab.ns(sw.name, "ip", "addr", "add", sw.loopback, "dev", "lo")
            lab.ns(sw.name, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
            for v in sw.vrfs:  # the tenant VRF: a namespace, its L3VNI's VXLAN device in its bridge
                lab.ns(sw.name, "ip", "netns", "add", v.name)
                lab.ns(sw.name, "ip", "netns", "exec", v.name, "sysctl", "-qw", "net.ipv4.ip_forward=1")
                lab.ns(sw.name, "ip", "link", "add", v.vxlan_device, "mtu", str(sw.vxlan_mtu), "type", "vxlan", "id",
                       str(v.vni), "local", str(sw.vxlan_source), "dstport", "4789", "nolearning", "tos", "inherit",
                       "ttl", "64")
                lab.ns(sw.name, "ip", "-n", v.name, "link", "add", v.bridge, "mtu", str(sw.vxlan_mtu), "type", "bridge")
                lab.ns(sw.name, "ip", "link", "set", v.vxlan_device, "netns", v.name)
                lab.ns(sw.name, "ip", "-n", v.name, "link", "set", v.vxlan_device, "master", v.bridge)
                for dev in ("lo", v.bridge, v.vxlan_device):
                    lab.ns(sw.name, "ip", "-n", v.name, "link", "set", dev, "up")
        for srv in fab.servers:
            for r in srv.rails:
                leaf = fab.switch(r.leaf)
                port = leaf.interface(r.leaf_port)
                tmp = f"{P}h{srv.index}r{r.index}"
                lab.ns(leaf.name, "ip", "link", "add", port.name, "mtu", "9216", "type", "veth", "peer", "name", tmp)
                lab.ns(leaf.name, "ip", "link", "set", tmp, "netns", lab.pid(srv.name))
                lab.ns(leaf.name, "ip", "link", "set", port.name, "netns", str(port.vrf))
                lab.ns(leaf.name, "ip", "-n", str(port.vrf), "addr", "add", str(port.address), "dev", port.name)
                lab.ns(leaf.name, "ip", "-n", str(port.vrf), "link", "set", port.name, "up")
                host = f"{P}-{srv.name}"
                sh("ip", "-n", host, "link", "set", tmp, "name", r.nic, "mtu", str(r.mtu), "up")
                sh("ip", "-n", host, "addr", "add", r.address, "dev", r.nic)
                sh("ip", "-n", host, "route", "add", fab.host_pool, "via", r.gateway, "dev", r.nic, "table", str(r.table))
                sh("ip", "-n", host, "rule", "add", "from", r.ip, "table", str(r.table))
        for sw in fab.switches:
            conf = (out / cluster.name / sw.name / (sonic_path("frr") if sw.nos == "sonic" else "etc/frr/frr.conf")).read_text()
            subprocess.run(["nsenter", "-t", lab.pid(sw.name), "-m", "-n", "sh", "-c",
                            "cat > /etc/frr/frr.conf && printf 'service integrated-vtysh-config\\n' > /etc/frr/vtysh.conf"
                            " && chown frr:frr /etc/frr/*"], input=conf, text=True, check=True, timeout=30)
            lab.ns(sw.name, str(FRR / "zebra"), "-d", *(["-n"] if sw.vrfs else []), "-A", "127.0.0.1", "-s", "90000000")
            lab.ns(sw.name, str(FRR / "bgpd"), "-d", "-A", "127.0.0.1")
        time.sleep(1)
        for sw in fab.switches:
            lab.ns(sw.name, "vtysh", "-b")
        yield lab, cluster
    finally:
        lab.down()


def _wait(lab: Lab, sw: str, vrf: str, want: set[str], timeout: float = 60) -> str:
    deadline = time.time() + timeout
    table = ""
    while time.time() < deadline:
        table = lab.ns(sw, "vtysh", "-c", f"show ip route vrf {vrf}", check=False)
        if all(p in table for p in want):
            return table
        time.sleep(1)
    return table


def _ping(host: str, src: str, dst: str, size: int = 56) -> bool:
    """One ICMP echo from the host namespace, from the rail's address (its routing table), DSCP 26 (ToS 104: the
    RoCE class), `size` bytes of payload with don't-fragment set."""
    r = subprocess.run(["ip", "netns", "exec", f"{P}-{host}", "ping", "-c", "1", "-W", "1", "-Q", "104", "-M", "do",
                        "-s", str(size), "-I", src, dst], capture_output=True, text=True, timeout=10)
    return r.returncode == 0


def test_tenant_routes_only_in_their_vrf(lab):
    lab, cluster = lab
    fab = cluster.compute
    owner = {s: t.name for t in fab.tenants for s in t.servers}
    for leaf in (s for s in fab.switches if s.vrfs):
        other = next(s for s in fab.switches if s.vrfs and s.name != leaf.name)
        for t in fab.tenants:
            mine = {_subnet(i.address) for i in other.host_ports if owner[str(i.peer_device)] == t.name}
            theirs = {_subnet(i.address) for i in other.host_ports if owner[str(i.peer_device)] != t.name}
            assert mine and theirs
            vrf = next(v.name for v in leaf.vrfs if v.tenant == t.name)  # SONiC: Vrf_<tenant>
            table = _wait(lab, leaf.name, vrf, mine)
            assert all(p in table for p in mine), (leaf.name, t.name, table)
            assert not any(p in table for p in theirs), (leaf.name, t.name, table)


def _subnet(address: str | None) -> str:
    import ipaddress

    return str(ipaddress.ip_interface(str(address)).network)


def test_ping_inside_tenant_crosses_leaves_and_not_between_tenants(lab):
    lab, cluster = lab
    fab = cluster.compute
    owner = {s: t.name for t in fab.tenants for s in t.servers}
    rails = [(s.name, r) for s in fab.servers for r in s.rails]
    inside = cross = ok_inside = ok_cross = 0
    for src_srv, src in rails:
        if src.index != 0:
            continue
        for dst_srv, dst in rails:
            if dst_srv == src_srv or dst.leaf == src.leaf:
                continue  # across leaves: the VXLAN tunnel
            # a full host-MTU frame (IP 20 + ICMP 8 + payload = the rail MTU) through the tunnel
            reached = _ping(src_srv, src.ip, dst.ip, src.mtu - 28)
            if owner[src_srv] == owner[dst_srv]:
                inside += 1
                ok_inside += reached
            else:
                cross += 1
                ok_cross += reached
    assert inside and cross
    assert (ok_inside, ok_cross) == (inside, 0), f"inside {ok_inside}/{inside}, between tenants {ok_cross}/{cross}"
