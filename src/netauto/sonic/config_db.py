"""Build a SONiC switch's /etc/sonic/config_db.json from the resolved model (a dict, serialised stably).

Same intent as the Cumulus rendering: ports, addresses, loopback and NVIDIA's RoCE lossless QoS profile
(DSCP roce -> the PFC class, DSCP cnp -> the strict CNP class, ECN on the ETS classes, DWRR weights, PFC
watchdog). FRR runs in `split-unified` mode: BGP lives in /etc/sonic/frr/frr.conf, not in config_db.

Every value is a string, as SONiC's redis tables hold them; `netauto.validate.sonic_yang` converts the
result to YANG-JSON for yanglint.
"""

from __future__ import annotations

import json
from typing import Any

from netauto.errors import NetautoError
from netauto.model.types import FabricModel, Interface, Switch
from netauto.platforms import hardware as hwsku_data
from netauto.platforms.nos import frr_location, sonic_buffer_topology, sonic_device_type, sonic_device_types, sonic_flex_counters
from netauto.netutil.ip import ip_of
from netauto.model.mlag import SONIC_PEERLINK_LAG
from netauto.sonic.tenants import merge, tenant_tables

ROUTING_CONFIG_MODE = frr_location("sonic")["routing_config_mode"]  # split-unified: bgpd reads frr.conf, not config_db
BUFFER_MODEL = "traditional"
MAP = "ROCE"  # name of every QoS map
WRED = "ROCE_ECN"
CABLE_LENGTH_LIST = "AZURE"  # the list name SONiC's buffer templates and buffermgrd use
QUEUES = range(8)
DSCPS = range(64)
LOOPBACK = "Loopback0"
MGMT_PORT = "eth0"
PFC_WD_DETECTION_MAX_MS = 5000  # sonic-pfcwd.yang
PFC_WD_ACTION = "drop"

# Buffer profiles of the traditional model (sonic-buildimage ACS-MSN2700/buffers_defaults_objects.j2, shared by
# the SN5600/SN4600C/SN3420 SKUs, generate_buffer_pool_and_profiles_with_inactive_ports): lossy PG 0 on ingress,
# lossless and lossy queues on egress, and the two per-port profile lists of generate_profile_lists. The lossless
# ingress PG of each PFC priority gets the SKU's pg_profile_lookup headroom row, rendered here under buffermgrd's
# own name (pg_lossless_<speed>_<cable>_profile) with the CABLE_LENGTH of that row, so buffermgrd finds the same.
LOSSLESS_INGRESS_POOL = "ingress_lossless_pool"
BUFFER_PROFILES = {
    "ingress_lossless_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "7"},
    "ingress_lossy_profile": {"pool": "ingress_lossy_pool", "size": "0", "dynamic_th": "3"},
    "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"},
    "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "9216", "dynamic_th": "7"},
    "q_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "3"},
}
# BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST of every active port (buffers_defaults_objects.j2 generate_profile_lists;
# without DEVICE_NEIGHBOR every port of PORT is active, files/build_templates/buffers_config.j2)
INGRESS_PROFILE_LIST = "ingress_lossless_profile,ingress_lossy_profile"
EGRESS_PROFILE_LIST = "egress_lossless_profile,egress_lossy_profile"


def scheduler_name(traffic_class: int) -> str:
    return f"scheduler.tc{traffic_class}"


def _ranges(values: list[int]) -> list[str]:
    """[0, 1, 2, 4, 5] -> ["0-2", "4-5"] (SONiC's qindex ranges)."""
    out: list[str] = []
    start: int | None = None  # the open range is start..prev
    prev = 0
    for v in values:
        if start is None:
            start = prev = v
        elif v == prev + 1:
            prev = v
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = v
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return out


def device_type(sw: Switch, sku: hwsku_data.HwSku) -> str:
    """DEVICE_METADATA.localhost.type: the tier's SONiC role (platforms/data/nos_sonic.yaml device_types), the first
    whose buffer defaults (buffers_defaults_<t>.j2, chosen by SONiC's buffers_config.j2) the SKU has, so that
    `config qos reload` renders the SKU's templates for it."""
    kind = sonic_device_type(sw.role, sku.buffer_defaults)
    if kind is None:
        raise NetautoError(f"{sw.name}: HWSKU {sku.name} has buffer defaults for {', '.join(sorted(sku.buffer_defaults))} "
                           f"only, none for a {sw.role} ({' or '.join(sonic_device_types(sw.role))}): choose another HWSKU")
    return kind


