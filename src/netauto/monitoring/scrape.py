"""The Prometheus configuration of a fabric: one scrape job per exporter (netauto.platforms.telemetry), every
target the device's management address and labelled `device` (the switch or server name), so the exporters'
series join the intent series of the generated rules."""

from __future__ import annotations

from netauto.model.cluster import ClusterModel
from netauto.netutil.ip import ip_of
from netauto.platforms import telemetry as t

# node-exporter's own `device` label (the interface) -> `port` (see platforms.telemetry)
PORT_RELABEL = [
    {"source_labels": [t.NODE_IFACE_LABEL_CONFLICT], "regex": "(.+)", "target_label": "port", "replacement": "$1"},
    {"regex": t.NODE_IFACE_LABEL_CONFLICT, "action": "labeldrop"},
]


VERIFY_TARGETS = "netauto-verify-targets.yml"


def targets(cluster: ClusterModel) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(switches, servers) as (device, management IP); every network's switches whose NOS runs the exporters
    (platforms.telemetry.SCRAPED_NOS: never a target that cannot answer), each server once."""
    switches = [(sw.name, ip_of(sw.mgmt_address)) for sw in cluster.all_switches()
                if sw.mgmt_address and sw.nos in t.SCRAPED_NOS]
    seen: dict[str, str] = {}
    for _, fabric in cluster.fabrics():
        for srv in fabric.servers:
            if srv.mgmt_address:
                seen.setdefault(srv.name, ip_of(srv.mgmt_address))
    return switches, list(seen.items())


def _static(devices: list[tuple[str, str]], port: int) -> list[dict]:
    return [{"targets": [f"{ip}:{port}"], "labels": {"device": name}} for name, ip in devices]


def prometheus_config(cluster: ClusterModel, rule_files: list[str], *, scrape_interval: str = "30s",
                      evaluation_interval: str = "30s", switches: list[tuple[str, str]] | None = None,
                      servers: list[tuple[str, str]] | None = None) -> dict:
    """prometheus.yml as a dict (Prometheus docs, "Configuration": global, rule_files, scrape_configs)."""
    if switches is None or servers is None:
        switches, servers = targets(cluster)
    return {
        "global": {"scrape_interval": scrape_interval, "evaluation_interval": evaluation_interval,
                   "external_labels": {"fabric": cluster.name}},
        "rule_files": rule_files,
        "scrape_configs": [
            {"job_name": "netauto-frr", "static_configs": _static(switches, t.FRR_EXPORTER_PORT)},
            {"job_name": "netauto-node", "static_configs": _static(switches + servers, t.NODE_EXPORTER_PORT),
             "metric_relabel_configs": PORT_RELABEL},
            # `netauto verify --format openmetrics` written into a node-exporter's textfile folder: its own
            # `device` label must win (honor_labels), so that host is a job of its own (targets: this file)
            {"job_name": "netauto-verify", "honor_labels": True,
             "file_sd_configs": [{"files": [VERIFY_TARGETS]}]},
        ],
    }
