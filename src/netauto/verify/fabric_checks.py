"""The switch checks of `netauto verify`: BGP sessions and drain, ECMP width, LLDP against the cabling plan,
interfaces, speed and FEC, RoCE QoS and adaptive routing as applied."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from netauto.formats import device_json
from netauto.formats.nvue import dig
from netauto.model.ecmp import expected_ecmp
from netauto.model.types import Switch
from netauto.napalm import parsers
from netauto.verify.expect import Intent
from netauto.verify.findings import CheckResult, compare, na, ok
from netauto.verify.state import DeviceState
from netauto.verify.check_base import States, _servers, _switches, _unreadable


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


def _nvue_value(doc: object, *keys: str) -> str | bool | None:
    """The first of `keys` present in an `nv show ... -o json` document (spelling differs per release); a document
    or a value of another shape (the device's answer: a list, an object) is none."""
    for k in keys:
        if isinstance(doc, dict) and k in doc:
            return doc[k] if isinstance(doc[k], (str, bool)) else None
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


def _sonic_qos(sw: Switch, db: object) -> Iterable[CheckResult]:
    """SONiC CONFIG_DB (`sonic-cfggen -d --print-data`): PFC on the RoCE priorities of every enabled port (none
    on a lossy network)."""
    lossless = sw.qos.lossless
    want = ",".join(str(p) for p in sw.qos.pfc_priorities) if lossless else "none"
    lossless_ports = set(sw.pfc_ports)  # a long-haul port run lossy (cabling.long_haul) has no PFC
    for port in sw.qos_ports:
        got = dig(db, "PORT_QOS_MAP", port, "pfc_enable")
        got = got if isinstance(got, str) else None  # the device's answer: another shape is no value
        want_port = want if port in lossless_ports else "none"
        yield compare("qos", sw.name, f"{port} pfc_enable", want_port, got if got else "none")
