"""SONiC switches in the parsed view: `etc/sonic/config_db.json` + `etc/sonic/frr/frr.conf` -> `SwitchState`.

SONiC classifies DSCP -> TC and enables PFC per priority with identity TC/priority/queue maps, so the
TC stands in for the switch priority the rules speak of. SONiC has no adaptive routing.
"""

from __future__ import annotations

import json

from netauto.errors import NetautoError
from netauto.platforms import hardware
from netauto.formats.frr import parse_frr
from netauto.formats.values import to_int as _int
from netauto.platforms.nos import sonic_buffer_topology, sonic_path
from netauto.validate.state import Port, QosState, SwitchState

SONIC_FILES = {role: sonic_path(role) for role in ("config_db", "frr")}


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
                               up=row.get("admin_status", "down") == "up",
                               lanes=len([x for x in str(row.get("lanes", "")).split(",") if x.strip()]) or None)
    for key, row in (db.get("INTERFACE") or {}).items():
        if "|" not in key and key in st.ports and isinstance(row, dict) and row.get("vrf_name"):
            st.ports[key].vrf = str(row["vrf_name"])  # a tenant's port (netauto.sonic.tenants)
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
    _buffers(db, st)
    frr = files.get("frr")
    st.bgp = parse_frr(frr) if frr is not None else None
    st.sonic_vtep, st.sonic_l3vnis = l3vnis(db)
    return st


def _rows(db: dict, table: str) -> dict[str, dict]:
    rows = db.get(table)
    return {str(k): v for k, v in rows.items() if isinstance(v, dict)} if isinstance(rows, dict) else {}


def l3vnis(db: dict) -> tuple[str | None, dict[str, int]]:
    """(EVPN VTEP source, VRF -> L3VNI) as config_db binds them (netauto.sonic.tenants, platforms.vxlan): the NVO's
    VXLAN_TUNNEL src_ip; a VRF's `vni` counts only when that tunnel maps the VNI to a VLAN whose VLAN_INTERFACE is in
    the VRF (vrforch.cpp updateVrfVNIMap: no EVPN VTEP, no L3VNI; getVlanMappedToVni -> updateL3VniStatus)."""
    nvo = next(iter(_rows(db, "VXLAN_EVPN_NVO").values()), {})
    tunnel = str(nvo.get("source_vtep", ""))
    vtep = _rows(db, "VXLAN_TUNNEL").get(tunnel, {}).get("src_ip")
    if not vtep:
        return None, {}
    vlan_vrf = {k: str(v.get("vrf_name")) for k, v in _rows(db, "VLAN_INTERFACE").items() if "|" not in k}
    mapped = {(str(row.get("vni")), vlan_vrf.get(str(row.get("vlan")))) for key, row in
              _rows(db, "VXLAN_TUNNEL_MAP").items() if key.split("|", 1)[0] == tunnel}
    out = {}
    for vrf, row in _rows(db, "VRF").items():
        vni = _int(row.get("vni"))
        if vni and (str(vni), vrf) in mapped:
            out[vrf] = vni
    return str(vtep), out


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
    _queue_rows(db, q)
    q.pfcwd_ports = {k for k in (db.get("PFC_WD") or {}) if k != "GLOBAL"}
    q.prio_to_tc = {p: p for p in range(8)}  # SONiC speaks of TCs; PFC priority == TC by the identity maps
    return q


def _name(ref: object) -> str:
    return str(ref or "").strip("[]").split("|")[-1]


def _queue_rows(db: dict, q: QosState) -> None:
    """ETS, ECN and WRED drop per queue from QUEUE. A queue nothing is classified into that shares the default
    class's scheduler (queue 0's on its port) belongs to the default class: it adds no ETS weight. ECN marks only
    with a colour enable "true" (orchagent programs a colour's WRED/ECN only then: sonic-buildimage issue 4545);
    with one on, WRED also drops the queue's non-ECT packets."""
    schedulers = db.get("SCHEDULER") or {}
    wred = db.get("WRED_PROFILE") or {}
    rows = db.get("QUEUE") or {}
    fed = set(q.dscp_to_prio.values()) | {0}
    for key, row in rows.items():
        port, _, spec = key.partition("|")
        default = _name((rows.get(f"{port}|0") or {}).get("scheduler"))
        for tc in _queues(spec):
            sched_name = _name(row.get("scheduler"))
            sched = schedulers.get(sched_name)
            if sched and (tc in fed or sched_name != default):
                q.ets[tc] = ("strict", 0) if str(sched.get("type", "")).upper() == "STRICT" else ("dwrr", _int(sched.get("weight")) or 0)
            prof = wred.get(_name(row.get("wred_profile")))
            if not prof:
                continue
            colours = any(str(prof.get(f"wred_{c}_enable", "false")).lower() == "true" for c in ("green", "yellow", "red"))
            if prof.get("ecn", "ecn_none") != "ecn_none":
                q.ecn[tc] = (_int(prof.get("green_min_threshold")) or -1, _int(prof.get("green_max_threshold")) or -1,
                             _int(prof.get("green_drop_probability")) or -1)
                if not colours:
                    q.ecn_inert.add(tc)
            if colours:
                q.wred_drop.add(tc)


