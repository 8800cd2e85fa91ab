"""Grouping of the model by pod, SU and tier, shared by the document and the pictures."""

from __future__ import annotations

from dataclasses import dataclass, field

from netauto.model.types import FabricModel, Server, Switch


@dataclass
class SuGroup:
    su: int
    pod: int
    leaves: list[Switch] = field(default_factory=list)  # in rail order
    servers: list[Server] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)  # servers reserved in the inventory but not delivered


@dataclass
class PodGroup:
    pod: int
    spines: list[Switch] = field(default_factory=list)
    sus: list[SuGroup] = field(default_factory=list)


@dataclass
class FabricGroups:
    pods: list[PodGroup]
    super_spines: list[Switch]
    sus: dict[int, SuGroup]
    rails: int
    servers_per_su: int

    @property
    def super_spine_groups(self) -> list[int]:
        """The super-spine groups (group j: spine j of every pod and its super-spines)."""
        return sorted({s.group for s in self.super_spines if s.group is not None})


def group(model: FabricModel) -> FabricGroups:
    pods: dict[int, PodGroup] = {}
    sus: dict[int, SuGroup] = {}
    supers: list[Switch] = []
    for sw in model.switches:
        if sw.role == "super_spine":
            supers.append(sw)
        elif sw.role == "spine":
            pods.setdefault(sw.pod, PodGroup(sw.pod)).spines.append(sw)
        else:
            assert sw.su is not None
            su = sus.get(sw.su)
            if su is None:
                su = sus[sw.su] = SuGroup(sw.su, sw.pod)
                pods.setdefault(sw.pod, PodGroup(sw.pod)).sus.append(su)
            su.leaves.append(sw)
    for su in sus.values():
        su.leaves.sort(key=lambda s: s.rail or 0)
    for server in model.servers:
        sus[server.su].servers.append(server)
    # absent servers have no link rows (their leaf ports are reserved): find them from the leaf port descriptions
    for su in sus.values():
        for leaf in su.leaves[:1]:  # every rail leaf reserves the same port
            for iface in leaf.host_ports:
                if iface.peer_device is None and iface.description.startswith("reserved for "):
                    name = iface.description.removeprefix("reserved for ").split(" ", 1)[0]
                    if name not in su.absent:
                        su.absent.append(name)
    rails = max((len(su.leaves) for su in sus.values()), default=0)
    per_su = max((len(su.servers) + len(su.absent) for su in sus.values()), default=0)
    return FabricGroups(sorted(pods.values(), key=lambda p: p.pod), supers, dict(sorted(sus.items())), rails, per_su)


def name_range(names: list[str]) -> str:
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return f"{names[0]} .. {names[-1]}"


def asn_range(asns: list[int]) -> str:
    lo, hi = min(asns), max(asns)
    return str(lo) if lo == hi else f"{lo}-{hi}"
