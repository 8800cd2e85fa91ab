"""`qos`: RoCE lossless mode, PFC profiles per cable length, DSCP/queue maps, ECN, the egress scheduler."""

from __future__ import annotations

from netauto.model.types import Switch
from netauto.platforms.nos import QOS_ROCE_CABLE_M, NvueSpelling
from netauto.render.nvue.tree import Tree

LOSSY_PFC_PROFILE = "lossy-long-haul"  # the PFC profile of long-haul ports run lossy with ECN only
def qos(sw: Switch, nv: NvueSpelling) -> Tree | None:
    q = sw.qos
    if not q.lossless:  # a lossy network: no `qos roce`, NVUE's default lossy QoS stays
        return None
    out: Tree = {"roce": {**nv.toggle(True), "mode": "lossless"}}
    if q.pfc_watchdog:
        out["pfc-watchdog"] = {"polling-interval": q.pfc_watchdog_polling_interval_ms,
                               "robustness": q.pfc_watchdog_robustness}
    # one PFC profile per other cable length, named by the ports on it (nvueschema 5.6-5.18: qos pfc <profile>
    # {switch-priority, tx, rx, cable-length 1-100000}; interface <if> qos pfc profile <profile>); Cumulus sizes the
    # port's headroom from cable-length (CL QoS page, "Priority Flow Control")
    profiles: Tree = {name: {"switch-priority": {str(p): {} for p in q.pfc_priorities}, "tx": "enable", "rx": "enable",
                             "cable-length": metres}
                      for name, metres, _ in sw.pfc_groups if name is not None}
    if any(i.enabled and not i.pfc for i in sw.interfaces):  # ECN only: neither sends nor honours pause frames
        profiles[LOSSY_PFC_PROFILE] = {"switch-priority": {str(p): {} for p in q.pfc_priorities},
                                       "tx": "disable", "rx": "disable"}
    if q.is_nvidia_default:
        if q.cable_length_m != QOS_ROCE_CABLE_M:  # most ports' cable, where qos roce would size for 100 m
            profiles = {"default-global": {"switch-priority": {str(p): {} for p in q.pfc_priorities},
                                           "cable-length": q.cable_length_m}, **profiles}
        if profiles:
            out["pfc"] = profiles
        return out
    if q.dscp_changes:  # only what differs from `qos roce`'s DSCP >> 3 map
        out["mapping"] = {"default-global": {"dscp": {
            str(d): {"switch-priority": p} for d, p in q.dscp_changes.items()}}}
    # CL RoCE page, "Change RoCE Configuration": a RoCE priority other than 3 needs its own egress queue and
    # the lossless traffic pool, or it lands in lossy TC0; spelled out for every switch priority
    out["egress-queue-mapping"] = {"default-global": {"switch-priority": {
        str(p): {"traffic-class": tc} for p, tc in q.priority_to_tc.items()}}}
    out["traffic-pool"] = {"roce-lossless": {"switch-priority": {str(p): {} for p in q.pfc_priorities}},
                           "default-lossy": {"switch-priority": {str(p): {} for p in q.lossy_priorities}}}
    out["pfc"] = {"default-global": {"switch-priority": {str(p): {} for p in q.pfc_priorities},
                                     "cable-length": q.cable_length_m}, **profiles}
    out["congestion-control"] = {"default-global": {"traffic-class": {
        str(tc): {"min-threshold": q.ecn_min_threshold, "max-threshold": q.ecn_max_threshold,
                  "probability": q.ecn_probability, "ecn": nv.ecn_on}
        for tc in q.ecn_traffic_classes
    }}}
    out["egress-scheduler"] = {"default-global": {"traffic-class": {
        str(e.traffic_class): ({"mode": "strict"} if e.mode == "strict" else {"mode": "dwrr", "bw-percent": e.weight})
        for e in q.ets
    }}}
    return out
