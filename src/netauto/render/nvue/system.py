"""`system` (hostname, OpenTelemetry export) and the per-port buffer histograms it exports."""

from __future__ import annotations

from netauto.model.types import Switch
from netauto.platforms.nos import NvueSpelling, cumulus_feature_release, release_tuple
from netauto.render.nvue.tree import Tree


def system(sw: Switch, nv: NvueSpelling) -> Tree:
    out: Tree = {"hostname": sw.name}
    node = telemetry(sw, nv)
    if node is not None:
        out["telemetry"] = node
    return out


def port_histograms(sw: Switch, nv: NvueSpelling) -> Tree | None:
    """`interface <if> telemetry histogram`: buffer-occupancy histograms of the RoCE priority group (ingress) and
    the ECN traffic classes (egress) on every lossless port, sampled by the ASIC (nvueschema v5_10+: priority-group
    / traffic-class entries, bins and sample-interval left at the system defaults), exported by `system telemetry
    histogram export`: the burst visibility a 1 s counter poll cannot give."""
    if sw.telemetry is None or not sw.qos.lossless or not _since(nv, "telemetry"):
        return None
    return {"histogram": {
        "ingress-buffer": {"priority-group": {str(p): {} for p in sorted(sw.qos.pfc_priorities)}},
        "egress-buffer": {"traffic-class": {str(tc): {} for tc in sorted(sw.qos.ecn_traffic_classes)}},
    }}


def _since(nv: NvueSpelling, feature: str) -> bool:
    return release_tuple(nv.release) >= release_tuple(cumulus_feature_release(feature))


def telemetry(sw: Switch, nv: NvueSpelling) -> Tree | None:
    """`system telemetry`: OpenTelemetry (OTLP/gRPC) export of interface statistics (counters, PFC, ECN-marked
    and dropped packets), the RoCE priority groups' and ECN traffic classes' buffer statistics and the buffer
    histograms, to the inventory's collector (features.telemetry). Only for releases whose NVUE schema has it
    (platforms/data/nos_cumulus.yaml features.telemetry); None when not configured."""
    t = sw.telemetry
    if t is None or not _since(nv, "telemetry"):
        return None
    export: Tree = {"otlp": {"state": "enabled", "grpc": {"insecure": "enabled",
                                                          "destination": {t.otlp_host: {"port": t.otlp_port}}}}}
    if sw.mgmt_vrf:  # the collector sits on the management network
        export["vrf"] = "mgmt"
    stats: Tree = {"export": {"state": "enabled"}, "sample-interval": t.interval_s}
    if sw.qos.lossless:
        stats["ingress-buffer"] = {"priority-group": {str(p): {} for p in sorted(sw.qos.pfc_priorities)}}
        stats["egress-buffer"] = {"traffic-class": {str(tc): {} for tc in sorted(sw.qos.ecn_traffic_classes)}}
    out: Tree = {**nv.toggle(True), "export": export, "interface-stats": stats,
                 "histogram": {"export": {"state": "enabled"}}}
    if _since(nv, "telemetry_buffer_stats"):
        out["buffer-stats"] = {"export": {"state": "enabled"}, "sample-interval": t.interval_s}
    return out