def buffer_defaults(sw: Switch, sku: hwsku_data.HwSku) -> hwsku_data.BufferDefaults:
    """The SKU's buffers_defaults_<t>.j2 that SONiC's template imports for this switch's DEVICE_METADATA type."""
    return sku.buffers(sonic_buffer_topology(device_type(sw, sku)), where=sw.name)


def _device_metadata(sw: Switch, sku: hwsku_data.HwSku) -> dict[str, Any]:
    return {"localhost": {
        "hostname": sw.name,
        "bgp_asn": str(sw.bgp.asn),
        "type": device_type(sw, sku),
        "docker_routing_config_mode": ROUTING_CONFIG_MODE,
        "buffer_model": BUFFER_MODEL,
        "default_pfcwd_status": "enable" if sw.qos.pfc_watchdog else "disable",
        "hwsku": sku.name,
        "platform": sku.platform,
        # frr.conf has `bgp suppress-fib-pending` when this is enabled: orchagent then reports route offload to
        # FRR; the YANG requires synchronous_mode enable for it (sonic-device_metadata.yang, suppress-fib-pending)
        **({"suppress-fib-pending": "enabled", "synchronous_mode": "enable"} if sw.bgp.wait_for_install else {}),
    }}


def _ports(sw: Switch, sku: hwsku_data.HwSku) -> dict[str, Any]:
    ports: dict[str, Any] = {}
    for iface in sw.interfaces:
        if iface.cage is None or not iface.lanes:
            raise NetautoError(f"{sw.name} {iface.name}: the model gives no front-panel cage or lanes")
        info = sku.port(iface.cage, iface.subport, iface.breakout, iface.speed_mbps, device=sw.name, name=iface.name)
        port = {
            "admin_status": "up" if iface.enabled else "down",
            "alias": info.alias,
            "description": iface.description,
            "index": str(info.index),
            "lanes": ",".join(map(str, iface.lanes)),
            "mtu": str(iface.mtu),
            "speed": str(iface.speed_mbps),
        }
        if iface.fec:
            port["fec"] = iface.fec
        ports[iface.name] = port
    return ports


def _breakout_cfg(sw: Switch, sku: hwsku_data.HwSku) -> dict[str, Any]:
    """BREAKOUT_CFG: a row for every cage of the SKU (as SONiC's own generator writes it from hwsku.json), keyed
    by the cage's first port (platform.json's parent port), the fabric's mode where it uses the cage and the
    SKU's default elsewhere, spelled as platform.json spells the mode. Deploy compares it with the switch's
    to run Dynamic Port Breakout (netauto.deploy.sonic_breakout)."""
    cages: dict[int, int] = {}
    for iface in sw.interfaces:
        if iface.cage is not None:
            cages[iface.cage] = iface.breakout
    return {port: {"brkout_mode": mode} for port, mode in sku.breakout_modes(cages).items()}


def _l3(sw: Switch) -> dict[str, dict[str, Any]]:
    tables: dict[str, dict[str, Any]] = {"INTERFACE": {}}
    for iface in sw.interfaces:
        if iface.kind == "fabric":
            # BGP unnumbered (RFC 5549): an IPv6 link-local address only, no IPv4 address on the port
            tables["INTERFACE"][iface.name] = {"ipv6_use_link_local_only": "enable"}
        elif iface.address:  # a tenant's port: in its VRF (netauto.sonic.tenants)
            tables["INTERFACE"][iface.name] = {"vrf_name": iface.vrf} if iface.vrf else {}
            tables["INTERFACE"][f"{iface.name}|{iface.address}"] = {}
    if sw.svi and sw.mlag:
        tables.update(_mclag(sw))
    elif sw.svi:
        tables["VLAN"] = {sw.svi.name: {"vlanid": str(sw.svi.vlan), "mtu": str(sw.mtu)}}
        tables["VLAN_MEMBER"] = {f"{sw.svi.name}|{port}": {"tagging_mode": "untagged"} for port in sw.svi.members}
        tables["VLAN_INTERFACE"] = {sw.svi.name: {}, f"{sw.svi.name}|{sw.svi.address}": {}}
    tables["LOOPBACK_INTERFACE"] = {LOOPBACK: {}, f"{LOOPBACK}|{sw.loopback}": {}}
    tables["MGMT_PORT"] = {MGMT_PORT: {"admin_status": "up", "alias": MGMT_PORT}}
    tables["MGMT_INTERFACE"] = {f"{MGMT_PORT}|{sw.mgmt_address}": {"gwaddr": sw.mgmt_gateway}}
    if sw.mgmt_vrf:
        tables["MGMT_VRF_CONFIG"] = {"vrf_global": {"mgmtVrfEnabled": "true"}}
    return tables


