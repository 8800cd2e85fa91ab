"""Cumulus Linux files -> `SwitchState` (source "linux-files"): /etc/network/interfaces, frr.conf, ports.conf,
qos_features.conf and adaptive_routing.conf."""

from __future__ import annotations

from netauto.formats.frr import FrrConf, parse_frr
from netauto.formats.ifupdown import parse_interfaces
from netauto.formats.kv import kv_bool, kv_list, parse_kv
from netauto.formats.values import to_int as _int
from netauto.formats.values import yes as _yes
from netauto.platforms.vxlan import SWITCHD_DECAP_DSCP, SWITCHD_ENCAP_DSCP
from netauto.platforms.nos import QOS_ROCE_CABLE_M, cumulus_path, cumulus_switchd_pfc_watchdog
from netauto.validate.state import EvpnState, Port, QosState, SwitchState

CUMULUS_FILES = {role: cumulus_path(role) for role in ("nvue", "ports", "interfaces", "frr", "ar", "qos", "qos_infra",
                                                       "switchd")}


def cumulus_state(name: str, files: dict[str, str | None]) -> SwitchState:
    st = SwitchState(name, "linux-files", files={k: v for k, v in CUMULUS_FILES.items() if k != "nvue"})
    for key, value in parse_kv(files.get("ports") or "").items():
        ways = value.strip().rstrip("x")
        if key.strip().isdigit() and ways.isdigit():
            st.breakouts[int(key)] = int(ways)
    stanzas = parse_interfaces(files.get("interfaces") or "").stanzas
    for sname, sz in stanzas.items():
        if any(k == "clag-id" or k.startswith("clagd-") for k in sz.attrs):
            st.mlag.add(sname)
        if sname == "lo":
            st.loopbacks = [a for a in sz.addresses if not a.startswith("127.") and ":" not in a]
        elif sname.startswith("swp") or sname.startswith("Ethernet"):
            speed = sz.int_("link-speed")
            st.ports[sname] = Port(
                sname, mtu=sz.int_("mtu"), speed_mbps=speed, fec=sz.first("link-fec"),
                up=(sz.first("link-down") or "no") != "yes", addresses=list(sz.addresses),
                access_vlan=sz.int_("bridge-access"),
                stp_edge=_yes(sz.first("mstpctl-portadminedge")), bpdu_guard=_yes(sz.first("mstpctl-bpduguard")),
                vrf=sz.first("vrf"),
            )
        elif "bridge-ports" in sz.attrs:
            st.bridges[sname] = " ".join(sz.attrs["bridge-ports"]).split()
        elif "bond-slaves" in sz.attrs:
            st.bonds[sname] = " ".join(sz.attrs["bond-slaves"]).split()
            st.bond_edge[sname] = bool(_yes(sz.first("mstpctl-portadminedge")) and _yes(sz.first("mstpctl-bpduguard")))
        elif sz.first("vlan-id") or sname.startswith("vlan"):
            st.svis[sname] = list(sz.addresses)
    for bond, members in st.bonds.items():
        for m in members:
            if m in st.ports:
                st.ports[m].bond = bond
    frr = files.get("frr")
    st.bgp = parse_frr(frr) if frr is not None else None
    st.evpn = _linux_evpn(stanzas, st.bgp)
    ar = parse_kv(files.get("ar") or "")
    st.ar_global = kv_bool(ar.get("adaptive_routing.enable"))
    st.ar_link_util = "adaptive_routing.link_utilization_threshold_disabled" in ar and \
        not kv_bool(ar["adaptive_routing.link_utilization_threshold_disabled"])
    st.ar_ports = {k.split(".")[1] for k, v in ar.items()
                   if k.startswith("interface.") and k.endswith(".adaptive_routing.enable") and kv_bool(v)}
    st.qos = _cumulus_qos(parse_kv(files.get("qos") or ""))
    _qos_infra(st.qos, parse_kv(files.get("qos_infra") or ""))
    switchd, keys = parse_kv(files.get("switchd") or ""), cumulus_switchd_pfc_watchdog()
    if st.evpn is not None:
        st.evpn.dscp_actions = (switchd.get(SWITCHD_ENCAP_DSCP), switchd.get(SWITCHD_DECAP_DSCP))
    if keys["polling_interval_ms"] in switchd or keys["robustness"] in switchd:  # defaults 100 ms, 3 (CL QoS page)
        st.qos.pfcwd_timing = (int(switchd.get(keys["polling_interval_ms"], "100")),
                               int(switchd.get(keys["robustness"], "3")))
    return st


