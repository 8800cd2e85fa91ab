"""SONiC switches in the parsed view: `etc/sonic/config_db.json` + `etc/sonic/frr/frr.conf` -> `SwitchState`.

Registered with `view.register_nos("sonic", ...)` on import (the view imports this module).
SONiC classifies DSCP -> TC and enables PFC per priority with identity TC/priority/queue maps, so the
TC stands in for the switch priority the rules speak of. SONiC has no adaptive routing.
"""

from __future__ import annotations

import json

from netauto.validate.parse import parse_frr
from netauto.validate.view import SONIC_FILES, Port, QosState, SwitchState, register_nos


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _queues(spec: str) -> list[int]:
    if "-" in spec:
        lo, hi = spec.split("-", 1)
        return list(range(int(lo), int(hi) + 1)) if lo.isdigit() and hi.isdigit() else []
    return [int(spec)] if spec.isdigit() else []


def sonic_state(name: str, files: dict[str, str | None]) -> SwitchState:
    db = json.loads(files.get("config_db") or "{}")
    st = SwitchState(name, "config_db", files={"interfaces": SONIC_FILES["config_db"], "qos": SONIC_FILES["config_db"],
                                                "frr": SONIC_FILES["frr"]})
    for pname, row in (db.get("PORT") or {}).items():
        st.ports[pname] = Port(pname, mtu=_int(row.get("mtu")), speed_mbps=_int(row.get("speed")), fec=row.get("fec"),
                               up=row.get("admin_status", "down") == "up")
    for key in db.get("INTERFACE") or {}:
        if "|" in key:
            pname, addr = key.split("|", 1)
            if pname in st.ports and ":" not in addr:
                st.ports[pname].addresses.append(addr)
    for key in db.get("LOOPBACK_INTERFACE") or {}:
        if "|" in key and ":" not in key:
            st.loopbacks.append(key.split("|", 1)[1])
    for key in db.get("VLAN_INTERFACE") or {}:
        if "|" in key:
            vlan, addr = key.split("|", 1)
            st.svis.setdefault(vlan, []).append(addr)
    for key, row in (db.get("VLAN_MEMBER") or {}).items():
        vlan, _, pname = key.partition("|")
        if pname in st.ports and row.get("tagging_mode", "untagged") == "untagged":
            st.ports[pname].access_vlan = _int(vlan.removeprefix("Vlan"))
    for key in db.get("PORTCHANNEL_MEMBER") or {}:
        lag, _, pname = key.partition("|")
        st.bonds.setdefault(lag, []).append(pname)
        if pname in st.ports:
            st.ports[pname].bond = lag
    st.qos = _qos(db)
    st.bgp = parse_frr(files["frr"]) if files.get("frr") is not None else None
    return st


def _qos(db: dict) -> QosState:
    q = QosState()
    maps = db.get("DSCP_TO_TC_MAP") or {}
    port_qos = db.get("PORT_QOS_MAP") or {}
    used = {row.get("dscp_to_tc_map") for row in port_qos.values()} - {None}
    for mname in sorted(used) or sorted(maps)[:1]:
        for dscp, tc in (maps.get(mname) or {}).items():
            if _int(dscp) is not None and _int(tc) is not None:
                q.dscp_to_prio[int(dscp)] = int(tc)
    for pname, row in port_qos.items():
        prios = {int(p) for p in str(row.get("pfc_enable", "")).split(",") if p.strip().isdigit()}
        if prios:
            q.pfc_prios |= prios
            q.pfc_ports.add(pname)
    schedulers = db.get("SCHEDULER") or {}
    wred = db.get("WRED_PROFILE") or {}
    for key, row in (db.get("QUEUE") or {}).items():
        _, _, spec = key.partition("|")
        for tc in _queues(spec):
            sched = schedulers.get(str(row.get("scheduler", "")).strip("[]").split("|")[-1])
            if sched:
                q.ets[tc] = ("strict", 0) if str(sched.get("type", "")).upper() == "STRICT" else ("dwrr", _int(sched.get("weight")) or 0)
            prof = wred.get(str(row.get("wred_profile", "")).strip("[]").split("|")[-1])
            if prof and prof.get("ecn", "ecn_none") != "ecn_none":
                q.ecn[tc] = (_int(prof.get("green_min_threshold")) or -1, _int(prof.get("green_max_threshold")) or -1,
                             _int(prof.get("green_drop_probability")) or -1)
    q.pfcwd_ports = {k for k in (db.get("PFC_WD") or {}) if k != "GLOBAL"}
    return q


register_nos("sonic", SONIC_FILES, sonic_state)
