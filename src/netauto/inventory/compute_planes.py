"""Schema of compute planes (`topology.compute_planes`): NVIDIA's multi-plane compute fabric.

A compute plane is one complete rail-optimized fabric; with `count` planes every rail NIC (ConnectX-8 SuperNIC)
is split into `count` ports (2x400G dual-plane, 4x200G quad-plane) and port k of every NIC goes to plane k, so
no link joins two planes (NVIDIA Network Operator 26.4 "Software Multiplane Spectrum-X Quick Start":
"Each SuperNIC is split into multiple PFs, each assigned to a separate plane"). "Compute plane" is the one word
for these; the storage/frontend/OOB networks are not planes.

A rail NIC's own `name`/`rdma`/`pci` are its plane-1 port; `plane_ports` names its port on each further plane.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from netauto.inventory.base import NicRdmaName, PlanePciAddress, Strict
from netauto.inventory.strings import IfName


# none: one plane; swplb: one PF and address per plane port, NCCL spreads over them (Network Operator 26.4
# "Software Multiplane Spectrum-X Quick Start", multiplaneMode: swplb); hwplb: the NIC balances its plane ports
# itself (NIC LAG, one address per rail; Network Operator 26.4 "Hardware Multiplane Spectrum-X Quick Start",
# multiplaneMode: hwplb). The NicConfigurationTemplate CRD's enum is none/swplb/hwplb. hwplb is accepted by the
# schema so that a NIC that cannot do it is named, then refused (model.compute_planes; docs/compute-planes.md,
# "Why hwplb is refused": its host data path is NVIDIA's Spectrum-X Operator's).
Balancing = Literal["none", "swplb", "hwplb"]


class ComputePlanes(Strict):
    count: Literal[1, 2, 4] = 1  # dual-plane (B300/GB300) or quad-plane (B300 only): numberOfPlanes
    balancing: Balancing = "none"
    # ASN of a device on plane p: its single-plane ASN + (p - 1) * asn_offset. 0: every plane reuses the same
    # ASNs (the planes never peer with each other, RFC 7938's one-ASN-per-leaf holds inside each plane)
    asn_offset: int = Field(0, ge=0, le=100000)


class PlanePort(Strict):
    """A rail NIC's port on one further plane: its own PF (swplb)."""

    name: IfName
    rdma: NicRdmaName
    pci: PlanePciAddress | None = None