def _qos_infra(q: QosState, kv: dict[str, str]) -> None:
    """qos_infra.conf: the switch priority -> egress queue map (cos_egr_queue.cos_<sp>.uc) and the lossless pool
    (flow_control.ingress_service_pool naming a service pool with a share of the buffer): without it the PFC
    priorities have no lossless buffer (CL QoS page, "Flow Control Buffers")."""
    egr = {_int(k.split(".")[1][4:]): _int(v) for k, v in kv.items()
           if k.startswith("cos_egr_queue.cos_") and k.endswith(".uc")}
    q.prio_to_tc = {p: tc for p, tc in egr.items() if p is not None and tc is not None} if egr else None
    pool = kv.get("flow_control.ingress_service_pool")
    share = _float(kv.get(f"ingress_service_pool.{pool}.percent")) if pool is not None else None
    lossless = bool(share) and kv.get("flow_control.egress_service_pool") is not None
    q.lossless_buffers = {p: (set(q.pfc_prios) if lossless else set()) for p in q.pfc_ports}


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _linux_evpn(stanzas: dict, bgp: FrrConf | None) -> EvpnState | None:  # type: ignore[type-arg]
    """EVPN-MH in the Linux files: ifupdown2 `es-sys-mac` (bond LACP system MAC), the single VXLAN device's
    `bridge-vlan-vni-map` and lo's `vxlan-local-tunnelip`; FRR `evpn mh es-id/es-sys-mac`, `evpn mh uplink`,
    `advertise-all-vni`. None when the files configure none of it."""
    ev = EvpnState()
    for sname, sz in stanzas.items():
        if sz.first("es-sys-mac"):
            ev.lacp_macs[sname] = str(sz.first("es-sys-mac")).lower()
        if sz.first("vxlan-local-tunnelip"):
            ev.vtep_source = sz.first("vxlan-local-tunnelip")
        vni, mtu = sz.int_("vxlan-id"), sz.int_("mtu")
        if vni is not None and mtu is not None:
            ev.vxlan_mtu[vni] = mtu
        for item in " ".join(sz.attrs.get("bridge-vlan-vni-map", [])).split():
            vlan, _, vni = item.partition("=")
            if vlan.isdigit() and vni.isdigit():
                ev.vni_map[int(vlan)] = int(vni)
    if bgp is not None:
        for name, es in bgp.evpn_mh.items():
            mac = es.get("es-sys-mac")
            ev.segments[name] = (_int(es.get("es-id")), mac.lower() if mac else None)
        ev.uplinks = set(bgp.mh_uplinks)
        ev.advertise_all_vni = bgp.advertise_all_vni
    empty = not (ev.segments or ev.lacp_macs or ev.uplinks or ev.vni_map or ev.vtep_source or ev.advertise_all_vni
                 or ev.vxlan_mtu)
    return None if empty else ev


def _or_unset(value: int | None) -> int:
    return -1 if value is None else value


def _cumulus_qos(kv: dict[str, str]) -> QosState:
    q = QosState()
    q.trust = frozenset(kv_list(kv.get("traffic.packet_priority_source_set")))
    for key, value in kv.items():
        parts = key.split(".")
        if len(parts) == 4 and parts[0] == "traffic" and parts[1].startswith("cos_") and parts[2:] == ["priority_source", "dscp"]:
            prio = _int(parts[1][4:])
            for d in kv_list(value):
                if _int(d) is not None and prio is not None:
                    q.dscp_to_prio[int(d)] = prio
        elif len(parts) == 3 and parts[0] == "default_egress_sched" and parts[2] == "bw_percent":
            tc, w = _int(parts[1].removeprefix("egr_queue_")), _int(value)
            if tc is not None and w is not None:
                q.ets[tc] = ("strict", 0) if w == 0 else ("dwrr", w)
    for group in kv_list(kv.get("pfc.port_group_list")):
        if kv_bool(kv.get(f"pfc.{group}.tx_enable", "true")) or kv_bool(kv.get(f"pfc.{group}.rx_enable", "true")):
            q.pfc_prios |= {int(c) for c in kv_list(kv.get(f"pfc.{group}.cos_list")) if c.isdigit()}
            ports = set(kv_list(kv.get(f"pfc.{group}.port_set")))
            q.pfc_ports |= ports
            cable = _int(kv.get(f"pfc.{group}.cable_length"))
            if q.cable_length is None:
                q.cable_length = cable
            for port in ports:
                q.port_cable[port] = cable if cable is not None else QOS_ROCE_CABLE_M
    for group in kv_list(kv.get("ecn_red.port_group_list")):
        if not kv_bool(kv.get(f"ecn_red.{group}.ecn_enable")):
            continue
        vals = (_int(kv.get(f"ecn_red.{group}.min_threshold_bytes")), _int(kv.get(f"ecn_red.{group}.max_threshold_bytes")),
                _int(kv.get(f"ecn_red.{group}.probability")))
        for queue in kv_list(kv.get(f"ecn_red.{group}.egress_queue_list")):
            if queue.isdigit():
                q.ecn[int(queue)] = (_or_unset(vals[0]), _or_unset(vals[1]), _or_unset(vals[2]))
                if kv_bool(kv.get(f"ecn_red.{group}.red_enable")):
                    q.wred_drop.add(int(queue))
    for group in kv_list(kv.get("pfc_watchdog.port_group_list")):
        q.pfcwd_ports |= set(kv_list(kv.get(f"pfc_watchdog.{group}.port_set")))
    return q


