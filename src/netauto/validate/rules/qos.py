"""Lossless RoCE rules: DSCP -> PFC class, PFC end to end, CNP strict, ECN, ETS, PFC watchdog."""

from __future__ import annotations

from collections.abc import Iterator

from netauto.model.types import Qos
from netauto.netutil.interface import port_sort_key
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric, ServerState, SwitchState
from netauto.validate.rules._util import QOS, file_of

HOST_QOS = "usr/local/sbin/netauto-roce-qos.sh"


def _switches(view: ParsedFabric) -> Iterator[tuple[str, SwitchState, Qos, str]]:
    """Switches whose intent is lossless (a lossy network's switches are held to PLANE-04 instead)."""
    for dev, st in view.switches.items():
        intent = view.intent(dev).qos
        if intent.lossless:
            yield dev, st, intent, file_of(st, "qos", QOS)


def _lossless_servers(view: ParsedFabric) -> Iterator[tuple[str, ServerState]]:
    servers = {s.name: s for s in view.model.servers}
    for dev, srv in view.servers.items():
        if dev in servers and servers[dev].qos.lossless:
            yield dev, srv


@rule(id="Q-01", severity="error", description="RoCE DSCP maps to the PFC-enabled class, on every port of every switch")
def roce_dscp_to_pfc(view: ParsedFabric) -> RuleOutput:
    for dev, st, intent, f in _switches(view):
        prio = st.qos.dscp_to_prio.get(intent.roce_dscp)
        if prio is None:
            yield dev, f"RoCE DSCP {intent.roce_dscp} is not classified (falls into the default, lossy class)", f
        elif prio not in st.qos.pfc_prios:
            yield dev, f"RoCE DSCP {intent.roce_dscp} maps to priority {prio}, PFC is on {sorted(st.qos.pfc_prios) or 'nothing'}", f
        enabled = set(view.intent(dev).pfc_ports)  # a long-haul port run lossy (cabling.long_haul) has none
        missing = sorted(enabled - st.qos.pfc_ports, key=port_sort_key)
        if missing:
            yield dev, f"PFC not enabled on {len(missing)} port(s): {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}", f


@rule(id="Q-02", severity="error", description="PFC priority identical on every switch and every host")
def pfc_end_to_end(view: ParsedFabric) -> RuleOutput:
    want = None
    for dev, st, intent, f in _switches(view):
        want = set(intent.pfc_priorities)
        if st.qos.pfc_prios != want:
            yield dev, f"PFC on priorities {sorted(st.qos.pfc_prios)}, the fabric uses {sorted(want)}", f
    for dev, srv in _lossless_servers(view):
        want = set(next(s for s in view.model.servers if s.name == dev).qos.pfc_priorities) if want is None else want
        if srv.qos is None or srv.qos.pfc_bitmap is None:
            yield dev, "no `mlnx_qos --pfc` setting", HOST_QOS
        elif set(srv.qos.pfc_priorities) != want:
            yield dev, f"host PFC on priorities {srv.qos.pfc_priorities}, the switches on {sorted(want)}", HOST_QOS


@rule(id="Q-03", severity="error", description="hosts trust DSCP and mark RoCE with the fabric's ToS (RDMA-CM and NCCL_IB_TC)")
def host_trust_tos(view: ParsedFabric) -> RuleOutput:
    servers = {s.name: s for s in view.model.servers}
    for dev, srv in _lossless_servers(view):
        tos = servers[dev].qos.host_tos
        if srv.qos is None or srv.qos.trust != "dscp":
            yield dev, f"trust mode {srv.qos.trust if srv.qos else None!r}, must be dscp", HOST_QOS
        elif srv.qos.roce_tos != tos:
            yield dev, f"RoCE ToS {srv.qos.roce_tos}, the fabric uses {tos}", HOST_QOS
        nccl = srv.nccl.get("NCCL_IB_TC")
        if nccl is not None and nccl != str(tos):
            yield dev, f"NCCL_IB_TC={nccl}, the fabric uses {tos}", "etc/nccl.conf"


@rule(id="Q-04", severity="error", description="CNP class is strict priority and not PFC-enabled")
def cnp_strict(view: ParsedFabric) -> RuleOutput:
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
def ecn_on_roce(view: ParsedFabric) -> RuleOutput:
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
def ets_sum(view: ParsedFabric) -> RuleOutput:
    for dev, st, _intent, f in _switches(view):
        total = sum(w for mode, w in st.qos.ets.values() if mode == "dwrr")
        if st.qos.ets and total != 100:
            yield dev, f"DWRR weights sum to {total}, must be 100", f


@rule(id="PFC-01", severity="error", description="PFC watchdog on every PFC-enabled port")
def pfc_watchdog(view: ParsedFabric) -> RuleOutput:
    for dev, st, _intent, f in _switches(view):
        missing = sorted(st.qos.pfc_ports - st.qos.pfcwd_ports, key=port_sort_key)
        if missing:
            yield dev, f"no PFC watchdog on {len(missing)} PFC port(s): {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}", f


def _classifying(view: ParsedFabric) -> Iterator[tuple[str, SwitchState, Qos, str]]:
    """Per switch the state that knows the whole classification: NVUE on Cumulus (qos roce + tweaks; the Linux
    files lack qos_infra.conf's SP -> TC map), config_db on SONiC."""
    for dev, st in view.switches.items():
        if not view.intent(dev).qos.lossless:  # a lossy network: NVUE's / SONiC's default lossy QoS, nothing rendered
            continue
        nv = view.nvue.get(dev)
        use = nv if nv is not None else st
        yield dev, use, view.intent(dev).qos, file_of(use, "nvue" if nv is not None else "qos", QOS)


