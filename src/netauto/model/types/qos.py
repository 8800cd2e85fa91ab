"""The resolved RoCE QoS profile (classification, ECN, PFC, ETS), PFC profiles per cable length, and how VXLAN
carries DSCP."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


def pfc_profile_name(metres: int) -> str:
    """The PFC profile of the ports on `metres` of cable (NVUE `qos pfc <name>`; Linux files pfc port group)."""
    return f"cable-{metres}m"


@dataclass(slots=True)
class EtsClass:
    traffic_class: int
    mode: Literal["dwrr", "strict"]
    weight: int  # 0 for strict


@dataclass(slots=True)
class Qos:
    roce_dscp: int
    roce_priority: int
    cnp_dscp: int
    cnp_priority: int
    ets: list[EtsClass]
    ecn_traffic_classes: list[int]
    ecn_min_threshold: int
    ecn_max_threshold: int
    ecn_probability: int
    pfc_priorities: list[int]
    pfc_watchdog: bool
    pfc_watchdog_polling_interval_ms: int
    pfc_watchdog_robustness: int
    cable_length_m: int
    host_tos: int
    pfc_bitmap: str  # mlnx_qos --pfc form: "0,0,0,1,0,0,0,0"
    is_nvidia_default: bool  # the plain `qos roce` profile, no tweaks needed
    mode: Literal["lossless", "lossy"] = "lossless"  # lossy: a network without RoCE (no PFC/ECN/ETS rendered)

    @property
    def lossless(self) -> bool:
        return self.mode == "lossless"
    # Classification, complete: DSCP (0..63) -> switch priority, switch priority (0..7) -> traffic class.
    # Base: Cumulus `qos roce` (DSCP >> 3, SP3 -> TC3, SP6 -> TC6, every other SP -> TC0); SONiC renders the same.
    dscp_to_priority: dict[int, int] = field(default_factory=dict)
    priority_to_tc: dict[int, int] = field(default_factory=dict)
    dscp_changes: dict[int, int] = field(default_factory=dict)  # entries that differ from the DSCP >> 3 base
    wred_drop: bool = False  # ECN marks ECT packets; non-ECT packets are never RED-dropped (Cumulus red_enable false)

    @property
    def dscp_to_tc(self) -> dict[int, int]:
        return {d: self.priority_to_tc[p] for d, p in self.dscp_to_priority.items()}

    @property
    def dscps_by_priority(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {p: [] for p in range(8)}
        for d, p in sorted(self.dscp_to_priority.items()):
            out[p].append(d)
        return out

    @property
    def lossy_priorities(self) -> list[int]:
        return [p for p in range(8) if p not in self.pfc_priorities]

    @property
    def pfc_map(self) -> str:
        """dcb(8) pfc form: "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"."""
        return " ".join(f"{p}:{'on' if p in self.pfc_priorities else 'off'}" for p in range(8))


@dataclass(frozen=True, slots=True)
class VxlanQos:
    """How the leaves' VTEPs carry DSCP through the tunnel (netauto.platforms.vxlan)."""

    encap_dscp: str  # NVUE nve vxlan encapsulation dscp action / switchd vxlan.def_encap_dscp_action
    decap_dscp: str
