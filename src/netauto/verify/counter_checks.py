"""The counters check of `netauto verify`: PFC pauses, ECN marks, CNPs and discards over a window (two reads of
every device), with the RoCE class of each lossless switch."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from netauto.formats import device_json
from netauto.model.types import FabricModel, Switch
from netauto.napalm import parsers
from netauto.verify.expect import Intent
from netauto.verify.findings import CheckResult, na
from netauto.verify.state import QOS_COUNTER_DRIVERS, DeviceState
from netauto.verify.check_base import States, _servers, _switches


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
        now_s, then_s = _readable(_discards, st.out("stats")), _readable(_discards, b.out("stats"))
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


def _readable(parse: Callable[[str | None], dict[str, int]], text: str | None) -> dict[str, int]:
    """What `parse` reads of a device's output; nothing when it is unreadable (no delta: nothing to judge)."""
    try:
        return parse(text)
    except ValueError:
        return {}


@device_json.shaped("ip -j -s link")
def _discards(text: str | None) -> dict[str, int]:
    """`ip -j -s link show`: port -> packets dropped + errors, both directions (on Cumulus switchd mirrors the
    ASIC's port counters into these netdev stats)."""

    out = {}
    for link in device_json.loads(text or "[]"):
        st = link.get("stats64") or {}
        out[parsers.ifname(link)] = sum(int((st.get(d) or {}).get(k, 0) or 0) for d in ("rx", "tx") for k in ("dropped", "errors"))
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
