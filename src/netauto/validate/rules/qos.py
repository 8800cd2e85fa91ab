"""Lossless RoCE rules: DSCP -> PFC class, PFC end to end, CNP strict, ECN, ETS, PFC watchdog."""

from __future__ import annotations

from netauto.validate.rules import rule
from netauto.validate.rules._util import QOS, file_of

HOST_QOS = "usr/local/sbin/netauto-roce-qos.sh"


def _switches(view):
    for dev, st in view.switches.items():
        yield dev, st, view.intent(dev).qos, file_of(st, "qos", QOS)


@rule(id="Q-01", severity="error", description="RoCE DSCP maps to the PFC-enabled class, on every port of every switch")
def roce_dscp_to_pfc(view):
    for dev, st, intent, f in _switches(view):
        prio = st.qos.dscp_to_prio.get(intent.roce_dscp)
        if prio is None:
            yield dev, f"RoCE DSCP {intent.roce_dscp} is not classified (falls into the default, lossy class)", f
        elif prio not in st.qos.pfc_prios:
            yield dev, f"RoCE DSCP {intent.roce_dscp} maps to priority {prio}, PFC is on {sorted(st.qos.pfc_prios) or 'nothing'}", f
        enabled = {p.name for p in view.intent(dev).interfaces if p.enabled}
        missing = sorted(enabled - st.qos.pfc_ports, key=lambda n: (len(n), n))
        if missing:
            yield dev, f"PFC not enabled on {len(missing)} port(s): {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}", f


@rule(id="Q-02", severity="error", description="PFC priority identical on every switch and every host")
def pfc_end_to_end(view):
    want = None
    for dev, st, intent, f in _switches(view):
        want = set(intent.pfc_priorities)
        if st.qos.pfc_prios != want:
            yield dev, f"PFC on priorities {sorted(st.qos.pfc_prios)}, the fabric uses {sorted(want)}", f
    for dev, srv in view.servers.items():
        want = set(next(s for s in view.model.servers if s.name == dev).qos.pfc_priorities) if want is None else want
        if srv.qos is None or srv.qos.pfc_bitmap is None:
            yield dev, "no `mlnx_qos --pfc` setting", HOST_QOS
        elif set(srv.qos.pfc_priorities) != want:
            yield dev, f"host PFC on priorities {srv.qos.pfc_priorities}, the switches on {sorted(want)}", HOST_QOS


@rule(id="Q-03", severity="error", description="hosts trust DSCP and mark RoCE with the fabric's ToS (RDMA-CM and NCCL_IB_TC)")
def host_trust_tos(view):
    servers = {s.name: s for s in view.model.servers}
    for dev, srv in view.servers.items():
        tos = servers[dev].qos.host_tos
        if srv.qos is None or srv.qos.trust != "dscp":
            yield dev, f"trust mode {srv.qos.trust if srv.qos else None!r}, must be dscp", HOST_QOS
        elif srv.qos.roce_tos != tos:
            yield dev, f"RoCE ToS {srv.qos.roce_tos}, the fabric uses {tos}", HOST_QOS
        nccl = srv.nccl.get("NCCL_IB_TC")
        if nccl is not None and nccl != str(tos):
            yield dev, f"NCCL_IB_TC={nccl}, the fabric uses {tos}", "etc/nccl.conf"


@rule(id="Q-04", severity="error", description="CNP class is strict priority and not PFC-enabled")
def cnp_strict(view):
    for dev, st, intent, f in _switches(view):
        tc = st.qos.dscp_to_prio.get(intent.cnp_dscp)
        if tc is None:
            yield dev, f"CNP DSCP {intent.cnp_dscp} is not classified", f
            continue
        mode = st.qos.ets.get(tc, ("dwrr", None))[0]
        if mode != "strict":
            yield dev, f"CNP class {tc} is scheduled {mode}, must be strict", f
        if tc in st.qos.pfc_prios:
            yield dev, f"CNP class {tc} has PFC enabled (CNPs must never be paused)", f


@rule(id="Q-06", severity="error", description="ECN on the RoCE queue with min < max threshold and probability 1..100")
def ecn_on_roce(view):
    for dev, st, intent, f in _switches(view):
        tc = st.qos.dscp_to_prio.get(intent.roce_dscp, intent.roce_priority)
        if tc not in st.qos.ecn:
            yield dev, f"ECN not enabled on the RoCE queue {tc}", f
            continue
        lo, hi, prob = st.qos.ecn[tc]
        if not 0 < lo < hi:
            yield dev, f"ECN on queue {tc}: min threshold {lo} must be below max threshold {hi}", f
        if not 1 <= prob <= 100:
            yield dev, f"ECN on queue {tc}: probability {prob} outside 1..100", f


@rule(id="Q-08", severity="error", description="ETS: DWRR weights of the non-strict classes sum to 100")
def ets_sum(view):
    for dev, st, _intent, f in _switches(view):
        total = sum(w for mode, w in st.qos.ets.values() if mode == "dwrr")
        if st.qos.ets and total != 100:
            yield dev, f"DWRR weights sum to {total}, must be 100", f


@rule(id="PFC-01", severity="error", description="PFC watchdog on every PFC-enabled port")
def pfc_watchdog(view):
    for dev, st, _intent, f in _switches(view):
        missing = sorted(st.qos.pfc_ports - st.qos.pfcwd_ports, key=lambda n: (len(n), n))
        if missing:
            yield dev, f"no PFC watchdog on {len(missing)} PFC port(s): {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}", f
