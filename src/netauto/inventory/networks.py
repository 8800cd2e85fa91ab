"""The inventory's `networks:` section: the storage and frontend networks beside the compute fabric.

The section is optional: an inventory without it is the single compute fabric it always was.
A network is a leaf-spine fabric of its own: its servers attach NIC k to leaf k of their group (two NICs on two
different switches), its switches run the same underlay (eBGP unnumbered) and are rendered by the same
Cumulus/SONiC renderers as the compute fabric, with the network's QoS mode (RoCE lossless or plain lossy).
Network attachment is "network X attaches servers of group Y via NICs [..]" so it can later name server profiles.
The groups are the `server_groups:` section (inventory/server_groups.py), a frontend's exit its `upstream:`
(inventory/upstream.py); the out-of-band network is `oob:` (inventory/oob.py).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import NetworkSpeed, Strict, check_asn, check_ifname, check_pci, ipv4_network
from netauto.inventory.names import template_field
from netauto.inventory.strings import IfName, Name, RdmaName
from netauto.inventory.upstream import Upstream

COMPUTE_GROUP = "compute"  # attach.servers: every GPU server of the compute fabric


class NetworkAttach(Strict):
    """Servers of one group attach to the network through these NICs, NIC k to leaf k of their leaf group."""

    servers: Name  # "compute" (every GPU server) or a server_groups name
    nics: list[IfName] = Field(min_length=1, max_length=8)
    rdma_devices: list[RdmaName] = []  # lossless networks: the RDMA device of each NIC (host RoCE QoS)
    # how the hosts find these NICs (as a server profile's): the PCI address of each NIC, in `nics` order, for every
    # server of the group (a list) or per server profile (compute servers: {profile: [...]}); udev names each NIC by
    # its PCI path. nic_names: kernel says the names ARE the host's own (ens1f0np0): nothing renames them.
    pci: list[str] | dict[Name, list[str]] = []
    nic_names: Literal["renamed", "kernel"] | None = None  # None: kernel when every name is in the kernel's namespace

    @field_validator("nics", "rdma_devices")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        dup = sorted({n for n in v if v.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate names {dup}")
        return [check_ifname(n) for n in v]

    @field_validator("pci")
    @classmethod
    def _pci(cls, v: list[str] | dict[str, list[str]]) -> list[str] | dict[str, list[str]]:
        for addrs in (v.values() if isinstance(v, dict) else [v]):
            for a in addrs:
                check_pci(a, "0000:29:00.0")
            if len(set(addrs)) != len(addrs):
                raise ValueError(f"duplicate PCI addresses in {addrs}")
        return {k: [a.lower() for a in x] for k, x in v.items()} if isinstance(v, dict) else [a.lower() for a in v]

    @model_validator(mode="after")
    def _pci_per_nic(self) -> "NetworkAttach":
        for addrs in (self.pci.values() if isinstance(self.pci, dict) else [self.pci] if self.pci else []):
            if len(addrs) != len(self.nics):
                raise SchemaValueError(f"{len(addrs)} PCI addresses for {len(self.nics)} NICs {self.nics}", key="pci",
                                       hint="one PCI address per NIC, in the order of nics")
        return self

    def pci_of(self, profile: str) -> list[str] | None:
        """The NICs' PCI addresses on a server of `profile`, or None."""
        if isinstance(self.pci, dict):
            return self.pci.get(profile)
        return self.pci or None


class NetworkNaming(Strict):
    """Python format strings. leaf fields: group (1-based), rail (NIC number, 0-based), index (1-based);
    spine fields: index."""

    leaf: str
    spine: str

    _leaf = field_validator("leaf")(template_field(("group", "rail", "index")))
    _spine = field_validator("spine")(template_field(("index",)))


class NetworkPorts(Strict):
    cages: int = Field(64, ge=1, le=512)
    downlinks_first: int = Field(1, ge=1, le=512)
    uplinks_first: int = Field(33, ge=1, le=512)
    # how a cage is split; None (default): derived from the link speed and the switch's lane rate
    downlinks_breakout: Literal[1, 2, 4] | None = None
    uplinks_breakout: Literal[1, 2, 4] | None = None
    peerlink_first: int | None = Field(None, ge=1, le=512)  # bond networks: the MLAG peerlink, 2 cages from here


class NetworkAddressing(Strict):
    leaf_loopbacks: str
    spine_loopbacks: str
    host_pool: str  # NIC k of every server: a /31 from the k-th /nic_prefix_len of this pool
    nic_prefix_len: int = Field(16, ge=8, le=30)
    leaf_prefix_len: int = Field(24, ge=16, le=30)
    switch_mgmt_pool: str  # eth0 of this network's switches

    @field_validator("leaf_loopbacks", "spine_loopbacks", "host_pool", "switch_mgmt_pool")
    @classmethod
    def _check(cls, v: str) -> str:
        return str(ipv4_network(v))


class NetworkAsns(Strict):
    leaf_base: int
    spine: int

    @field_validator("leaf_base", "spine")
    @classmethod
    def _check(cls, v: int) -> int:
        return check_asn(v)


