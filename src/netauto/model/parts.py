"""The parts of every link out of a twin-port OSFP switch cage, by speed, reach and form factor: a copper cable
(DAC, then ACC) when the cage's links are short enough and their far ends take it, else a transceiver in each
cage and a crossover fibre (single mode first, multimode when a far cage has no single-mode module), from
the LinkX catalog (platforms/data/linkx.yaml).

One cage holds one plug, so the choice is made per switch cage, for the longest of its links (each link's one
length, model.cabling.link_length: the length its PFC headroom is sized for); the NIC cage is
the GPU server's (hall.gpu_server, platforms/data/racking.yaml) on the compute networks when the inventory has a
hall, else `bom.nic_cages`. A link no part reaches, or two cages no part fits, is an error naming both ends.
A link between two switches longer than any cable, between sites or by its own `cabling.links` run, is the
site's plant, which `netauto bom` lists apart (a bom run or fabric.cable_length_m that long is refused: they
are the hall's runs); a server's link never is: it runs in the hall to its leaf, so longer than its parts reach
it is refused, whatever set its length. Where LinkX serves neither end the parts are optics.yaml's generic IEEE
ones, whose reach (optics.yaml `reach`, on the OM4 multimode netauto assumes) every such link up to 500 m is held
to, between switches too; a switch end with no reach there keeps any cable's 500 m.
`choose` is the one function that decides: the model calls it when it resolves every inventory (so validate and
render refuse what bom would), and `netauto bom` counts what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

from netauto.errors import InventoryError, format_key_path
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.bom import Bom
from netauto.model.compute_planes import inputs_of
from netauto.model.oob import oob_cage
from netauto.model.types import Interface, Link, Switch
from netauto.platforms import linkx, racking
from netauto.platforms.optics import cage_entry, cage_type, optics, reach

if TYPE_CHECKING:
    from netauto.model.cluster import ClusterModel

MGMT_PORTS = ("bmc", "eth0")  # RJ45 management ends: no module
# where a length longer than any cable may come from (model.cabling.link_length): the distance between two sites,
# or one link's stated run (cabling.links); a bom run or fabric.cable_length_m is a run in the hall
PLANT = ("sites", "cabling.links")
LinkKey = tuple[str, str, str, str]


def key_of(link: Link) -> LinkKey:
    return (link.a_device, link.a_port, link.b_device, link.b_port)


@dataclass(slots=True)
class CageParts:
    """What fills one twin-port switch cage and carries its links."""

    device: str
    cage: int
    form: str
    links: list[Link] = field(default_factory=list)
    length_m: int = 0  # the longest of its links
    copper: linkx.Copper | None = None
    copper_m: float = 0  # the copper cable's length
    counted: bool = True  # False: the far twin-port cage's copper cable already counts this one
    media: str = ""
    module: linkx.Module | None = None


@dataclass(slots=True)
class Parts:
    cages: dict[tuple[str, int], CageParts] = field(default_factory=dict)
    nic_modules: dict[LinkKey, linkx.Module] = field(default_factory=dict)  # NIC end of a link on optics
    nic_forms: dict[LinkKey, str] = field(default_factory=dict)
    copper_links: set[LinkKey] = field(default_factory=set)
    media: dict[LinkKey, str] = field(default_factory=dict)


def _nic_form(loaded: LoadedInventory, cluster: ClusterModel, bom: Bom, network: str) -> str:
    """The form factor of the NICs on a network (see the module doc)."""
    net = inputs_of(network)
    stated = bom.nic_cages.get(net)
    hall = loaded.inventory.hall
    server = racking.server(hall.gpu_server) if hall is not None and net == "compute" else None
    if server is not None:
        explicit = loaded.inventory.bom is not None and stated is not None
        if explicit and stated is not None and linkx.nic_form(stated) != server.nic_cage:
            mod = next((m for m in linkx.modules() if m.form == linkx.nic_form(stated)), None)
            device = cluster.compute.servers[0].name if cluster.compute.servers else server.model
            raise InventoryError(
                f"{device} ({server.model}): {mod.part if mod else stated} ({linkx.nic_form(stated)}, the module of "
                f"bom.nic_cages.{net}: {stated}) does not fit its {server.nic_cage} NIC cages (platforms/data/"
                "racking.yaml)", **loaded.where("bom", "nic_cages", net),
                hint=f"set bom.nic_cages.{net}: {server.nic_cage} or delete it (the hall's gpu_server gives it)")
        return server.nic_cage
    if stated is None:
        raise InventoryError(f"no NIC cage for the {network} network", **loaded.where("bom", "nic_cages"),
                             hint=f"add {net}: OSFP-RHS (or OSFP-twin-RHS, QSFP112, SFP28, RJ45)")
    form = linkx.nic_form(stated)
    if not linkx.nic_cage(form):
        raise InventoryError(
            f"{stated} is a switch cage (finned twin-port OSFP, platforms/data/linkx.yaml): "
            "no server NIC cage takes its modules", **loaded.where("bom", "nic_cages", net),
            hint="OSFP-twin-RHS (DGX H100/H200/B200: flat-top twin-port), OSFP-RHS (ConnectX-7/OSFP cards) or QSFP112")
    return form


def nic_module(loaded: LoadedInventory, bom: Bom, link: Link) -> str | None:
    """The module at the NIC end (b) of a server link out of a cage LinkX does not serve (optics.yaml `nics`, by the
    network's NIC cage and the link speed), None when it needs none (RJ45). The one check validate and bom make."""
    net = inputs_of(link.network)
    cage = bom.nic_cages.get(net)
    if cage is None:
        raise InventoryError(f"no NIC cage for the {link.network} network", **loaded.where("bom", "nic_cages"),
                             hint=f"add {net}: OSFP-RHS (or SFP28, QSFP28, RJ45)")
    nics = optics()["nics"]
    if link.speed not in nics.get(cage, {}):
        known = [c for c, speeds in nics.items() if link.speed in speeds]
        raise InventoryError(
            f"{link.a_device}:{link.a_port} - {link.b_device}:{link.b_port}: no {link.speed} module for the {cage} NIC "
            "cage (platforms/data/optics.yaml nics)", **loaded.where("bom", "nic_cages", net),
            hint=f"set bom.nic_cages.{net} to the NICs' cage" + (f" ({', '.join(known)} at {link.speed})" if known else ""))
    module = nics[cage][link.speed]
    return str(module) if module else None


class _Chooser:
    def __init__(self, loaded: LoadedInventory, cluster: ClusterModel, bom: Bom) -> None:
        self.loaded, self.cluster, self.bom = loaded, cluster, bom
        self.cage_type = cage_type
        self.switches: dict[str, Switch] = {sw.name: sw for _, fab in cluster.fabrics() for sw in fab.switches}
        self.servers = set(cluster.server_names())
        self.out = Parts()
        self.forms: dict[str, str] = {}  # network -> NIC form
        self.cage_ends: dict[str, dict[int, tuple[int, str] | None]] = {}  # switch model -> cage -> (cage, form)
        self.coppers: dict[tuple[frozenset[str], int], list[tuple[linkx.Copper, float]]] = {}
        self.choices: dict[tuple[str, tuple[str, ...], int], tuple[str, linkx.Module | None, list[linkx.Module | None], int]] = {}
        self.generic: dict[tuple[str, str, str], tuple[int, str, str] | None] = {}  # (device, port, speed) -> reach
        self.ports: dict[str, dict[str, Interface]] = {}  # switch -> its ports by name (end_cage, generic_reach)
        self.oob: dict[str, str] = {s.name: s.hardware for s in cluster.oob.switches} if cluster.oob else {}

    def port_map(self, sw: Switch) -> dict[str, Interface]:
        """A switch's ports by name, indexed once (not a scan of its ports per link end); the first of a name wins,
        as Switch.interface."""
        ports = self.ports.get(sw.name)
        if ports is None:
            ports = self.ports[sw.name] = {i.name: i for i in reversed(sw.interfaces)}
        return ports

    def end_cage(self, device: str, port: str) -> tuple[int, str] | None:
        """(cage, form) of a switch end in a twin-port cage LinkX serves, None otherwise. Every link asks for both
        its ends, some more than once (~1.5 million asks at 100k): a switch's ports are indexed once and a model's
        cages looked up once, and a call allocates nothing."""
        sw = self.switches.get(device)
        if sw is None or port in MGMT_PORTS:
            return None
        ports = self.ports.get(device) or self.port_map(sw)  # the hot path: no call once indexed
        cage = ports[port].cage or 0  # KeyError(port), as Switch.interface: a link names a port its switch lacks
        ends = self.cage_ends.get(sw.hardware)
        if ends is None:
            ends = self.cage_ends[sw.hardware] = {}
        if cage not in ends:
            form = linkx.switch_form(self.cage_type(sw.hardware, cage))
            ends[cage] = (cage, form) if form else None
        return ends[cage]

    def far_form(self, link: Link, far_device: str, far_port: str) -> str:
        end = self.end_cage(far_device, far_port)
        if end is not None:
            return end[1]
        if far_device in self.switches:
            return f"{self.switches[far_device].hardware} cage"  # a switch cage no LinkX part here serves
        if link.network not in self.forms:
            self.forms[link.network] = _nic_form(self.loaded, self.cluster, self.bom, link.network)
        return self.forms[link.network]

    def server_link(self, link: Link) -> bool:
        """A link with a server end (rail, storage, frontend NIC or BMC): an in-hall run to its leaf (NVIDIA's
        rail-optimised SU keeps a server and its leaves in one SU), never the site's long-reach plant."""
        return link.a_device in self.servers or link.b_device in self.servers

    def collect(self) -> None:
        longest = racking.longest_cable_m()
        carried: dict[str, bool] = {}
        for link in self.cluster.all_links():
            long = link.length_m > longest
            if long and not self.server_link(link):
                if link.length_from in PLANT:
                    continue  # between two switches, between sites or one stated run: the site's plant, listed apart
                self.refuse_run(link, longest, f"longer than any cable ({longest} m)")
            if link.speed not in carried:
                carried[link.speed] = linkx.carries(link.speed)
            ea, eb = (self.end_cage(link.a_device, link.a_port), self.end_cage(link.b_device, link.b_port)) \
                if carried[link.speed] else (None, None)
            mgmt = link.a_port in MGMT_PORTS or link.b_port in MGMT_PORTS or link.kind == "upstream"
            if mgmt or (ea is None and eb is None):  # generic IEEE parts (optics.yaml): no LinkX part carries it
                self.check_generic(link, longest)
            if mgmt:
                continue
            if ea is None and eb is None:
                if link.b_device in self.servers:
                    nic_module(self.loaded, self.bom, link)  # generic optics at the NIC end (bom counts it)
                continue
            if ea is not None:
                self.add(link.a_device, ea, link)
            if eb is not None:
                self.add(link.b_device, eb, link)

    def add(self, device: str, end: tuple[int, str], link: Link) -> None:
        """One link into the cage of one of its switch ends."""
        g = self.out.cages.get((device, end[0]))
        if g is None:
            g = self.out.cages[(device, end[0])] = CageParts(device, end[0], end[1])
        g.links.append(link)
        if link.length_m > g.length_m:
            g.length_m = link.length_m  # the longest of its links' one length (model.cabling)

    def generic_reach(self, device: str, port: str, speed: str) -> tuple[int, str, str] | None:
        """(metres, medium, PHY) of the generic IEEE part at one end of a link (optics.yaml `cages` and `reach`: a
        switch cage's module, a management port's RJ45), None where the data gives no reach (a server's NIC end
        takes the switch end's PHY, a site router's is the site's)."""
        key = (device, port, speed)
        if key not in self.generic:
            sw = self.switches.get(device)
            entry = None
            if port in MGMT_PORTS:
                entry = cage_entry("RJ45", 1, speed)
            elif sw is not None:
                iface = self.port_map(sw).get(port)
                entry = cage_entry(self.cage_type(sw.hardware, iface.cage), iface.breakout, speed) \
                    if iface is not None and iface.cage else None
            elif device in self.oob and (cage := oob_cage(port)) is not None:  # an OOB switch: one link per cage
                entry = cage_entry(self.cage_type(self.oob[device], cage), 1, speed)
            phy = str(entry["phy"]) if entry and entry.get("phy") else None
            self.generic[key] = (*reach(phy), phy) if phy else None
        return self.generic[key]

    def check_generic(self, link: Link, longest: int) -> None:
        """A link on generic IEEE parts no longer than the shortest reach of its parts (optics.yaml `reach`, on the
        fibre grade netauto assumes), or than any cable where the data gives none."""
        found = [r for r in (self.generic_reach(link.a_device, link.a_port, link.speed),
                             self.generic_reach(link.b_device, link.b_port, link.speed)) if r is not None]
        if found and link.length_m > min(found)[0]:
            metres, medium, phy = min(found)
            self.refuse_run(link, metres, f"longer than the reach of its {phy} parts ({metres} m on {medium}, "
                                          "platforms/data/optics.yaml reach; no longer-reach part there)")
        elif link.length_m > longest:
            self.refuse_run(link, longest, f"longer than any cable ({longest} m)")

    def far(self, g: CageParts, link: Link) -> tuple[str, str]:
        """The other end of one of a cage's links: its b end when its a end is this cage (a port of this switch in
        this cage: collect indexed the switch's ports, and a cage of a switch has one form)."""
        if link.a_device == g.device and (self.ports[g.device][link.a_port].cage or 0) == g.cage:
            return link.b_device, link.b_port
        return link.a_device, link.a_port

    def copper_fits(self, forms: set[str], metres: int) -> list[tuple[linkx.Copper, float]]:
        """The copper cables, in catalog order, whose far end takes every far cage of a cage, each with its
        shortest length that reaches `metres` (remembered: most cages have the same few far forms and lengths)."""
        key = (frozenset(forms), metres)
        if key not in self.coppers:
            self.coppers[key] = [(c, fit[0]) for c in linkx.coppers()
                                 if forms == {c.far} and (fit := [m for m in sorted(c.lengths) if m >= metres])]
        return self.coppers[key]

    def try_copper(self, g: CageParts, fars: list[tuple[str, str]], forms: list[str]) -> bool:
        for c, fit_m in self.copper_fits(set(forms), g.length_m):
            if c.split == 1:
                cages = {(d, (self.end_cage(d, p) or (0, ""))[0]) for d, p in fars}
                other = self.out.cages.get(next(iter(cages))) if len(cages) == 1 else None
                if other is None or {key_of(x) for x in other.links} != {key_of(x) for x in g.links}:
                    continue
                other.copper, other.copper_m, other.counted = c, fit_m, False
            elif len(g.links) > c.split or any(d in self.switches for d, _ in fars):
                continue
            g.copper, g.copper_m = c, fit_m
            self.out.copper_links.update(key_of(x) for x in g.links)
            return True
        return False

    def medium(self, form: str, fars: tuple[str, ...], metres: int,
               ) -> tuple[str, linkx.Module | None, list[linkx.Module | None], int]:
        """(medium, this cage's module, the far cages' modules, the best reach) of the first medium whose
        modules in a `form` cage and in every far cage reach `metres` ("" and no modules when none does; remembered:
        most cages of a fabric ask the same question)."""
        key = (form, fars, metres)
        if key in self.choices:
            return self.choices[key]
        best = 0
        for media in linkx.media():
            mine = linkx.module(form, media, metres)
            theirs = [linkx.module(f, media, metres) for f in fars]
            if mine is None or any(m is None for m in theirs):
                continue
            reach = min([mine.reach_m, *(m.reach_m for m in theirs if m)])
            best = max(best, reach)
            if reach >= metres:
                self.choices[key] = (media, mine, theirs, best)
                return self.choices[key]
        self.choices[key] = ("", None, [], best)
        return self.choices[key]

    def optics(self, g: CageParts, fars: list[tuple[str, str]], forms: list[str]) -> None:
        media, mine, theirs, best = self.medium(g.form, tuple(forms), g.length_m)
        if not media:
            self.refuse(g, list(zip(g.links, forms)), best)
        g.media, g.module = media, mine
        out = self.out
        for link, (far, _), form, m in zip(g.links, fars, forms, theirs):
            k = key_of(link)
            if m is not None and form == m.form and far not in self.switches:
                out.nic_modules[k] = m
                out.nic_forms[k] = form
            out.media[k] = media

    def refuse(self, g: CageParts, fars: list[tuple[Link, str]], reach: int) -> NoReturn:
        link, form = max(fars, key=lambda lf: lf[0].length_m)
        ends = f"{link.a_device}:{link.a_port} - {link.b_device}:{link.b_port}"
        if not reach:
            net = inputs_of(link.network)
            raise InventoryError(
                f"{ends}: no LinkX part fits both a {g.form} cage ({g.device}) and a {form} cage",
                **self.loaded.where("bom", "nic_cages"),
                hint=f"give the NICs a cage LinkX serves (bom.nic_cages.{net}: "
                     f"{', '.join(f for f in linkx.forms() if linkx.nic_cage(f))})")
        self.refuse_run(link, reach, f"longer than the reach of any part that fits their cages ({g.form} to {form}: "
                                     f"{reach} m)")

    def refuse_run(self, link: Link, reach: int, why: str) -> NoReturn:
        """A link no part reaches: one line naming both ends, where its length came from and the fix that fits
        (a server's link put in another site than its leaf by cabling.sites: the server's site)."""
        metres, key = link.length_m, link.length_key
        ends = f"{link.a_device}:{link.a_port} - {link.b_device}:{link.b_port}"
        if link.length_from == "sites" and self.server_link(link):
            raise InventoryError(
                f"{ends}: {metres} m between their sites ({format_key_path(key)}), {why}: a server's link runs in "
                "its leaf's hall", **self.loaded.where("cabling", "sites"),
                hint="put the server in its leaf's site (cabling.sites patterns match both, e.g. su2-*)")
        between = "" if self.server_link(link) or link.length_from in PLANT or metres <= racking.longest_cable_m() else \
            "; a run between buildings goes in cabling.sites and cabling.site_distance_m, or cabling.links for one link"
        raise InventoryError(
            f"{ends}: {metres} m{' between their racks' if key == ('hall',) else ''}, {why}",
            **self.loaded.where(*key),
            hint="place the two ends closer (hall.place) or shorten the run" if key == ("hall",)
            else f"set {format_key_path(key[:2]) if key[:2] == ('cabling', 'links') else format_key_path(key)} to the real "
                 f"run (at most {reach} m){between}")

    def run(self) -> Parts:
        self.collect()
        for g in self.out.cages.values():
            if g.copper is None:
                fars = [self.far(g, link) for link in g.links]
                forms = [self.far_form(link, *f) for link, f in zip(g.links, fars)]
                if not self.try_copper(g, fars, forms):
                    self.optics(g, fars, forms)
        self.one_medium()
        return self.out

    def one_medium(self) -> None:
        """A link between two twin-port switch cages: both modules on the same medium (one fibre joins them)."""
        seen: dict[LinkKey, CageParts] = {}
        for g in self.out.cages.values():
            for link in g.links if g.module is not None else ():
                k = key_of(link)
                other = seen.setdefault(k, g)
                if other.media != g.media:
                    raise InventoryError(
                        f"{k[0]}:{k[1]} - {k[2]}:{k[3]}: cage {other.cage} of {other.device} takes "
                        f"{other.module.part if other.module else other.media}, cage {g.cage} of {g.device} "
                        f"{g.module.part if g.module else g.media}: no fibre joins a {other.media} and a {g.media} "
                        "module", **self.loaded.where("bom", "nic_cages"),
                        hint="give the NICs behind those cages cages with a module on one medium (bom.nic_cages)")


def choose(loaded: LoadedInventory, cluster: ClusterModel, bom: Bom) -> Parts:
    """The parts of every link out of a twin-port OSFP switch cage (see the module doc)."""
    return _Chooser(loaded, cluster, bom).run()


def default_inputs(cluster: ClusterModel) -> Bom:
    """The bill's inputs of an inventory without `bom:` (optics.yaml `defaults`): one NIC cage per network by
    its QoS. No run lengths: every link has its length from the model (model.cabling.link_length)."""
    data = optics()["defaults"]
    cages = {"compute": data["nic_cages"]["compute"]}
    cages.update({p.name: data["nic_cages"][p.qos] for p in cluster.networks})
    return Bom(nic_cages=cages, cable_length_m={})
