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
(any cable's 500 m where LinkX serves neither end) it is refused, whatever set its length.
`choose` is the one function that decides: the model calls it when it resolves every inventory (so validate and
render refuse what bom would), and `netauto bom` counts what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from netauto.errors import InventoryError, format_key_path
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.bom import Bom
from netauto.model.compute_planes import inputs_of
from netauto.model.types import Link, Switch
from netauto.platforms import linkx, racking
from netauto.platforms.optics import cage_type, optics

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
        self.ends: dict[tuple[str, str], tuple[int, str] | None] = {}

    def end_cage(self, device: str, port: str) -> tuple[int, str] | None:
        """(cage, form) of a switch end in a twin-port cage LinkX serves, None otherwise (remembered: every
        link asks for both its ends, some more than once)."""
        if (device, port) in self.ends:
            return self.ends[(device, port)]
        sw = self.switches.get(device)
        end = None
        if sw is not None and port not in MGMT_PORTS:
            cage = sw.interface(port).cage or 0
            form = linkx.switch_form(self.cage_type(sw.hardware, cage))
            end = (cage, form) if form else None
        self.ends[(device, port)] = end
        return end

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
        for link in self.cluster.all_links():
            long = link.length_m > longest
            if long and not self.server_link(link):
                if link.length_from in PLANT:
                    continue  # between two switches, between sites or one stated run: the site's plant, listed apart
                self.refuse_run(link, longest, f"longer than any cable ({longest} m)")
            ends = [(d, p, self.end_cage(d, p)) for d, p in ((link.a_device, link.a_port), (link.b_device, link.b_port))] \
                if linkx.carries(link.speed) else []
            mgmt = link.a_port in MGMT_PORTS or link.b_port in MGMT_PORTS or link.kind == "upstream"
            if long and (mgmt or not any(e for _, _, e in ends)):  # a server link no LinkX part carries
                self.refuse_run(link, longest, f"longer than any cable ({longest} m)")
            if mgmt:
                continue
            if not any(e for _, _, e in ends):
                if link.b_device in self.servers:
                    nic_module(self.loaded, self.bom, link)  # generic optics at the NIC end (bom counts it)
                continue
            for d, _, e in ends:
                if e is not None:
                    g = self.out.cages.setdefault((d, e[0]), CageParts(d, e[0], e[1]))
                    g.links.append(link)
                    g.length_m = max(g.length_m, link.length_m)  # the link's one length (model.cabling)

    def far(self, g: CageParts, link: Link) -> tuple[str, str]:
        return (link.b_device, link.b_port) if link.a_device == g.device and \
            self.end_cage(link.a_device, link.a_port) == (g.cage, g.form) else (link.a_device, link.a_port)

    def try_copper(self, g: CageParts) -> bool:
        fars = [self.far(g, link) for link in g.links]
        forms = {self.far_form(link, *f) for link, f in zip(g.links, fars)}
        for c in linkx.coppers():
            fit = [m for m in sorted(c.lengths) if m >= g.length_m]
            if forms != {c.far} or not fit:
                continue
            if c.split == 1:
                cages = {(d, (self.end_cage(d, p) or (0, ""))[0]) for d, p in fars}
                other = self.out.cages.get(next(iter(cages))) if len(cages) == 1 else None
                if other is None or {key_of(x) for x in other.links} != {key_of(x) for x in g.links}:
                    continue
                other.copper, other.copper_m, other.counted = c, fit[0], False
            elif len(g.links) > c.split or any(d in self.switches for d, _ in fars):
                continue
            g.copper, g.copper_m = c, fit[0]
            self.out.copper_links.update(key_of(x) for x in g.links)
            return True
        return False

    def optics(self, g: CageParts) -> None:
        fars = [(link, self.far_form(link, *self.far(g, link))) for link in g.links]
        best = 0
        for media in linkx.media():
            mine = linkx.module(g.form, media, g.length_m)
            theirs = [linkx.module(form, media, g.length_m) for _, form in fars]
            if mine is None or any(m is None for m in theirs):
                continue
            reach = min([mine.reach_m, *(m.reach_m for m in theirs if m)])
            best = max(best, reach)
            if reach >= g.length_m:
                g.media, g.module = media, mine
                for (link, form), m in zip(fars, theirs):
                    if m is not None and form == m.form and self.far(g, link)[0] not in self.switches:
                        self.out.nic_modules[key_of(link)] = m
                        self.out.nic_forms[key_of(link)] = form
                    self.out.media[key_of(link)] = media
                return
        self.refuse(g, fars, best)

    def refuse(self, g: CageParts, fars: list[tuple[Link, str]], reach: int) -> None:
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

    def refuse_run(self, link: Link, reach: int, why: str) -> None:
        """A link no part reaches: one line naming both ends, where its length came from and the fix that fits
        (a server's link put in another site than its leaf by cabling.sites: the server's site)."""
        metres, key = link.length_m, link.length_key
        ends = f"{link.a_device}:{link.a_port} - {link.b_device}:{link.b_port}"
        if link.length_from == "sites" and self.server_link(link):
            raise InventoryError(
                f"{ends}: {metres} m between their sites ({format_key_path(key)}), {why}: a server's link runs in "
                "its leaf's hall", **self.loaded.where("cabling", "sites"),
                hint="put the server in its leaf's site (cabling.sites patterns match both, e.g. su2-*)")
        between = "" if self.server_link(link) or link.length_from in PLANT else \
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
            if g.copper is None and not self.try_copper(g):
                self.optics(g)
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