MCLAG_DOMAIN = "1"
PEERLINK_LAG = SONIC_PEERLINK_LAG  # the model names the peer-link LAG once (model.mlag)


def _mclag(sw: Switch) -> dict[str, dict[str, Any]]:
    """An MLAG access pair on SONiC: MCLAG (sonic-mclag.yang) between the two switches' loopbacks over a
    peer-link PortChannel, one PortChannel per server (sonic-portchannel.yang), the group VLAN with the
    pair's shared gateway as a static anycast gateway (sonic-static-anycast-gateway.yang, sonic-vlan.yang)."""
    assert sw.svi is not None and sw.mlag is not None
    vlan = sw.svi.name
    lags = {b.name: b for b in sw.bonds}
    lag_rows = {PEERLINK_LAG: {"admin_status": "up", "mtu": str(sw.mtu), "min_links": "1", "lacp_key": "auto"}}
    lag_rows.update({name: {"admin_status": "up", "mtu": str(b.mtu), "min_links": "1", "lacp_key": "auto",
                            "fast_rate": "true", "description": b.description} for name, b in lags.items()})
    members: dict[str, dict[str, str]] = {f"{PEERLINK_LAG}|{p}": {} for p in sw.mlag.peerlink_members}
    members.update({f"{name}|{m}": {} for name, b in lags.items() for m in b.members})
    vlan_members = {f"{vlan}|{PEERLINK_LAG}": {"tagging_mode": "tagged"}}
    vlan_members.update({f"{vlan}|{name}": {"tagging_mode": "untagged"} for name in lags})
    tables: dict[str, dict[str, Any]] = {
        "PORTCHANNEL": lag_rows,
        "PORTCHANNEL_MEMBER": members,
        "MCLAG_DOMAIN": {MCLAG_DOMAIN: {"source_ip": ip_of(sw.loopback), "peer_ip": sw.mlag.peer_loopback,
                                        "peer_link": PEERLINK_LAG}},
        "MCLAG_INTERFACE": {f"{MCLAG_DOMAIN}|{name}": {"if_type": "PortChannel"} for name in lags},
        "VLAN": {vlan: {"vlanid": str(sw.svi.vlan), "mtu": str(sw.mtu)}},
        "VLAN_MEMBER": vlan_members,
        "SAG": {"GLOBAL": {"gateway_mac": sw.svi.vrr_mac}},
        "VLAN_INTERFACE": {vlan: {"static_anycast_gateway": "true"}, f"{vlan}|{sw.svi.vrr_address}": {}},
    }
    if sw.mlag.session is not None:
        _peer_session(sw, tables)
    return tables


def _peer_session(sw: Switch, tables: dict[str, dict[str, Any]]) -> None:
    """The routed link to the MCLAG peer (frr.conf: `neighbor Vlan4094 interface peer-group PEERLINK`): a VLAN whose
    only member is the peer-link PortChannel (tagged), its VLAN interface IPv6-link-local only for BGP unnumbered
    (sonic-vlan.yang VLAN_INTERFACE ipv6_use_link_local_only), and marked unique-IP so each peer keeps its own
    addresses on it: SONiC's MCLAG runs L3 protocols (BGP, BFD) between the peers' VLAN interfaces only on
    unique-IP VLANs (sonic-net/SONiC doc/mclag/MCLAG_Enhancements_HLD.md 1.1.5, 2.1.9; sonic-mclag.yang
    MCLAG_UNIQUE_IP)."""
    assert sw.mlag is not None and sw.mlag.session is not None
    s = sw.mlag.session
    tables["VLAN"][s.interface] = {"vlanid": str(s.vlan), "mtu": str(sw.mtu)}
    tables["VLAN_MEMBER"][f"{s.interface}|{s.lag}"] = {"tagging_mode": "tagged"}
    tables["VLAN_INTERFACE"][s.interface] = {"ipv6_use_link_local_only": "enable"}
    tables["MCLAG_UNIQUE_IP"] = {s.interface: {"unique_ip": "enable"}}


