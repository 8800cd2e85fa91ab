"""Host-side settings derived from the fabric: NCCL configuration and NIC firmware."""

from __future__ import annotations

from netauto.inventory.schema import SPEEDS_MBPS, Inventory
from netauto.inventory.servers import ServerProfile
from netauto.model.types import FabricModel, FirmwareSetting, Nccl, Qos, Rail
from netauto.platforms import nics as nic_facts


def nccl(inv: Inventory, rails: list[Rail], prof: ServerProfile, qos: Qos) -> Nccl:
    """NCCL settings from the fabric. Sources: NCCL "Environment Variables" doc (NCCL_IB_HCA "=" exact match,
    NCCL_SOCKET_IFNAME, NCCL_IB_TC, NCCL_IB_ADAPTIVE_ROUTING, NCCL_IB_ADDR_FAMILY/RANGE, NCCL_IB_QPS_PER_CONNECTION,
    NCCL_BUFFSIZE default 4 MiB); NVIDIA/nccl src/transport/net_ib: IB_GID_INDEX default -1 (auto), IB_ROCE_VERSION_NUM 2."""
    sites = inv.fabric.sites
    qps = buff = None
    if sites.count > 1:
        # long haul: more QPs spread a connection over more ECMP/AR paths; buffers cover the bandwidth-delay
        # product (fibre ~5 us/km one way) so the pipeline does not stall on the round trip
        rtt_s = 2 * sites.max_distance_km * 5e-6
        bdp = int(SPEEDS_MBPS[inv.fabric.host_link_speed] * 1e6 * rtt_s / 8)
        buff = max(1 << 22, 1 << max(bdp - 1, 1).bit_length())
        qps = 4
    return Nccl(
        ib_hca="=" + ",".join(f"{r.rdma_device}:1" for r in rails), ib_tc=qos.host_tos, roce_version=2,
        addr_family="AF_INET", addr_range=inv.addressing.host_links.pool,
        adaptive_routing=inv.features.adaptive_routing,
        socket_ifname=prof.socket_ifname or (rails[0].nic if rails else "lo"), socket_from_profile=bool(prof.socket_ifname),
        qps_per_connection=qps, buffsize=buff, sites=sites.count, distance_km=sites.max_distance_km,
    )


def operator_owns_firmware(inv: Inventory) -> bool:
    """One owner per NIC firmware setting (kubernetes.nic_config): the NIC Configuration Operator (its
    NicConfigurationTemplate carries every value, netauto-nic-firmware.sh sets none) or netauto's host script."""
    return inv.kubernetes is not None and inv.kubernetes.nic_config == "nic-configuration-operator"


def firmware(inv: Inventory, rails: list[Rail], qos: Qos) -> dict[str, list[FirmwareSetting]]:
    """NIC kind -> the mlxconfig settings the host script sets (netauto.platforms.nics); none where the NIC
    Configuration Operator owns the firmware (netauto.model.kubernetes puts them into its template)."""
    out: dict[str, list[FirmwareSetting]] = {}
    for kind in sorted({r.kind for r in rails}):
        params = nic_facts.firmware(kind, roce_priority=qos.roce_priority, cnp_dscp=qos.cnp_dscp,
                                    cnp_priority=qos.cnp_priority, ar=inv.features.adaptive_routing)
        out[kind] = [] if operator_owns_firmware(inv) else [FirmwareSetting(p.name, p.value, p.power_cycle) for p in params]
    return out


def port_buffer_owner(inv: Inventory) -> str:
    """One owner for the rail NICs' cable length and global pause: the NIC Configuration Operator when the
    inventory hands it the NICs (`kubernetes.nic_config`; its template's cableLen/pauseFrames), else the host's
    netauto-roce-qos.sh. With compute planes the template is a Spectrum-X one (`kubernetes.spectrum_x`,
    model.kubernetes_planes), which has no roceOptimized.qos to carry cableLen/pauseFrames: the host keeps them."""
    k8s = inv.kubernetes
    operator = k8s is not None and k8s.nic_config == "nic-configuration-operator" and k8s.spectrum_x is None
    return "nic-configuration-operator" if operator else "host"


def socket_on_frontend_bond(compute: FabricModel, frontend: FabricModel) -> None:
    """NCCL_SOCKET_IFNAME (bootstrap and socket traffic: NCCL "Environment Variables") on the server's frontend
    bond rather than a RoCE rail, unless the profile names an interface."""
    bonds = {s.name: s.bond.name for s in frontend.servers if s.bond is not None}
    for srv in compute.servers:
        if srv.name in bonds and srv.nccl is not None and not srv.nccl.socket_from_profile:
            srv.nccl.socket_ifname = bonds[srv.name]
