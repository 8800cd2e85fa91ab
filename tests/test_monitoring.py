"""The monitoring generated from intent: promtool accepts the rules and their unit tests pass; a broken alert
makes the rendered unit tests fail; every expected BGP session and RoCE port is stated in the intent series."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from netauto.monitoring import facts
from netauto.render.yaml_block import dump
from netauto.render.monitoring import INTENT_RULES, RULE_TESTS, RULES, monitoring_artifacts
from netauto.monitoring.rules import intent_groups
from netauto.pipeline import build_cluster

INVENTORY = Path(__file__).resolve().parents[1] / "examples/cluster-lab/inventory"


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(INVENTORY)


def _write(tmp: Path, arts, rules_text: str | None = None) -> Path:
    folder = tmp / "prometheus"
    folder.mkdir(parents=True, exist_ok=True)
    for a in arts:
        if a.path.startswith("prometheus/"):
            content = rules_text if (a.path == RULES and rules_text is not None) else a.content
            (tmp / a.path).write_text(content)
    return folder


def test_every_session_and_roce_port_is_an_intent_series(cluster):
    arts = {a.path: a.content for a in monitoring_artifacts(cluster)}
    rules = yaml.safe_load(arts[RULES])
    groups = yaml.safe_load(arts[INTENT_RULES])["groups"]
    assert {g["name"] for g in groups} == {f"netauto-intent-{net}" for net, _ in cluster.fabrics()}
    intent = [r for g in groups for r in g["rules"]]
    sessions = {(r["labels"]["device"], r["labels"]["port"]) for r in intent if r["record"] == "netauto:bgp_session_expected"}
    ports = {(r["labels"]["device"], r["labels"]["port"]) for r in intent if r["record"] == "netauto:port_expected"}
    for _, fabric in cluster.fabrics():
        for sw in fabric.switches:
            assert {(sw.name, nb.interface) for nb in sw.bgp.neighbors} <= sessions
            if sw.qos.lossless:
                cabled = {i.name for i in sw.interfaces if i.enabled and i.peer_device}
                assert {(sw.name, p) for p in cabled} <= ports
    keys = [(r["record"], tuple(sorted(r["labels"].items()))) for r in intent]
    assert len(keys) == len(set(keys))  # no fact twice (promtool check rules lints duplicates)
    alerts = {r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r}
    tests = yaml.safe_load(arts[RULE_TESTS])
    tested = {a["alertname"] for t in tests["tests"][1:] for a in t["alert_rule_test"] if a["exp_alerts"]}
    assert alerts == tested, alerts ^ tested  # every alert has a fault test
    assert json.loads(arts["grafana/netauto-fabric.json"])["panels"]


def test_facts_carry_rail_and_su(cluster):
    found = facts.collect(cluster)
    leaf = next(f.label_map for f in found.sessions if f.label_map["role"] == "leaf")
    assert {"device", "port", "peer", "peer_port", "rail", "network"} <= set(leaf)


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (apt-get install prometheus)")
def test_promtool_accepts_rules_and_a_broken_alert_fails_its_unit_test(cluster, tmp_path):
    from netauto.validate.promtool import rules as check

    arts = monitoring_artifacts(cluster)
    good = _write(tmp_path / "good", arts)
    assert check([("monitoring", good / "netauto.rules.yml")]) == []
    original = next(a.content for a in arts if a.path == RULES)
    broken_text = original.replace("unless on(device, port) (node_network_up == 1)", "unless on(device) (node_network_up == 1)")
    assert broken_text != original
    broken = _write(tmp_path / "broken", arts, broken_text)
    got = check([("monitoring", broken / "netauto.rules.yml")])
    assert [f.rule for f in got] == ["EXT-promtool-test"], got
    p = subprocess.run(["promtool", "check", "config", str(good / "prometheus.yml")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_intent_file_is_what_pyyaml_writes(cluster):
    """The intent file (~80,000 rules at 10k GPUs) is written by render.yaml_block: exactly PyYAML's text
    (quoting by YAML 1.1, as Prometheus's go-yaml v2 reads it)."""
    doc = intent_groups(facts.collect(cluster), "2s")
    doc["groups"][0]["rules"][0]["labels"]["su"] = "on"  # YAML 1.1 reads a bare on as true: must be quoted
    text = dump(doc)
    assert text == yaml.safe_dump(doc, sort_keys=False, width=10_000, allow_unicode=False)
    assert "su: 'on'" in text


def test_unit_tests_do_not_grow_with_the_fabric(cluster):
    """The unit tests feed a sample of the facts: the 10k-GPU example (~80,000 facts, 1,000x the lab's) gets a
    few times the lab's input series (its leaves have more uplinks), while its intent file states every fact."""
    big = build_cluster(INVENTORY.parents[1] / "10k-3tier/inventory")

    def inputs(c):
        arts = {a.path: a.content for a in monitoring_artifacts(c)}
        healthy = yaml.safe_load(arts[RULE_TESTS])["tests"][0]["input_series"]
        stated = arts[INTENT_RULES].count("\n  - record: ")
        return len(healthy), stated

    (small_in, small_facts), (big_in, big_facts) = inputs(cluster), inputs(big)
    assert small_facts == len(facts.collect(cluster).all())
    assert big_facts == len(facts.collect(big).all()) > 500 * small_facts
    assert big_in < 5 * small_in, (small_in, big_in)


# A hand-written promtool test (not the generated one) over the rendered rules: the data of a node goes away.
SILENCE_TEST = """
rule_files: [netauto.rules.yml]
evaluation_interval: 1m
tests:
  - name: gpu1 rail1 counters removed, gpu1's textfile frozen, verify never ran, gpu2's node-exporter down
    interval: 1m
    input_series:
      - series: 'netauto:rail_nic_expected{device="gpu1",port="rail0",rdma_device="mlx5_0",rail="0",network="compute"}'
        values: 1x10
      - series: 'netauto:rail_nic_expected{device="gpu1",port="rail1",rdma_device="mlx5_3",rail="1",network="compute"}'
        values: 1x10
      - series: 'netauto_rdma_hw_stat_total{device="gpu1",port="rail0",rdma_device="mlx5_0",ib_port="1",counter="np_cnp_sent"}'
        values: 0+0x10
      - series: 'netauto_rdma_hw_stat_total{device="gpu1",port="rail1",rdma_device="mlx5_3",ib_port="1",counter="np_cnp_sent"}'
        values: 0 0 stale
      - series: 'node_textfile_mtime_seconds{device="gpu1",file="/var/lib/prometheus/node-exporter/netauto-roce.prom"}'
        values: 0+0x10
      - series: 'up{job="netauto-node",device="gpu2",instance="192.0.2.2:9100"}'
        values: 0x10
      - series: 'node_network_receive_drop_total{device="r0-leaf",port="swp1s0"}'
        values: 0+30x10
      - series: 'node_network_carrier_changes_total{device="r0-leaf",port="swp1s0"}'
        values: 0 2+0x9
      - series: 'netauto:port_expected{device="r0-leaf",port="swp1s0",peer="gpu1",network="compute"}'
        values: 1x10
    alert_rule_test:
      - eval_time: 9m
        alertname: NetautoRoceCountersMissing
        exp_alerts:
          - exp_labels: {severity: critical, device: gpu1, port: rail1, rdma_device: mlx5_3, rail: "1", network: compute}
            exp_annotations:
              summary: "gpu1 rail1 (mlx5_3, rail 1) publishes no RoCE counters (netauto-roce-counters.sh not run, or its textfile gone)"
      - eval_time: 9m
        alertname: NetautoCountersTextfileStale
        exp_alerts:
          - exp_labels: {severity: critical, device: gpu1, file: /var/lib/prometheus/node-exporter/netauto-roce.prom}
            exp_annotations:
              summary: "gpu1: /var/lib/prometheus/node-exporter/netauto-roce.prom not rewritten for over 300 s (netauto-roce-counters.timer stopped): its counters are frozen"
      - eval_time: 9m
        alertname: NetautoExporterDown
        exp_alerts:
          - exp_labels: {severity: critical, job: netauto-node, device: gpu2, instance: "192.0.2.2:9100"}
            exp_annotations: {summary: "netauto-node on gpu2 is not scraped"}
      - eval_time: 9m
        alertname: NetautoPortDiscards
      - eval_time: 9m
        alertname: NetautoLinkFlapping
      - eval_time: 9m
        alertname: NetautoVerifyAbsent
  - name: no verify metric at all
    interval: 10m
    input_series: []
    alert_rule_test:
      - eval_time: 1h50m
        alertname: NetautoVerifyAbsent
      - eval_time: 2h10m
        alertname: NetautoVerifyAbsent
        exp_alerts:
          - exp_labels: {severity: warning}
            exp_annotations:
              summary: "no netauto verify result in Prometheus for 7200 s (never written, or its textfile or exporter gone)"
"""


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (apt-get install prometheus)")
def test_alerts_name_the_node_whose_data_went_silent(cluster, tmp_path):
    """Issue 34 item 6: counters removed or stale, a frozen textfile, an exporter down and no verify metric each
    fire an alert naming the node; a single bounce and a trickle of rx_dropped fire nothing (smaller items)."""
    arts = monitoring_artifacts(cluster)
    folder = _write(tmp_path, arts)
    (folder / "silence.test.yml").write_text(SILENCE_TEST)
    p = subprocess.run(["promtool", "test", "rules", "silence.test.yml"], cwd=folder, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]


def test_sonic_switches_are_not_scraped_where_nothing_listens():
    """Issue 34 item 9: SONiC runs neither prometheus-frr-exporter nor node-exporter (its telemetry container
    speaks gNMI), so prometheus.yml names no SONiC target and no SONiC session or port is an intent series (an
    `unless` over data that never comes would fire forever)."""
    mixed = build_cluster(INVENTORY.parents[1] / "mixed-sonic/inventory")
    sonic = {sw.name: sw.mgmt_address.split("/")[0] for sw in mixed.all_switches() if sw.nos == "sonic"}
    assert sonic, "the mixed example has SONiC switches"
    arts = {a.path: a.content for a in monitoring_artifacts(mixed)}
    config = yaml.safe_load(arts["prometheus/prometheus.yml"])
    scraped = {(t, c["labels"]["device"]) for job in config["scrape_configs"] for c in job.get("static_configs", [])
               for t in c["targets"]}
    assert not {d for _, d in scraped} & set(sonic), sorted(scraped)[:5]
    assert not {t.split(":")[0] for t, _ in scraped} & set(sonic.values())
    intent = yaml.safe_load(arts[INTENT_RULES])["groups"]
    devices = {r["labels"]["device"] for g in intent for r in g["rules"]}
    assert not devices & set(sonic)
    cumulus = {sw.name for sw in mixed.all_switches() if sw.nos == "cumulus"}
    assert cumulus <= {d for _, d in scraped} and cumulus & devices


def test_dashboard_has_a_datasource_variables_and_bounded_panels(cluster):
    """Issue 34: the dashboard names its Prometheus through a datasource variable (an import picks it), filters by
    network / rail / device, and no panel draws one line per port or NIC of the fabric (~10k at 10k GPUs): those
    are the top 20, the rest is per rail or per SU."""
    dash = json.loads(next(a.content for a in monitoring_artifacts(cluster) if a.path.endswith(".json")))
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    for name in ("network", "rail", "device"):
        assert variables[name]["type"] == "query" and variables[name]["datasource"]["uid"] == "${datasource}"
    panels = [p for p in dash["panels"] if p.get("type") != "row"]
    assert panels and all(p["datasource"]["uid"] == "${datasource}" for p in panels)
    for p in panels:
        for target in p.get("targets", []):
            expr = target["expr"]
            per_port = any(m in expr for m in ("node_network", "netauto_nic_", "netauto_verify_finding",
                                               "leaf_uplink_tx_bytes", "port_expected{"))
            assert not per_port or expr.startswith("topk(20,"), (p["title"], expr)
            assert '"$rail"' in expr or "rail" not in expr or "sum(" in expr, (p["title"], expr)
