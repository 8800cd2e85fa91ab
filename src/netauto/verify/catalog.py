"""The catalog of `netauto verify` checks: pure functions from (intent, running state of every device) to findings.

Each check covers one concern and names device, item, expected and actual. A check that cannot be made on a
device says so (status n/a) with the reason, e.g. a veth in the lab has no PHY, so speed and FEC are not there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from netauto.formats import device_json
from netauto.model.ecmp import expected_ecmp
from netauto.model.types import FabricModel, HostBond, Route, Server, Switch
from netauto.napalm import parsers
from netauto.verify.expect import Intent
from netauto.verify.findings import CheckResult, compare, na, ok
from netauto.verify.state import QOS_COUNTER_DRIVERS, DeviceState

States = dict[str, DeviceState]


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    what: str
    run: Callable[[Intent, States], Iterable[CheckResult]]


def _switches(it: Intent, states: States) -> list[Switch]:
    return [sw for sw in it.model.switches if sw.name in states]


def _servers(it: Intent, states: States) -> list[Server]:
    return [s for s in it.model.servers if s.name in states]


def _unreadable(check: str, st: DeviceState, key: str) -> CheckResult | None:
    if key in st.errors:
        return CheckResult(check, st.device, key, "readable", "", "error", st.errors[key])
    return None


# ---------------------------------------------------------------------------------------------- BGP


def check_bgp(it: Intent, states: States) -> Iterable[CheckResult]:
    """Every expected session Established with the right peer; nothing unexpected."""
    for sw in _switches(it, states):
        st = states[sw.name]
        bad = _unreadable("bgp", st, "bgp")
        if bad or st.bgp is None:
            yield bad or CheckResult("bgp", sw.name, "bgp", "readable", "", "error", "no BGP summary")
            continue
        want = it.sessions.get(sw.name, {})
        for iface, peer in sorted(want.items()):
            exp = f"Established with {peer.device} {peer.port}"
            if peer.device not in it.present:
                yield na("bgp", sw.name, iface, "peer not part of this run (lab subset or --limit)", exp)
                continue
            p = st.bgp.peers.get(iface)
            if p is None:
                yield CheckResult("bgp", sw.name, iface, exp, "no such neighbour in the running config", "fail")
                continue
            actual = p.state + (f" with {p.hostname}" if p.hostname else "")
            good = p.state == "Established" and p.hostname in (None, peer.device)
            if p.state == "Established" and p.hostname not in (None, peer.device):
                actual += " (wrong peer: miscabled?)"
            yield CheckResult("bgp", sw.name, iface, exp, actual, "pass" if good else "fail")
        for extra in sorted(set(st.bgp.peers) - set(want)):
            yield CheckResult("bgp", sw.name, extra, "no session (not in the model)", st.bgp.peers[extra].state, "fail")


def check_drain(it: Intent, states: States) -> Iterable[CheckResult]:
    """Drained (bgp graceful-shutdown) exactly where the inventory says so."""
    for sw in _switches(it, states):
        st = states[sw.name]
        if st.drained is None:
            continue
        want = sw.name in it.drained
        words = {True: "drained (bgp graceful-shutdown)", False: "in service"}
        f = compare("drain", sw.name, "graceful-shutdown", words[want], words[st.drained])
        if f.failed and st.drained:
            f.reason = "drained at runtime, not by the inventory: `netauto undrain` puts it back in service"
        yield f


def runtime_drained(states: States, among: Iterable[str] | None = None) -> set[str]:
    """Switches found drained (bgp graceful-shutdown) at runtime; `among`: only these devices (one network's)."""
    keep = None if among is None else set(among)
    return {d for d, st in states.items() if st.drained and (keep is None or d in keep)}


def check_ecmp(it: Intent, states: States) -> Iterable[CheckResult]:
    """ECMP width in the kernel to every other leaf's prefixes equals the uplinks (minus drained switches,
    which the drain check reports on their own)."""
    found = runtime_drained(states, (s.name for s in it.model.switches))
    want_all = expected_ecmp(it.model, found)
    for leaf, prefixes in sorted(want_all.items()):
        st = states.get(leaf)
        if st is None or st.widths is None:
            continue
        drained = sorted(found - it.drained)
        note = f" ({', '.join(drained)} drained)" if drained else ""
        widths = sorted(set(prefixes.values()))
        exp = f"{'/'.join(map(str, widths))} paths{note}"
        wrong = {p: (w, st.widths.get(p, 0)) for p, w in prefixes.items() if st.widths.get(p, 0) != w}
        if not wrong:
            got = sorted({st.widths[p] for p in prefixes})
            yield ok("ecmp", leaf, f"{len(prefixes)} prefixes", exp, f"{'/'.join(map(str, got)) or '-'} paths")
            continue
        by_got: dict[tuple[int, int], list[str]] = {}
        for p, (w, g) in sorted(wrong.items()):
            by_got.setdefault((w, g), []).append(p)
        for (w, g), ps in sorted(by_got.items()):
            shown = ", ".join(ps[:4]) + (f" (+{len(ps) - 4} more)" if len(ps) > 4 else "")
            yield CheckResult("ecmp", leaf, f"{len(ps)} of {len(prefixes)} prefixes", f"{w} paths{note}",
                          f"{g} paths: {shown}", "fail")


# ---------------------------------------------------------------------------------------------- cabling


def _neighbours(st: DeviceState, port: str) -> list[tuple[str, str]]:
    return [(n["hostname"], n["port"]) for n in (st.lldp or {}).get(port, [])]


def check_lldp(it: Intent, states: States) -> Iterable[CheckResult]:
    """LLDP neighbours on every switch port and rail NIC equal the cabling plan (a swapped pair shows at both
    ends of both cables); a neighbour on a port the plan leaves empty is reported too (unless another network of
    the cluster cables that port: its own run checks it)."""
    for dev in sorted(d for d in it.model.device_names() if d in states):
        st = states[dev]
        bad = _unreadable("lldp", st, "lldp")
        if bad:
            yield bad
            continue
        plan = it.cabling.get(dev, {})
        cabled = [p for p, peer in plan.items() if peer is not None and peer.device in it.present]
        if cabled and not any((st.lldp or {}).values()):
            # nothing heard on any port: LLDP has not spoken yet (a device just up: lldpd advertises every 5-30 s)
            # or is off; one line for the device, not one failure per cable
            yield CheckResult("lldp", dev, f"{len(cabled)} cabled ports", "LLDP neighbours per the cabling plan",
                          "not yet: no LLDP neighbour on any port", "fail",
                          "LLDP not heard yet (just booted or restarted: run verify again in 30 s) or not running")
            continue
        for port, peer in sorted(plan.items()):
            if peer is None:
                continue  # disabled: the interface check wants it down
            exp = f"{peer.device} {peer.port}"
            if peer.device not in it.present:
                yield na("lldp", dev, port, "peer not part of this run (lab subset or --limit)", exp)
                continue
            seen = _neighbours(st, port)
            if seen == [(peer.device, peer.port)]:
                yield ok("lldp", dev, port, exp)
            else:
                actual = ", ".join(f"{h} {p}" for h, p in seen) or "no LLDP neighbour"
                yield CheckResult("lldp", dev, port, exp, actual, "fail")
        for port in sorted(set(st.lldp or {}) - set(plan) - it.elsewhere.get(dev, set())):
            if port in ("eth0", "mgmt"):
                continue  # management network: not in the fabric cabling plan
            found = ", ".join(f"{h} {p}" for h, p in _neighbours(st, port))
            yield CheckResult("lldp", dev, port, "nothing (not in the cabling plan)", found, "fail")


# ---------------------------------------------------------------------------------------------- interfaces


def _port_rows(it: Intent, states: States) -> Iterator[tuple[str, str, bool, int, int | None, str | None]]:
    """(device, port, enabled, mtu, speed_mbps, fec) for every switch port and rail NIC in the model."""
    for sw in _switches(it, states):
        for i in sw.interfaces:
            yield sw.name, i.name, i.enabled, i.mtu, i.speed_mbps, i.fec
    for srv in _servers(it, states):
        for r in srv.rails:
            link = next((l for l in it.model.links if l.b_device == srv.name and l.b_port == r.nic), None)
            leaf_if = it.model.switch(r.leaf).interface(r.leaf_port) if r.leaf in {s.name for s in it.model.switches} else None
            yield (srv.name, r.nic, link.enabled if link else True, r.mtu,
                   leaf_if.speed_mbps if leaf_if else None, leaf_if.fec if leaf_if else None)


def check_interfaces(it: Intent, states: States) -> Iterable[CheckResult]:
    """Enabled ports up with the intended MTU; disabled ports down."""
    for dev, port, enabled, mtu, _, _ in _port_rows(it, states):
        got = states[dev].interfaces.get(port)
        if got is None:
            yield CheckResult("interface", dev, port, "present", "no such interface", "fail")
            continue
        if not enabled:
            yield compare("interface", dev, port, "down (disabled)", "down (disabled)" if not got["is_up"] else "up")
            continue
        state = "up" if got["is_up"] else ("admin down" if not got["is_enabled"] else f"oper {got['oper_status'].lower()}")
        yield compare("interface", dev, port, f"up, mtu {mtu}", f"{state}, mtu {got['mtu']}")


def check_speed(it: Intent, states: States) -> Iterable[CheckResult]:
    for dev, port, enabled, _, speed, _ in _port_rows(it, states):
        got = states[dev].interfaces.get(port)
        if got is None or not enabled or speed is None:
            continue
        if got.get("kind") == "veth":
            yield na("speed", dev, port, "veth (lab): no PHY, no link speed", f"{speed} Mb/s")
            continue
        yield compare("speed", dev, port, f"{speed} Mb/s", f"{int(got['speed'])} Mb/s")


def check_fec(it: Intent, states: States) -> Iterable[CheckResult]:
    for dev, port, enabled, _, _, fec in _port_rows(it, states):
        st = states[dev]
        got = st.interfaces.get(port)
        if got is None or not enabled or not fec:
            continue
        if got.get("kind") == "veth":
            yield na("fec", dev, port, "veth (lab): no PHY, no FEC", fec)
            continue
        text = st.out(f"fec:{port}")
        if text is None:
            yield na("fec", dev, port, "`ethtool --show-fec` not available on the device", fec)
            continue
        yield compare("fec", dev, port, fec.lower(), parsers.parse_ethtool_fec(text) or "unknown")


# ---------------------------------------------------------------------------------------------- switch QoS / AR


def _nvue_value(doc: dict, *keys: str) -> object:
    """The first of `keys` present in an `nv show ... -o json` document (spelling differs per release)."""
    for k in keys:
        if k in doc:
            return doc[k]
    return None


_ON = {"on", "enabled", "enable", True}


def check_switch_qos(it: Intent, states: States) -> Iterable[CheckResult]:
    """RoCE lossless mode and adaptive routing as applied, read from the NOS (NVUE `nv show -o json`); on a
    lossy network (a frontend network: no `qos roce` rendered) RoCE must be off."""
    for sw in _switches(it, states):
        st = states[sw.name]
        lossless = sw.qos.lossless
        if st.out("nv") is None:
            reason = ("no NVUE on the device (lab: NVUE and switchd are not emulated)" if sw.nos == "cumulus"
                      else "SONiC: CONFIG_DB not readable (no sonic-cfggen: lab node without SONiC services)")
            if sw.nos == "sonic" and st.out("config_db") is not None:
                yield from _sonic_qos(sw, device_json.loads(st.out("config_db") or "{}"))
                continue
            yield na("qos", sw.name, "roce", reason, sw.qos.mode)
            yield na("ar", sw.name, "adaptive-routing", reason, "enabled" if sw.adaptive_routing else "disabled")
            continue
        # keys as in NVIDIA's NVUE schema (nvueschema models NvueConfigQosRoce / NvueConfigRouterAdaptiveRouting):
        # CL <= 5.14 `enable: on|off`, CL >= 5.15 `state: enabled|disabled`
        roce = device_json.loads(st.out("nv_qos_roce") or "{}")
        yield compare("qos", sw.name, "roce", "enabled" if lossless else "disabled",
                      "enabled" if _nvue_value(roce, "state", "enable") in _ON else "disabled")
        if lossless:
            yield compare("qos", sw.name, "roce mode", "lossless", _nvue_value(roce, "mode"))
        ar = device_json.loads(st.out("nv_ar") or "{}")
        state = _nvue_value(ar, "state", "enable")
        yield compare("ar", sw.name, "adaptive-routing", "enabled" if sw.adaptive_routing else "disabled",
                      "enabled" if state in _ON else "disabled")


def _sonic_qos(sw: Switch, db: dict) -> Iterable[CheckResult]:
    """SONiC CONFIG_DB (`sonic-cfggen -d --print-data`): PFC on the RoCE priorities of every enabled port (none
    on a lossy network)."""
    lossless = sw.qos.lossless
    want = ",".join(str(p) for p in sw.qos.pfc_priorities) if lossless else "none"
    lossless_ports = set(sw.pfc_ports)  # a long-haul port run lossy (cabling.long_haul) has no PFC
    for port in sw.qos_ports:
        got = (db.get("PORT_QOS_MAP", {}).get(port) or {}).get("pfc_enable")
        want_port = want if port in lossless_ports else "none"
        yield compare("qos", sw.name, f"{port} pfc_enable", want_port, got if got else "none")


# ---------------------------------------------------------------------------------------------- hosts


def check_host_routing(it: Intent, states: States) -> Iterable[CheckResult]:
    """Each NIC of the network as its netplan file renders it: the address, and per-NIC policy routing
    (`from <nic ip> lookup <table>` at the rule priority, the table's routes); a bonded NIC pair (`host_routing:
    bond`): the bond's mode, members, state, MTU, address and routes instead."""
    for srv in _servers(it, states):
        st = states[srv.name]
        addrs = parsers.parse_ip_addr(st.out("addrs") or "[]") if st.out("addrs") is not None else None
        rules = device_json.loads(st.out("rules") or "[]")
        routes = device_json.loads(st.out("routes_all") or "[]")
        if srv.bond is not None:
            yield from _bond(srv.name, srv.bond, st, addrs, routes)
            continue
        for r in srv.rails:
            yield from _address(srv.name, r.nic, r.address, addrs)
            hit = [x for x in rules if x.get("priority") == r.rule_priority]
            got = ", ".join(f"from {x.get('src', 'all')} lookup {x.get('table')}" for x in hit) or "no rule"
            yield compare("host-routing", srv.name, f"{r.nic} rule {r.rule_priority}",
                          f"from {r.ip} lookup {r.table}", got)
            yield from _routes(srv.name, r.nic, r.routes, routes)


def _address(device: str, nic: str, want: str, addrs: dict[str, list[str]] | None) -> Iterable[CheckResult]:
    if addrs is None:
        yield na("host-routing", device, f"{nic} address", "`ip -j -4 addr show` not readable", want)
        return
    yield compare("host-routing", device, f"{nic} address", want, ", ".join(addrs.get(nic, [])) or "none")


def _routes(device: str, nic: str, want: list[Route], routes: list[dict]) -> Iterable[CheckResult]:
    """Each rendered route in its table (main if none) with its gateway (and metric, when rendered)."""
    for rt in want:
        table = rt.table or 254
        found = [x for x in routes if _table(x) == table and _dst(x) == rt.to
                 and (rt.metric is None or x.get("metric") == rt.metric)]
        name = "main" if table == 254 else str(table)
        metric = f" metric {rt.metric}" if rt.metric is not None else ""
        yield compare("host-routing", device, f"{nic} table {name} {rt.to}{metric}", _hop(rt.via, nic),
                      " | ".join(sorted({_hop(x.get("gateway"), str(x.get("dev", "-"))) for x in found})) or "no route")


def _hop(gateway: str | None, dev: str) -> str:
    """A route's next hop as verify prints it: `via <gateway>`, or `dev <nic> on-link` for a route without one
    (a leaf-subnet rail route: iproute2's JSON has no "gateway" key then)."""
    return f"via {gateway}" if gateway else f"dev {dev} on-link"


def _bond(device: str, bond: HostBond, st: DeviceState, addrs: dict[str, list[str]] | None,
          routes: list[dict]) -> Iterable[CheckResult]:
    """The server side of a bonded network (templates/host/netplan-bond.yaml.j2: `bonds:`, mode 802.3ad)."""
    got = st.interfaces.get(bond.name)
    if got is None:
        yield CheckResult("host-routing", device, bond.name, "LACP bond (802.3ad)", "no such interface", "fail")
        return
    # the kernel's bond mode names (Documentation/networking/bonding: `mode` 4 is 802.3ad), as netplan's
    yield compare("host-routing", device, f"{bond.name} mode", "802.3ad", got.get("bond_mode") or got.get("kind") or "-")
    members = sorted(n for n, i in st.interfaces.items() if i.get("master") == bond.name)
    yield compare("host-routing", device, f"{bond.name} members", ", ".join(sorted(bond.members)),
                  ", ".join(members) or "none")
    state = "up" if got["is_up"] else ("admin down" if not got["is_enabled"] else f"oper {got['oper_status'].lower()}")
    yield compare("host-routing", device, f"{bond.name} state", f"up, mtu {bond.mtu}", f"{state}, mtu {got['mtu']}")
    yield from _address(device, bond.name, bond.address, addrs)
    yield from _routes(device, bond.name, bond.routes, routes)


def _dst(route: dict) -> str:
    """iproute2 JSON's destination as the model writes it: `default` is 0.0.0.0/0, a host route has /32."""
    dst = str(route.get("dst", ""))
    return "0.0.0.0/0" if dst == "default" else dst if "/" in dst else f"{dst}/32"


def _table(route: dict) -> int:
    t = route.get("table", "main")
    return 254 if t == "main" else int(t) if str(t).isdigit() else -1


def check_host_qos(it: Intent, states: States) -> Iterable[CheckResult]:
    """Trust, PFC vector, ToS, ECN (NP/RP on the RoCE priority) and CNP marking as applied on each rail NIC (a
    lossy network's NICs get no RoCE QoS: nothing to check there)."""
    for srv in _servers(it, states):
        st = states[srv.name]
        q = srv.qos
        if not q.lossless:
            yield na("host-qos", srv.name, ", ".join(r.nic for r in srv.rails),
                     f"lossy network {it.network}: no RoCE QoS is rendered for these NICs")
            continue
        pfc_want = [int(x) for x in q.pfc_bitmap.split(",")]
        for r in srv.rails:
            nic = r.nic
            mq = st.out(f"mlnx_qos:{nic}")
            dcb_pfc = st.out(f"dcb_pfc:{nic}")
            if mq is not None:
                got = parsers.parse_mlnx_qos(mq)
                yield compare("host-qos", srv.name, f"{nic} trust", "dscp", got.trust)
                yield compare("host-qos", srv.name, f"{nic} pfc", pfc_want, got.pfc)
            elif dcb_pfc is not None:
                yield compare("host-qos", srv.name, f"{nic} pfc", pfc_want, parsers.parse_dcb_pfc(dcb_pfc))
                yield na("host-qos", srv.name, f"{nic} trust", "no mlnx_qos (dcb apptrust needs iproute2 >= 6.3)", "dscp")
            else:
                why = ("no mlnx_qos, and `dcb pfc show` fails: the NIC has no DCB support "
                       f"({'veth in the lab' if (st.interfaces.get(nic) or {}).get('kind') == 'veth' else 'no ConnectX driver'})")
                yield na("host-qos", srv.name, f"{nic} trust/pfc", why, f"trust dscp, pfc {q.pfc_bitmap}")
            tos = st.out(f"tos:{nic}")
            if tos is None:
                yield na("host-qos", srv.name, f"{nic} tos", "no RDMA device (/sys/class/infiniband/<dev> missing: no ConnectX NIC)",
                         str(q.host_tos))
            else:
                yield compare("host-qos", srv.name, f"{nic} tos", str(q.host_tos), _first_int(tos))
            ecn = st.out(f"ecn:{nic}")
            if ecn is None:
                yield na("host-qos", srv.name, f"{nic} ecn/cnp", "no /sys/class/net/<nic>/ecn (not a ConnectX netdev)",
                         f"ecn on prio {q.roce_priority}, cnp dscp {q.cnp_dscp} prio {q.cnp_priority}")
                continue
            kv = parsers.parse_sysfs_grep(ecn)
            for side in ("roce_np", "roce_rp"):
                yield compare("host-qos", srv.name, f"{nic} {side} ecn prio {q.roce_priority}", "1",
                              kv.get(f"{side}/enable/{q.roce_priority}"))
            yield compare("host-qos", srv.name, f"{nic} cnp dscp", str(q.cnp_dscp), kv.get("roce_np/cnp_dscp"))
            yield compare("host-qos", srv.name, f"{nic} cnp 802.1p", str(q.cnp_priority), kv.get("roce_np/cnp_802p_prio"))


def _first_int(text: str) -> str:
    for tok in text.replace("=", " ").split():
        if tok.isdigit():
            return tok
    return text.strip()


# ---------------------------------------------------------------------------------------------- counters


# ConnectX RDMA hw_counters (MLNX_OFED "Understanding mlx5 Linux Counters"): CNPs sent by the notification
# point (receiver), handled by the reaction point (sender), ECN-marked RoCE packets received
NP_CNP_SENT, RP_CNP_HANDLED, NP_ECN_MARKED = "np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"


RoceClasses = dict[str, tuple[int, int]]  # lossless switch -> (RoCE switch priority, its traffic class)


def roce_class(sw: Switch) -> tuple[int, int]:
    """The RoCE switch priority and the traffic class it is queued in (Qos.priority_to_tc; `qos roce`: 3 -> 3)."""
    p = sw.qos.roce_priority
    return p, sw.qos.priority_to_tc.get(p, p)


def roce_classes(networks: Iterable[tuple[str, FabricModel]]) -> RoceClasses:
    return {sw.name: roce_class(sw) for _, fab in networks for sw in fab.switches if sw.qos.lossless}


def switch_qos_counters(st: DeviceState, priority: int, tc: int) -> dict[str, parsers.SwitchQosCounters] | None:
    """The switch's RoCE-class counters from its NOS (through its NAPALM driver's parser); None: not readable."""
    driver = QOS_COUNTER_DRIVERS.get(st.nos)
    outputs = {k: st.out(k) for k in st.raw if k.startswith("swqos_")}
    if driver is None or not outputs:
        return None
    try:
        return driver.parse_qos_counters(outputs, priority, tc)
    except ValueError:  # unparsable JSON (json.JSONDecodeError): treated as unreadable
        return None


def counter_deltas(before: States, after: States, roce: RoceClasses | None = None) -> dict[str, dict[str, dict[str, int]]]:
    """device -> NIC or port -> counter -> increase over the window (hw_counters and `ethtool -S` pause
    counters of the NICs, kernel discards, and on the switches in `roce` their NOS's RoCE-class counters as
    `roce_<SwitchQosCounters field>`)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for dev, st in after.items():
        b = before.get(dev)
        if b is None:
            continue
        if dev in (roce or {}):
            cls = (roce or {})[dev]
            now_q, then_q = switch_qos_counters(st, *cls), switch_qos_counters(b, *cls)
            for port, c in (now_q or {}).items():
                prev = (then_q or {}).get(port)
                was = prev.as_dict() if prev else {}
                for name, n in c.as_dict().items():
                    if name in was:
                        out.setdefault(dev, {}).setdefault(port, {})[f"roce_{name}"] = n - was[name]
        now_s, then_s = _discards(st.out("stats")), _discards(b.out("stats"))
        for port, n in now_s.items():
            if port in then_s:
                out.setdefault(dev, {}).setdefault(port, {})["discards"] = n - then_s[port]
        for key in st.raw:
            if not (key.startswith("hw:") or key.startswith("ethtool_s:")):
                continue
            nic = key.split(":", 1)[1]
            now, then = st.out(key), b.out(key)
            if now is None or then is None:
                continue
            parse = parsers.parse_sysfs_grep if key.startswith("hw:") else parsers.parse_ethtool_stats
            cur: dict[str, str | int] = dict(parse(now))
            old: dict[str, str | int] = dict(parse(then))
            for k, v in cur.items():
                try:
                    out.setdefault(dev, {}).setdefault(nic, {})[k] = int(v) - int(old.get(k, v))
                except ValueError:
                    continue
    return out


def _discards(text: str | None) -> dict[str, int]:
    """`ip -j -s link show`: port -> packets dropped + errors, both directions (on Cumulus switchd mirrors the
    ASIC's port counters into these netdev stats)."""

    out = {}
    for link in device_json.loads(text or "[]"):
        st = link.get("stats64") or {}
        out[link["ifname"]] = sum(int((st.get(d) or {}).get(k, 0) or 0) for d in ("rx", "tx") for k in ("dropped", "errors"))
    return out


def check_counters(it: Intent, states: States, deltas: dict | None = None,
                   thresholds: dict[str, int] | None = None) -> Iterable[CheckResult]:
    """Over the window: on the switches (lossless networks) PFC pause frames on the RoCE priority, ECN marks,
    lossless-queue drops and PFC watchdog storms per port, read from the NOS, and kernel discards; on the rail
    NICs PFC pause frames, ECN-marked packets, CNPs sent (NP) and handled (RP). Each increase above its
    threshold is a finding."""
    thresholds = thresholds or {}
    limit_d = thresholds.get("discards", 0)
    for sw in _switches(it, states):
        yield from _switch_qos_counters(it, sw, states[sw.name], deltas, thresholds)
        d = (deltas or {}).get(sw.name)
        if d is None:
            yield na("counters", sw.name, "discards", "no window: run with --window SECONDS")
            continue
        for port in sw.qos_ports:
            n = (d.get(port) or {}).get("discards")
            if n is not None:
                yield CheckResult("counters", sw.name, f"{port} discards", f"<= {limit_d} per window", str(n),
                              "pass" if n <= limit_d else "fail")
    for srv in _servers(it, states):
        st = states[srv.name]
        for r in srv.rails:
            d = (deltas or {}).get(srv.name, {}).get(r.nic)
            if d is not None and "discards" in d:
                yield CheckResult("counters", srv.name, f"{r.nic} discards", f"<= {limit_d} per window", str(d["discards"]),
                              "pass" if d["discards"] <= limit_d else "fail")
            if st.out(f"hw:{r.nic}") is None:
                yield na("counters", srv.name, r.nic, "no RDMA hw_counters (no ConnectX NIC)")
                continue
            if d is None:
                yield na("counters", srv.name, r.nic, "no window: run with --window SECONDS")
                continue
            for name in (NP_ECN_MARKED, NP_CNP_SENT, RP_CNP_HANDLED, f"rx_prio{srv.qos.roce_priority}_pause",
                         f"tx_prio{srv.qos.roce_priority}_pause"):
                if name in d:
                    limit = thresholds.get(name, 0)
                    yield CheckResult("counters", srv.name, f"{r.nic} {name}", f"<= {limit} per window", str(d[name]),
                                  "pass" if d[name] <= limit else "fail")


_SWITCH_QOS_ITEMS = "pfc pause/pfc-watchdog/ecn/lossless drops"
ECN_THRESHOLD = "switch_ecn_marked"


def _switch_qos_reason(sw: Switch) -> str:
    if sw.nos == "cumulus":
        return ("no NVUE RoCE counters on the device (`nv show interface <swp> qos roce counters` / `qos pfc-watchdog`"
                " failed or NVUE is absent: lab nodes run FRR without NVUE or switchd)")
    if sw.nos == "sonic":
        return "no SONiC COUNTERS_DB (no sonic-db-cli/swsscommon: lab nodes run FRR without SONiC services)"
    return f"no QoS counter reader for NOS {sw.nos}"


def _switch_qos_counters(it: Intent, sw: Switch, st: DeviceState, deltas: dict | None,
                         thresholds: dict[str, int]) -> Iterable[CheckResult]:
    """Per RoCE-class port (Switch.qos_ports): pause rx/tx on the RoCE priority (thresholds
    switch_rx_prio<N>_pause / switch_tx_prio<N>_pause, default 0), ECN-marked packets (informational unless
    switch_ecn_marked is set), lossless-queue drops and PFC watchdog storms (must stay 0)."""
    if not sw.qos.lossless:
        yield na("counters", sw.name, _SWITCH_QOS_ITEMS, f"lossy network {it.network} (qos mode lossy): no lossless "
                 "class, no PFC, ECN or PFC watchdog on these ports")
        return
    if deltas is None:
        yield na("counters", sw.name, _SWITCH_QOS_ITEMS, "no window: run with --window SECONDS")
        return
    prio, tc = roce_class(sw)
    if switch_qos_counters(st, prio, tc) is None:
        yield na("counters", sw.name, _SWITCH_QOS_ITEMS, _switch_qos_reason(sw))
        return
    d = deltas.get(sw.name) or {}
    for port in sw.qos_ports:
        got = {k[5:]: v for k, v in (d.get(port) or {}).items() if k.startswith("roce_")}
        if not got:
            yield na("counters", sw.name, f"{port} {_SWITCH_QOS_ITEMS}", "port not in the NOS's counters (both reads)")
            continue
        yield from _port_qos_findings(sw.name, port, prio, tc, got, thresholds)


def _port_qos_findings(dev: str, port: str, prio: int, tc: int, got: dict[str, int],
                       thresholds: dict[str, int]) -> Iterable[CheckResult]:
    def limited(item: str, n: int, limit: int) -> CheckResult:
        if n < 0:
            return na("counters", dev, item, f"counter went back by {-n} (cleared during the window)")
        return CheckResult("counters", dev, item, f"<= {limit} per window", str(n), "pass" if n <= limit else "fail")

    for key, way in (("pause_rx", "rx"), ("pause_tx", "tx")):
        if key in got:
            yield limited(f"{port} prio{prio} {way} pause", got[key], thresholds.get(f"switch_{way}_prio{prio}_pause", 0))
    if "ecn_marked" in got:
        if ECN_THRESHOLD in thresholds:
            yield limited(f"{port} tc{tc} ecn marked", got["ecn_marked"], thresholds[ECN_THRESHOLD])
        else:
            yield CheckResult("counters", dev, f"{port} tc{tc} ecn marked", "informational", str(got["ecn_marked"]), "pass",
                          f"ECN marking is congestion control at work; set thresholds.{ECN_THRESHOLD} to alert")
    if "drops" in got:
        yield limited(f"{port} tc{tc} lossless drops", got["drops"], 0)
    if "wd_storms" in got:
        f = limited(f"{port} tc{tc} pfc-watchdog storms", got["wd_storms"], 0)
        if "wd_drops" in got and f.status != "n/a":
            f.actual += f" ({got['wd_drops']} packets dropped by the watchdog)"
        yield f


CATALOG: dict[str, Check] = {c.name: c for c in (
    Check("bgp", "every expected BGP session Established with the right peer, nothing unexpected", check_bgp),
    Check("drain", "graceful-shutdown only where the inventory drains", check_drain),
    Check("ecmp", "kernel ECMP width to every other leaf's prefixes equals the uplinks", check_ecmp),
    Check("lldp", "LLDP neighbours equal the cabling plan", check_lldp),
    Check("interface", "enabled ports up with the intended MTU, disabled ports down", check_interfaces),
    Check("speed", "link speed as intended", check_speed),
    Check("fec", "FEC as intended", check_fec),
    Check("qos", "RoCE QoS and adaptive routing as applied on the switch", check_switch_qos),
    Check("host-routing", "per-rail policy routing tables and rules", check_host_routing),
    Check("host-qos", "trust, PFC, ToS, ECN and CNP marking on every rail NIC", check_host_qos),
    Check("counters", "PFC pauses, ECN marks and CNPs over a window", check_counters),
)}
