"""The Markdown fabric document: summary, devices, addressing, rail plan, QoS profile, per-leaf port maps."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from netauto.docs.groups import FabricGroups, asn_range, group, name_range
from netauto.model.types import FabricModel, Interface, Qos, Switch
from netauto.netutil.ip import ip_of

ROLE_TITLE = {"super_spine": "super-spine", "spine": "spine", "leaf": "leaf"}


def _table(header: list[str], rows: Sequence[Sequence[object]]) -> list[str]:
    def cell(value: object) -> str:
        text = "" if value is None else str(value)
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines + [""]


def _anchor(name: str) -> str:
    return name.lower().replace(" ", "-")


def _ratio(down_mbps: int, up_mbps: int) -> str:
    if not up_mbps:
        return "-"
    ratio = down_mbps / up_mbps
    return "1:1 (non-blocking)" if abs(ratio - 1) < 1e-9 else f"{ratio:.2f}:1"


def _summary(model: FabricModel, g: FabricGroups) -> list[str]:
    roles = Counter(s.role for s in model.switches)
    nos = Counter(f"{s.nos} {s.cumulus_release}" if s.nos == "cumulus" else s.nos for s in model.switches)
    link_kinds = Counter(l.kind for l in model.cables())
    disabled = sum(1 for l in model.cables() if not l.enabled)
    absent = sum(len(su.absent) for su in g.sus.values())
    nics = sum(len(s.rails) for s in model.servers)
    tiers = 3 if g.super_spines else 2
    rows: list[list[object]] = [
        ["tiers", f"{tiers} ({'leaf-spine-super-spine' if tiers == 3 else 'leaf-spine'}), rail-optimized"],
        ["pods / scalable units (SU)", f"{len(g.pods)} / {len(g.sus)}"],
        ["rails", g.rails],
        ["GPU servers", f"{len(model.servers)} ({g.servers_per_su} per SU"
         + (f", {absent} absent" if absent else "") + f"), {nics} rail NICs"],
        ["leaves", f"{roles['leaf']} (one per rail per SU)"],
        ["spines", f"{roles['spine']} ({len(g.pods[0].spines) if g.pods else 0} per pod)"],
    ]
    if g.super_spines:
        per_group = Counter(s.group for s in g.super_spines)
        rows.append(["super-spines", f"{roles['super_spine']} ({len(per_group)} groups x {max(per_group.values())})"])
    rows += [
        ["network OS", ", ".join(f"{k} ({v})" for k, v in sorted(nos.items()))],
        ["host links", f"{model.host_link_mode} from {model.host_pool}"],
        ["links", ", ".join(f"{v} {k}" for k, v in link_kinds.items()) + (f" ({disabled} disabled)" if disabled else "")],
    ]
    for role in ("leaf", "spine", "super_spine"):
        sws = [s for s in model.switches if s.role == role]
        if not sws:
            continue
        sw = sws[0]
        down = [i for i in sw.interfaces if i.kind == "host" or (i.kind != "upstream" and _is_down(model, sw, i.peer_device))]
        up = [i for i in sw.interfaces if i not in down]
        down_mbps, up_mbps = sum(i.speed_mbps for i in down), sum(i.speed_mbps for i in up)
        if up:
            rows.append([f"{ROLE_TITLE[role]} ports", f"{len(down)} x {down[0].speed if down else '-'} down, "
                         f"{len(up)} x {up[0].speed} up: {_ratio(down_mbps, up_mbps)}"])
        else:
            rows.append([f"{ROLE_TITLE[role]} ports", f"{len(down)} x {down[0].speed if down else '-'} down"])
    return ["## Summary", ""] + _table(["", ""], rows)


_RANK = {"leaf": 1, "spine": 2, "super_spine": 3}


def _is_down(model: FabricModel, sw: Switch, peer: str | None) -> bool:
    if peer is None:
        return True
    try:
        return _RANK[model.switch(peer).role] < _RANK[sw.role]
    except KeyError:
        return True  # a server


def _asn_plan(model: FabricModel) -> list[str]:
    rows = []
    for role in ("leaf", "spine", "super_spine"):
        sws = [s for s in model.switches if s.role == role]
        if sws:
            asns = [s.bgp.asn for s in sws]
            rule = {"leaf": "unique per leaf", "spine": "shared by the spines of a pod",
                    "super_spine": "shared by all super-spines"}[role]
            rows.append([ROLE_TITLE[role], asn_range(asns), len(set(asns)), rule])
    sw = model.switches[0] if model.switches else None
    lines = ["## BGP", ""]
    if sw:
        drained = [s.name for s in model.switches if s.bgp.graceful_shutdown]
        lines += [
            f"eBGP unnumbered (RFC 5549) on every fabric link, RFC 7938 ASN plan, timers "
            f"{sw.bgp.keepalive}/{sw.bgp.holdtime} s, maximum-paths {sw.bgp.maximum_paths}"
            + (", as-path multipath-relax" if sw.bgp.multipath_relax else "")
            + ". Graceful shutdown (GSHUT): honour "
            + ("on" if sw.bgp.gshut_honour else "off") + ", prepend " + ("on" if sw.bgp.gshut_prepend else "off")
            + "; drained now: " + (", ".join(drained) if drained else "none") + ".",
            "",
        ]
    return lines + _table(["tier", "ASN(s)", "distinct", "rule"], rows)


def _devices(model: FabricModel) -> list[str]:
    rows = [
        [s.name, ROLE_TITLE[s.role], f"{s.nos} {s.cumulus_release}" if s.nos == "cumulus" else s.nos,
         s.pod or "-", s.su or "-", "-" if s.rail is None else s.rail, s.bgp.asn, ip_of(s.loopback),
         ip_of(s.mgmt_address), "drained" if s.bgp.graceful_shutdown else ""]
        for s in model.switches
    ]
    lines = ["## Switches", ""]
    lines += _table(["name", "role", "NOS", "pod", "SU", "rail", "ASN", "loopback", "management IP", "state"], rows)
    rails = max((len(s.rails) for s in model.servers), default=0)
    header = ["name", "SU", "management IP"] + [f"rail {r}" for r in range(rails)]
    srows = [[s.name, s.su, ip_of(s.mgmt_address)] + [r.address for r in s.rails] for s in model.servers]
    lines += ["## GPU servers", "", "Rail NIC addresses (`ip/prefix`; the gateway is the leaf port at the other end).", ""]
    lines += _table(header, srows)
    return lines


def _rail_plan(model: FabricModel, g: FabricGroups) -> list[str]:
    first = model.servers[0] if model.servers else None
    rows = []
    for r in range(g.rails):
        rail = first.rails[r] if first and r < len(first.rails) else None
        leaves = [su.leaves[r].name for su in g.sus.values() if r < len(su.leaves)]
        rows.append([
            r, rail.nic if rail else "", rail.rdma_device if rail else "",
            model.rail_supernets[r] if r < len(model.rail_supernets) else "",
            name_range(leaves) + (f" ({len(leaves)})" if len(leaves) > 1 else ""),
            rail.table if rail else "", rail.rule_priority if rail else "",
        ])
    lines = [
        "## Rail plan", "",
        "NIC *k* of every server connects to the rail-*k* leaf of its SU; rail *k* owns one supernet. Each host has "
        "one main-table route per rail (the rail supernet) and a per-rail routing table with the fabric summary "
        f"({model.host_pool}), selected by a `from <nic-ip>` rule.", "",
    ]
    lines += _table(["rail", "NIC", "RDMA device", "supernet", "leaves", "host table", "rule priority"], rows)
    su_rows = []
    for su in g.sus.values():
        blocks = [next((p.prefix for p in leaf.bgp.connected_prefixes), "") for leaf in su.leaves]
        su_rows.append([su.su, su.pod, len(su.servers) + len(su.absent), ", ".join(su.absent) or "-",
                        name_range(blocks)])
    lines += ["### Scalable units", ""]
    lines += _table(["SU", "pod", "servers", "absent", "leaf blocks (rail 0 .. last)"], su_rows)
    return lines


def _qos(q: Qos) -> list[str]:
    rows: list[list[object]] = [
        ["RoCE", f"DSCP {q.roce_dscp} -> switch priority {q.roce_priority}", "lossless (PFC), ECN marked"],
        ["CNP", f"DSCP {q.cnp_dscp} -> switch priority {q.cnp_priority}", "strict priority"],
        ["PFC", f"priorities {', '.join(map(str, q.pfc_priorities))} (host bitmap {q.pfc_bitmap})",
         f"cable length {q.cable_length_m} m"],
        ["PFC watchdog", "on" if q.pfc_watchdog else "off",
         f"polling {q.pfc_watchdog_polling_interval_ms} ms, robustness {q.pfc_watchdog_robustness}"
         if q.pfc_watchdog else ""],
        ["ECN (DCQCN)", f"traffic classes {', '.join(map(str, q.ecn_traffic_classes))}",
         f"min {q.ecn_min_threshold} B, max {q.ecn_max_threshold} B, probability {q.ecn_probability} %"],
        ["host RoCE ToS", q.host_tos, f"DSCP {q.host_tos >> 2}, ECN field {('not-ECT', 'ECT(1)', 'ECT(0)', 'CE')[q.host_tos & 3]}"],
        ["profile", "NVIDIA RoCE lossless default" if q.is_nvidia_default else "tuned (differs from the NVIDIA default)", ""],
    ]
    ets = [[e.traffic_class, e.mode, e.weight if e.mode == "dwrr" else "-"] for e in q.ets]
    return (["## QoS profile", ""] + _table(["item", "value", "detail"], rows)
            + ["### Egress scheduling (ETS)", ""] + _table(["traffic class", "mode", "DWRR weight %"], ets))


def _exit(model: FabricModel) -> list[str]:
    """The exit to the site network (`networks.<name>.upstream`): one row per cable of `exit_links`, with the
    session it carries (`Bgp.upstream`)."""
    if not model.exit_links:
        return []
    sessions = {(sw.name, p.interface): p for sw in model.switches if sw.bgp.upstream for p in sw.bgp.upstream.peers}
    rows = []
    for link in model.exit_links:
        sw, peer = model.switch(link.a_device), sessions.get((link.a_device, link.a_port))
        iface = sw.interface(link.a_port)
        rows.append([link.a_device, link.a_port, f"cage {iface.cage}" + (f"/{iface.subport}" if iface.subport is not None else ""),
                     link.b_device, link.b_port or "-", link.speed, iface.address or "-",
                     peer.address if peer else "-", peer.asn if peer else "-",
                     "yes" if peer and peer.bfd else "no", "up" if link.enabled else "down (disabled)"])
    up = next(sw.bgp.upstream for sw in model.switches if sw.bgp.upstream)
    lines = ["## Exit to the site network", "",
             "Numbered eBGP from the aggregation switches to the site routers over point-to-point links (inventory "
             "`upstream:`). Accepted: " + ", ".join(r.frr for r in up.accept) + "; advertised: "
             + ", ".join(r.frr for r in up.advertise) + f"; maximum-prefix {up.maximum_prefix}. The router ends are "
             "the site's: `netauto bom` lists their ports (category `site`) but counts no optic for them.", ""]
    return lines + _table(["switch", "port", "cage", "router", "router port", "speed", "address", "router address",
                           "router AS", "BFD", "state"], rows)


def _port_state(iface: Interface, link_up: dict[tuple[str, str], bool], device: str) -> str:
    if not iface.enabled:
        return "down (reserved)" if iface.peer_device is None else "down (disabled)"
    if not link_up.get((device, iface.name), True):
        return "up (peer port disabled)"
    return "up"


def _port_maps(model: FabricModel) -> list[str]:
    link_up: dict[tuple[str, str], bool] = {}
    for link in model.cables():
        link_up[(link.a_device, link.a_port)] = link.enabled
        link_up[(link.b_device, link.b_port)] = link.enabled
    lines = ["## Leaf port maps", ""]
    for sw in model.switches:
        if sw.role != "leaf":
            continue
        lines += [f"### {sw.name}", "",
                  f"AS {sw.bgp.asn}, loopback {ip_of(sw.loopback)}, management {ip_of(sw.mgmt_address)}, SU {sw.su}, "
                  f"rail {sw.rail}" + (f", gateway {sw.svi.address} on {sw.svi.name}" if sw.svi else "") + ".", ""]
        rows = [
            [i.name, {"host": "host", "upstream": "upstream (site)"}.get(i.kind, "uplink"), i.peer_device or "-", i.peer_port or "-", i.speed,
             i.address or (f"vlan {i.access_vlan}" if i.access_vlan else ("unnumbered" if i.kind == "fabric" else "")),
             _port_state(i, link_up, sw.name)]
            for i in sw.interfaces
        ]
        lines += _table(["port", "kind", "peer", "peer port", "speed", "address", "state"], rows)
    return lines


def fabric_markdown(model: FabricModel, *, pictures: list[tuple[str, str]] | None = None,
                    cabling: str | None = "cabling.csv") -> str:
    """pictures: (title, relative file) shown near the top, e.g. [("topology", "topology.svg")]."""
    g = group(model)
    lines = [f"# Fabric {model.name}", "",
             "Generated by `netauto docs` from the source of truth; do not edit (re-run `netauto docs`).", ""]
    toc = ["Summary", "Topology", "BGP", "Switches", "GPU servers", "Rail plan", "QoS profile"]
    toc += ["Exit to the site network"] if model.exit_links else []
    toc += ["Leaf port maps"]
    lines += ["Contents: " + " · ".join(f"[{t}](#{_anchor(t)})" for t in toc), ""]
    lines += _summary(model, g)
    lines += ["## Topology", ""]
    for title, rel in pictures or []:
        lines += [f"![{title}]({rel})", ""]
    if cabling:
        lines += [f"Cabling plan: [{cabling}]({cabling}) (one row per physical link: "
                  "`a_device,a_port,b_device,b_port,speed,kind,state`).", ""]
    lines += _asn_plan(model)
    lines += _devices(model)
    lines += _rail_plan(model, g)
    qos = model.switches[0].qos if model.switches else (model.servers[0].qos if model.servers else None)
    if qos:
        lines += _qos(qos)
    lines += _exit(model)
    lines += _port_maps(model)
    return "\n".join(lines).rstrip("\n") + "\n"
