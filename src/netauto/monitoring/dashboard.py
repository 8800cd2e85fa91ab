"""The fabric's Grafana dashboard, built with grafana-foundation-sdk (Grafana's own typed builders, PyPI
`grafana-foundation-sdk`): fabric overview (rails x spines), per-rail RoCE health, BGP and optics/ports. Every
query reads the series the generated rules record (netauto.monitoring.rules) or the exporters publish."""

from __future__ import annotations

import json

from grafana_foundation_sdk.builders import prometheus, stat, table, timeseries
from grafana_foundation_sdk.builders.dashboard import Dashboard, Row
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.prometheus import PromQueryFormat

from netauto.platforms import telemetry as t


def _query(expr: str, legend: str, ref: str = "A") -> prometheus.Dataquery:
    return prometheus.Dataquery().expr(expr).legend_format(legend).ref_id(ref)


def _series(title: str, expr: str, legend: str, unit: str = "short") -> timeseries.Panel:
    return timeseries.Panel().title(title).unit(unit).span(12).height(8).with_target(_query(expr, legend))


def dashboard_json(fabric: str) -> str:
    up = 'netauto:port_expected{uplink="true"}'
    dash = (
        Dashboard(f"netauto {fabric}").uid(f"netauto-{fabric}"[:40]).tags(["netauto", fabric]).refresh("30s")
        .time("now-1h", "now").timezone("utc")
        .with_row(Row("Fabric overview: rails x spines"))
        .with_panel(table.Panel().title("Leaf uplinks up (rows: leaves of a rail, columns: spines)").span(24).height(10)
                    .with_target(_query(f"{up} * on(device, port) group_left() ({t.NODE_NETWORK_UP})",
                                        "{{rail}} {{device}} -> {{peer}}").format(PromQueryFormat.TABLE).instant()))  # type: ignore[arg-type]
        .with_panel(stat.Panel().title("BGP sessions down / expected").span(12).height(4)
                    .with_target(_query("sum(netauto:su_bgp_sessions_down:count) or vector(0)", "down"))
                    .with_target(_query("sum(netauto:su_bgp_sessions_expected:count)", "expected", "B")))
        .with_panel(stat.Panel().title("Firing netauto alerts").span(12).height(4)
                    .with_target(_query('count(ALERTS{alertstate="firing", alertname=~"Netauto.*"}) or vector(0)',
                                        "firing")))
        .with_row(Row("Per-rail RoCE health"))
        .with_panel(_series("CNPs sent per rail (receivers)", "netauto:rail_np_cnp_sent:rate", "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series("CNPs handled per rail (senders)", "netauto:rail_rp_cnp_handled:rate", "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series("ECN-marked RoCE packets per rail", "netauto:rail_np_ecn_marked_roce_packets:rate",
                            "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series("Out-of-sequence per rail", "netauto:rail_out_of_sequence:rate", "rail {{rail}} {{network}}", "pps"))
        .with_panel(_series("PFC pause frames received (rail NICs)", f'rate({t.ETHTOOL_STAT}{{stat=~"rx_prio.*_pause"}}[5m])',
                            "{{device}} {{port}} {{stat}}", "pps"))
        .with_row(Row("BGP"))
        .with_panel(_series("Sessions down per SU", "netauto:su_bgp_sessions_down:count", "SU {{su}} {{network}}"))
        .with_panel(_series("Sessions down per rail", "netauto:rail_bgp_sessions_down:count", "rail {{rail}}"))
        .with_panel(_series("Ports down per rail", "netauto:rail_ports_down:count", "rail {{rail}} {{network}}"))
        .with_row(Row("Optics and ports"))
        .with_panel(_series("Carrier changes (flaps)", f"increase({t.NODE_CARRIER_CHANGES}[5m]) > 0", "{{device}} {{port}}"))
        .with_panel(_series("Spine uplink load per leaf", "netauto:leaf_uplink_tx_bytes:rate", "{{device}} {{port}}", "Bps"))
        .with_panel(_series("Verify findings failing (FEC, QoS, AR, counters)", f"{t.VERIFY_FINDING} == 1",
                            "{{check}} {{device}} {{item}}"))
    )
    return json.dumps(json.loads(JSONEncoder().encode(dash.build())), indent=2, sort_keys=True) + "\n"
