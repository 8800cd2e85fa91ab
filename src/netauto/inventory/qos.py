"""The inventory's `qos:` section: the RoCE lossless profile (classes, ETS weights, ECN, PFC watchdog)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from netauto.errors import SchemaValueError
from netauto.inventory.base import Strict


class ClassMap(Strict):
    dscp: int = Field(ge=0, le=63)
    priority: int = Field(ge=0, le=7)


class Ecn(Strict):
    min_threshold: int = Field(150000, ge=1)
    max_threshold: int = Field(1500000, ge=1)
    probability: int = Field(100, ge=1, le=100)

    @model_validator(mode="after")
    def _min_below_max(self) -> "Ecn":
        if self.min_threshold >= self.max_threshold:
            raise SchemaValueError(
                f"min_threshold {self.min_threshold} must be below max_threshold {self.max_threshold}",
                key="min_threshold", hint="lower min_threshold or raise max_threshold",
            )
        return self


class PfcWatchdog(Strict):
    enabled: bool = True
    polling_interval_ms: int = Field(100, ge=100, le=1000)
    robustness: int = Field(3, ge=1, le=1000)


class Qos(Strict):
    """RoCE lossless profile; defaults are NVIDIA's `qos roce` values."""

    mode: Literal["lossless"] = "lossless"
    roce: ClassMap = ClassMap(dscp=26, priority=3)
    cnp: ClassMap = ClassMap(dscp=48, priority=6)
    ets: dict[int, int] = {0: 50, 3: 50}
    # extra classes: switch priority -> the DSCPs hosts mark that traffic with (an ETS weight needs traffic)
    classes: dict[int, list[int]] = {}
    ecn: Ecn = Ecn()
    pfc_watchdog: PfcWatchdog = PfcWatchdog()
    host_tos: int = Field(106, ge=0, le=255)

    @field_validator("ets")
    @classmethod
    def _ets(cls, v: dict[int, int]) -> dict[int, int]:
        for tc, w in v.items():
            if not 0 <= tc <= 7:
                raise ValueError(f"traffic class {tc} out of range 0..7")
            if not 1 <= w <= 100:
                raise ValueError(f"weight {w} of traffic class {tc} out of range 1..100")
        if sum(v.values()) != 100:
            raise SchemaValueError(f"ETS weights sum to {sum(v.values())}, they must sum to 100",
                                   hint="adjust the weights so they add up to 100")
        return dict(sorted(v.items()))

    @model_validator(mode="after")
    def _classes(self) -> "Qos":
        if self.roce.priority == self.cnp.priority:
            raise SchemaValueError("roce.priority and cnp.priority must differ (CNP is strict and not PFC)",
                                   key="cnp", hint="use the NVIDIA defaults: roce priority 3, cnp priority 6")
        if self.roce.dscp == self.cnp.dscp:
            raise SchemaValueError("roce.dscp and cnp.dscp must differ", key="cnp",
                                   hint="use the NVIDIA defaults: roce dscp 26, cnp dscp 48")
        if self.roce.priority not in self.ets:
            raise SchemaValueError(f"ets must give the RoCE traffic class {self.roce.priority} a weight", key="ets",
                                   hint=f"add {self.roce.priority}: <weight> to ets")
        if self.cnp.priority in self.ets:
            raise SchemaValueError(f"ets must not weight the CNP class {self.cnp.priority}: it is strict priority",
                                   key="ets", hint=f"remove {self.cnp.priority} from ets")
        for prio, dscps in self.classes.items():
            if not 0 <= prio <= 7 or prio in (self.roce.priority, self.cnp.priority):
                raise SchemaValueError(f"classes: priority {prio} must be 0..7 and not the RoCE or CNP priority",
                                       key="classes", hint="use a free priority such as 1 or 2")
            bad = [d for d in dscps if not 0 <= d <= 63 or d in (self.roce.dscp, self.cnp.dscp)]
            if bad:
                raise SchemaValueError(f"classes.{prio}: DSCP {bad} out of 0..63 or taken by RoCE/CNP", key="classes",
                                       hint="list the DSCPs the hosts mark this traffic with")
        fed = {0, self.roce.priority} | set(self.classes)
        starved = sorted(tc for tc in self.ets if tc not in fed)
        if starved:
            raise SchemaValueError(
                f"ets weights traffic class {starved[0]} but nothing is classified into it (traffic reaches only "
                f"RoCE {self.roce.priority}, CNP {self.cnp.priority} and the default class 0): the weight would "
                "be unused", key="ets",
                hint=f"map DSCPs into it with classes: {{{starved[0]}: [<dscp>, ...]}} (hosts must mark that traffic; "
                "TCP and UDP cannot be told apart by DSCP alone), or remove it from ets")
        if self.host_tos >> 2 != self.roce.dscp:
            raise SchemaValueError(
                f"host_tos {self.host_tos} carries DSCP {self.host_tos >> 2}, not roce.dscp {self.roce.dscp}",
                key="host_tos", hint=f"set host_tos to {(self.roce.dscp << 2) | 2} (DSCP << 2 | ECT(0))",
            )
        return self
