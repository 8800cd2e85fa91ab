"""The parsed fabric's state types: what the readers (`netauto.validate.readers`) make of each device's files and
what the rules read. NOS-agnostic: a Cumulus switch and a SONiC switch both become a `SwitchState`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from netauto.formats.frr import FrrConf
from netauto.formats.host import HostQos
from netauto.model.types import FabricModel, Server, Switch
from netauto.platforms.host import COMPUTE, HostFiles
from netauto.validate.files import FileSet
from netauto.validate.findings import Finding


@dataclass(slots=True)
class Port:
    name: str
    mtu: int | None = None
    speed_mbps: int | None = None
    fec: str | None = None
    up: bool = True
    addresses: list[str] = field(default_factory=list)
    access_vlan: int | None = None
    bond: str | None = None  # the LAG this port is a member of
    lanes: int | None = None  # SerDes lanes (SONiC PORT lanes; Cumulus: cage lanes / breakout ways)
    stp_edge: bool | None = None  # admin edge (portfast); None when the file says nothing
    bpdu_guard: bool | None = None
    vrf: str | None = None  # the VRF the port is enslaved to (a tenant's); None: the default VRF


@dataclass(slots=True)
class QosState:
    dscp_to_prio: dict[int, int] = field(default_factory=dict)
    pfc_prios: set[int] = field(default_factory=set)
    pfc_ports: set[str] = field(default_factory=set)
    ecn: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # tc -> (min, max, probability)
    ets: dict[int, tuple[str, int]] = field(default_factory=dict)  # tc -> ("dwrr"|"strict", weight)
    pfcwd_ports: set[str] = field(default_factory=set)
    cable_length: int | None = None
    trust: frozenset[str] | None = None  # markings trusted ("802.1p", "dscp"); None: not in the files read
    port_cable: dict[str, int] = field(default_factory=dict)  # PFC port -> cable metres its headroom is sized for
    prio_to_tc: dict[int, int] | None = None  # None: not in the files read (Cumulus Linux files: qos_infra.conf)
    lossless_buffers: dict[str, set[int]] | None = None  # port -> priorities with lossless buffers; None: unknown
    wred_drop: set[int] = field(default_factory=set)  # queues where WRED drops (not only marks) packets
    # PFC watchdog globals (polling interval ms, robustness); None: not set in the files read (the NOS default)
    pfcwd_timing: tuple[int, int] | None = None
    buffer_notes: dict[str, str] = field(default_factory=dict)  # port -> why a PFC priority has no lossless PG
    # SONiC config_db only (empty elsewhere): queues whose WRED profile asks for ECN with every colour enable off
    # (orchagent then programs no marking), ports without working buffer profile lists (port -> why), and why
    # SONiC's buffers template cannot render for the switch's DEVICE_METADATA type (None: it can, or unknown)
    ecn_inert: set[int] = field(default_factory=set)
    profile_list_notes: dict[str, str] = field(default_factory=dict)
    buffer_defaults_note: str | None = None


@dataclass(slots=True)
class EvpnState:
    """EVPN multihoming as a switch's files configure it (Cumulus: interfaces + frr.conf, or NVUE)."""

    segments: dict[str, tuple[int | None, str | None]] = field(default_factory=dict)  # bond -> (ES local id, ES MAC)
    lacp_macs: dict[str, str] = field(default_factory=dict)  # bond -> LACP system MAC (ifupdown2 es-sys-mac)
    uplinks: set[str] = field(default_factory=set)  # EVPN-MH uplinks (tracked: all down -> segments protodown)
    vni_map: dict[int, int] = field(default_factory=dict)  # VLAN -> VNI on the VXLAN device
    vtep_source: str | None = None  # VXLAN tunnel source address
    advertise_all_vni: bool = False  # the switch originates EVPN routes for its VNIs
    # MTU of the VXLAN device(s), where the files set one: per VNI (ifupdown2 `mtu` of the `vxlan-id` stanza), or
    # for every VXLAN device (NVUE `nve vxlan mtu`, key None)
    vxlan_mtu: dict[int | None, int] = field(default_factory=dict)
    # the VTEP's DSCP actions (encapsulation, decapsulation) as the files set them (None: unset, the NOS default)
    dscp_actions: tuple[str | None, str | None] = (None, None)


