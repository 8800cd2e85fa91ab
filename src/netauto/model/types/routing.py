"""BGP on a switch: its sessions, peer groups, prefix-lists and the frontend's upstream exit with BFD."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class BgpNeighbor:
    interface: str
    peer_group: str
    peer_device: str
    peer_port: str
    peer_asn: int


@dataclass(slots=True)
class PrefixRule:
    prefix: str
    max_len: int

    @property
    def le(self) -> int | None:
        """The `le` bound, None for an exact match (max_len == the prefix's own length)."""
        return None if self.max_len == int(self.prefix.rsplit("/", 1)[1]) else self.max_len

    @property
    def frr(self) -> str:
        """The prefix-list match as FRR writes it: `10.0.0.0/8 le 32`, or `0.0.0.0/0` (exact)."""
        return self.prefix if self.le is None else f"{self.prefix} le {self.le}"


@dataclass(frozen=True, slots=True)
class Bfd:
    detect_multiplier: int
    min_rx_interval: int  # ms
    min_tx_interval: int


@dataclass(slots=True)
class UpstreamPeer:
    """A numbered eBGP session from a frontend aggregation switch to an upstream (site/DC) router."""

    address: str  # the router's address (the neighbour's name in FRR and NVUE)
    asn: int
    interface: str  # this switch's port of the point-to-point link
    description: str
    bfd: Bfd | None = None
    router: str = ""  # the router's name (inventory `peer`): the lab's stand-in namespace, docs


@dataclass(slots=True)
class Upstream:
    """The frontend's exit on this switch: its sessions and the policy every one of them gets."""

    peers: list[UpstreamPeer]
    accept: list[PrefixRule]  # UPSTREAM-IN: 0.0.0.0/0 (exact) and any site prefixes (exact)
    advertise: list[PrefixRule]  # UPSTREAM-OUT: the network's own aggregates (exact), nothing else
    aggregates: list[str]  # aggregate-address without summary-only: the fabric keeps its more-specific routes
    maximum_prefix: int

    @property
    def bfd(self) -> bool:
        """Some session runs BFD (the FRR daemons file starts bfdd)."""
        return any(p.bfd for p in self.peers)


@dataclass(slots=True)
class PeerGroup:
    name: str
    description: str


@dataclass(slots=True)
class Bgp:
    asn: int
    router_id: str
    keepalive: int
    holdtime: int
    connect_retry: int
    maximum_paths: int
    multipath_relax: bool
    graceful_shutdown: bool  # this device is drained
    gshut_honour: bool
    gshut_prepend: bool
    peer_groups: list[PeerGroup]
    neighbors: list[BgpNeighbor]
    networks: list[str]
    aggregates: list[str]
    connected_prefixes: list[PrefixRule]  # what redistribute connected may announce besides the loopback
    # startup protection (inventory fabric.bgp.startup): FRR suppress-fib-pending / update-delay, NVUE
    # wait-for-install / convergence-wait
    wait_for_install: bool = True
    update_delay: int = 0  # seconds; 0 = off
    establish_wait: int = 0
    # what fabric sessions accept inbound: only these prefixes (any length up to max_len) ...
    accept_prefixes: list[PrefixRule] = field(default_factory=list)
    maximum_prefix: int = 0  # ... and at most this many (0 = no limit)
    upstream: Upstream | None = None  # frontend aggregation switches: the eBGP exit to the site network
