"""Device names: the inventory's `naming` patterns applied to each device's identity, checked unique."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Protocol

from netauto.errors import InventoryError
from netauto.inventory.names import is_hostname
from netauto.inventory.schema import Inventory
from netauto.model import folders, numbering
from netauto.model.context import Where
from netauto.model.topology import Counts, SwitchId


class Namer(Protocol):
    """Names a device of `role` from the fields of its identity (the network resolver brings its own)."""

    def __call__(self, role: str, *, su: int, rail: int, pod: int, group: int, index: int) -> str: ...


def hostname(name: str, pattern: str, where: dict[str, Any]) -> str:
    """`name` (what `pattern` produced) if it is a hostname and no folder beside the devices' (model.folders),
    else the error at `where`."""
    if not is_hostname(name):
        raise InventoryError(
            f"{pattern!r} produces {name!r}, which is not a hostname (RFC 1123: 1-63 letters, digits or '-', "
            "not starting or ending with '-')", **where,
            hint="start and end the template with a letter, digit or field and keep names short",
        )
    beside = folders.holds(name)
    if beside is not None:
        raise InventoryError(f"{pattern!r} produces {name!r}, the folder of {beside} beside the devices' folders",
                             **where, hint=f"name no device {' or '.join(map(repr, folders.BESIDE_DEVICES))}")
    return name


def inventory_namer(inv: Inventory, where: Where) -> Namer:
    """The compute fabric's names: `naming.<role>` formatted with the identity fields."""

    def name(role: str, *, su: int, rail: int, pod: int, group: int, index: int) -> str:
        pattern = getattr(inv.naming, role)
        try:  # the schema accepted only FIELDS with integer formats
            name = pattern.format(su=su, rail=rail, pod=pod, group=group, index=index)
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
            problem = f"unknown field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise InventoryError(
                f"cannot format {pattern!r}: {problem}", **where("naming", role),
                hint="use only the fields su, rail, pod, group, index",
            ) from None
        return hostname(str(name), pattern, where("naming", role))

    return name


@dataclass(frozen=True, slots=True)
class Names:
    """Every device's name by identity: leaves by (su, rail), spines by (pod, index), super-spines by
    (group, index), servers by (su, index)."""

    leaves: dict[tuple[int, int], str]
    spines: dict[tuple[int, int], str]
    super_spines: dict[tuple[int, int], str]
    servers: dict[tuple[int, int], str]

    def switch(self, sw: SwitchId) -> str:
        """The name of the switch at `sw`."""
        if sw.role == "leaf":
            assert sw.su is not None and sw.rail is not None
            return self.leaves[(sw.su, sw.rail)]
        if sw.role == "spine":
            return self.spines[(sw.pod, sw.index)]
        assert sw.group is not None
        return self.super_spines[(sw.group, sw.index)]


def name_devices(n: Counts, namer: Namer) -> Names:
    """Name every device (leaves and servers SU by SU, then spines, then super-spines: the first bad name of
    that order is the one reported)."""
    leaves: dict[tuple[int, int], str] = {}
    spines: dict[tuple[int, int], str] = {}
    supers: dict[tuple[int, int], str] = {}
    servers: dict[tuple[int, int], str] = {}
    for s in range(1, n.sus + 1):
        pod = numbering.pod_of_su(s, n.sus_per_pod)
        for r in range(n.rails):
            leaves[(s, r)] = namer("leaf", su=s, rail=r, pod=pod, group=0, index=numbering.leaf_number(s, r, n.rails))
        for k in range(1, n.servers_per_su + 1):
            servers[(s, k)] = namer("server", su=s, rail=0, pod=pod, group=0, index=k)
    for p in range(1, n.pods + 1):
        for i in range(1, n.spines_per_pod + 1):
            spines[(p, i)] = namer("spine", su=0, rail=0, pod=p, group=i, index=i)
    for group in range(1, n.spines_per_pod + 1 if n.three_tier else 1):
        for j in range(1, n.super_spines_per_group + 1):
            supers[(group, j)] = namer("super_spine", su=0, rail=0, pod=0, group=group, index=j)
    return Names(leaves=leaves, spines=spines, super_spines=supers, servers=servers)


def device_roles(names: Names, inv: Inventory, where: Where) -> dict[str, str]:
    """name -> role of every device; refuses duplicate names (case-insensitive) and overrides of no device."""
    seen: dict[str, str] = {}
    folded: dict[str, str] = {}
    for role, by_id in (("super_spine", names.super_spines), ("spine", names.spines),
                        ("leaf", names.leaves), ("server", names.servers)):
        for name in by_id.values():
            if name.lower() in folded:  # hostnames (DNS, Ansible inventories) ignore case
                first = folded[name.lower()]
                also = f"also a {seen[first]}" + (f" named {first!r}" if first != name else "")
                raise InventoryError(
                    f"produces the duplicate device name {name!r} ({also})",
                    **where("naming", role), hint="include the fields that make each name unique",
                )
            seen[name] = role
            folded[name.lower()] = name
    for dev in inv.overrides.devices:
        if dev not in seen:
            close = difflib.get_close_matches(str(dev), list(seen), n=1, cutoff=0.8)
            raise InventoryError(f"no such device {dev!r} in this fabric", **where("overrides", "devices", dev),
                                 hint=f"did you mean {close[0]!r}?" if close else "use a name from `netauto show model`")
    return seen
