"""Cable length per link and PFC headroom per port: the physics of a lossless fabric.

Every link of every network gets ONE length (`link_length`: cabling.links, the sites, the hall, bom.cable_length_m,
fabric.cable_length_m), and both its switch ends carry it (`Interface.cable_length_m`): the renderers size each
port's PFC headroom from it, the host NIC its cable_len, `netauto bom` buys its parts for it.
A link between two sites is long-haul: `cabling.long_haul` keeps it lossless (its headroom must fit the
switch's lossless pool, or the inventory is refused) or runs it lossy with ECN only (no PFC on its ports).
SONiC switches take only the cable lengths of their HWSKU's pg_profile_lookup table: longer is refused.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from netauto.errors import InventoryError, format_key_path
from netauto.inventory.loader import LoadedInventory
from netauto.model.cluster import ClusterModel
from netauto.model.compute_planes import inputs_of
from netauto.model.hall import HallPlan, place
from netauto.model.parts import default_inputs, choose
from netauto.model.types import Link, Switch
from netauto.platforms import hardware as hw
from netauto.platforms import racking
from netauto.platforms.nos import sonic_buffer_topology, sonic_device_type


def site_of(loaded: LoadedInventory, device: str, _cache: dict[str, int] | None = None) -> int:
    """The site a device stands in (cabling.sites patterns; unlisted devices are in site 1). `_cache`: answers
    already found for this inventory (a device ends many links)."""
    if _cache is not None and device in _cache:
        return _cache[device]
    site = next((site for site, patterns in sorted(loaded.inventory.cabling.sites.items())
                 if any(fnmatchcase(device, p) for p in patterns)), 1)
    if _cache is not None:
        _cache[device] = site
    return site


def site_distance_m(loaded: LoadedInventory, a: int, b: int) -> tuple[int, tuple[str, ...]]:
    """Fibre metres between two sites and the inventory key that says so."""
    c = loaded.inventory.cabling
    lo, hi = sorted((a, b))
    key = f"{lo}-{hi}"
    if key in c.site_distance_m:
        return c.site_distance_m[key], ("cabling", "site_distance_m", key)
    return round(loaded.inventory.fabric.sites.max_distance_km * 1000), ("fabric", "sites", "max_distance_km")


def link_length(loaded: LoadedInventory, link: Link, sites: dict[str, int] | None = None,
                hall: HallPlan | None = None) -> tuple[int, str, tuple[str, ...]]:
    """(metres, source, inventory key) of one link: THE length of the link, which everything that needs one
    reads (`apply` stores it on the link and its switch ports): the PFC headroom of its ports (NVUE/Cumulus
    cable length, SONiC CABLE_LENGTH), the host NIC's cable_len, the parts and cable `netauto bom` buys, the
    reach validate checks. The most specific source wins:
    1. `cabling.links` (one link, by either end);
    2. the distance between two sites (`cabling.site_distance_m`, else `fabric.sites.max_distance_km`);
    3. the hall (`hall:`: the distance between the racks of its two ends);
    4. `bom.cable_length_m.<network>.<link kind>` (every compute plane: the compute fabric's runs);
    5. `fabric.cable_length_m` (default 100 m), for every other link, OOB included.
    `sites`: a cache for `site_of`; `hall`: the devices' racks (None without `hall:`)."""
    inv = loaded.inventory
    if inv.cabling.links:
        for end in (f"{link.a_device}:{link.a_port}", f"{link.b_device}:{link.b_port}"):
            if end in inv.cabling.links:
                return inv.cabling.links[end], "cabling.links", ("cabling", "links", end)
    if not inv.cabling.sites:
        sa = sb = 1
    else:
        sa, sb = site_of(loaded, link.a_device, sites), site_of(loaded, link.b_device, sites)
    if sa != sb:
        metres, key = site_distance_m(loaded, sa, sb)
        if metres > 0:
            return metres, "sites", key
    if hall is not None and (placed := hall.length_m(link.a_device, link.b_device)) is not None:
        return placed, "hall", ("hall",)
    net = inputs_of(link.network)  # every compute plane: the compute fabric's runs
    runs = inv.bom.cable_length_m.get(net, {}) if inv.bom else {}
    if link.kind in runs:
        return runs[link.kind], "bom", ("bom", "cable_length_m", net, link.kind)
    return inv.fabric.cable_length_m, "fabric", ("fabric", "cable_length_m")


def _set_lengths(loaded: LoadedInventory, cluster: ClusterModel) -> None:
    """Every link of the cluster (every network's, the OOB's) gets its one length (`link_length`)."""
    sites: dict[str, int] = {}
    for link in cluster.all_links():
        link.length_m, link.length_from, link.length_key = link_length(loaded, link, sites, cluster.hall)
        if link.length_from == "hall":
            _check_reach(loaded, link)


def _check_sites(loaded: LoadedInventory) -> None:
    count = loaded.inventory.fabric.sites.count
    for site in loaded.inventory.cabling.sites:
        if site > count:
            raise InventoryError(f"site {site} but fabric.sites.count is {count}", **loaded.where("cabling", "sites", site),
                                 hint=f"raise fabric.sites.count to {site} or number the site 2..{count}")


def apply(loaded: LoadedInventory, cluster: ClusterModel) -> None:
    """Lengths on every link and both switch ends; long-haul links lossy when the inventory says so; every
    lossless switch checked against its lossless pool and (SONiC) its headroom table."""
    _check_sites(loaded)
    if loaded.inventory.hall is not None:
        cluster.hall = place(loaded, cluster)
    _set_lengths(loaded, cluster)
    lossy_haul = loaded.inventory.cabling.long_haul == "lossy-ecn"
    keys: dict[tuple[str, str], tuple[str | int, ...]] = {}  # (switch, port) -> inventory key of its length
    for _, fab in cluster.fabrics():
        # (switch, port) -> interface: one dict instead of a scan of the switch's ports per link end
        ports = {(sw.name, i.name): i for sw in fab.switches for i in reversed(sw.interfaces)}  # first wins
        names = {sw.name for sw in fab.switches}
        for link in fab.cables():
            for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
                if dev not in names:
                    continue
                iface = ports.get((dev, port))
                if iface is None:
                    raise KeyError(port)  # as Switch.interface: a link names a port its switch lacks (a bug)
                iface.cable_length_m = link.length_m
                keys[(dev, port)] = link.length_key
                if lossy_haul and link.length_from == "sites":
                    iface.pfc = iface.pfc_watchdog = False
        for srv in fab.servers:  # each rail NIC sizes its headroom for its own link (the leaf end's length)
            for r in srv.rails:
                iface = ports.get((r.leaf, r.leaf_port))
                r.cable_length_m = iface.cable_length_m if iface is not None and iface.cable_length_m \
                    else loaded.inventory.fabric.cable_length_m
        for sw in fab.switches:
            if sw.qos.lossless:
                sw.qos.cable_length_m = common_length(sw)
                check_headroom(loaded, sw, keys)
    _check_named(loaded, cluster)
    check_parts(loaded, cluster)  # every link's length has a part that reaches it: validate refuses what bom would


def check_parts(loaded: LoadedInventory, cluster: ClusterModel) -> None:
    """Every link out of a twin-port OSFP cage has a LinkX part that fits its cages and reaches its length, and
    every server link out of another cage a module for its NIC cage (the choice `netauto bom` counts:
    model.parts), so validate and render refuse what bom would, on every inventory (its lengths may be
    fabric.cable_length_m's)."""
    choose(loaded, cluster, loaded.inventory.bom or default_inputs(cluster))


def _check_reach(loaded: LoadedInventory, link: Link) -> None:
    """A link inside the hall longer than the longest cable (the bill's limit too: validate and bom agree)."""
    if link.length_m > racking.longest_cable_m():
        raise InventoryError(
            f"{link.a_device}:{link.a_port} - {link.b_device}:{link.b_port}: {link.length_m} m between their racks, "
            f"longer than any cable ({racking.longest_cable_m()} m)", **loaded.where("hall"),
            hint="place the two ends closer (hall.place) or shorten the hall's distances")


def _check_named(loaded: LoadedInventory, cluster: ClusterModel) -> None:
    """A cabling.links end or a cabling.sites pattern that names nothing is a typo, never silently ignored."""
    c = loaded.inventory.cabling
    links = cluster.all_links()
    ends = {f"{d}:{p}" for link in links for d, p in ((link.a_device, link.a_port), (link.b_device, link.b_port))}
    for end in c.links:
        if end not in ends:
            raise InventoryError(f"no link ends at {end}", **loaded.where("cabling", "links", end),
                                 hint="name a cabled port as device:port (`netauto show cabling` lists them)")
    devices = {d for link in links for d in (link.a_device, link.b_device)}
    for site, patterns in c.sites.items():
        for p in patterns:
            if not any(fnmatchcase(d, p) for d in devices):
                raise InventoryError(f"site {site}: pattern {p!r} matches no device", **loaded.where("cabling", "sites", site),
                                     hint="use the devices' names (naming:), e.g. su2-*")


def common_length(sw: Switch) -> int:
    """The cable length most of a switch's lossless ports have (ties: the shorter): its global PFC profile
    (NVUE default-global, qos_features.conf ROCE_PFC); the other lengths get profiles of their own."""
    counts: dict[int, int] = {}
    for iface in sw.pfc_interfaces:
        counts[sw.cable_of(iface)] = counts.get(sw.cable_of(iface), 0) + 1
    return max(counts, key=lambda m: (counts[m], -m)) if counts else sw.qos.cable_length_m


def switch_sku(sw: Switch) -> hw.HwSku:
    """The buffer facts of a switch: its SONiC HWSKU, or on Cumulus its hardware's default SKU (same ASIC, the
    same buffer; SONiC's SKU files are the public source of the pool sizes and headroom rows)."""
    return hw.load_hwsku(sw.hwsku or hw.load_hardware(sw.hardware).default_sku)


def headroom_budget(sw: Switch, sku: hw.HwSku) -> int:
    """The headroom budget of a switch's buffer: for a SONiC switch from the buffer defaults its DEVICE_METADATA
    type selects (a leaf is a T0, whose larger lossy pool leaves less), else the SKU's T1 defaults."""
    kind = sonic_device_type(sw.role, sku.buffer_defaults) if sw.nos == "sonic" else None
    return sku.headroom_budget(sonic_buffer_topology(kind) if kind else "t1")


def headroom_bytes(sw: Switch, sku: hw.HwSku) -> dict[str, int]:
    """Lossless headroom per PFC port: one priority group per PFC priority, sized for the port's cable."""
    n = len(sw.qos.pfc_priorities)
    return {i.name: n * sku.headroom_bytes(i.speed_mbps, sw.cable_of(i)) for i in sw.pfc_interfaces}


def check_headroom(loaded: LoadedInventory, sw: Switch, keys: dict[tuple[str, str], tuple[str | int, ...]]) -> None:
    sku = switch_sku(sw)
    for iface in sw.pfc_interfaces:
        cable = sw.cable_of(iface)
        if sw.nos == "sonic" and sku.lossless_profile(iface.speed_mbps, cable) is None:
            rows = sku.cable_lengths(iface.speed_mbps)
            raise InventoryError(
                f"{sw.name} {iface.name}: {cable} m of cable is longer than any {iface.speed} row of SONiC HWSKU "
                f"{sku.name}'s lossless headroom table ({', '.join(f'{m} m' for m in rows) or 'none'}): buffermgrd "
                "would make no lossless PG", **loaded.where(*_key(keys, sw, iface.name)),
                hint=_fix(_key(keys, sw, iface.name)))
    total = sum(headroom_bytes(sw, sku).values())
    budget = headroom_budget(sw, sku)
    if total > budget:
        longest = max(sw.pfc_interfaces, key=lambda i: (sw.cable_of(i), -sw.interfaces.index(i)))
        key = _key(keys, sw, longest.name)
        raise InventoryError(
            f"{sw.name}: the PFC headroom of its lossless ports ({total} bytes for their cable lengths, the longest "
            f"{sw.cable_of(longest)} m on {longest.name}) exceeds the {budget}-byte headroom "
            f"budget of its ASIC's buffer ({sku.name} buffer facts): PFC would drop on the long links",
            **loaded.where(*key), hint=_fix(key))


def _key(keys: dict[tuple[str, str], tuple[str | int, ...]], sw: Switch, port: str) -> tuple[str | int, ...]:
    """The inventory key that set the cable length of a switch port (the fabric's length when none did)."""
    return keys.get((sw.name, port), ("fabric", "cable_length_m"))


def _fix(key: tuple[str | int, ...]) -> str:
    """The fix that fits where a too-long cable length came from: a link between sites can run lossy with ECN;
    a run length in the hall or one link's length is shortened to the real cable."""
    if key[:2] in (("cabling", "site_distance_m"), ("fabric", "sites")):
        return "set cabling.long_haul: lossy-ecn (ECN only on links between sites), or shorten the links"
    return (f"set {format_key_path(key)} to the cable's real run (metres, not km); a link between sites goes in "
            "cabling.sites and cabling.site_distance_m")
