"""Schema of the networks beside the compute fabric: storage and frontend networks, the out-of-band network,
and groups of non-GPU servers (storage nodes, CPU servers) that attach to them.

Every section is optional: an inventory without them is the single compute fabric it always was.
A network is a leaf-spine fabric of its own: its servers attach NIC k to leaf k of their group (two NICs on two
different switches), its switches run the same underlay (eBGP unnumbered) and are rendered by the same
Cumulus/SONiC renderers as the compute fabric, with the network's QoS mode (RoCE lossless or plain lossy).
Network attachment is "network X attaches servers of group Y via NICs [..]" so it can later name server profiles.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict, check_asn, check_ifname, check_pci, ipv4_network
from netauto.inventory.names import check_template
from netauto.inventory.strings import IfName, Name, PortName, RdmaName, Text


NetworkSpeed = Literal["1G", "10G", "25G", "50G", "100G", "200G", "400G", "800G"]
COMPUTE_GROUP = "compute"  # attach.servers: every GPU server of the compute fabric


def _names(fields: tuple[str, ...]) -> Any:
    """A field validator: the template uses only `fields` and yields hostnames (inventory/names.py)."""

    def check(cls: type, v: str) -> str:
        return check_template(v, fields)

    return classmethod(check)


class ServerGroup(Strict):
    """Non-GPU servers: `count` machines named by `naming` (fields: index, 1-based)."""

    count: int = Field(ge=1, le=4096)
    naming: str = Field(min_length=1)
    description: Text = ""

    _naming = field_validator("naming")(_names(("index",)))


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

    _leaf = field_validator("leaf")(_names(("group", "rail", "index")))
    _spine = field_validator("spine")(_names(("index",)))


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


def _prefix(v: str) -> str:
    return str(ipv4_network(v))


class UpstreamBfd(Strict):
    """BFD on the upstream sessions (NVUE `neighbor <ip> bfd`, FRR `neighbor <ip> bfd <mult> <rx> <tx>`; ranges
    from nvueschema VrfEntryRouterBgpNeighborEntryBfd)."""

    detect_multiplier: int = Field(3, ge=2, le=255)
    min_rx_interval: int = Field(300, ge=50, le=60000)  # milliseconds
    min_tx_interval: int = Field(300, ge=50, le=60000)


class UpstreamLink(Strict):
    """One numbered point-to-point link from an aggregation switch to an upstream (site/DC) router."""

    switch: int = Field(ge=1, le=64)  # the aggregation switch by index (naming.spine's {index}, 1-based)
    port: int = Field(ge=1, le=512)  # its front-panel cage, as ports.spine counts them
    address: str  # this switch's end with the prefix length: 100.64.0.0/31 (a /31 or a /30)
    peer_address: str | None = None  # the router's end; default: the other address of the /31 (/30: of the two)
    peer_asn: int | None = None  # default: upstream.peer_asn
    peer: PortName = "upstream"  # the router's name (descriptions)
    peer_port: PortName | Literal[""] = ""

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        try:
            iface = ipaddress.IPv4Interface(v)
        except ValueError:
            raise SchemaValueError(f"{v!r} is not an IPv4 address with a prefix length",
                                   hint="write this switch's end of the link, e.g. 100.64.0.0/31") from None
        if iface.network.prefixlen not in (30, 31) or "/" not in v:
            raise SchemaValueError(f"{v}: an upstream link is a point-to-point /31 or /30", hint="use a /31")
        if iface.network.prefixlen == 30 and iface.ip in (iface.network.network_address, iface.network.broadcast_address):
            raise SchemaValueError(f"{v}: the network or broadcast address of a /30", hint="use .1 or .2 of the /30")
        return v

    @field_validator("peer_address")
    @classmethod
    def _peer(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                ipaddress.IPv4Address(v)
            except ValueError:
                raise SchemaValueError(f"{v!r} is not an IPv4 address", hint="write the router's address, no prefix length") from None
        return v

    @field_validator("peer_asn")
    @classmethod
    def _asn(cls, v: int | None) -> int | None:
        return None if v is None else check_asn(v)

    @model_validator(mode="after")
    def _same_link(self) -> "UpstreamLink":
        if self.peer_address is not None:
            mine = ipaddress.IPv4Interface(self.address)
            peer = ipaddress.IPv4Address(self.peer_address)
            if peer not in mine.network or peer == mine.ip:
                raise SchemaValueError(f"{peer} is not the other end of {self.address}", key="peer_address",
                                       hint="leave it out to take the other address of the /31")
        return self


class Upstream(Strict):
    """The frontend's exit: its aggregation switches peer eBGP with upstream (site/DC) routers over numbered
    point-to-point links, accept the default route (and optional site prefixes) and advertise the network's host
    pool as one aggregate. Nothing of another network ever reaches these sessions."""

    peer_asn: int  # the upstream routers' ASN (a link may name its own)
    speed: NetworkSpeed | None = None  # the upstream links; default: the network's fabric_link_speed
    mtu: int | None = Field(None, ge=1280, le=9216)  # default: the switch MTU (fabric.mtu.switch)
    bfd: UpstreamBfd | None = None  # `bfd: {}`: BFD with 3 x 300 ms
    accept_default: bool = True  # accept 0.0.0.0/0 (exact) from the upstream
    accept: list[str] = []  # extra site prefixes accepted, exact match
    advertise: list[str] = []  # what the upstream learns; default: the network's host_pool as one aggregate
    maximum_prefix: int = Field(16, ge=1, le=1000000)  # inbound cap per session
    links: list[UpstreamLink] = Field(min_length=1, max_length=64)

    @field_validator("peer_asn")
    @classmethod
    def _asn(cls, v: int) -> int:
        return check_asn(v)

    @field_validator("accept", "advertise")
    @classmethod
    def _prefixes(cls, v: list[str]) -> list[str]:
        out = [_prefix(p) for p in v]
        dup = sorted({p for p in out if out.count(p) > 1})
        if dup:
            raise ValueError(f"duplicate prefixes {dup}")
        if "0.0.0.0/0" in out:
            raise ValueError("0.0.0.0/0 is not a site prefix: accept_default decides about the default route")
        return out

    @model_validator(mode="after")
    def _learns_something(self) -> "Upstream":
        if not self.accept_default and not self.accept:
            raise SchemaValueError("an upstream that accepts nothing gives the frontend no exit", key="accept_default",
                                   hint="keep accept_default: true or list site prefixes under accept")
        seen: dict[tuple[int, int], int] = {}
        for i, link in enumerate(self.links):
            if (link.switch, link.port) in seen:
                raise SchemaValueError(f"links {seen[(link.switch, link.port)]} and {i} both use port {link.port} of "
                                       f"aggregation switch {link.switch}", key="links", hint="one link per port")
            seen[(link.switch, link.port)] = i
        return self


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


class OobNaming(Strict):
    """Fields: index (1-based, within the block), block (sw-<network>, bmc-compute, bmc-<group>; "all" packed)."""

    access: str = "oob-{block}-{index:02d}"
    aggregation: str = "oob-agg{index}"

    _access = field_validator("access")(_names(("block", "index")))
    _aggregation = field_validator("aggregation")(_names(("index",)))


class OobHardware(Strict):
    """Switch model of each OOB tier (cage facts: platforms/data/optics.yaml); what `netauto bom` counts."""

    access: Name = "SN2201"  # 48 x 1G RJ45 + 4 x QSFP28
    aggregation: Name = "SN3420"  # SFP28 cages take 10G SFP+


class OobSiteUplink(Strict):
    """The OOB aggregation's way out to the site's management network: one routed port per aggregation switch
    with a static default route (nothing else of the cluster routes there). `addresses[i]` is aggregation
    switch i+1's port address (with prefix length), `gateways[i]` the site router on that link."""

    port: int = Field(ge=1, le=512)  # front-panel cage on every aggregation switch
    speed: NetworkSpeed = "10G"
    addresses: list[str] = Field(min_length=1, max_length=2)
    gateways: list[str] = Field(min_length=1, max_length=2)

    @model_validator(mode="after")
    def _pairs(self) -> "OobSiteUplink":
        if len(self.addresses) != len(self.gateways):
            raise SchemaValueError("one gateway per address", key="gateways",
                                   hint="list the site router's address on each aggregation switch's link")
        for addr, gw in zip(self.addresses, self.gateways):
            try:
                iface, hop = ipaddress.IPv4Interface(addr), ipaddress.IPv4Address(gw)
            except ValueError as exc:
                raise SchemaValueError(str(exc), key="addresses", hint="address/prefix, e.g. 10.0.0.0/31") from None
            if hop not in iface.network or hop == iface.ip:
                raise SchemaValueError(f"gateway {gw} is not the other end of {addr}", key="gateways",
                                       hint="the site router's address inside the link's subnet")
        return self


