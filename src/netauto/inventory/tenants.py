"""`tenants:`: a GPU cloud's customers on the same compute fabric, each an L3 VRF with its own L3VNI on the leaves
(netauto.model.tenants; docs/tenants.md).

A tenant holds whole servers: every rail of a server is in its tenant. A server may not be split between tenants
because its rails serve one NCCL communicator and one GPU memory space (GPUDirect RDMA reads and writes any GPU of
the node through any rail NIC): half a server in another tenant would give that tenant a path into this one's GPUs.
"""

from __future__ import annotations

import ipaddress

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict, check_asn
from netauto.inventory.kubernetes import DnsLabel
from netauto.inventory.strings import Name
from netauto.platforms.vxlan import VNI_MAX, VNI_MIN

RESERVED_VRFS = ("default", "mgmt")  # Cumulus's own VRFs (CL user guide "Virtual Routing and Forwarding")


class VniPool(Strict):
    """The VNIs netauto allocates tenants' L3VNIs from: a tenant's VNI is its name hashed into the pool (stable
    across edits); `vni:` on a tenant pins it instead."""

    first: int = Field(ge=VNI_MIN, le=VNI_MAX)
    last: int = Field(ge=VNI_MIN, le=VNI_MAX)

    @model_validator(mode="after")
    def _ordered(self) -> "VniPool":
        if self.last < self.first:
            raise SchemaValueError(f"vni_pool last {self.last} is below first {self.first}",
                                   hint="write first <= last, e.g. {first: 104000, last: 104999}")
        return self

    @property
    def size(self) -> int:
        return self.last - self.first + 1


class TenantPrefix(Strict):
    """A prefix the tenant owns (its storage or service subnet), routed in its VRF to one of its servers: a static
    route on that server's leaves to its rail addresses, exported to the tenant's other leaves as type-5 routes.
    Another tenant may own the same prefix (each lives in its own VRF); netauto.model.tenant_prefixes checks it."""

    prefix: str
    via: Name  # the tenant's server that holds the prefix

    @field_validator("prefix")
    @classmethod
    def _network(cls, v: str) -> str:
        try:
            return str(ipaddress.IPv4Network(v, strict=True))
        except ValueError:
            raise SchemaValueError(f"{v!r} is not an IPv4 prefix (host bits must be zero)",
                                   hint="write the network, e.g. 172.16.0.0/24") from None


class Tenant(Strict):
    """One customer: its whole servers (by name), optionally a pinned VNI."""

    servers: list[Name] = Field(min_length=1, max_length=100000)
    vni: int | None = Field(default=None, ge=VNI_MIN, le=VNI_MAX)
    description: str = Field(default="", max_length=120, pattern=r"^[A-Za-z0-9 _.,:/()+@=-]*$")
    # the Kubernetes namespace of the tenant's pods (its rail networks, pools and NCCL settings); default its name
    namespace: DnsLabel | None = None
    prefixes: list[TenantPrefix] = Field(default_factory=list, max_length=1000)


class Tenants(Strict):
    vni_pool: VniPool = VniPool(first=104000, last=104999)
    # route target <asn>:<vni>, explicit (every leaf has its own ASN under eBGP). A 2-byte ASN: the type-0 route target
    # (RFC 4360 s3.1) has a 4-byte value field, where a 24-bit VNI fits (a 4-byte ASN leaves 2 bytes)
    route_target_asn: int = Field(default=65000, ge=1, le=65535)
    members: dict[Name, Tenant] = Field(min_length=1)

    _asn = field_validator("route_target_asn")(check_asn)

    @field_validator("members")
    @classmethod
    def _vrf_names(cls, v: dict[str, Tenant]) -> dict[str, Tenant]:
        for name in v:  # the tenant's name is its VRF's Linux interface name (IFNAMSIZ)
            if len(name) > 15 or name in RESERVED_VRFS or "." in name:
                raise SchemaValueError(f"tenant name {name!r} cannot be a VRF name (1-15 characters, no '.', "
                                       f"not {' or '.join(RESERVED_VRFS)})", hint="pick a shorter name, e.g. t-acme")
        return v
