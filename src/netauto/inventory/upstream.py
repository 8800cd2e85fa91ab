"""A frontend network's `upstream:` (inventory `networks.<name>.upstream`): the eBGP exit from its aggregation
switches to the site/DC routers over numbered point-to-point links (resolver: model/border.py)."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import NetworkSpeed, Strict, check_asn, ipv4_network
from netauto.inventory.strings import PortName


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
