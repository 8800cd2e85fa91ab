"""The devices of the fabric by identity: sizes of the topology and one record per switch and server slot.

The enumerators list devices in the numbering order of the topology (super-spines by group, spines by pod,
leaves by SU and rail, servers by SU and index); every number a device gets comes from its identity
(`numbering`), never from its place in these lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from netauto.inventory.schema import Inventory
from netauto.model import numbering
from netauto.model.types import Role


@dataclass(frozen=True, slots=True)
class Counts:
    """The sizes of a fabric, from `topology`."""

    pods: int
    sus: int
    sus_per_pod: int
    rails: int
    leaves: int
    spines: int
    spines_per_pod: int
    super_spines: int
    super_spines_per_group: int
    servers_per_su: int
    three_tier: bool

    @classmethod
    def of(cls, inv: Inventory) -> Counts:
        t = inv.topology
        sus = t.pods * t.sus_per_pod
        return cls(
            pods=t.pods,
            sus=sus,
            sus_per_pod=t.sus_per_pod,
            rails=t.rails,
            leaves=sus * t.rails,
            spines=t.pods * t.spines_per_pod,
            spines_per_pod=t.spines_per_pod,
            super_spines=t.spines_per_pod * t.super_spines_per_group,
            super_spines_per_group=t.super_spines_per_group,
            servers_per_su=t.servers_per_su,
            three_tier=t.super_spines_per_group > 0,
        )

    @property
    def servers(self) -> int:
        return self.sus * self.servers_per_su


@dataclass(frozen=True, slots=True)
class SwitchId:
    """Where a switch sits: the fields of its name and `Switch`, and `number`, its 1-based place in its tier."""

    role: Role
    pod: int
    su: int | None
    rail: int | None
    group: int | None
    index: int
    number: int

    def mgmt_offset(self, n: Counts) -> int:
        """Its place (0-based) in the switch management pool."""
        return numbering.switch_mgmt_offset(self.role, self.number, spines=n.spines, super_spines=n.super_spines)


def super_spine_id(n: Counts, group: int, index: int) -> SwitchId:
    return SwitchId("super_spine", pod=0, su=None, rail=None, group=group, index=index,
                    number=numbering.super_spine_number(group, index, n.super_spines_per_group))


def spine_id(n: Counts, pod: int, index: int) -> SwitchId:
    """Spine `index` of a pod; in a three-tier fabric it belongs to group `index` (its super-spines)."""
    return SwitchId("spine", pod=pod, su=None, rail=None, group=index if n.three_tier else None, index=index,
                    number=numbering.spine_number(pod, index, n.spines_per_pod))


def leaf_id(n: Counts, su: int, rail: int) -> SwitchId:
    return SwitchId("leaf", pod=numbering.pod_of_su(su, n.sus_per_pod), su=su, rail=rail, group=None, index=rail,
                    number=numbering.leaf_number(su, rail, n.rails))


def super_spine_ids(n: Counts) -> Iterator[SwitchId]:
    for group in range(1, n.spines_per_pod + 1 if n.three_tier else 1):
        for j in range(1, n.super_spines_per_group + 1):
            yield super_spine_id(n, group, j)


def spine_ids(n: Counts) -> Iterator[SwitchId]:
    for p in range(1, n.pods + 1):
        for i in range(1, n.spines_per_pod + 1):
            yield spine_id(n, p, i)


def leaf_ids(n: Counts) -> Iterator[SwitchId]:
    for s in range(1, n.sus + 1):
        for r in range(n.rails):
            yield leaf_id(n, s, r)


def switch_ids(n: Counts) -> Iterator[SwitchId]:
    """Every switch, in the fabric's device order (super-spines, spines, leaves)."""
    yield from super_spine_ids(n)
    yield from spine_ids(n)
    yield from leaf_ids(n)