def _qos(sw: Switch) -> dict[str, dict[str, Any]]:
    q = sw.qos
    ports = sw.qos_ports
    lossless = sorted(q.pfc_priorities)
    pfc = ",".join(map(str, lossless))
    # the full map, identical to what Cumulus `qos roce` classifies (DSCP >> 3, then switch priority -> TC)
    dscp_to_tc = {str(d): str(tc) for d, tc in sorted(q.dscp_to_tc.items())}
    port_map = {"dscp_to_tc_map": MAP, "tc_to_queue_map": MAP, "tc_to_pg_map": MAP,
                "pfc_to_queue_map": MAP, "pfc_to_pg_map": MAP, "pfc_enable": pfc}
    if q.pfc_watchdog:
        port_map["pfcwd_sw_enable"] = pfc
    lossless_ports = set(sw.pfc_ports)  # a long-haul port run lossy (cabling.long_haul) has no PFC
    tables: dict[str, dict[str, Any]] = {
        "DSCP_TO_TC_MAP": {MAP: dscp_to_tc},
        "TC_TO_QUEUE_MAP": {MAP: {str(tc): str(tc) for tc in QUEUES}},
        "TC_TO_PRIORITY_GROUP_MAP": {MAP: {str(tc): str(tc if tc in lossless else 0) for tc in QUEUES}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {MAP: {str(p): str(p) for p in QUEUES}},
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {MAP: {str(p): str(p) for p in lossless}},
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": MAP}, **{p: _port_qos(port_map, p in lossless_ports) for p in ports}},
        # ECN marks ECT packets between min and max. orchagent programs a colour's WRED/ECN only when its
        # wred_<colour>_enable is "true" (sonic-buildimage issue 4545; qos_config.j2 AZURE_LOSSLESS sets all
        # three with ecn_all): with "false" no packet is ever marked. With the enables on, non-ECT packets on the
        # queue are WRED-dropped instead, so the profile is bound only where that is wanted (wred_queues).
        "WRED_PROFILE": {WRED: {
            "ecn": "ecn_all",
            **{f"wred_{color}_enable": "true" for color in ("green", "yellow", "red")},
            **{f"{color}_min_threshold": str(q.ecn_min_threshold) for color in ("green", "yellow", "red")},
            **{f"{color}_max_threshold": str(q.ecn_max_threshold) for color in ("green", "yellow", "red")},
            **{f"{color}_drop_probability": str(q.ecn_probability) for color in ("green", "yellow", "red")},
        }},
        "SCHEDULER": {
            scheduler_name(e.traffic_class): ({"type": "STRICT"} if e.mode == "strict"
                                              else {"type": "DWRR", "weight": str(e.weight)})
            for e in q.ets
        },
    }
    scheduled = {e.traffic_class for e in q.ets}
    default_tc = q.dscp_to_tc.get(0, 0)  # the default class: unclassified traffic; the empty queues share it
    marking = wred_queues(sw)
    queue: dict[str, Any] = {}
    for port in ports:
        for qi in QUEUES:  # every queue of the port, as SONiC's qos template gives each one (no stale binding)
            tc = qi if qi in scheduled else default_tc
            entry = {"scheduler": scheduler_name(tc)} if tc in scheduled else {}
            if qi in marking:
                entry["wred_profile"] = WRED
            queue[f"{port}|{qi}"] = entry
    tables["QUEUE"] = queue
    return tables


def wred_queues(sw: Switch) -> list[int]:
    """Queues bound to the ECN WRED profile. With its colour enables on (the only way SONiC marks), WRED drops
    non-ECT packets on the queue: so only the lossless RoCE queues of the ECN classes (ECT RoCE only there; SONiC's
    own AZURE_LOSSLESS is on the lossless queues 3-4 only). A lossy class carrying plain TCP stays tail-drop
    without ECN marking on SONiC, where Cumulus marks it (docs/sonic.md)."""
    q = sw.qos
    return sorted(tc for tc in q.ecn_traffic_classes if tc in q.pfc_priorities)


def _lossy_cable_row(sku: hwsku_data.HwSku, iface: Interface, cable: int) -> int:
    rows = sku.cable_lengths(iface.speed_mbps)
    return next((m for m in rows if m >= cable), rows[-1] if rows else cable)


def _port_qos(port_map: dict[str, str], lossless: bool) -> dict[str, str]:
    if lossless:
        return dict(port_map)
    return {k: v for k, v in port_map.items() if k not in ("pfc_enable", "pfcwd_sw_enable")}


def lossless_profile(sw: Switch, sku: hwsku_data.HwSku, iface: Interface) -> hwsku_data.PgProfile:
    """The pg_profile_lookup row of a port: its cable length rounded up to the table (model.cabling refuses a
    cable longer than the table at load time)."""
    cable = sw.cable_of(iface)
    row = sku.lossless_profile(iface.speed_mbps, cable)
    if row is None:
        lengths = ", ".join(f"{m}m" for m in sku.cable_lengths(iface.speed_mbps)) or "none"
        raise NetautoError(f"{sw.name} {iface.name}: no lossless headroom row for {iface.speed_mbps // 1000}G and "
                           f"{cable} m in HWSKU {sku.name}'s pg_profile_lookup (cable lengths: {lengths}); "
                           "shorten the cable (cabling:, fabric.cable_length_m)")
    return row


def _buffers(sw: Switch, sku: hwsku_data.HwSku) -> dict[str, dict[str, Any]]:
    lossless = sorted(sw.qos.pfc_priorities)
    lossy_queues = _ranges([i for i in QUEUES if i not in lossless])
    defaults = buffer_defaults(sw, sku)
    pools = {name: {"mode": "dynamic", **{k: str(v) for k, v in spec.items()}} for name, spec in defaults.pools.items()}
    profiles: dict[str, Any] = {k: dict(v) for k, v in BUFFER_PROFILES.items()}
    pg: dict[str, Any] = {}
    queue: dict[str, Any] = {}
    cable: dict[str, str] = {}
    ports = {i.name: i for i in sw.interfaces}
    lossless_ports = set(sw.pfc_ports)
    for port in sw.qos_ports:
        if port not in lossless_ports:  # lossy long-haul port: ECN only, every PG and queue lossy
            pg[f"{port}|0"] = {"profile": "ingress_lossy_profile"}
            for q_i in QUEUES:
                queue[f"{port}|{q_i}"] = {"profile": "q_lossy_profile"}
            continue
        row = lossless_profile(sw, sku, ports[port])
        cable[port] = f"{row.cable_m}m"
        profiles[row.name] = {"pool": LOSSLESS_INGRESS_POOL, "size": str(row.size), "xon": str(row.xon),
                              "xoff": str(row.xoff), "dynamic_th": str(row.threshold)}
        pg[f"{port}|0"] = {"profile": "ingress_lossy_profile"}
        for prio in lossless:  # PFC priority p is PG p (PFC_PRIORITY_TO_PRIORITY_GROUP_MAP is the identity)
            pg[f"{port}|{prio}"] = {"profile": row.name}
        for qindex in lossy_queues:
            queue[f"{port}|{qindex}"] = {"profile": "q_lossy_profile"}
        for prio in lossless:
            queue[f"{port}|{prio}"] = {"profile": "egress_lossless_profile"}
    # every port, enabled or not, has a cable length; a port without PFC (disabled, or lossy long-haul) gets the
    # row of its cable, or the longest row: buffermgrd makes no lossless PG without pfc_enable
    for iface in sw.interfaces:
        cable.setdefault(iface.name, f"{_lossy_cable_row(sku, iface, sw.cable_of(iface))}m")
    return {"BUFFER_POOL": pools, "BUFFER_PROFILE": profiles, "BUFFER_PG": pg, "BUFFER_QUEUE": queue,
            "BUFFER_PORT_INGRESS_PROFILE_LIST": {p: {"profile_list": INGRESS_PROFILE_LIST} for p in ports},
            "BUFFER_PORT_EGRESS_PROFILE_LIST": {p: {"profile_list": EGRESS_PROFILE_LIST} for p in ports},
            "CABLE_LENGTH": {CABLE_LENGTH_LIST: dict(sorted(cable.items()))}}


def _pfc_wd(sw: Switch) -> dict[str, dict[str, Any]]:
    q = sw.qos
    if not q.pfc_watchdog:
        return {}
    # Cumulus semantics: a storm is declared after `robustness` polling intervals; restore after as long.
    detect = q.pfc_watchdog_polling_interval_ms * q.pfc_watchdog_robustness
    if detect > PFC_WD_DETECTION_MAX_MS:
        raise NetautoError(
            f"{sw.name}: PFC watchdog detection time {detect} ms (polling {q.pfc_watchdog_polling_interval_ms} ms x "
            f"robustness {q.pfc_watchdog_robustness}) exceeds SONiC's {PFC_WD_DETECTION_MAX_MS} ms: "
            f"lower qos.pfc_watchdog.robustness")
    table: dict[str, Any] = {"GLOBAL": {"POLL_INTERVAL": str(q.pfc_watchdog_polling_interval_ms)}}
    for port in sw.pfc_ports:
        table[port] = {"action": PFC_WD_ACTION, "detection_time": str(detect), "restoration_time": str(detect)}
    return {"PFC_WD": table}


PFCWD_GROUP = "PFCWD"


def _flex_counters(sw: Switch) -> dict[str, dict[str, Any]]:
    """FLEX_COUNTER_TABLE (sonic-flex_counter.yang): every counter group the fabric's alerts read, enabled, at the
    interval of platforms/data/nos_sonic.yaml; PFCWD only where the PFC watchdog runs."""
    watchdog = sw.qos.lossless and sw.qos.pfc_watchdog
    table = {group: {"FLEX_COUNTER_STATUS": "enable", **{k: str(v) for k, v in fields.items()}}
             for group, fields in sonic_flex_counters().items() if group != PFCWD_GROUP or watchdog}
    return {"FLEX_COUNTER_TABLE": table}


def qos_tables(sw: Switch) -> dict[str, dict[str, Any]]:
    """The tables SONiC's qos.json.j2 renders, as netauto renders them (a lossless switch)."""
    return _qos(sw)


def buffer_tables(sw: Switch) -> dict[str, dict[str, Any]]:
    """The tables SONiC's buffers.json.j2 renders, as netauto renders them (a lossless switch)."""
    if not sw.hwsku:
        raise NetautoError(f"{sw.name}: no SONiC HWSKU in the model (NOS {sw.nos})")
    return _buffers(sw, hwsku_data.load_hwsku(sw.hwsku))


def build_config_db(sw: Switch, fabric: FabricModel | None = None) -> dict[str, Any]:
    """The config_db of one SONiC switch, as a dict of tables."""
    if not sw.hwsku:
        raise NetautoError(f"{sw.name}: no SONiC HWSKU in the model (NOS {sw.nos})")
    sku = hwsku_data.load_hwsku(sw.hwsku)
    db: dict[str, Any] = {"DEVICE_METADATA": _device_metadata(sw, sku), "PORT": _ports(sw, sku),
                          "BREAKOUT_CFG": _breakout_cfg(sw, sku)}
    db.update(_l3(sw))
    merge(db, tenant_tables(sw), sw.name)
    db.update(_flex_counters(sw))
    if sw.qos.lossless:  # a lossy network keeps SONiC's default (lossy) QoS and buffers
        db.update(_qos(sw))
        db.update(_buffers(sw, sku))
        db.update(_pfc_wd(sw))
    return db


def dumps(db: dict[str, Any]) -> str:
    """Stable text: sorted keys, 4-space indent, trailing newline (golden diffs stay readable)."""
    return json.dumps(db, indent=4, sort_keys=True) + "\n"


def config_db_json(sw: Switch, fabric: FabricModel | None = None) -> str:
    return dumps(build_config_db(sw, fabric))
