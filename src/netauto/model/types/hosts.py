"""A resolved GPU server: its rail NICs, NCCL settings, NIC firmware, frontend bond."""

from __future__ import annotations

from dataclasses import dataclass, field

from netauto.model.types.links import Route
from netauto.model.types.qos import Qos


@dataclass(slots=True)
class Rail:
    index: int
    nic: str
    rdma_device: str
    address: str  # "10.0.0.1/31"
    ip: str
    gateway: str
    subnet: str
    leaf: str
    leaf_port: str
    mtu: int
    table: int
    rule_priority: int
    routes: list[Route]
    pci: str | None = None  # "0000:18:00.0": a udev rule names the NIC by its PCI path (ID_PATH)
    mac: str | None = None  # per-server MAC: netplan matches it and sets the name
    kind: str = "connectx-7"  # NIC kind (netauto.platforms.nics)
    gpus: list[int] = field(default_factory=list)
    kernel_name: bool = False  # `nic` is the host's own predictable name (profile nic_names: kernel): never renamed
    cable_length_m: int = 0  # metres of this rail's link (model.cabling): the NIC's PFC headroom (mlnx_qos --cable_len)

    @property
    def match(self) -> str | None:
        """How the host finds this NIC: "kernel" (its own name), "mac" (netplan), "pci" (udev rule), None
        (unresolvable)."""
        return "kernel" if self.kernel_name else "mac" if self.mac else "pci" if self.pci else None


@dataclass(slots=True)
class FirmwareSetting:
    name: str  # mlxconfig parameter
    value: int
    power_cycle: bool = False  # takes a host power cycle to activate (platforms/data/nics.yaml power_cycle)


@dataclass(slots=True)
class Nccl:
    """/etc/nccl.conf, derived from the fabric (NCCL environment variables doc)."""

    ib_hca: str  # "=mlx5_0:1,mlx5_3:1": "=" makes NCCL match names exactly
    ib_tc: int
    roce_version: int
    addr_family: str  # AF_INET: GID chosen by address family (NCCL >= 2.21), no hard-coded GID index
    addr_range: str
    adaptive_routing: bool
    socket_ifname: str
    socket_from_profile: bool = False  # the profile names socket_ifname (else: the frontend bond, or the first rail)
    qps_per_connection: int | None = None  # long haul between sites
    buffsize: int | None = None
    sites: int = 1
    distance_km: float = 0


@dataclass(slots=True)
class HostBond:
    """The frontend bond of a server: LACP over its two NICs, to an MLAG pair of access switches."""

    name: str
    members: list[str]
    address: str
    gateway: str
    mtu: int
    routes: list[Route]


@dataclass(slots=True)
class Server:
    name: str
    su: int
    index: int
    mgmt_address: str
    mgmt_gateway: str
    ssh_user: str
    rails: list[Rail]
    qos: Qos
    profile: str = "default"
    model: str = "unspecified"
    absent_rails: list[int] = field(default_factory=list)
    nccl: Nccl | None = None
    firmware: dict[str, list[FirmwareSetting]] = field(default_factory=dict)  # NIC kind -> mlxconfig settings
    adaptive_routing: bool = False  # the switches' AR, which the host side must match
    bond: HostBond | None = None  # networks with `host_routing: bond`: the NICs (rails) are its members
    # who sets the rail NICs' cable length and global pause: "host" (netauto-roce-qos.sh) or
    # "nic-configuration-operator" (its NicConfigurationTemplate: cableLen, pauseFrames): kubernetes.nic_config
    port_buffer_owner: str = "host"
