"""PLANE-07: every NIC of every network on a server is its own, and the host can find it.

  - one NIC name, PCI address or RDMA device serves one network on a server: a storage network on rail 5's RDMA device
    (mlx5_9) sends GPUDirect Storage into the compute rail, and the host QoS units of both networks fight over it;
  - a network NIC is resolvable: a PCI address (udev names it by its PCI path), a MAC, or nic_names: kernel (the name
    is the host's own). Otherwise its netplan says UNRESOLVED and the NIC never comes up under that name.
Every compute plane counts as a network here (rail 0's plane-2 port is compute-p2's). The compute rails' own
resolution is HOST-06's (the compute view); this rule reads the model, the same intent the
files are rendered from.
"""

from __future__ import annotations

from netauto.model.cluster import ClusterModel
from netauto.model.compute_planes import plane_of
from netauto.model.types import Rail
from netauto.validate.findings import CHECKS, Finding

RULE = "PLANE-07"
CHECKS[RULE] = ("a NIC name, PCI address or RDMA device used by two networks on one server, or a network NIC with no "
                "PCI address, MAC or nic_names: kernel (the host cannot find it)")


def _keys(rail: Rail) -> list[tuple[str, str]]:
    keys = [("NIC", rail.nic), ("RDMA device", rail.rdma_device)]
    return keys + ([("PCI address", rail.pci)] if rail.pci else [])


def network_nics(cluster: ClusterModel) -> list[Finding]:
    found: list[Finding] = []
    networks = cluster.fabrics()  # every compute plane's ports too: a storage NIC on a plane-2 port is one on two
    by_server: dict[str, list[tuple[str, list[Rail]]]] = {}  # server -> (network, its rails there)
    for net, fabric in networks:
        for srv in fabric.servers:
            by_server.setdefault(srv.name, []).append((net, srv.rails))
    for server, attached in by_server.items():
        used: dict[tuple[str, str], str] = {}  # (what, value) -> network, per server (100k servers: no global map)
        for net, rails in attached:
            for rail in rails:
                for what, value in _keys(rail):
                    other = used.setdefault((what, value), net)
                    if other != net:
                        found.append(Finding(RULE, "error", server, f"{what} {value} serves both the {other} and "
                                             f"the {net} network (networks.{net}.attach: give it another)"))
                if plane_of(net) is None and rail.match is None:  # compute planes: HOST-06 on each plane's view
                    found.append(Finding(RULE, "error", server, f"{net} NIC {rail.nic}: no PCI address, MAC or "
                                         f"nic_names: kernel: the host cannot find it (networks.{net}.attach: pci)"))
    return found
