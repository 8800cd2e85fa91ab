"""What every inventory section shares: the strict base model and the value checks of its fields.

The sections (qos.py, servers.py, server_groups.py, networks.py, oob.py, bom.py, cabling.py, kubernetes.py, ...)
import this module, strings.py and names.py, and of each other only what they hold (networks.py: upstream.py's
Upstream; servers.py: compute_planes.py's PlanePort), so schema.py composes them with plain top-level imports.
The field types of a NIC port (NicRdmaName, PciAddress, PlanePciAddress) are here, beside the checks they run:
a rail NIC (servers.py) and its port on a further plane (compute_planes.py) hold the same ones.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from netauto.errors import SchemaValueError
from netauto.inventory.strings import RdmaName

ASN_MIN, ASN_MAX = 1, 4294967294
AS_TRANS = 23456  # RFC 6793 s9: the 2-byte stand-in for a 4-byte ASN, never a peer's own ASN
_IFNAME = re.compile(r"[A-Za-z0-9_.-]{1,15}")
# a link speed of the networks beside the compute fabric (networks:, their upstream:, oob:)
NetworkSpeed = Literal["1G", "10G", "25G", "50G", "100G", "200G", "400G", "800G"]


class Strict(BaseModel):
    """Unknown keys are refused (a typo never falls back to a default); a parsed inventory is immutable; a value
    is taken as YAML typed it (pydantic's strict mode): lax mode would read `vni: true` as VNI 1, `count: "4"` or
    `count: 4.0` as 4 and `vrf: 1` as true, where each is an operator's slip worth one line (loader._explain names
    the fix). A whole number is still a number where a float is expected (`power_kw: 15`). Every field type here is
    one YAML produces (str, int, float, bool, list, dict, a model): a type it does not (IPv4Network, an enum, a
    tuple) would refuse every YAML value under strict mode, so fields stay str + a validator as they are today."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    @field_validator("*", mode="before")
    @classmethod
    def _literal_integer(cls, value: Any, info: ValidationInfo) -> Any:
        """A Literal of integers (`breakout: Literal[1, 2, 4]`) compares, strict mode or not, and True == 1 == 1.0
        in Python: `breakout: true` or `2.0` is refused here as an int field refuses it."""
        if isinstance(value, (bool, float)) and info.field_name in _int_literal_fields(cls):
            raise PydanticCustomError("int_type", "Input should be a valid integer")
        return value


@functools.cache
def _int_literal_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of `model` whose type is a Literal of integers (optional or not)."""
    def ints(annotation: Any) -> bool:
        if get_origin(annotation) in (Union, UnionType):
            return any(ints(a) for a in get_args(annotation))
        return get_origin(annotation) is Literal and all(type(a) is int for a in get_args(annotation))
    return frozenset(name for name, field in model.model_fields.items() if ints(field.annotation))


def ipv4_network(value: str) -> ipaddress.IPv4Network:
    """`value` as an IPv4 network with host bits zero, else a SchemaValueError naming the fix."""
    try:
        return ipaddress.IPv4Network(value, strict=True)
    except ValueError as exc:
        try:
            fix = f"write {ipaddress.IPv4Network(value, strict=False)}"
        except ValueError:
            fix = "write an IPv4 prefix such as 10.0.0.0/12"
        raise SchemaValueError(f"{value!r} is not an IPv4 network with host bits zero ({exc})", hint=fix) from None


def check_asn(v: int) -> int:
    """`v` if it is a usable 4-byte ASN (1..4294967294, not AS_TRANS)."""
    if not ASN_MIN <= v <= ASN_MAX or v == AS_TRANS:
        raise SchemaValueError(f"ASN {v} out of range: expected 1..4294967294, not 23456",
                               hint="use a private ASN: 64512-65534 or 4200000000-4294967294")
    return v


_PCI = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")


def check_pci(v: str, example: str = "0000:18:00.0") -> str:
    """`v` in lower case if it is a PCI address domain:bus:device.function (as `lspci -D` prints it)."""
    if not _PCI.fullmatch(str(v).lower()):
        raise ValueError(f"{v!r} is not a PCI address like {example} (domain:bus:device.function)")
    return str(v).lower()


def check_ifname(v: str) -> str:
    """`v` if it is a Linux interface name (1-15 of [A-Za-z0-9_.-], IFNAMSIZ)."""
    if not _IFNAME.fullmatch(v):
        raise ValueError(f"{v!r} is not a valid Linux interface name (1-15 chars)")
    return v


def _plane_pci(v: str) -> str:
    return check_pci(v, "0000:18:00.1")  # a plane port is the NIC's next PCI function


# A NIC port's RDMA device name (NCCL_IB_HCA): RdmaName's alphabet within an interface name's 15 characters.
NicRdmaName = Annotated[RdmaName, AfterValidator(check_ifname)]
# A NIC port's PCI address, lower case (a systemd .link Path=pci-<address>): a rail NIC's, its port's on a further plane.
PciAddress = Annotated[str, AfterValidator(check_pci)]
PlanePciAddress = Annotated[str, AfterValidator(_plane_pci)]