@dataclass(slots=True)
class SwitchState:
    name: str
    source: str  # "linux-files", "nvue", "config_db"
    ports: dict[str, Port] = field(default_factory=dict)
    loopbacks: list[str] = field(default_factory=list)
    svis: dict[str, list[str]] = field(default_factory=dict)
    bonds: dict[str, list[str]] = field(default_factory=dict)
    bond_edge: dict[str, bool] = field(default_factory=dict)  # bond -> STP admin-edge and BPDU guard both on
    breakouts: dict[int, int] = field(default_factory=dict)  # cage -> ways (NVUE link breakout / ports.conf)
    bridges: dict[str, list[str]] = field(default_factory=dict)  # bridge name -> member ports
    ar_global: bool = False
    ar_link_util: bool = False  # AR link-utilization threshold switched on globally (per-port thresholds act)
    ar_ports: set[str] = field(default_factory=set)
    qos: QosState = field(default_factory=QosState)
    bgp: FrrConf | None = None
    files: dict[str, str] = field(default_factory=dict)  # role -> on-device path (for findings)
    evpn: EvpnState | None = None  # EVPN-MH configured (segments, uplinks, VXLAN); None: nothing of it
    mlag: set[str] = field(default_factory=set)  # interfaces with MLAG settings (clag-id, clagd-*; NVUE bond mlag, mlag)
    # SONiC config_db only (readers.sonic.l3vnis): VRF -> the L3VNI config_db binds end to end, and the EVPN VTEP's
    # source address (None: no VXLAN_EVPN_NVO naming a VXLAN_TUNNEL with a src_ip)
    sonic_l3vnis: dict[str, int] = field(default_factory=dict)
    sonic_vtep: str | None = None


@dataclass(slots=True)
class Nic:
    name: str
    mtu: int | None
    addresses: list[str]
    routes: list[dict[str, Any]]
    policies: list[dict[str, Any]]
    members: list[str] = field(default_factory=list)  # a netplan bond: its NICs
    bond: str | None = None  # a bond member: the bond
    match: dict[str, Any] = field(default_factory=dict)  # netplan match: (macaddress, driver, name)
    set_name: str | None = None
    optional: bool = False


@dataclass(slots=True)
class ServerState:
    name: str
    nics: dict[str, Nic] = field(default_factory=dict)
    sysctl: dict[str, str] = field(default_factory=dict)
    qos: HostQos | None = None
    nccl: dict[str, str] = field(default_factory=dict)
    units: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)  # role -> parsed unit
    udev: list[list[tuple[str, str, str]]] = field(default_factory=list)
    firmware: dict[str, dict[str, int]] | None = None  # NIC kind -> mlxconfig settings


@dataclass
class ParsedFabric:
    model: FabricModel
    files: FileSet
    switches: dict[str, SwitchState] = field(default_factory=dict)
    nvue: dict[str, SwitchState] = field(default_factory=dict)
    nvue_raw: dict[str, dict[str, Any]] = field(default_factory=dict)
    servers: dict[str, ServerState] = field(default_factory=dict)
    problems: list[Finding] = field(default_factory=list)  # unreadable / missing files
    provisioning: bool = True  # the compute fabric: servers get NIC provisioning, NCCL and firmware files
    host_files: HostFiles = COMPUTE  # where this network's server files live (the network's own paths for a network)
    qos_units: bool = True  # servers get this network's NIC QoS boot unit, per-NIC unit and udev rules
    # compute planes (swplb): server -> the RDMA devices of its ports on compute planes 2.., which NCCL uses too
    plane_hca: dict[str, list[str]] = field(default_factory=dict)

    @property
    def oversubscription(self) -> float:
        """topology.oversubscription of the inventory (down:up bandwidth allowed), as the resolver set it."""
        return self.model.oversubscription

    def intent(self, name: str) -> Switch:
        return self.model.switch(name)

    def server_intent(self) -> dict[str, Server]:
        return {s.name: s for s in self.model.servers}


