"""The fabric's Grafana dashboard, built with grafana-foundation-sdk (Grafana's own typed builders, PyPI
`grafana-foundation-sdk`): fabric overview (rails x spines), per-rail RoCE health, BGP and optics/ports. Every
query reads the series the generated rules record (netauto.monitoring.rules) or the exporters publish."""

from __future__ import annotations

import json

from grafana_foundation_sdk.builders import prometheus, stat, table, timeseries
from grafana_foundation_sdk.builders.dashboard import Dashboard, DatasourceVariable, QueryVariable, Row
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import DataSourceRef, VariableRefresh
from grafana_foundation_sdk.models.prometheus import PromQueryFormat

from netauto.platforms import telemetry as t


DS = DataSourceRef(type_val="prometheus", uid="${datasource}")  # the datasource variable: chosen at import
TOP = 20  # per-port and per-NIC panels draw the top 20 (a 10k-GPU fabric has ~10k ports): the rest is per rail/SU
RAIL = 'network=~"$network", rail=~"$rail"'
DEVICE = 'device=~"$device"'


def _query(expr: str, legend: str, ref: str = "A") -> prometheus.Dataquery:
    return prometheus.Dataquery().expr(expr).legend_format(legend).ref_id(ref).datasource(DS)


def _series(title: str, expr: str, legend: str, unit: str = "short") -> timeseries.Panel:
    return timeseries.Panel().title(title).unit(unit).span(12).height(8).datasource(DS).with_target(_query(expr, legend))


def _top(expr: str) -> str:
    return f"topk({TOP}, {expr})"


def _variables(dash: Dashboard) -> Dashboard:
    """datasource (any Prometheus), then network, rail and device from the intent series (multi, All = .*)."""
    dash = dash.with_variable(DatasourceVariable("datasource").label("Prometheus").type("prometheus"))
    for name, query in (("network", "label_values(netauto:port_expected, network)"),
                        ("rail", 'label_values(netauto:rail_nic_expected{network=~"$network"}, rail)'),
                        ("device", 'label_values(netauto:port_expected{network=~"$network"}, device)')):
        dash = dash.with_variable(QueryVariable(name).label(name).datasource(DS).query(query).multi(True)
                                  .include_all(True).all_value(".*").refresh(VariableRefresh.ON_TIME_RANGE_CHANGED))
    return dash


def dashboard_json(fabric: str) -> str:
    up = f'netauto:port_expected{{uplink="true", {RAIL}, {DEVICE}}}'
    dash = _variables(
        Dashboard(f"netauto {fabric}").uid(f"netauto-{fabric}"[:40]).tags(["netauto", fabric]).refresh("30s")
        .time("now-1h", "now").timezone("utc"))
    dash = (
        dash.with_row(Row("Fabric overview"))
        .with_panel(table.Panel().title(f"Leaf uplinks down (first {TOP})").span(24).height(10).datasource(DS)
                    .with_target(_query(_top(f"{up} unless on(device, port) ({t.NODE_NETWORK_UP} == 1)"),
                                        "{{rail}} {{device}} -> {{peer}}").format(PromQueryFormat.TABLE).instant()))  # type: ignore[arg-type]
        .with_panel(stat.Panel().title("BGP sessions down / expected").span(12).height(4).datasource(DS)
                    .with_target(_query('sum(netauto:su_bgp_sessions_down:count{network=~"$network"}) or vector(0)', "down"))
                    .with_target(_query('sum(netauto:su_bgp_sessions_expected:count{network=~"$network"})', "expected", "B")))
        .with_panel(stat.Panel().title("Firing netauto alerts").span(12).height(4).datasource(DS)
                    .with_target(_query('count(ALERTS{alertstate="firing", alertname=~"Netauto.*"}) or vector(0)',
                                        "firing")))
        .with_row(Row("Per-rail RoCE health"))
        .with_panel(_series("CNPs sent per rail (receivers)", f"netauto:rail_np_cnp_sent:rate{{{RAIL}}}",
                            "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series("CNPs handled per rail (senders)", f"netauto:rail_rp_cnp_handled:rate{{{RAIL}}}",
                            "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series("ECN-marked RoCE packets per rail", f"netauto:rail_np_ecn_marked_roce_packets:rate{{{RAIL}}}",
                            "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series("Out-of-sequence per rail", f"netauto:rail_out_of_sequence:rate{{{RAIL}}}",
                            "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series(f"PFC pause frames received (busiest {TOP} NICs)",
                            _top(f'rate({t.ETHTOOL_STAT}{{stat=~"rx_prio.*_pause", {DEVICE}}}[5m])'),
                            "{{device}} {{port}} {{stat}}", "pps"))
        .with_row(Row("BGP"))
        .with_panel(_series("Sessions down per SU", 'netauto:su_bgp_sessions_down:count{network=~"$network"}',
                            "SU {{su}} {{network}}"))
        .with_panel(_series("Sessions down per rail", f"netauto:rail_bgp_sessions_down:count{{{RAIL}}}", "rail {{rail}}"))
        .with_panel(_series("Ports down per rail", f"netauto:rail_ports_down:count{{{RAIL}}}", "rail {{rail}} {{network}}"))
        .with_row(Row("Optics and ports"))
        .with_panel(_series(f"Carrier changes (flaps, top {TOP})",
                            _top(f"increase({t.NODE_CARRIER_CHANGES}{{{DEVICE}}}[5m]) > 0"), "{{device}} {{port}}"))
        .with_panel(_series(f"Spine uplink load (busiest {TOP})",
                            _top(f"netauto:leaf_uplink_tx_bytes:rate{{{RAIL}, {DEVICE}}}"), "{{device}} {{port}}", "Bps"))
        .with_panel(_series(f"Verify findings failing (FEC, QoS, AR, counters; first {TOP})",
                            _top(f"{t.VERIFY_FINDING}{{{DEVICE}}} == 1"), "{{check}} {{device}} {{item}}"))
    )
    return json.dumps(json.loads(JSONEncoder().encode(dash.build())), indent=2, sort_keys=True) + "\n"
