"""`netauto bom`: switches, transceivers and cables of every network of a cluster, from the resolved model.

Optics follow the cage, not the link: a switch cage's type comes from the switch's model as the resolved model
holds it (Switch.hardware from fabric.switch_hardware / networks.<name>.switch_hardware, OobSwitch.hardware from
oob.hardware; cage facts in platforms/data/optics.yaml), and what fills it from the cage type and how the cage is
split (a twin-port OSFP holds one 800G module whether it carries 2 x 400G or 4 x 200G). The NIC end takes
the module of its NIC cage at the link's speed. A cable is counted once per link, a 1:2 splitter once per two.

The frontend's exit (links of kind "upstream", `FabricModel.exit_links`): the aggregation switch's end counts
like any switch end (its cage, its breakout) and the cable is counted (the link's length, model.cabling.link_length,
type as the switch cage needs it); the site router's end is the site's equipment, whose cage netauto
does not know: it is listed as a line of category "site" (one per router port, at the link speed), not as a
transceiver, and totalled apart from the transceivers.
"""

from __future__ import annotations

import csv
import io
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any

from netauto.platforms import linkx, racking
from netauto.platforms.optics import DATA, cage_entry, cage_type, fibre_item, optics

from netauto.errors import InventoryError, NetautoError, format_key_path
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.bom import Bom
from netauto.model.cluster import ClusterModel
from netauto.model.oob import oob_cage
from netauto.model.parts import MGMT_PORTS, default_inputs, LinkKey, Parts, choose, key_of, nic_module
from netauto.model.types import Link, Switch

TOTAL = "total"
log = logging.getLogger(__name__)


def longest_patch_m() -> int:
    """The longest cable class the bill counts (optics.yaml length_classes)."""
    return racking.longest_cable_m()


def part_of(category: str, item: str, length: str) -> str:
    """The part number of a bill line (the LinkX catalog, platforms/data/linkx.yaml; a switch's part is its
    model), "" when it has none (generic IEEE optics, copper patches)."""
    if category == "switch":
        return item.split()[0]
    part = linkx.parts_by_item().get(item, "")
    if category == "transceiver" or not part:
        return part
    if any(c.item == item for c in linkx.coppers()):
        return linkx.copper_part(item, _metres(length))
    return f"{part}-N{int(_metres(length)):03d}"  # a fibre: family and length code in metres


def length_class(metres: int) -> str:
    for c in optics()["length_classes"]:
        if metres <= c:
            return f"{c} m"
    raise NetautoError(f"no cable length class for {metres} m")


@dataclass(frozen=True, slots=True)
class Line:
    network: str
    category: str  # "switch" | "transceiver" | "cable" | "site" (the site's end of an upstream link: not counted)
    item: str
    length: str  # length class of a cable, "" otherwise
    count: int

    @property
    def part(self) -> str:
        return part_of(self.category, self.item, self.length)


@dataclass(frozen=True, slots=True)
class _End:
    device: str
    cage: int
    sub: int | None
    breakout: int


