"""The fabric's QoS: RoCE classification, ETS, ECN, PFC and its watchdog, as switches and hosts apply it."""

from __future__ import annotations

from netauto.inventory.schema import Inventory
from netauto.model.types import EtsClass, Qos


def qos(inv: Inventory) -> Qos:
    """A fresh Qos record (each device gets its own: networks patch theirs)."""
    q = inv.qos
    ets = [EtsClass(tc, "dwrr", w) for tc, w in q.ets.items()] + [EtsClass(q.cnp.priority, "strict", 0)]
    ets.sort(key=lambda e: e.traffic_class)
    default = (q.roce.dscp, q.roce.priority, q.cnp.dscp, q.cnp.priority, q.ets, q.classes,
               q.ecn.min_threshold, q.ecn.max_threshold, q.ecn.probability) == (
                   26, 3, 48, 6, {0: 50, 3: 50}, {}, 150000, 1500000, 100)
    dscp = {d: d >> 3 for d in range(64)}  # Cumulus `qos roce`: the default DSCP >> 3 map
    dscp[q.roce.dscp] = q.roce.priority
    dscp[q.cnp.dscp] = q.cnp.priority
    for prio, values in q.classes.items():
        for d in values:
            dscp[d] = prio
    own_class = {q.roce.priority, q.cnp.priority} | set(q.ets)
    return Qos(
        dscp_to_priority=dscp, priority_to_tc={p: p if p in own_class else 0 for p in range(8)},
        dscp_changes={d: p for d, p in dscp.items() if p != d >> 3},
        roce_dscp=q.roce.dscp, roce_priority=q.roce.priority, cnp_dscp=q.cnp.dscp, cnp_priority=q.cnp.priority,
        ets=ets, ecn_traffic_classes=sorted(q.ets), ecn_min_threshold=q.ecn.min_threshold,
        ecn_max_threshold=q.ecn.max_threshold, ecn_probability=q.ecn.probability,
        pfc_priorities=[q.roce.priority], pfc_watchdog=q.pfc_watchdog.enabled,
        pfc_watchdog_polling_interval_ms=q.pfc_watchdog.polling_interval_ms,
        pfc_watchdog_robustness=q.pfc_watchdog.robustness, cable_length_m=inv.fabric.cable_length_m,
        host_tos=q.host_tos, is_nvidia_default=default,
        pfc_bitmap=",".join("1" if p == q.roce.priority else "0" for p in range(8)),
    )
