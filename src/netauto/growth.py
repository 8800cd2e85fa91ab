"""`netauto plan --from OLD --to NEW`: what growing (or changing) a cluster takes, from two inventories.

Devices to add, remove and rename (a device is known by what it is, its network, role and numbers: a
`naming:` change renames it and moves none of its cables); cables to add, move and remove (every cable of `ClusterModel.all_links()`, the
frontend's exit to the site routers included) (a cable moves when one of its ends stays plugged
and the other goes elsewhere); a switch port is known by its cage and lanes, not its name, so a NOS change
(swp36s0 on Cumulus is Ethernet280 on SONiC: cage 36, lanes 280-283) moves no cable; devices whose rendered files change; the bill-of-materials delta when both
inventories have a `bom:` section. Everything is compared on the resolved models and the rendered files, so
the plan is exactly what `render` and `show cabling` would produce for each side.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from netauto import pipeline
from netauto.model.cluster import ClusterModel
from netauto.model.tenant_moves import TenantMove, renumbered, tenant_moves
from netauto.model.types import Link
from netauto.bom import bill_of_materials

End = tuple[str, str]  # (device, port)
Places = dict[End, End]  # a switch port -> (device, "cage N lanes a-b"): where a cable is plugged, by any name


def places(cluster: ClusterModel) -> Places:
    """Every switch port with a cage, as the cage and lanes it occupies (a server NIC, a site router's port or
    a port without cage facts is its own place)."""
    out: Places = {}
    for sw in cluster.all_switches():
        for i in sw.interfaces:
            if i.cage is not None:
                lanes = f" lanes {i.lanes[0]}-{i.lanes[-1]}" if i.lanes else f" sub {i.subport}"
                out[(sw.name, i.name)] = (sw.name, f"cage {i.cage}{lanes}")
    return out


@dataclass(frozen=True, slots=True)
class Cable:
    a: End  # device and port name, as the side of the plan that has the cable names it
    b: End
    speed: str
    network: str
    pa: End | None = None  # where a is plugged (places()); the name when unknown
    pb: End | None = None

    @classmethod
    def of(cls, link: Link, where: Places | None = None) -> "Cable":
        a, b = (link.a_device, link.a_port), (link.b_device, link.b_port)
        where = where or {}
        return cls(a, b, link.speed, link.network, where.get(a, a), where.get(b, b))

    @property
    def place_a(self) -> End:
        return self.pa or self.a

    @property
    def place_b(self) -> End:
        return self.pb or self.b

    def key(self) -> frozenset[End]:
        return frozenset((self.place_a, self.place_b))

    def text(self) -> str:
        return f"{_end(self.a)} <-> {_end(self.b)} ({self.speed}, {self.network})"


def _end(end: End) -> str:
    """`device port`, or the device alone where the port is unknown (a site router's end without `peer_port`)."""
    return f"{end[0]} {end[1]}" if end[1] else end[0]


@dataclass(frozen=True, slots=True)
class Move:
    stays: End  # the end that stays plugged
    old_peer: End
    new_peer: End
    network: str

    def text(self) -> str:
        return f"{_end(self.stays)}: from {_end(self.old_peer)} to {_end(self.new_peer)} ({self.network})"


@dataclass
class Plan:
    old: str
    new: str
    add_devices: list[str] = field(default_factory=list)
    remove_devices: list[str] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)  # old name -> new name, the device and its cables stay
    add_cables: list[Cable] = field(default_factory=list)
    move_cables: list[Move] = field(default_factory=list)
    remove_cables: list[Cable] = field(default_factory=list)
    changed_configs: dict[str, list[str]] = field(default_factory=dict)  # device -> changed/added/removed paths
    kept_cables: int = 0
    bom_delta: list[tuple[str, str, str, str, int]] = field(default_factory=list)  # network, cat, item, length, +-n
    bom_compared: bool = False  # both bills were counted (both inventories have a bom: section)
    tenant_moves: list[TenantMove] = field(default_factory=list)  # servers that change tenant
    tenant_renumbers: list[str] = field(default_factory=list)  # tenants whose L3VNI or route target changes
    notes: list[str] = field(default_factory=list)


Identity = tuple[object, ...]


def identities(cluster: ClusterModel) -> dict[Identity, str]:
    """Every device by what it is (network, role and its numbers), not by its name: the key a rename keeps."""
    out: dict[Identity, str] = {}
    for sw in cluster.all_switches():
        out[("switch", sw.network, sw.role, sw.pod, sw.su, sw.rail, sw.group, sw.index)] = sw.name
    for srv in cluster.compute.servers:
        out[("server", srv.su, srv.index)] = srv.name
    for g in cluster.groups:
        out[("group", g.group, g.index)] = g.name
    if cluster.oob:
        for o in cluster.oob.switches:
            out[("oob", o.role, o.index)] = o.name
    return out


def renames(old: ClusterModel, new: ClusterModel) -> dict[str, str]:
    """old name -> new name of every device that stays what it is under another name (a naming: change)."""
    io, in_ = identities(old), identities(new)
    old_names, new_names = set(io.values()), set(in_.values())
    return {name: in_[ident] for ident, name in io.items()
            if ident in in_ and in_[ident] != name and name not in new_names and in_[ident] not in old_names}


def _renamed(cable: Cable, to: dict[str, str]) -> Cable:
    """An old cable with its devices under their new names: a renamed device's cables stay where they are."""
    def end(e: End | None) -> End | None:
        return None if e is None else (to.get(e[0], e[0]), e[1])

    a, b = end(cable.a), end(cable.b)
    assert a is not None and b is not None
    return Cable(a, b, cable.speed, cable.network, end(cable.pa), end(cable.pb))