class _Counter:
    def __init__(self, loaded: LoadedInventory, cluster: ClusterModel) -> None:
        self.loaded = loaded
        self.cluster = cluster
        if any(not link.length_from for link in cluster.all_links()):  # a model cabling never ran on (a bug)
            raise ValueError("bill_of_materials needs the resolved cluster (model.resolve.resolve_cluster): "
                             "its links have no length")
        self.bom = loaded.inventory.bom or default_bom(loaded, cluster)
        self.switches: dict[str, tuple[str, Switch | None, str]] = {}  # name -> (network, switch, role)
        self.models: dict[str, str] = {}  # name -> switch model, from the resolved model only
        for net, fab in cluster.fabrics():
            for sw in fab.switches:
                self.switches[sw.name] = (net, sw, sw.role)
                self.models[sw.name] = sw.hardware
        if cluster.oob:
            for s in cluster.oob.switches:
                self.switches[s.name] = ("oob", None, s.role)
                self.models[s.name] = s.hardware
        self._check_deprecated_platforms()
        self.counts: Counter[tuple[str, str, str, str]] = Counter()
        self.twin_cages: set[tuple[str, int]] = set()
        self.splitters: set[tuple[str, int, int]] = set()
        self._net: dict[LinkKey, str] = {}

    def _check_deprecated_platforms(self) -> None:
        """`bom.platforms` (older inventories) repeated the switch models; the model is the one source now."""
        if not self.bom.platforms:
            return
        models: dict[tuple[str, str], set[str]] = {}
        for name, (net, _, role) in self.switches.items():
            models.setdefault((net, role), set()).add(self.models[name])
        for net, roles in self.bom.platforms.items():
            for role, stated in roles.items():
                real = models.get((net, role))
                if real is not None and real != {stated}:
                    source = ("oob.hardware" if net == "oob" else "fabric.switch_hardware" if net == "compute"
                              else f"networks.{net}.switch_hardware")
                    raise InventoryError(
                        f"bom.platforms says the {role} switches of the {net} network are {stated}, the model has "
                        f"{', '.join(sorted(real))} (from {source})", **self.loaded.where("bom", "platforms", net, role),
                        hint=f"delete bom.platforms (deprecated); set the model in {source}")
        at = self.loaded.where("bom", "platforms")
        log.warning("%s%s: bom.platforms is deprecated and ignored (it agrees with the model): the switch models come "
                    "from fabric.switch_hardware, networks.<name>.switch_hardware and oob.hardware; delete it",
                    at["file"], f":{at['line']}" if at["line"] else "")

    def platform(self, device: str) -> str:
        return self.models[device]

    def end(self, device: str, port: str) -> _End:
        net, sw, _ = self.switches[device]
        if sw is not None:
            i = sw.interface(port)
            return _End(device, i.cage or 0, i.subport, i.breakout)
        return _End(device, oob_cage(port) or 0, None, 1)

    def cage_entry(self, end: _End, speed: str) -> tuple[str, dict[str, Any]]:
        kind = cage_type(self.platform(end.device), end.cage)
        entry = cage_entry(kind, end.breakout, speed)
        if entry is None:
            raise NetautoError(f"{end.device} cage {end.cage} ({kind}): no module for {speed} / {end.breakout}x")
        return kind, entry

    def switch_end(self, network: str, end: _End, speed: str) -> dict[str, Any]:
        kind, entry = self.cage_entry(end, speed)
        if entry["module"]:
            if entry["per"] == "cage":
                if (end.device, end.cage) not in self.twin_cages:
                    self.twin_cages.add((end.device, end.cage))
                    self.counts[(network, "transceiver", entry["module"], "")] += 1
            else:
                self.counts[(network, "transceiver", entry["module"], "")] += 1
        return entry

    def nic_end(self, network: str, link: Link) -> None:
        if link.b_port in MGMT_PORTS:
            return  # RJ45 management port / BMC: no module
        module = nic_module(self.loaded, self.bom, link)  # every compute plane: the compute fabric's cages
        if module:
            self.counts[(network, "transceiver", module, "")] += 1

    def cable(self, network: str, link: Link, entry: dict[str, Any], a: _End, item: str = "") -> None:
        # the link's one length (model.cabling.link_length), the length its PFC headroom is sized for too
        key = (network, "cable", item or fibre_item(entry), length_class(link.length_m))
        if entry["links_per_fibre"] == 2:
            group = (a.device, a.cage, (a.sub or 0) // 2)
            if group in self.splitters:
                return
            self.splitters.add(group)
        self.counts[key] += entry["fibres_per_link"]

    def long_run(self, network: str, link: Link) -> None:
        """A link longer than any patch cable (between sites, validate accepts it when its headroom fits): its
        optics and fibre are the site's long-reach plant, which this bill does not count; one line says so."""
        key = format_key_path(link.length_key)
        self.counts[(network, "site", f"{link.speed} link over {link.length_m} m ({key}): long-reach optics and the "
                     "site's fibre, not counted", "")] += 1

    def count_linkx(self, parts: Parts) -> set[LinkKey]:
        """Count what model.parts chose for the twin-port OSFP cages: a copper cable per cage (or per pair of
        cages it joins), else a module per cage, the NIC end's module and the fibres of each link."""
        done: set[LinkKey] = set()
        nic_twins: set[tuple[str, str, int]] = set()
        ranks: dict[LinkKey, int] = {}
        for g in parts.cages.values():
            net = g.links[0].network
            if g.copper is not None:
                if g.counted:
                    self.counts[(net, "cable", g.copper.item, f"{g.copper_m:g} m")] += 1
            elif g.module is not None:
                self.counts[(net, "transceiver", g.module.item, "")] += 1
            for link in g.links:
                done.add(key_of(link))
        by_server: dict[tuple[str, str], list[LinkKey]] = {}
        for k in sorted(parts.nic_modules):
            if linkx.twin(parts.nic_forms[k]):
                by_server.setdefault((k[2], self._net[k]), []).append(k)
        for keys in by_server.values():
            ranks.update({k: i for i, k in enumerate(keys)})
        for link in self.cluster.all_links():
            k = key_of(link)
            if k not in done or k in parts.copper_links:
                continue
            m = parts.nic_modules.get(k)
            if m is not None:
                twin = (link.b_device, link.network, ranks.get(k, -1) // 2)
                if k not in ranks or twin not in nic_twins:
                    nic_twins.add(twin)
                    self.counts[(link.network, "transceiver", m.item, "")] += 1
            a = self.end(link.a_device, link.a_port) if link.a_device in self.switches else None
            if a is None or (a.device, a.cage) not in parts.cages:
                a = self.end(link.b_device, link.b_port)
            _, entry = self.cage_entry(a, link.speed)
            item = linkx.fibre(parts.media[k], entry["links_per_fibre"] == 2)[1]
            self.cable(link.network, link, entry, a, item)
        return done

    def run(self) -> list[Line]:
        for name, (net, _, role) in self.switches.items():
            self.counts[(net, "switch", f"{self.platform(name)} {role}", "")] += 1
        links = self.cluster.all_links()
        self._net = {key_of(x): x.network for x in links}
        done = self.count_linkx(choose(self.loaded, self.cluster, self.bom))
        for link in links:
            if key_of(link) in done:
                continue
            net = link.network
            if link.a_port in MGMT_PORTS:  # RJ45 management port to management port (MLAG backup): no module
                self.cable(net, link, optics()["cages"]["RJ45"][link.speed], self.end(link.a_device, link.a_port))
                continue
            if link.length_m > longest_patch_m():
                self.long_run(net, link)
                continue
            a = self.end(link.a_device, link.a_port)
            entry = self.switch_end(net, a, link.speed)
            if link.kind == "upstream":
                self.counts[(net, "site", f"{link.speed} port on a site router (the site's optic, not counted)", "")] += 1
            elif link.b_device in self.switches and link.b_port not in MGMT_PORTS:
                self.switch_end(net, self.end(link.b_device, link.b_port), link.speed)
            else:
                self.nic_end(net, link)
            self.cable(net, link, entry, a)
        order = {name: i for i, (name, _) in enumerate(self.cluster.fabrics())}
        order["oob"] = len(order)
        cats = {"switch": 0, "transceiver": 1, "cable": 2, "site": 3}
        lines = [Line(n, c, item, length, count) for (n, c, item, length), count in self.counts.items()]
        lines.sort(key=lambda x: (order.get(x.network, 99), cats[x.category], x.item, _metres(x.length)))
        totals: Counter[tuple[str, str, str]] = Counter()
        for x in lines:
            totals[(x.category, x.item, x.length)] += x.count
        lines += [Line(TOTAL, c, item, length, n) for (c, item, length), n in
                  sorted(totals.items(), key=lambda kv: (cats[kv[0][0]], kv[0][1], _metres(kv[0][2])))]
        return lines


def default_bom(loaded: LoadedInventory, cluster: ClusterModel, quiet: bool = False) -> Bom:
    """The inputs of an inventory without `bom:` (model.parts.default_inputs), said on stderr unless `quiet`:
    the NIC cages are assumptions; the cable runs are the links' lengths, fabric.cable_length_m where nothing
    more specific gives one (model.cabling.link_length)."""
    bom = default_inputs(cluster)
    if not quiet:
        log.warning("no bom: section in the inventory: NIC cages from %s: %s; every run without a cabling: or hall: "
                    "length is fabric.cable_length_m (%d m, the length its PFC headroom is sized for); add a bom: "
                    "section (see examples/cluster-64/inventory/bom.yaml) for your hall's runs",
                    DATA.name, ", ".join(f"{k} {v}" for k, v in bom.nic_cages.items()),
                    loaded.inventory.fabric.cable_length_m)
    return bom


def _metres(length: str) -> float:
    return float(length.split()[0]) if length else 0


def bill_of_materials(loaded: LoadedInventory, cluster: ClusterModel) -> list[Line]:
    return _Counter(loaded, cluster).run()


COLUMNS = ("network", "category", "item", "length", "count", "part")


def to_csv(lines: list[Line]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    w.writerows((x.network, x.category, x.item, x.length, x.count, x.part) for x in lines)
    return buf.getvalue()


def to_markdown(lines: list[Line], title: str) -> str:
    out = [f"# Bill of materials: {title}", ""]
    for net in dict.fromkeys(x.network for x in lines):
        out += [f"## {net}", "", "| category | item | length | count | part |", "|---|---|---|---:|---|"]
        out += [f"| {x.category} | {x.item} | {x.length} | {x.count} | {x.part} |" for x in lines if x.network == net]
        out.append("")
    return "\n".join(out)