@rule(id="Q-09", severity="error", description="SONiC: every PFC port's CABLE_LENGTH is a row of the SKU's lossless headroom table")
def cable_length_in_table(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        notes = st.qos.buffer_notes
        if notes:
            first = sorted(notes, key=port_sort_key)
            yield dev, f"{first[0]}: {notes[first[0]]}" + (f" (and {len(first) - 1} more port(s))" if len(first) > 1 else ""), \
                file_of(st, "qos", QOS)


@rule(id="BUF-01", severity="error", description="every PFC priority of every PFC port has a lossless buffer (SONiC lossless PG with an existing profile; Cumulus lossless traffic pool)")
def lossless_buffers(view: ParsedFabric) -> RuleOutput:
    for dev, st, _intent, f in _classifying(view):
        have = st.qos.lossless_buffers
        if have is None:
            continue
        want = set(st.qos.pfc_prios)
        missing = sorted((p for p in st.qos.pfc_ports if want - have.get(p, set())), key=port_sort_key)
        if missing:
            prios = sorted(set().union(*(want - have.get(p, set()) for p in missing)))
            yield dev, (f"PFC priority {prios} without a lossless buffer (no headroom: PFC pauses too late) on "
                        f"{len(missing)} port(s): {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}"), f


@rule(id="Q-10", severity="error", description="RoCE's switch priority egresses on its own traffic class, not the shared lossy class")
def roce_traffic_class(view: ParsedFabric) -> RuleOutput:
    for dev, st, intent, f in _classifying(view):
        if st.qos.prio_to_tc is None:
            continue
        prio = st.qos.dscp_to_prio.get(intent.roce_dscp)
        if prio is None:
            continue
        tc = st.qos.prio_to_tc.get(prio, prio)
        if tc != intent.priority_to_tc[intent.roce_priority] or tc == st.qos.prio_to_tc.get(0, 0):
            yield dev, (f"RoCE (DSCP {intent.roce_dscp}, switch priority {prio}) egresses on traffic class {tc}, "
                        f"shared with lossy traffic; the fabric uses class {intent.priority_to_tc[intent.roce_priority]} "
                        "(Cumulus: qos egress-queue-mapping)"), f


@rule(id="Q-11", severity="error", description="DSCP classification identical on every switch (Cumulus qos roce: DSCP >> 3; SONiC DSCP_TO_TC_MAP the same)")
def dscp_map(view: ParsedFabric) -> RuleOutput:
    for dev, st, intent, f in _classifying(view):
        if st.qos.prio_to_tc is None:
            continue
        have = {d: st.qos.prio_to_tc.get(p, p) for d, p in st.qos.dscp_to_prio.items()}
        want = intent.dscp_to_tc
        wrong = [d for d in range(64) if have.get(d) != want[d]]
        if wrong:
            shown = ", ".join(f"DSCP {d} -> {have.get(d, 'unclassified')} (fabric {want[d]})" for d in wrong[:4])
            yield dev, f"{len(wrong)} DSCP value(s) classified differently: {shown}{' ...' if len(wrong) > 4 else ''}", f
    for dev, st in view.switches.items():  # the Cumulus Linux-files view: DSCP -> switch priority
        if dev in view.nvue and view.intent(dev).qos.lossless:
            want = view.intent(dev).qos.dscp_to_priority
            wrong = [d for d in range(64) if st.qos.dscp_to_prio.get(d, 0) != want[d]]
            if wrong:
                shown = ", ".join(f"DSCP {d} -> {st.qos.dscp_to_prio.get(d, 0)} (qos roce {want[d]})" for d in wrong[:4])
                yield dev, f"{len(wrong)} DSCP value(s) map to another switch priority: {shown}{' ...' if len(wrong) > 4 else ''}", \
                    file_of(st, "qos", QOS)


@rule(id="Q-12", severity="error", description="no ETS weight on a traffic class that nothing is classified into")
def ets_fed(view: ParsedFabric) -> RuleOutput:
    for dev, st, _intent, f in _classifying(view):
        if st.qos.prio_to_tc is None or not st.qos.dscp_to_prio:
            continue
        fed = {st.qos.prio_to_tc.get(p, p) for p in st.qos.dscp_to_prio.values()} | {st.qos.prio_to_tc.get(0, 0)}
        for tc, (mode, weight) in sorted(st.qos.ets.items()):
            if mode == "dwrr" and tc not in fed:
                yield dev, (f"ETS gives traffic class {tc} {weight} % but no DSCP is classified into it: the weight is "
                            "unused (classify traffic into it or drop the weight)"), f


@rule(id="Q-13", severity="error", description="ECN marks and never RED-drops a queue that carries non-ECN traffic (Cumulus qos roce: red_enable false; SONiC: WRED only on the lossless queues)")
def no_red_drop(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        # SONiC marks ECN only with the WRED colour enables on, which also drop non-ECT packets: allowed on the
        # lossless RoCE queues (ECT RoCE only; SONiC's own AZURE_LOSSLESS sits there)
        allowed = st.qos.pfc_prios if st.source == "config_db" else set()
        dropping = sorted(st.qos.wred_drop - allowed)
        if dropping:
            yield dev, (f"WRED drop enabled on queue(s) {dropping}: non-ECN traffic (plain TCP) is "
                        "dropped early from the min threshold, which Cumulus qos roce never does"), file_of(st, "qos", QOS)
