"""Name the suspect: the part (NIC and its cable, leaf, leaf uplinks, leaf-spine bundle, spine) that the failing
tests have in common and the passing tests do not.

Each test crosses a set of parts (`parts_of`). A part seen in a passing test is cleared. The remaining parts are
grouped by the set of failing tests they are in: parts in exactly the same failing tests cannot be told apart by
these results and are named together. Groups are picked greedily (the one explaining most unexplained failures
first), so two independent faults give two suspects; a failing test no uncleared part explains is reported as
unexplained (an intermittent fault, or one the plan cannot isolate).

A NIC and its cable are always in the same tests (one cable per NIC), so they are one part: "NIC or cable".
A storage network's parts are named with the network (its NIC index for the rail, its own leaves and spines);
in a fabric of compute planes every part is named with its plane ("plane 2 rail 0", "plane 2 leaf ...").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from netauto.acceptance.model import AccTest
from netauto.model.compute_planes import plane_of
from netauto.model.types import FabricModel

ORDER = {"host-link": 0, "bundle": 1, "uplinks": 2, "leaf": 3, "spine": 4}


@dataclass(frozen=True, slots=True)
class Part:
    kind: str  # host-link | leaf | uplinks | bundle | spine
    key: tuple[str, ...]
    label: str
    ports: tuple[tuple[str, str], ...] = ()  # (device, port) at each end of the cable(s)


@dataclass(slots=True)
class Suspect:
    parts: list[Part]
    tests: list[str]  # the failing tests it explains

    @property
    def label(self) -> str:
        return " | ".join(p.label for p in self.parts)


@dataclass(slots=True)
class Localisation:
    suspects: list[Suspect] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)


class Parts:
    """The parts of one fabric and its tested networks (`networks`: their own fabrics), built once (the leaf-spine
    cables by leaf and spine; switch names are unique across a cluster's networks)."""

    def __init__(self, model: FabricModel, networks: Iterable[FabricModel] = ()) -> None:
        fabrics = (model, *networks)
        planes = {plane_of(sw.network) for m in fabrics for sw in m.switches[:1]} - {None}
        self.multiplane = len(planes) > 1  # compute planes 2.. among `networks`: every part names its plane
        self.bundles: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}
        for link in [lk for m in fabrics for lk in m.links]:
            if link.kind == "leaf-spine":
                self.bundles.setdefault((link.a_device, link.b_device), []).append(
                    (link.a_device, link.a_port, link.b_device, link.b_port))
        self._by_leaf: dict[str, dict[str, list[tuple[str, str, str, str]]]] = {}
        for (leaf, spine), cables in self.bundles.items():
            self._by_leaf.setdefault(leaf, {})[spine] = cables
        self._memo: dict[tuple[str, str | None], tuple[tuple[str, str], ...]] = {}

    def _cables(self, leaf: str, spine: str | None) -> tuple[tuple[str, str], ...]:
        key = (leaf, spine)
        if key not in self._memo:
            out: list[tuple[str, str]] = []
            for sp, cables in self._by_leaf.get(leaf, {}).items():
                if spine in (None, sp):
                    for a, ap, b, bp in cables:
                        out += [(a, ap), (b, bp)]
            self._memo[key] = tuple(out)
        return self._memo[key]

    def _bundle_label(self, leaf: str, spine: str) -> str:
        cables = self.bundles.get((leaf, spine), [])
        return f"leaf uplink(s) {leaf} -> {spine}: " + ", ".join(f"{a}:{ap} - {b}:{bp}" for a, ap, b, bp in cables)

    def where(self, network: str) -> str:
        """The words naming a part's network: "" (the compute fabric), "plane <p> " (a compute plane of a
        multi-plane fabric) or "<network> network " (a storage network)."""
        plane = plane_of(network)
        if plane is None:
            return f"{network} network "
        return f"plane {plane} " if self.multiplane else ""

    def of(self, t: AccTest) -> set[Part]:
        out: set[Part] = set()
        leaves = []
        for e in t.ends:
            words = self.where(e.network)
            which = f"{words}rail {e.rail}" if plane_of(e.network) else f"{words}NIC {e.rail}"
            out.add(Part("host-link", (e.network, e.server, str(e.rail)),
                         f"{e.server} {which}: NIC {e.nic} ({e.rdma}) or its cable {e.server}:{e.nic} - "
                         f"{e.leaf}:{e.leaf_port}", ((e.server, e.nic), (e.leaf, e.leaf_port))))
            if e.leaf not in leaves:
                leaves.append(e.leaf)
        net = self.where(t.ends[0].network) if t.ends else ""
        for leaf in leaves:
            out.add(Part("leaf", (leaf,), f"{net}leaf {leaf}"))
        if len(leaves) > 1:
            for leaf in leaves:
                if t.via:
                    out.add(Part("bundle", (leaf, t.via), net + self._bundle_label(leaf, t.via),
                                 self._cables(leaf, t.via)))
                else:
                    out.add(Part("uplinks", (leaf,), f"{net}uplinks of {leaf} (ECMP over every spine)", self._cables(leaf, None)))
            if t.via:
                out.add(Part("spine", (t.via,), f"{net}spine {t.via}"))
        return out


def localise(parts: Parts, failed: list[AccTest], passed: list[AccTest]) -> Localisation:
    cleared: set[Part] = set()
    for t in passed:
        cleared |= parts.of(t)
    where: dict[Part, set[str]] = {}
    for t in failed:
        for p in parts.of(t) - cleared:
            where.setdefault(p, set()).add(t.id)
    groups: dict[frozenset[str], list[Part]] = {}
    for p, ids in where.items():
        groups.setdefault(frozenset(ids), []).append(p)
    out = Localisation()
    todo = {t.id for t in failed}
    while todo:
        best = max(groups, key=lambda sig: (len(sig & todo), -min(ORDER[p.kind] for p in groups[sig]),
                                             sorted(sig)), default=None)
        if best is None or not best & todo:
            break
        members = sorted(groups.pop(best), key=lambda p: (ORDER[p.kind], p.key))
        out.suspects.append(Suspect(members, sorted(best)))
        todo -= best
    out.unexplained = sorted(todo)
    return out