def _devices(cluster: ClusterModel) -> list[str]:
    names = [sw.name for sw in cluster.all_switches()] + cluster.server_names()
    if cluster.oob:
        names += [s.name for s in cluster.oob.switches]
    return names


def _files(cluster: ClusterModel) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for art in pipeline.iter_files(cluster):
        out.setdefault(art.device, {})[art.path] = art.content
    return out


def cable_plan(old: list[Cable], new: list[Cable]) -> tuple[list[Cable], list[Move], list[Cable], int]:
    """(added, moved, removed, kept). A new cable with an end that was plugged elsewhere is a move of that
    cable; what is left of the old cables once the moves are taken out is removed. An end without a port (a
    site router's, when the inventory names no `peer_port`) is no place a cable can stay plugged in: it never
    anchors a move."""
    old_keys = {c.key(): c for c in old}
    new_keys = {c.key(): c for c in new}
    kept = len(old_keys.keys() & new_keys.keys())
    old_at: dict[End, Cable] = {}
    for c in old:
        if c.key() not in new_keys:
            for e in (c.place_a, c.place_b):
                if e[1]:
                    old_at[e] = c
    added, moves, used = [], [], set()
    for c in new:
        if c.key() in old_keys:
            continue
        for stays, here, other in ((c.a, c.place_a, c.b), (c.b, c.place_b, c.a)):
            prev = old_at.get(here)
            if prev is not None and prev.key() not in used:
                used.add(prev.key())
                old_peer = prev.b if prev.place_a == here else prev.a
                moves.append(Move(stays, old_peer, other, c.network))
                break
        else:
            added.append(c)
    removed = [c for c in old if c.key() not in new_keys and c.key() not in used]
    return added, moves, removed, kept


def plan(old_inventory: Path, new_inventory: Path) -> Plan:
    lo, ln = pipeline.load(old_inventory), pipeline.load(new_inventory)
    co, cn = pipeline.resolve_cluster_model(lo), pipeline.resolve_cluster_model(ln)
    p = Plan(co.name, cn.name)
    p.renames = renames(co, cn)
    back = {v: k for k, v in p.renames.items()}
    do, dn = [p.renames.get(d, d) for d in _devices(co)], _devices(cn)
    p.add_devices = [d for d in dn if d not in set(do)]
    p.remove_devices = [back.get(d, d) for d in do if d not in set(dn)]
    p.add_cables, p.move_cables, p.remove_cables, p.kept_cables = cable_plan(
        [_renamed(Cable.of(link, places(co)), p.renames) for link in co.all_links()],
        [Cable.of(link, places(cn)) for link in cn.all_links()])
    p.tenant_moves = tenant_moves(co.compute, cn.compute)
    p.tenant_renumbers = renumbered(co.compute, cn.compute)
    fo, fn = _files(co), _files(cn)
    for dev in dn:
        if back.get(dev, dev) not in fo:
            continue
        a, b = fo[back.get(dev, dev)], fn.get(dev, {})
        paths = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        if paths:
            p.changed_configs[dev] = paths
    if lo.inventory.bom is not None and ln.inventory.bom is not None:
        p.bom_compared = True
        bo = Counter({(x.network, x.category, x.item, x.length): x.count for x in bill_of_materials(lo, co)})
        bn = Counter({(x.network, x.category, x.item, x.length): x.count for x in bill_of_materials(ln, cn)})
        for key in list(dict.fromkeys([*bn, *bo])):
            d = bn.get(key, 0) - bo.get(key, 0)
            if d:
                p.bom_delta.append((*key, d))
    else:
        p.notes.append("no bill-of-materials delta: add a bom: section to both inventories")
    return p


def to_text(p: Plan, limit: int = 20) -> str:
    def section(title: str, items: list[str]) -> list[str]:
        out = [f"{title}: {len(items)}"]
        out += [f"  {x}" for x in items[:limit]]
        if len(items) > limit:
            out.append(f"  ... {len(items) - limit} more (--all for every line)")
        return out

    per_net = Counter(m.network for m in p.move_cables)
    lines = [f"growth plan {p.old} -> {p.new}"]
    lines += section("devices to add", p.add_devices)
    lines += section("devices to remove", p.remove_devices)
    if p.renames:  # only when a name changes: the output of a plain growth stays as it was
        lines += section("devices renamed (same place, same cables)", [f"{a} -> {b}" for a, b in p.renames.items()])
    lines += section("cables to add", [c.text() for c in p.add_cables])
    lines += section("cables to move", [m.text() for m in p.move_cables])
    if per_net:
        lines.append("  moves per network: " + ", ".join(f"{n} {c}" for n, c in sorted(per_net.items())))
    lines += section("cables to remove", [c.text() for c in p.remove_cables])
    lines.append(f"cables that stay: {p.kept_cables}")
    lines += section("existing devices whose config changes",
                     [f"{d}: {', '.join(paths)}" for d, paths in p.changed_configs.items()])
    if p.tenant_moves:  # only with a move: every other plan's output stays as it was
        lines += section("servers that change tenant", [m.text() for m in p.tenant_moves])
    if p.tenant_renumbers:
        lines += section("tenants renumbered", p.tenant_renumbers)
    if p.bom_delta:
        lines.append("bill of materials delta:")
        lines += [f"  {n:9} {c:12} {item}{' ' + length if length else ''}: {d:+d}"
                  for n, c, item, length, d in p.bom_delta if n != "total"]
        lines += [f"  total     {c:12} {item}{' ' + length if length else ''}: {d:+d}"
                  for n, c, item, length, d in p.bom_delta if n == "total"]
    lines += p.notes
    return "\n".join(lines) + "\n"