class Network(Strict):
    """A storage or frontend network: leaf-spine, its own switches, pools, ASNs and QoS mode."""

    role: Literal["storage", "frontend"]
    qos: Literal["lossless", "lossy"]  # lossless: the fabric's `qos:` RoCE profile on switches and NICs
    nos: Literal["cumulus", "sonic"] | None = None  # None: the fabric's default (fabric.nos.default)
    sonic_hwsku: Name | None = None
    # switch model per tier, e.g. {leaf: SN3420, spine: SN4600C} (platforms/data/hardware); default: the compute
    # fabric's fabric.switch_hardware. The one source of the network's switch models (configs, `netauto bom`).
    switch_hardware: dict[Literal["leaf", "spine"], Name] | None = None
    host_link_speed: NetworkSpeed
    fabric_link_speed: NetworkSpeed
    servers_per_leaf: int = Field(ge=1, le=256)  # servers of one leaf group (NIC k of each on leaf k)
    spines: int = Field(ge=1, le=64)
    leaf_spine_links: int = Field(1, ge=1, le=32)
    oversubscription: float = Field(1.0, ge=1.0, le=16.0)
    mtu: int = Field(9000, ge=1280, le=9216)  # hosts; switches use fabric.mtu.switch
    # FEC of the switch ports facing this network's servers: None = what the NIC runs at the host link speed
    # (platforms/data/nics.yaml fec_by_speed); set it when the server links are other media (e.g. 25G DAC)
    server_fec: Literal["rs", "none", "default"] | None = None
    # l3: a /31 per NIC, per-NIC tables; bond: the two NICs in one LACP bond to an MLAG pair of access
    # switches (Cumulus: MLAG + VRR gateway; SONiC: MCLAG + PortChannels + static anycast gateway)
    host_routing: Literal["l3", "bond"] = "l3"
    # bond: how the two access switches of a leaf group share the servers' bonds. mlag: an MLAG pair (peerlink,
    # clagd, a BGP session over peerlink.4094). evpn-mh: EVPN multihoming (Cumulus only), no peerlink: every bond
    # is an Ethernet Segment on both switches, the group VLAN a VXLAN VNI between them, BGP l2vpn-evpn over the
    # eBGP unnumbered underlay (CL 5.x user guide "EVPN Multihoming": "a standards-based replacement for MLAG").
    bond_redundancy: Literal["mlag", "evpn-mh"] = "mlag"
    vlan: int = Field(10, ge=2, le=4093)  # bond: the access VLAN of the servers' subnet
    default_route: bool = False  # frontend: the hosts' default route goes out through this network
    table_base: int = Field(ge=1, le=240)  # NIC k: routing table table_base + k + 1
    rule_priority_base: int = Field(ge=1, le=32000)
    ports: dict[Literal["leaf", "spine"], NetworkPorts] = {}
    naming: NetworkNaming
    addressing: NetworkAddressing
    asns: NetworkAsns
    attach: list[NetworkAttach] = Field(min_length=1)
    # frontend only: the exit to the site/DC network (eBGP to upstream routers from the aggregation switches)
    upstream: Upstream | None = None

    def _check_evpn_mh(self) -> None:
        if self.bond_redundancy != "evpn-mh":
            return
        if self.host_routing != "bond":
            raise SchemaValueError("bond_redundancy: evpn-mh applies to server bonds only", key="bond_redundancy",
                                   hint="set host_routing: bond, or drop bond_redundancy")
        if self.nos == "sonic":  # an inherited SONiC is checked where the fabric's default is known (model.networks)
            raise SchemaValueError(f"bond_redundancy: evpn-mh is rendered for Cumulus only, not {self.nos}",
                                   key="bond_redundancy",
                                   hint="use bond_redundancy: mlag (SONiC MCLAG) or nos: cumulus")
        leaf = self.ports.get("leaf")
        if leaf is not None and leaf.peerlink_first is not None:
            raise SchemaValueError("an EVPN-MH pair has no peerlink, but ports.leaf.peerlink_first is set",
                                   key="ports", hint="remove ports.leaf.peerlink_first (or use bond_redundancy: mlag)")

    @model_validator(mode="after")
    def _same_nic_count(self) -> "Network":
        counts = {len(a.nics) for a in self.attach}
        if len(counts) > 1:
            raise SchemaValueError(f"every attach entry must list the same number of NICs, got {sorted(counts)}",
                                   key="attach", hint="a server has one NIC per leaf of its group")
        for a in self.attach:
            if self.qos == "lossless" and len(a.rdma_devices) != len(a.nics):
                raise SchemaValueError(f"a lossless network needs one RDMA device per NIC for {a.servers!r}",
                                       key="attach", hint="add rdma_devices: [mlx5_8, ...] (same length as nics)")
        if self.host_routing == "bond":
            if len(self.attach[0].nics) != 2:
                raise SchemaValueError("a bond has two legs: list exactly two NICs per attach entry", key="attach",
                                       hint="nics: [fe0, fe1]")
            leaf = self.ports.get("leaf")
            if self.bond_redundancy == "mlag" and (leaf is None or leaf.peerlink_first is None):
                raise SchemaValueError("an MLAG pair needs a peerlink", key="ports",
                                       hint="set ports.leaf.peerlink_first (two cages for the peerlink)")
        if self.upstream is not None and (self.role != "frontend" or self.qos != "lossy"):
            raise SchemaValueError(f"an upstream on a {self.qos} {self.role} network: only the lossy frontend network "
                                   "reaches the site network (compute and storage are separate physical networks)",
                                   key="upstream", hint="remove upstream, or move it to the role: frontend network")
        self._check_evpn_mh()
        if self.default_route and self.role != "frontend":
            raise SchemaValueError("only a frontend network carries the hosts' default route", key="default_route",
                                   hint="set default_route: false")
        return self