class OutOfBand(Strict):
    """1G copper for every BMC and every switch's management port, 10G uplinks to an aggregation pair.

    Rendered (Cumulus NVUE startup.yaml): access switches with their ports untagged in the VLAN of the device
    plugged in (one VLAN per management pool, numbered from `vlan_base`: BMCs, the OOB switches, then each
    network's switch management pool in inventory order) and one LACP bond over the uplinks; the aggregation
    as an MLAG pair (peerlink on `peerlink_first` and the next cage, default the last two cages of its model)
    with one SVI per pool: the pool's gateway as VRR address, .2/.3 its own."""

    bmc_pool: str
    switch_pool: str  # the OOB switches' own addresses
    access_ports: int = Field(48, ge=8, le=96)
    access_speed: NetworkSpeed = "1G"
    uplink_speed: NetworkSpeed = "10G"
    aggregation: int = Field(2, ge=1, le=2)  # one switch, or an MLAG pair (rendered)
    aggregation_first_port: int = Field(1, ge=1, le=512)  # access switch slot s lands on port first + s
    vlan_base: int = Field(100, ge=2, le=4000)  # BMC pool VLAN; the OOB switches' pool base+1, networks from base+2
    peerlink_first: int | None = Field(None, ge=1, le=512)  # aggregation cages of the MLAG peerlink (this and next)
    site_uplink: OobSiteUplink | None = None  # routed port + static default to the site's management network
    # the aggregation pair's MLAG backup link: eth0 to eth0, a cable of its own, in the mgmt VRF, addressed from
    # this /30 (link-local by default: RFC 3927, it never leaves the cable). The backup must not depend on the
    # peerlink (CL MLAG page; the access switches' single-uplink bonds cannot carry agg1 -> agg2)
    mlag_backup_subnet: str = "169.254.253.0/30"
    # blocks: every network's switch ports and every server group's BMCs on access switches of their own, so
    # growth never moves a cable of another block; packed: one sequence, fewest access switches
    layout: Literal["blocks", "packed"] = "blocks"
    # The OOB switches are rendered for Cumulus only (NVUE: access VLANs, LACP uplinks, an MLAG aggregation pair).
    # None: Cumulus, unless fabric.nos.default is sonic, where the inventory must say so (model.oob names them).
    nos: Literal["cumulus"] | None = None
    reserve: dict[Name, int] = {}  # block -> access switches (aggregation ports) reserved for growth
    naming: OobNaming = OobNaming()
    hardware: OobHardware = OobHardware()

    @field_validator("bmc_pool", "switch_pool", "mlag_backup_subnet")
    @classmethod
    def _check(cls, v: str) -> str:
        return str(ipv4_network(v))


class Bom(Strict):
    """Inputs of `netauto bom`: the platform of each switch role per network, the NIC cage per network and the
    cable length per network and link kind (metres; rounded up to a length class). Platforms and cage facts:
    src/netauto/platforms/data/optics.yaml."""

    # Deprecated: the switch models come from the model (fabric.switch_hardware, networks.<name>.switch_hardware,
    # oob.hardware). An old inventory's entry that agrees is a warning, one that contradicts an inventory error.
    platforms: dict[Name, dict[Name, Name]] | None = None  # network -> role -> model
    nic_cages: dict[Name, Name]  # network -> cage of the server NICs on it (OSFP, SFP28, RJ45)
    cable_length_m: dict[Name, dict[Name, int]]  # network -> link kind -> metres
