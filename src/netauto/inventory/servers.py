"""The inventory's `servers:` section: GPU server models (profiles of rail NICs), their assignment per SU or
per server, and the older one-NIC-list form."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import NicRdmaName, PciAddress, Strict, check_ifname, check_pci
from netauto.inventory.compute_planes import PlanePort
from netauto.inventory.strings import IfName, Name, Note, RdmaName, Text

NicKind = Literal["connectx-7", "connectx-8", "bluefield-3-supernic"]
_MAC = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}")


NicNames = Literal["renamed", "kernel"]
# Names the kernel gives NICs itself (ethN enumeration, ibN, the predictable en* names): renaming a NIC into them
# races with the kernel's own naming (systemd.link(5), "NamePolicy"; domain.md Corrections "NIC names in the
# kernel's namespace")
KERNEL_NIC_PREFIXES = ("eth", "ib", "en")


class RailNic(Strict):
    """One rail NIC of a server model: which rail it serves, how the host finds it, what it is."""

    rail: int = Field(ge=0, le=15)
    name: IfName  # the interface name netauto gives it (netplan set-name / systemd .link Name=)
    rdma: NicRdmaName  # RDMA device name the host shows for it (NCCL_IB_HCA); checked at boot by the provisioning unit
    pci: PciAddress | None = None  # PCI address "0000:18:00.0": matched by a systemd .link Path=pci-<address>
    kind: NicKind | None = None  # defaults to the profile's nic_kind
    gpus: list[int] = []  # GPUs local to this NIC (PCIe switch affinity), documentation and NCCL topology checks
    plane_ports: dict[int, PlanePort] = {}  # compute plane (2..count) -> this NIC's port on it (docs/compute-planes.md)


class ServerProfile(Strict):
    """A server model: its rail NICs. Rails of the fabric it has no NIC for must be listed in absent_rails."""

    model: Text = "unspecified"  # in comments of the rendered host files
    source: Note | None = None  # where the PCI addresses / RDMA names come from
    nic_kind: NicKind = "connectx-7"
    nics: list[RailNic]
    absent_rails: list[int] = []
    socket_ifname: IfName | None = None  # NCCL_SOCKET_IFNAME (bootstrap); default: the first rail NIC
    # nics[].name: "renamed" (netauto names the NIC: udev by PCI path, netplan set-name by MAC; the name must be
    # outside the kernel's namespaces eth*/ib*/en*, systemd.link(5)) or "kernel" (the names ARE the host's own
    # predictable names, e.g. enp24s0np0: nothing renames them, netplan configures them by name)
    nic_names: NicNames = "renamed"

    @field_validator("socket_ifname")
    @classmethod
    def _sock(cls, v: str | None) -> str | None:
        return check_ifname(v) if v is not None else v

    @model_validator(mode="after")
    def _unique(self) -> "ServerProfile":
        for key in ("rail", "name", "rdma", "pci"):
            vals = [getattr(n, key) for n in self.nics if getattr(n, key) is not None]
            dup = sorted({str(v) for v in vals if vals.count(v) > 1})
            if dup:
                raise SchemaValueError(f"two NICs share {key} {', '.join(dup)}", key="nics",
                                       hint=f"give every rail NIC its own {key}")
        both = sorted({n.rail for n in self.nics} & set(self.absent_rails))
        if both:
            raise SchemaValueError(f"rail(s) {both} both have a NIC and are listed in absent_rails", key="absent_rails",
                                   hint="remove them from absent_rails")
        return self


class ServerHost(Strict):
    """Per-server facts: another profile than its SU's, and the MACs of its rail NICs (netplan match by MAC)."""

    profile: Name | None = None
    macs: dict[IfName, str] = {}  # rail NIC name -> MAC

    @field_validator("macs")
    @classmethod
    def _macs(cls, v: dict[str, str]) -> dict[str, str]:
        out = {}
        for nic, mac in v.items():
            if not _MAC.fullmatch(str(mac).lower()):
                raise ValueError(f"{nic}: {mac!r} is not a MAC address like b8:3f:d2:00:00:01")
            out[nic] = str(mac).lower()
        return out


class Servers(Strict):
    """GPU servers. Either profiles (per server model, assigned per SU or per server) or, the older form, one NIC
    list for every server (`nics`, `rdma_devices`, optional `pci`), which becomes the profile `default`."""

    nics: list[IfName] | None = None
    rdma_devices: list[RdmaName] | None = None
    pci: list[str] | None = None  # older form: PCI address per rail, same order as nics
    profile: Name | None = None  # profile of every server not assigned otherwise
    profiles: dict[Name, ServerProfile] = {}
    su_profiles: dict[int, Name] = {}  # SU number -> profile
    hosts: dict[Name, ServerHost] = {}  # server name -> profile and/or NIC MACs
    table_base: int = Field(100, ge=1, le=240)
    rule_priority_base: int = Field(1000, ge=1, le=32000)
    nic_names: NicNames = "renamed"  # older form (`nics`): as ServerProfile.nic_names

    @field_validator("nics", "rdma_devices")
    @classmethod
    def _unique(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        dup = sorted({n for n in v if v.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate names {dup}")
        for n in v:
            check_ifname(n)
        return v

    @field_validator("pci")
    @classmethod
    def _pcis(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        return [check_pci(a) for a in v]

    @model_validator(mode="after")
    def _forms(self) -> "Servers":
        legacy = self.nics is not None or self.rdma_devices is not None or self.pci is not None
        if legacy and self.profiles:
            raise SchemaValueError("give either profiles or nics/rdma_devices, not both", key="nics",
                                   hint="move the NIC list into a profile (docs/gpu-servers.md)")
        if self.profiles:
            names = set(self.profiles)
            refs = [("profile", self.profile)] + [(f"su_profiles.{k}", v) for k, v in self.su_profiles.items()] + [
                (f"hosts.{k}.profile", h.profile) for k, h in self.hosts.items()]
            for where, ref in refs:
                if ref is not None and ref not in names:
                    raise SchemaValueError(f"{where}: no profile {ref!r} (profiles: {', '.join(sorted(names))})",
                                           key=where.split(".")[0], hint="name a profile defined under servers.profiles")
            if self.profile is None and len(names) > 1 and not self.su_profiles and not self.hosts:
                raise SchemaValueError("several profiles but none assigned", key="profile",
                                       hint="set servers.profile (the default) or su_profiles / hosts")
        elif self.su_profiles or self.profile or any(h.profile for h in self.hosts.values()):
            raise SchemaValueError("profile assignments without servers.profiles", key="profiles",
                                   hint="define the profiles under servers.profiles")
        return self
