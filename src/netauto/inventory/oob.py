"""The inventory's `oob:` section: the out-of-band network (1G copper for every BMC and switch management port,
access switches, an aggregation pair, the site uplink; resolver: model/oob.py)."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import NetworkSpeed, Strict, ipv4_network
from netauto.inventory.names import template_field
from netauto.inventory.strings import Name


class OobNaming(Strict):
    """Fields: index (1-based, within the block), block (sw-<network>, bmc-compute, bmc-<group>; "all" packed)."""

    access: str = "oob-{block}-{index:02d}"
    aggregation: str = "oob-agg{index}"

    _access = field_validator("access")(template_field(("block", "index")))
    _aggregation = field_validator("aggregation")(template_field(("index",)))


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
