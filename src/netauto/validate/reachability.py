"""The route simulation's leaf-to-rail-subnet tally (`netauto.validate.routesim.simulate`), linear in the fabric.

Every leaf must route to every other leaf's rail subnets: leaves x subnets pairs, 65,280 in the 10k example and
about 4 million in the 100k one. The routing tables are shared (one per origin class, `routesim.routes`), so the
answer for a source leaf is the same for every subnet whose covering prefixes resolve to the same tables: those
subnets form a group, and each source leaf is looked up once per group and counted for all its subnets at once.
Only the sources whose answer differs get a lookup per subnet: the origins of a covering prefix (the destination,
an MLAG peer sharing its subnet, a switch originating an aggregate) and a class's representative (whose table
row is the mirror image). Work is O(groups x leaves + subnets x origins), and nothing is kept per pair except the
unreachable ones (which the findings name).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from ipaddress import IPv4Network
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netauto.model.types import Switch
    from netauto.validate.route_state import RouteState

Table = dict[str, "RouteState"]
CoverEntry = tuple[frozenset[str], "str | None", Table]  # a covering prefix's origins, its class rep (or None), table


def cover(origin_of: dict[IPv4Network, set[str]], block: IPv4Network) -> list[frozenset[str]]:
    """The origins of every advertised prefix covering `block`, longest prefix first."""
    out = []
    for plen in range(block.prefixlen, -1, -1):
        origins = origin_of.get(block.supernet(new_prefix=plen) if plen < block.prefixlen else block)
        if origins:
            out.append(frozenset(origins))
    return out


@dataclass
class _Group:
    entries: list[tuple[Table, bool]]  # per covering prefix: its table, and whether the destination originates it
    blocks: list[tuple[str, frozenset[str]]] = field(default_factory=list)  # (destination, its special sources)
    special: Counter = field(default_factory=Counter)  # source -> blocks of this group where it is special


class Reach:
    """Counts, per source leaf, the rail subnets it reaches, over which ECMP width, and the ones it does not."""

    def __init__(self, leaves: list[Switch], expected: dict[str, int], peer_of: dict[str, str]) -> None:
        self.names = [leaf.name for leaf in leaves]
        self._order = {name: i for i, name in enumerate(self.names)}
        self.is_leaf = self._order.keys()
        self.expected = expected
        self.peer_of = peer_of
        self.pairs = 0
        self.unreachable = 0
        self.pairs_from: Counter = Counter()  # the subnets each source must route to (not its MLAG pair's shared one)
        self.unreachable_from: Counter = Counter()
        self.widths: dict[str, tuple[int, int]] = {}  # source -> (min, max) ECMP width over the subnets it reaches
        self.reduced: dict[str, Counter] = defaultdict(Counter)  # source -> (width, over the peerlink) -> subnets
        self._unreach_to: dict[str, Counter] = defaultdict(Counter)
        self._groups: dict[tuple, _Group] = {}
        self.consulted: set[int] = set()  # id() of the tables a lookup read (the simulation's note counts them)

    def block(self, dst: str, block: IPv4Network, owners: frozenset[str], entries: list[CoverEntry]) -> None:
        """One destination subnet: `owners` originate it, `entries` are its covering prefixes (`cover`)."""
        special = {dst}
        for origins, rep, _ in entries:
            special |= origins
            if rep is not None:
                special.add(rep)
        for src in special:
            if src != dst and src in self.is_leaf:
                self._pair(src, dst, owners, entries)
        key = tuple((id(table), dst in origins) for origins, _, table in entries)
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group([(table, dst in origins) for origins, _, table in entries])
        frozen = frozenset(special)
        group.blocks.append((dst, frozen))
        group.special.update(frozen)

    def _pair(self, src: str, dst: str, owners: frozenset[str], entries: list[CoverEntry]) -> None:
        if src in owners and dst in owners:
            return  # an MLAG pair's shared subnet: connected on both, nothing to route between them
        state, origin = None, None
        for origins, rep, table in entries:
            if src in origins:
                origin = origins
                break
            at = src
            if rep is not None and len(origins) == 1:  # a class's table: the representative's row is mirrored
                (o,) = origins
                if o != rep:
                    at = o if at == rep else (rep if at == o else at)
            self.consulted.add(id(table))
            state = table.get(at)
            if state is not None:
                origin = origins
                break
        self._tally(src, state if state is not None and origin is not None and dst in origin else None, 1)
        if state is None or origin is None or dst not in origin:
            self._unreach_to[dst][src] += 1

    def _tally(self, src: str, state: RouteState | None, n: int) -> None:
        self.pairs += n
        self.pairs_from[src] += n
        if state is None:
            self.unreachable += n
            self.unreachable_from[src] += n
            return
        w = state.width
        lo, hi = self.widths.get(src, (w, w))
        self.widths[src] = (min(lo, w), max(hi, w))
        if w < self.expected[src]:
            self.reduced[src][(w, self.peer_of.get(src) in state.via)] += n

    def finish(self) -> None:
        """Count the sources that share the groups' tables: one lookup per (group, source)."""
        for group in self._groups.values():
            total = len(group.blocks)
            for src in self.names:
                n = total - group.special[src]
                if n <= 0:
                    continue
                state, reached = None, False
                for table, dst_originates in group.entries:
                    self.consulted.add(id(table))
                    state = table.get(src)
                    if state is not None:
                        reached = dst_originates
                        break
                self._tally(src, state if reached else None, n)
                if not reached:
                    for dst, special in group.blocks:
                        if src not in special:
                            self._unreach_to[dst][src] += 1
        self._groups.clear()

    def unreachable_to(self) -> dict[str, list[str]]:
        """destination -> the sources that miss one of its subnets (once per subnet), in leaf order."""
        order = self._order
        return {dst: [src for src in sorted(srcs, key=order.__getitem__) for _ in range(srcs[src])]
                for dst, srcs in self._unreach_to.items()}
