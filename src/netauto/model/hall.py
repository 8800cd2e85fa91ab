"""Every device of the cluster in a rack of the data hall (inventory `hall:`), within each rack's U and power
budget, and the length of a cable between two placed devices.

Policy spines-central: GPU servers fill the racks row by row, one SU after the other (an SU's servers stand
side by side); server-group nodes next; then every switch that cables to servers (leaves, access switches) in
the free rack nearest the middle of the racks of its servers; then the switches above them (spines, super
spines, aggregation) in the free racks nearest the middle of the hall, which shortens the longest fibres.
`hall.place` puts named devices first. A cable runs up from its device to the tray (`vertical_m`), along the
rows and across them (Manhattan: racks apart x rack width + rows apart x row pitch), down again, plus
`slack_m` and, for a server's cable, `patch_m`; it is rounded up to whole metres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from netauto.errors import InventoryError
from netauto.inventory.hall import Hall, rack_name
from netauto.inventory.loader import LoadedInventory
from netauto.model.cluster import ClusterModel
from netauto.platforms import racking
from netauto.platforms.racking import Equipment


SERVERS = ("gpu-server", "server")
EPS_KW = 1e-9  # a budget filled exactly (3 x 14.3 kW in 42.9 kW) is within it, whatever the float rounding


@dataclass(slots=True)
class Placed:
    device: str
    model: str
    kind: str  # "gpu-server" | "server" | "switch"
    u: int  # lowest rack unit it takes
    size_u: int
    power_kw: float


@dataclass(slots=True)
class Rack:
    name: str
    row: int
    position: int
    budget_kw: float
    height_u: int
    devices: list[Placed] = field(default_factory=list)

    @property
    def used_u(self) -> int:
        return sum(d.size_u for d in self.devices)

    @property
    def power_kw(self) -> float:
        return round(sum(d.power_kw for d in self.devices), 3)

    def fits(self, eq: Equipment) -> bool:
        return self.used_u + eq.u <= self.height_u and self.power_kw + eq.power_kw <= self.budget_kw + EPS_KW

    def holds(self, eq: Equipment) -> int:
        """How many of `eq` this rack holds when empty, by the rule of `fits` (42.9 // 14.3 is 2.0 in floats)."""
        return min(int((self.budget_kw + EPS_KW) // eq.power_kw), self.height_u // eq.u)

    def add(self, device: str, kind: str, eq: Equipment) -> None:
        self.devices.append(Placed(device, eq.model, kind, self.used_u + 1, eq.u, eq.power_kw))


@dataclass(slots=True)
class HallPlan:
    hall: Hall
    racks: list[Rack]
    where: dict[str, Rack] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)

    def length_m(self, a: str, b: str) -> int | None:
        """Metres of a cable between two placed devices (None: an end stands outside the hall)."""
        ra, rb = self.where.get(a), self.where.get(b)
        if ra is None or rb is None:
            return None
        h = self.hall
        run = abs(ra.position - rb.position) * h.rack_width_m + abs(ra.row - rb.row) * h.row_pitch_m
        if ra is not rb:
            run += 2 * h.vertical_m
        run += h.slack_m
        if self.kinds[a] in SERVERS or self.kinds[b] in SERVERS:
            run += h.patch_m
        return max(1, math.ceil(round(run, 6)))


def _switch_equipment(loaded: LoadedInventory, hall: Hall, model: str) -> Equipment:
    if model in hall.models:
        m = hall.models[model]
        return Equipment(model, m.u, m.power_kw)
    eq = racking.switch(model)
    if eq is None:
        raise InventoryError(f"no size and power for switch model {model}", **loaded.where("hall", "models"),
                             hint=f"add {model}: {{u: 1, power_kw: 0.5}} (known: {', '.join(racking.switch_models())})")
    return eq


def _devices(loaded: LoadedInventory, hall: Hall, cluster: ClusterModel) -> list[tuple[str, str, Equipment]]:
    """(name, kind, equipment) of every device, in placing order: GPU servers by SU, group nodes, switches."""
    gpu = racking.server(hall.gpu_server)
    if gpu is None:
        raise InventoryError(f"unknown GPU server model {hall.gpu_server}", **loaded.where("hall", "gpu_server"),
                             hint=f"one of {', '.join(racking.server_models())}")
    if hall.gpu_server in hall.models:  # the operator's own figure (e.g. the plan's "about 10 kW")
        own = hall.models[hall.gpu_server]
        gpu = Equipment(gpu.model, own.u, own.power_kw, gpu.nic_cage)
    out = [(s.name, "gpu-server", gpu) for s in sorted(cluster.compute.servers, key=lambda s: (s.su, s.index))]
    for g in cluster.groups:
        m = hall.models.get(g.group)
        if m is None:
            raise InventoryError(f"no size and power for the {g.group} servers", **loaded.where("hall", "models"),
                                 hint=f"add {g.group}: {{u: 2, power_kw: 1.5}} under hall.models")
        out.append((g.name, "server", Equipment(g.group, m.u, m.power_kw)))
    seen: set[str] = set()
    for _, fab in cluster.fabrics():
        for sw in fab.switches:
            if sw.name not in seen:
                seen.add(sw.name)
                out.append((sw.name, "switch", _switch_equipment(loaded, hall, sw.hardware)))
    for o in cluster.oob.switches if cluster.oob else []:
        out.append((o.name, "switch", _switch_equipment(loaded, hall, o.hardware)))
    return out


def _check_capacity(loaded: LoadedInventory, hall: Hall, racks: list[Rack], gpu: Equipment, count: int) -> None:
    per = {r.name: r.holds(gpu) for r in racks}
    holds = sum(per.values())
    if count > holds:
        budgets = sorted({r.budget_kw for r in racks})
        mix = (f"{len(racks)} racks x {per[racks[0].name]} at {budgets[0]:g} kW" if len(budgets) == 1 else
               ", ".join(f"{sum(1 for r in racks if r.budget_kw == b)} racks x {per[next(r.name for r in racks if r.budget_kw == b)]} at {b:g} kW"
                         for b in budgets))
        tall = all(hall.rack_u // gpu.u < int((r.budget_kw + EPS_KW) // gpu.power_kw) for r in racks)  # U limits
        raise InventoryError(
            f"the hall holds {holds} {gpu.model} servers ({mix} and {hall.rack_u}U; {gpu.power_kw:g} kW and {gpu.u}U "
            f"each), the inventory has {count}", **loaded.where("hall", "rack_u" if tall else "power_kw"),
            hint="add racks (hall.rows, hall.racks_per_row) or raise " + (
                "the racks' height (hall.rack_u)" if tall else
                "the racks' power budget (hall.power_kw, hall.rack_power_kw)"))


def _check_budgets(loaded: LoadedInventory, hall: Hall) -> None:
    """A rack_power_kw entry names a row or a rack of this hall (a typo is never a silent default)."""
    for where in hall.rack_power_kw:
        row = ord(where[0]) - ord("A")
        if row >= hall.rows or (len(where) > 1 and not 1 <= int(where[1:]) <= hall.racks_per_row):
            raise InventoryError(f"rack_power_kw names {where}, not a row or rack of a hall of {hall.rows} rows x "
                                 f"{hall.racks_per_row}", **loaded.where("hall", "rack_power_kw", where),
                                 hint=f"rows A..{chr(ord('A') + hall.rows - 1)}, racks A01..{rack_name(hall.rows - 1, hall.racks_per_row - 1)}")


def _check_models(loaded: LoadedInventory, hall: Hall, used: set[str]) -> None:
    """A hall.models key names a server group, a switch model of the cluster or hall.gpu_server: a typo is never
    ignored for the platform figure."""
    for key in hall.models:
        if key not in used:
            raise InventoryError(f"hall.models names {key}: no server group, switch model or GPU server "
                                 f"(hall.gpu_server: {hall.gpu_server}) of this cluster", **loaded.where("hall", "models", key),
                                 hint=f"use one of {', '.join(sorted(used))}")


def _distance(r: Rack, row: float, pos: float) -> tuple[float, int, int]:
    return (abs(r.row - row) * 4 + abs(r.position - pos), r.row, r.position)


def _group_first(r: Rack) -> int:
    """Racks holding only group nodes first, then empty racks, then the rest."""
    if not r.devices:
        return 1
    return 0 if all(d.kind == "server" for d in r.devices) else 2


def _budgets_text(racks: list[Rack]) -> str:
    lo, hi = min(r.budget_kw for r in racks), max(r.budget_kw for r in racks)
    return f"{lo:g} kW" if lo == hi else f"{lo:g} to {hi:g} kW"


def _check_size(loaded: LoadedInventory, racks: list[Rack], name: str, eq: Equipment) -> None:
    """A device taller than the tallest rack or drawing more than the largest budget fits no rack however empty."""
    hall = loaded.inventory.hall
    own = hall is not None and eq.model in hall.models  # its size and power are the inventory's own figures
    tallest, top = max(r.height_u for r in racks), max(r.budget_kw for r in racks)
    if eq.u > tallest:
        raise InventoryError(f"{name} ({eq.model}, {eq.u}U) is taller than any rack ({tallest}U)",
                             **loaded.where(*(("hall", "models", eq.model) if own else ("hall", "rack_u"))),
                             hint="raise hall.rack_u, or give the device's real size under hall.models")
    if eq.power_kw > top + EPS_KW:
        raise InventoryError(f"{name} ({eq.model}, {eq.power_kw:g} kW) draws more than any rack's budget ({top:g} kW)",
                             **loaded.where(*(("hall", "models", eq.model) if own else ("hall", "power_kw"))),
                             hint="raise hall.power_kw or a rack's hall.rack_power_kw, or give the device's real "
                                  "power under hall.models")


def _put(loaded: LoadedInventory, racks: list[Rack], name: str, kind: str, eq: Equipment) -> Rack:
    _check_size(loaded, racks, name, eq)
    for r in racks:
        if r.fits(eq):
            r.add(name, kind, eq)
            return r
    raise InventoryError(
        f"{name} ({eq.model}, {eq.power_kw:g} kW, {eq.u}U) fits in no rack: every rack is full "
        f"({len(racks)} racks of {racks[0].height_u}U and {_budgets_text(racks)})",
        **loaded.where("hall"), hint="add racks, raise hall.power_kw, or place the device (hall.place)")


def _explicit(loaded: LoadedInventory, hall: Hall, by_name: dict[str, Rack], devices: dict[str, tuple[str, Equipment]],
              plan: HallPlan) -> None:
    for device, rack in hall.place.items():
        if device not in devices:
            raise InventoryError(f"hall.place names {device}, a device the cluster does not have",
                                 **loaded.where("hall", "place", device), hint="use a device name (`netauto show cabling` lists them)")
        r = by_name.get(rack)
        if r is None:
            raise InventoryError(f"{device}: no rack {rack} in a hall of {hall.rows} rows x {hall.racks_per_row}",
                                 **loaded.where("hall", "place", device), hint=f"A01..{rack_name(hall.rows - 1, hall.racks_per_row - 1)}")
        kind, eq = devices[device]
        if not r.fits(eq):
            raise InventoryError(
                f"rack {rack}: {device} ({eq.power_kw:g} kW, {eq.u}U) does not fit: {r.power_kw:g} of "
                f"{r.budget_kw:g} kW and {r.used_u} of {r.height_u}U used", **loaded.where("hall", "place", device),
                hint="place it in another rack or raise hall.power_kw")
        r.add(device, kind, eq)
        plan.where[device] = r


def _place_switches(loaded: LoadedInventory, cluster: ClusterModel, plan: HallPlan,
                    switches: list[tuple[str, str, Equipment]]) -> None:
    """Switches cabled to servers beside them (nearest the middle of their servers' racks), then the switches
    above them nearest the middle of the hall."""
    peers: dict[str, set[str]] = {}
    for link in cluster.all_links():
        peers.setdefault(link.a_device, set()).add(link.b_device)
        peers.setdefault(link.b_device, set()).add(link.a_device)
    upper = []
    for name, kind, eq in switches:
        near = [plan.where[p] for p in peers.get(name, ()) if plan.kinds.get(p) in SERVERS]
        if not near:
            upper.append((name, kind, eq))
            continue
        row = sum(r.row for r in near) / len(near)
        pos = sum(r.position for r in near) / len(near)
        plan.where[name] = _put(loaded, sorted(plan.racks, key=lambda r: _distance(r, row, pos)), name, kind, eq)
    centre = ((plan.hall.rows - 1) / 2, (plan.hall.racks_per_row - 1) / 2)
    central = sorted(plan.racks, key=lambda r: _distance(r, *centre))
    for name, kind, eq in upper:
        plan.where[name] = _put(loaded, central, name, kind, eq)


def place(loaded: LoadedInventory, cluster: ClusterModel) -> HallPlan:
    hall = loaded.inventory.hall
    assert hall is not None
    _check_budgets(loaded, hall)
    racks = [Rack(rack_name(row, pos), row, pos, hall.budget_kw(row, pos), hall.rack_u)
             for row in range(hall.rows) for pos in range(hall.racks_per_row)]
    listed = _devices(loaded, hall, cluster)
    _check_models(loaded, hall, {eq.model for _, _, eq in listed} | {hall.gpu_server})
    plan = HallPlan(hall, racks, kinds={n: k for n, k, _ in listed})
    gpus = [eq for _, k, eq in listed if k == "gpu-server"]
    if gpus:
        _check_capacity(loaded, hall, racks, gpus[0], len(gpus))
    by_name = {r.name: r for r in racks}
    _explicit(loaded, hall, by_name, {n: (k, eq) for n, k, eq in listed}, plan)
    servers = [(n, k, eq) for n, k, eq in listed if k != "switch" and n not in plan.where]
    for name, kind, eq in servers:  # GPU servers row by row; group nodes in racks of their own kind first
        order = racks if kind == "gpu-server" else sorted(racks, key=_group_first)
        plan.where[name] = _put(loaded, order, name, kind, eq)
    _place_switches(loaded, cluster, plan, [(n, k, eq) for n, k, eq in listed if k == "switch" and n not in plan.where])
    return plan

