"""Prometheus recording and alerting rules from intent.

Two files. The intent file's groups (`netauto-intent-<network>`) state every design fact as a constant series
(`netauto:bgp_session_expected`, `netauto:port_expected`, `netauto:rail_nic_expected`, value 1, labelled device,
port, peer, peer_port, rail, su, network): data, linear in the fabric. The logic file's `netauto-aggregates`
records per-rail and per-SU health and `netauto-alerts` compares what the exporters publish
(netauto.platforms.telemetry) with the intent series, so an alert carries the design's labels and a session or
port that vanished from the exporter's output alerts too (`unless`); its size does not depend on the fabric.
Thresholds are the inventory's `features.verify.thresholds` (the same numbers `netauto verify --window` judges by).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from netauto.monitoring.facts import Fact, Facts
from netauto.platforms import telemetry as t

INTENT_METRIC = {"bgp_session": "netauto:bgp_session_expected", "port": "netauto:port_expected",
                 "rail_nic": "netauto:rail_nic_expected"}
JOIN_LABELS = "peer, peer_port, rail, su, network, plane, role, kind, lossless, uplink, rdma_device, tenant"

# defaults of the threshold keys the alerts read beyond verify's (features.verify.thresholds overrides them).
# Kernel discards and carrier changes are rates, not "any increase": a Linux port counts frames of protocols it
# does not handle (LLDP on a bridged port, IPv6 multicast) as rx_dropped, and one bounce is two carrier changes.
# RoCE loss on a NIC (lossless priority discards, PFC stall, sequence errors) alerts on any increase.
DEFAULTS = {"discards": 0, "discards_per_second": 1, "link_flaps": 4, "uplink_imbalance_percent": 30,
            "pfc_storm_pps": 1000, "uplink_min_bytes_per_second": 1_000_000, "nic_discards": 0,
            "roce_sequence_errors": 0}


@dataclass(frozen=True, slots=True)
class Timing:
    """Windows and hold times: production defaults; the lab uses seconds (`LAB`)."""

    window: str = "5m"  # rate/increase window
    hold: str = "2m"  # `for:` of state alerts (session, port)
    hold_counters: str = "5m"  # `for:` of counter alerts (storms, drops, imbalance)
    verify_stale: int = 7200  # seconds without a `netauto verify --format openmetrics` run
    textfile_stale: int = 300  # seconds the RoCE counters textfile may age (its timer writes it every 10 s)

    @property
    def window_s(self) -> int:
        n, unit = int(self.window[:-1]), self.window[-1]
        return n * {"s": 1, "m": 60, "h": 3600}[unit]


PRODUCTION = Timing()
LAB = Timing(window="30s", hold="0s", hold_counters="0s", textfile_stale=20)  # the lab rewrites it every 2 s


@dataclass(frozen=True, slots=True)
class Alert:
    name: str
    expr: str
    hold: str
    severity: str
    summary: str  # Go template over $labels, as Prometheus expands it


def _established() -> str:
    """Sessions FRR reports Established, keyed like the intent (`port` = FRR's neighbour name)."""
    return (f'(label_replace(max by (device, peer) ({t.FRR_BGP_PEER_STATE}), "port", "$1", "peer", "(.*)") '
            f"== {t.FRR_ESTABLISHED})")


def _on_port(metric: str) -> str:
    return f"{metric} * on(device, port) group_left({JOIN_LABELS})"


def _rdma(counter: str, w: str) -> str:
    return f'increase({t.RDMA_HW_COUNTER}{{counter="{counter}"}}[{w}])'


def alerts(th: dict[str, int], tm: Timing, roce_priorities: list[int]) -> list[Alert]:
    return [*_state_alerts(th, tm), *_roce_alerts(th, tm, roce_priorities), *_verify_alerts(tm),
            *_silence_alerts(tm, roce_priorities)]


def _state_alerts(th: dict[str, int], tm: Timing) -> list[Alert]:
    """Sessions, ports, carrier, kernel discards and uplink balance of the switches (node- and frr-exporter)."""
    w = tm.window
    ports = INTENT_METRIC["port"]
    discards = " + ".join(f"increase({m}[{w}])" for m in t.NODE_DISCARDS)
    rate_up = "netauto:leaf_uplink_tx_bytes:rate"
    by_leaf = "device, network, rail, su"
    return [
        Alert("NetautoBgpSessionDown", f"{INTENT_METRIC['bgp_session']} unless on(device, port) {_established()}",
              tm.hold, "critical", "BGP session {{ $labels.device }} {{ $labels.port }} -> {{ $labels.peer }} "
              "{{ $labels.peer_port }} is not Established (network {{ $labels.network }})"),
        Alert("NetautoPortDown", f"{ports} unless on(device, port) ({t.NODE_NETWORK_UP} == 1)", tm.hold, "critical",
              "{{ $labels.device }} {{ $labels.port }} (to {{ $labels.peer }} {{ $labels.peer_port }}) is not up"),
        Alert("NetautoLinkFlapping", f"({_on_port(f'increase({t.NODE_CARRIER_CHANGES}[{w}])')} {ports}) "
              f"> {th['link_flaps']}", tm.hold, "warning",
              "{{ $labels.device }} {{ $labels.port }} (to {{ $labels.peer }}) keeps changing carrier (flapping)"),
        Alert("NetautoPortDiscards", f"({_on_port(f'({discards})')} {ports}) > "
              f"{max(th['discards'], th['discards_per_second'] * tm.window_s)}", tm.hold_counters,
              "warning", "{{ $labels.device }} {{ $labels.port }} drops or errors packets above the threshold"),
        Alert("NetautoUplinkImbalance", f"(max by ({by_leaf}) ({rate_up}) / avg by ({by_leaf}) ({rate_up}) > "
              f"{1 + th['uplink_imbalance_percent'] / 100:g}) and avg by ({by_leaf}) ({rate_up}) > "
              f"{th['uplink_min_bytes_per_second']}", tm.hold_counters, "warning",
              "{{ $labels.device }}: spine uplinks unevenly loaded (busiest above the threshold over the average)"),
    ]


def _ethtool(stats: list[str], w: str) -> str:
    return f'increase({t.ETHTOOL_STAT}{{stat=~"{"|".join(stats)}"}}[{w}])'


def _roce_alerts(th: dict[str, int], tm: Timing, roce_priorities: list[int]) -> list[Alert]:
    """The rail NICs' RoCE counters (netauto-roce-counters.sh's textfile), joined to their design labels."""
    w = tm.window
    nics = INTENT_METRIC["rail_nic"]
    prios = roce_priorities or [3]
    prio_re = "|".join(f"rx_prio{p}_pause" for p in prios)
    pauses = f'rate({t.ETHTOOL_STAT}{{stat=~"{prio_re}"}}[{w}])'
    discards = sorted({s.format(p=p) for s in t.NIC_DISCARD_STATS for p in prios})
    seq = f'increase({t.RDMA_HW_COUNTER}{{counter=~"{"|".join(t.SEQUENCE_COUNTERS)}"}}[{w}])'
    return [
        Alert("NetautoRoceEcnWithoutCnp", f"(({_rdma('np_ecn_marked_roce_packets', w)} > 0) unless on(device, port) "
              f"({_rdma('np_cnp_sent', w)} > 0)) * on(device, port) group_left({JOIN_LABELS}) {nics}",
              tm.hold_counters, "critical",
              "{{ $labels.device }} {{ $labels.port }} receives ECN-marked RoCE packets but sends no CNPs"),
        Alert("NetautoRoceCnpNotHandled", f"sum by (network, rail) ({_on_port(_rdma('np_cnp_sent', w))} {nics}) > "
              f"{th.get('np_cnp_sent', 0)} unless on(network, rail) sum by (network, rail) "
              f"({_on_port(_rdma('rp_cnp_handled', w))} {nics}) > 0", tm.hold_counters, "critical",
              "rail {{ $labels.rail }} ({{ $labels.network }}): receivers send CNPs, no sender handles any"),
        Alert("NetautoHostPfcStorm", f"({_on_port(pauses)} {nics}) > "
              f"{th['pfc_storm_pps']}", tm.hold_counters, "critical",
              "{{ $labels.device }} {{ $labels.port }} receives a PFC pause storm on the RoCE priority"),
        # RoCE loss: a lossless class drops nothing, so any increase alerts (hold 0: a drop is not a state)
        Alert("NetautoRoceNicDiscards", f"({_on_port(_ethtool(discards, w))} {nics}) > {th['nic_discards']}", "0s",
              "critical", "{{ $labels.device }} {{ $labels.port }} discards received packets ({{ $labels.stat }}): "
              "RoCE loss on rail {{ $labels.rail }}"),
        Alert("NetautoNicPauseStormPrevention", f"({_on_port(_ethtool([t.PAUSE_STORM_STAT], w))} {nics}) > 0", "0s",
              "critical", "{{ $labels.device }} {{ $labels.port }} stopped sending PFC pause frames (stall "
              "prevention): lossless traffic may have been dropped"),
        Alert("NetautoRoceSequenceErrors", f"({_on_port(seq)} {nics}) > {th['roce_sequence_errors']}", "0s",
              "warning", "{{ $labels.device }} {{ $labels.port }} ({{ $labels.rdma_device }}) counts "
              "{{ $labels.counter }}: RoCE packets lost or reordered on rail {{ $labels.rail }}"),
    ]


def _verify_alerts(tm: Timing) -> list[Alert]:
    """Findings of `netauto verify --format openmetrics` (switch lossless drops, PFC watchdog, FEC, QoS, AR)."""
    return [
        Alert("NetautoLosslessDrops", f'{t.VERIFY_FINDING}{{check="counters", item=~".* lossless drops"}} == 1',
              "0s", "critical", "{{ $labels.device }}: {{ $labels.item }} above 0 (netauto verify)"),
        Alert("NetautoPfcWatchdogStorm", f'{t.VERIFY_FINDING}{{check="counters", item=~".* pfc-watchdog storms"}} == 1',
              "0s", "critical", "{{ $labels.device }}: {{ $labels.item }} (netauto verify)"),
        Alert("NetautoFecNotAsIntended", f'{t.VERIFY_FINDING}{{check="fec"}} == 1', "0s", "warning",
              "{{ $labels.device }} {{ $labels.item }}: FEC differs from intent (netauto verify)"),
        Alert("NetautoQosNotAsIntended", f'{t.VERIFY_FINDING}{{check=~"qos|host-qos"}} == 1', "0s", "critical",
              "{{ $labels.device }} {{ $labels.item }}: QoS differs from intent (netauto verify)"),
        Alert("NetautoAdaptiveRoutingNotAsIntended", f'{t.VERIFY_FINDING}{{check="ar"}} == 1', "0s", "warning",
              "{{ $labels.device }}: adaptive routing differs from intent (netauto verify)"),
        Alert("NetautoVerifyStale", f"time() - {t.VERIFY_LAST_RUN} > {tm.verify_stale}", "0s", "warning",
              f"netauto verify has not reported for over {tm.verify_stale} s"),
    ]


# the node-exporter series of a port the alerts read beyond node_network_up (NetautoPortDown reads that one)
PORT_COUNTERS = {m: m for m in (t.NODE_CARRIER_CHANGES, t.NODE_TX_BYTES, *t.NODE_DISCARDS)}


# name -> selector of the RDMA hw_counters the RoCE alerts read (netauto-roce-counters.sh's textfile)
NIC_COUNTERS = {c: f'{t.RDMA_HW_COUNTER}{{counter="{c}"}}'
                for c in ("np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", *t.SEQUENCE_COUNTERS)}


def nic_stats(roce_priorities: list[int]) -> dict[str, str]:
    """name -> selector of the `ethtool -S` statistics the RoCE alerts read, a per-priority one matching any RoCE
    priority of the fabric."""
    names = ["|".join(s.format(p=p) for p in roce_priorities or [3])
             for s in dict.fromkeys(("rx_prio{p}_pause", *t.NIC_DISCARD_STATS, t.PAUSE_STORM_STAT))]
    return {n: f'{t.ETHTOOL_STAT}{{stat=~"{n}"}}' for n in names}


def _missing(intent: str, selectors: dict[str, str], present: str, per_device: dict[str, str] | None = None) -> str:
    """The intent series of which one of `selectors` (per port; `per_device`: per device) is gone (labelled
    `missing` = its name), where `present` still is: a port or NIC without any data at all is NetautoPortDown's or
    NetautoRoceCountersMissing's."""
    terms = [f'label_replace({intent} unless on({on}) {sel}, "missing", "{name}", "", "")'
             for on, found in (("device, port", selectors), ("device", per_device or {})) for name, sel in found.items()]
    return f"({' or '.join(terms)}) and on(device, port) {present}"


def _silence_alerts(tm: Timing, roce_priorities: list[int]) -> list[Alert]:
    """Data that went missing: an alert over a series returns nothing when the series is gone, so each source
    has one that fires on its absence (an exporter not answering, an expected port or NIC without one of the
    series the alerts read, a textfile no longer written, no verify result at all)."""
    nics = INTENT_METRIC["rail_nic"]
    textfile = f'{t.NODE_TEXTFILE_MTIME}{{file=~"{t.textfile_match(t.ROCE_TEXTFILE)}"}}'
    mtime = f"{t.NODE_TEXTFILE_MTIME} of {t.ROCE_TEXTFILE}"
    return [
        Alert("NetautoExporterDown", 'up{job=~"netauto-.*"} == 0', tm.hold, "critical",
              "{{ $labels.job }} on {{ $labels.device }} is not scraped"),
        Alert("NetautoPortCountersMissing", _missing(INTENT_METRIC["port"], PORT_COUNTERS, t.NODE_NETWORK_UP),
              tm.hold, "warning", "{{ $labels.device }} {{ $labels.port }} (to {{ $labels.peer }}, network "
              "{{ $labels.network }}) publishes no {{ $labels.missing }} (node-exporter): the flapping, discard and "
              "uplink-balance alerts over it cannot fire"),
        # a statistic is expected where the NIC publishes some: a lab veth publishes none (`ethtool -S` of a veth),
        # nor does a host without ethtool (then the hw_counters still alert; docs/monitoring.md, "Silence")
        Alert("NetautoNicCountersIncomplete", f"{_missing(nics, NIC_COUNTERS, t.RDMA_HW_COUNTER, {mtime: textfile})}"
              f" or {_missing(nics, nic_stats(roce_priorities), t.ETHTOOL_STAT)}",
              tm.hold, "critical", "{{ $labels.device }} {{ $labels.port }} ({{ $labels.rdma_device }}, rail "
              "{{ $labels.rail }}, network {{ $labels.network }}) publishes no {{ $labels.missing }}: the RoCE "
              "alerts over it cannot fire"),
        Alert("NetautoRoceCountersMissing", f"{nics} unless on(device, port) {t.RDMA_HW_COUNTER}", tm.hold, "critical",
              "{{ $labels.device }} {{ $labels.port }} ({{ $labels.rdma_device }}, rail {{ $labels.rail }}) "
              "publishes no RoCE counters (netauto-roce-counters.sh not run, or its textfile gone)"),
        Alert("NetautoCountersTextfileStale", f"time() - {textfile} > {tm.textfile_stale}", tm.hold, "critical",
              "{{ $labels.device }}: {{ $labels.file }} not rewritten for over " f"{tm.textfile_stale} s "
              "(netauto-roce-counters.timer stopped): its counters are frozen"),
        Alert("NetautoVerifyAbsent", f"absent({t.VERIFY_LAST_RUN})", f"{tm.verify_stale}s", "warning",
              f"no netauto verify result in Prometheus for {tm.verify_stale} s (never written, or its textfile "
              "or exporter gone)"),
    ]


def _intent_rule(fact: Fact) -> dict:
    return {"record": INTENT_METRIC[fact.kind], "expr": "vector(1)", "labels": fact.label_map}


def aggregates(tm: Timing) -> list[dict]:
    """Per-rail and per-SU recording rules."""
    w = tm.window
    s, p, n = INTENT_METRIC["bgp_session"], INTENT_METRIC["port"], INTENT_METRIC["rail_nic"]
    rules = [{"record": "netauto:leaf_uplink_tx_bytes:rate",
              "expr": f'rate({t.NODE_TX_BYTES}[{w}]) * on(device, port) group_left({JOIN_LABELS}) {p}{{uplink="true"}}'}]
    for scope in ("rail", "su"):
        rules += [
            # "down" by `unless`, as the alerts: an `and` join inside an aggregation exceeds promtool test's
            # in-test sample limit on fabrics of a few thousand ports (real Prometheus allows 50M)
            {"record": f"netauto:{scope}_bgp_sessions_down:count",
             "expr": f"count by (network, {scope}) ({s} unless on(device, port) {_established()})"},
            {"record": f"netauto:{scope}_bgp_sessions_expected:count", "expr": f"count by (network, {scope}) ({s})"},
            {"record": f"netauto:{scope}_ports_down:count",
             "expr": f"count by (network, {scope}) ({p} unless on(device, port) ({t.NODE_NETWORK_UP} == 1))"},
            {"record": f"netauto:{scope}_ports_expected:count", "expr": f"count by (network, {scope}) ({p})"},
        ]
        for counter in ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets", "out_of_sequence"):
            rules.append({"record": f"netauto:{scope}_{counter}:rate",
                          "expr": f'sum by (network, {scope}) (rate({t.RDMA_HW_COUNTER}{{counter="{counter}"}}[{w}]) '
                                  f"* on(device, port) group_left({JOIN_LABELS}) {n})"})
    return rules


def _group(name: str, rules: list[dict], eval_interval: str | None) -> dict:
    return {"name": name, **({"interval": eval_interval} if eval_interval else {}), "rules": rules}


def rule_groups(th: dict[str, int], tm: Timing, roce_priorities: list[int], eval_interval: str | None = None) -> dict:
    """The logic rules file as a dict (`groups:`: aggregates and alerts), ready for YAML. Its size does not
    depend on the fabric: the design facts are in the intent file (`intent_groups`)."""
    alert_rules = [{"alert": a.name, "expr": a.expr, "for": a.hold, "labels": {"severity": a.severity},
                    "annotations": {"summary": a.summary}} for a in alerts(th, tm, roce_priorities)]
    return {"groups": [_group("netauto-aggregates", aggregates(tm), eval_interval),
                       _group("netauto-alerts", alert_rules, eval_interval)]}


def intent_groups(facts: Facts, eval_interval: str | None = None) -> dict:
    """The intent rules file as a dict: one group per network (`netauto-intent-<network>`; Prometheus evaluates
    groups concurrently, the rules of one group in order), every design fact a constant series."""
    return {"groups": [{**head, "rules": list(rules)} for head, rules in intent_group_items(facts, eval_interval)]}


def intent_group_items(facts: Facts, eval_interval: str | None = None) -> list[tuple[dict, Iterator[dict]]]:
    """`intent_groups` as (group without its rules, its rules made one at a time): for a writer that does not hold
    them all (render.yaml_block.dump_groups)."""
    by_network: dict[str, list[Fact]] = {}
    for f in facts.all():
        by_network.setdefault(f.label_map.get("network", "compute"), []).append(f)
    heads = [{k: v for k, v in _group(f"netauto-intent-{net}", [], eval_interval).items() if k != "rules"}
             for net in by_network]
    return [(head, map(_intent_rule, found)) for head, found in zip(heads, by_network.values())]


def thresholds(model_thresholds: dict[str, int]) -> dict[str, int]:
    return {**DEFAULTS, **model_thresholds}
