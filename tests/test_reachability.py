"""The route simulation's linear tally (validate/reachability.py) against a brute force: every (source leaf, rail
subnet) pair looked up on its own, each origin set propagated on its own (no shared class tables)."""

from __future__ import annotations

from collections import Counter, defaultdict
from ipaddress import IPv4Network
from pathlib import Path

import pytest

from netauto.pipeline import render
from netauto.validate.files import FileSet
from netauto.validate.routesim import build_graph, originated, propagate, simulate
from netauto.validate.state import ParsedFabric
from netauto.validate.view import build_view

from _validate_helpers import FRR, INVENTORY, ROOT, Tree, rendered, tree  # noqa: F401

LEAF, LEAF3 = "su1-r0-leaf", "su1-r3-leaf"


def _brute(view: ParsedFabric, drain: list[str]) -> tuple[int, int, dict[str, tuple[int, int]], dict[str, Counter]]:
    """(pairs, unreachable, leaf -> (min, max) width, leaf -> Counter of reduced widths), pair by pair."""
    nodes = build_graph(view, drain)
    origin_of: dict[IPv4Network, set[str]] = defaultdict(set)
    for n in nodes.values():
        for net in originated(n):
            origin_of[net].add(n.name)
    adv = sorted(origin_of, key=lambda n: -n.prefixlen)
    tables: dict[frozenset[str], dict] = {}
    leaves = [s for s in view.model.switches if s.role == "leaf"]
    ups = Counter(link.a_device for link in view.model.links if link.kind == "leaf-spine" and link.enabled)
    pairs = unreachable = 0
    widths: dict[str, list[int]] = defaultdict(list)
    reduced: dict[str, Counter] = defaultdict(Counter)
    for src in leaves:
        for dst in leaves:
            if dst is src:
                continue
            for prefix in dst.bgp.connected_prefixes:
                block = IPv4Network(prefix.prefix)
                owners = origin_of.get(block, set())
                if src.name in owners and dst.name in owners:
                    continue
                pairs += 1
                state, origin = None, None
                for p in (p for p in adv if block.subnet_of(p)):
                    origins = frozenset(origin_of[p])
                    if src.name in origins:
                        origin = origins
                        break
                    if origins not in tables:
                        tables[origins] = propagate(nodes, frozenset(o for o in origins if o in nodes))
                    state = tables[origins].get(src.name)
                    if state is not None:
                        origin = origins
                        break
                if state is None or dst.name not in (origin or ()):
                    unreachable += 1
                    continue
                widths[src.name].append(state.width)
                if state.width < min(ups[src.name], src.bgp.maximum_paths):
                    reduced[src.name][state.width] += 1
    span = {leaf.name: (min(widths[leaf.name] or [0]), max(widths[leaf.name] or [0])) for leaf in leaves}
    return pairs, unreachable, span, reduced


def _same(view: ParsedFabric, drain: list[str]) -> None:
    sim = simulate(view, drain=drain)
    pairs, unreachable, span, reduced = _brute(view, drain)
    assert (sim.pairs, sim.unreachable) == (pairs, unreachable)
    assert {k: (a, b) for k, (a, b, _) in sim.leaf_width.items()} == span
    got = Counter()
    for f in sim.findings:
        if f.rule == "SIM-02" and "rail subnet" in f.message:
            width = int(f.message.split("width ")[1].split()[0])
            got[(f.device, width)] += int(f.message.split("towards ")[1].split()[0])
    assert got == Counter({(dev, w): n for dev, c in reduced.items() for w, n in c.items()})


@pytest.mark.parametrize("inventory,drain", [
    (INVENTORY, []),
    (INVENTORY, ["spine1"]),
    (INVENTORY, ["su1-r2-leaf"]),
    (ROOT / "examples/2su-leaf-subnet/inventory", ["spine01"]),
    (ROOT / "examples/mixed-sonic/inventory", []),  # MLAG pairs: shared subnets and the peerlink session
])
def test_tally_equals_pair_by_pair(inventory: Path, drain: list[str]):
    model, artifacts = render(inventory)
    _same(build_view(model, FileSet.from_artifacts(artifacts)), drain)


def test_tally_equals_pair_by_pair_when_broken(tree: Tree):  # noqa: F811
    tree.replace(LEAF3, FRR, "ip prefix-list HOSTLINKS seq 10 permit 10.3.0.0/24 le 32",
                 "ip prefix-list HOSTLINKS seq 10 permit 10.30.0.0/24 le 32")  # su1-r3-leaf stops advertising its rail
    tree.replace(LEAF, FRR, "router bgp 65101", "router bgp 65100")  # su1-r0-leaf: no session comes up
    model, artifacts = render(INVENTORY)
    view = build_view(model, FileSet.from_dir(tree.fabric))
    sim = simulate(view)
    assert sim.unreachable > 0
    _same(view, [])