def _buffers(db: dict, st: SwitchState) -> None:
    """Which PFC priorities of each port have a lossless ingress PG: a BUFFER_PG entry whose profile exists, sits
    in an ingress pool and has headroom (xoff). In the traditional model buffermgrd makes that PG only when the
    port's CABLE_LENGTH is a row of the SKU's pg_profile_lookup table for its speed; the notes say why not."""
    q = st.qos
    pools = db.get("BUFFER_POOL") or {}
    profiles = db.get("BUFFER_PROFILE") or {}
    cables: dict[str, object] = next(iter((db.get("CABLE_LENGTH") or {}).values()), {}) or {}
    meta = (db.get("DEVICE_METADATA") or {}).get("localhost") or {}
    try:
        sku = hardware.load_hwsku(str(meta.get("hwsku")))
    except NetautoError:
        sku = None
    q.lossless_buffers = {}
    _profile_lists(db, q)
    if sku is not None and meta.get("type"):
        topology = sonic_buffer_topology(str(meta["type"]))
        if topology not in sku.buffer_defaults:
            q.buffer_defaults_note = (f"DEVICE_METADATA type {meta['type']} selects buffers_defaults_{topology}.j2, which "
                                      f"HWSKU {sku.name} lacks (it has {', '.join(sorted(sku.buffer_defaults))}): "
                                      "`config qos reload` fails")
    for key, row in (db.get("BUFFER_PG") or {}).items():
        pname, _, spec = key.partition("|")
        prof = profiles.get(str(row.get("profile", "")).strip("[]").split("|")[-1])
        if not prof or (pools.get(prof.get("pool")) or {}).get("type") != "ingress" or not _int(prof.get("xoff")):
            continue
        q.lossless_buffers.setdefault(pname, set()).update(_queues(spec))
    for pname in q.pfc_ports:
        port = st.ports.get(pname)
        cable = str(cables.get(pname, ""))
        if sku is None or port is None or port.speed_mbps is None:
            continue
        rows = sku.cable_lengths(port.speed_mbps)
        metres = _int(cable[:-1]) if cable.endswith("m") else None
        if metres is not None:
            q.port_cable[pname] = metres
        if metres not in rows:
            q.buffer_notes[pname] = (f"CABLE_LENGTH {cable or 'unset'} is not a {port.speed_mbps // 1000}G row of "
                                     f"{sku.name}'s pg_profile_lookup ({', '.join(f'{m}m' for m in rows)}): "
                                     "buffermgrd makes no lossless PG")



PROFILE_LISTS = ("BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST")


def _profile_lists(db: dict, q: QosState) -> None:
    """Ports SONiC's buffers template makes active (every PORT entry, or those DEVICE_NEIGHBOR names when it has
    entries: files/build_templates/buffers_config.j2) without both profile lists naming existing profiles. Only
    where the file owns buffers (BUFFER_POOL): a lossy network's switch keeps SONiC's own."""
    if not db.get("BUFFER_POOL"):
        return
    profiles = db.get("BUFFER_PROFILE") or {}
    active = list(db.get("DEVICE_NEIGHBOR") or {}) or list(db.get("PORT") or {})
    for port in active:
        for table in PROFILE_LISTS:
            row = (db.get(table) or {}).get(port)
            names = [n.strip() for n in str((row or {}).get("profile_list", "")).split(",") if n.strip()]
            missing = [n for n in names if n not in profiles]
            if not names:
                q.profile_list_notes[port] = f"no {table}"
            elif missing:
                q.profile_list_notes[port] = f"{table} names missing profile(s) {', '.join(missing)}"
