"""A realistic CONFIG_DB of a Mellanox/NVIDIA switch booted with its SKU's defaults, for deploy's SONiC tests.

What a switch holds after its first boot (`config-setup factory`: `sonic-cfggen -H -k <default_sku> --preset t1`)
followed by `config qos reload` (sonic-cfggen renders the SKU's buffers.json.j2 and qos.json.j2 over it).
Facts, from sonic-buildimage at the pinned snapshot 086b03bd (read, not copied; the templates are not shipped):

* PORT, BREAKOUT_CFG: the SKU's port_config.ini / platform.json + hwsku.json as netauto's platform data holds
  them (platforms/data/hardware/<model>.yaml cages, sonic_hwsku/<SKU>.yaml default_breakout);
* src/sonic-config-engine/config_samples.py generate_t1_sample_config: hostname `sonic`, type LeafRouter,
  bgp_asn 65100, every port admin up with mtu 9100 and a /31 on 10.0.x.y, one BGP_NEIGHBOR per port (the first
  half ARISTAnnT2 in AS 65200, the rest ARISTAnnT0 from AS 64001), Loopback0 10.1.0.1/32, an empty
  DEVICE_NEIGHBOR; generate_common_config: FLEX_COUNTER_TABLE ACL disabled, 10000 ms;
* device/mellanox/<platform>/<SKU>/create_only_config_db_buffers.json: DEVICE_METADATA create_only_config_db_buffers;
* files/build_templates/buffers_config.j2: a port is active unless DEVICE_NEIGHBOR names others (in redis an
  empty table does not exist, so at `config qos reload` every port is active); LeafRouter -> buffers_defaults_t1.j2
  (pool sizes, default cable 5m: netauto's sonic_hwsku data); CABLE_LENGTH AZURE;
* device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/buffers_defaults_objects.j2 (which the SN5600/SN4600C/
  SN3420 SKUs link to): pools mode dynamic; ingress_lossless_profile (ingress_lossless_pool, dynamic_th 7),
  ingress_lossy_profile (ingress_lossy_pool, 3), egress_lossless_profile (egress_lossless_pool, 7),
  egress_lossy_profile (egress_lossy_pool, size 9216, 7), q_lossy_profile (egress_lossy_pool, 3); per active port
  profile lists `ingress_lossless_profile,ingress_lossy_profile` / `egress_lossless_profile,egress_lossy_profile`,
  BUFFER_QUEUE 3-4 egress_lossless_profile, 0-2 and 5-6 q_lossy_profile, BUFFER_PG 0 ingress_lossy_profile;
  inactive ports: ingress_zero_pool and the *_zero_profile objects;
* files/build_templates/qos_config.j2: AZURE maps (DSCP 3->3, 4->4, 5->2, 8->0, 46->5, 48->6, others 1; TC n ->
  queue n; TC 3,4 -> PG 3,4, others 0 except 7 -> 7; PFC priority n -> queue n; PFC 3,4 -> PG 3,4), SCHEDULER
  scheduler.0 DWRR 14 and scheduler.1 DWRR 15, WRED_PROFILE AZURE_LOSSLESS, PORT_QOS_MAP per port (pfc_enable and
  pfcwd_sw_enable 3,4) and global, QUEUE 3,4 -> scheduler.1 + AZURE_LOSSLESS, the others scheduler.0.
"""

from __future__ import annotations

import copy
from typing import Any

from netauto.platforms.hardware import load_hwsku

Config = dict[str, dict[str, Any]]


def _ports(sku: str) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    hw = load_hwsku(sku)
    ports: dict[str, dict[str, str]] = {}
    breakout: dict[str, dict[str, str]] = {}
    for number, cage in sorted(hw.hardware.cages.items()):
        ways = hw.default_breakout if hw.default_breakout in cage.modes else 1
        parent = hw.hardware.sonic_name(number, None, 1)
        breakout[parent] = {"brkout_mode": hw.hardware.breakout_mode_name(number, ways)}
        for sub in range(ways):
            info = hw.hardware.port(number, sub if ways > 1 else None, ways, cage.modes[ways][0], where=sku)
            name = hw.hardware.sonic_name(number, sub if ways > 1 else None, ways)
            ports[name] = {"admin_status": "up", "alias": info.alias, "index": str(info.index), "lanes": info.lanes,
                           "mtu": "9100", "speed": str(cage.modes[ways][0])}
    return ports, breakout


def _t1_preset(ports: list[str]) -> Config:
    half = len(ports) // 2
    interface: dict[str, dict[str, str]] = {}
    neighbors: dict[str, dict[str, Any]] = {}
    for i, port in enumerate(ports):
        local, peer = f"10.0.{2 * i // 256}.{2 * i % 256}", f"10.0.{2 * i // 256}.{2 * i % 256 + 1}"
        interface[port] = {}
        interface[f"{port}|{local}/31"] = {}
        neighbors[peer] = {"rrclient": "0", "name": f"ARISTA{1 + i % half:02d}{'T2' if i < half else 'T0'}",
                           "local_addr": local, "nhopself": "0", "holdtime": "180",
                           "asn": "65200" if i < half else str(64001 + i - half), "keepalive": "60"}
    return {"INTERFACE": interface, "BGP_NEIGHBOR": neighbors,
            "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
            "FLEX_COUNTER_TABLE": {"ACL": {"FLEX_COUNTER_STATUS": "disable", "POLL_INTERVAL": "10000"}}}


def _buffers(sku: str, active: list[str], inactive: list[str]) -> Config:
    hw = load_hwsku(sku)
    pools: dict[str, dict[str, str]] = {name: {"size": str(p["size"]), "type": str(p["type"]), "mode": "dynamic"}
                                        for name, p in hw.buffer_defaults["t1"].pools.items()}
    profiles = {
        "ingress_lossless_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "7"},
        "ingress_lossy_profile": {"pool": "ingress_lossy_pool", "size": "0", "dynamic_th": "3"},
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "9216", "dynamic_th": "7"},
        "q_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "3"},
    }
    ingress, egress, queue, pg = {}, {}, {}, {}
    for port in active:
        ingress[port] = {"profile_list": "ingress_lossless_profile,ingress_lossy_profile"}
        egress[port] = {"profile_list": "egress_lossless_profile,egress_lossy_profile"}
        queue[f"{port}|3-4"] = {"profile": "egress_lossless_profile"}
        queue[f"{port}|0-2"] = queue[f"{port}|5-6"] = {"profile": "q_lossy_profile"}
        pg[f"{port}|0"] = {"profile": "ingress_lossy_profile"}
    if inactive:
        pools["ingress_zero_pool"] = {"mode": "static", "type": "ingress", "size": "0"}
        profiles["ingress_lossy_pg_zero_profile"] = {"pool": "ingress_zero_pool", "size": "0", "static_th": "0"}
        for name, pool in (("ingress_lossless", "ingress_lossless_pool"), ("ingress_lossy", "ingress_lossy_pool"),
                           ("egress_lossless", "egress_lossless_pool"), ("egress_lossy", "egress_lossy_pool")):
            profiles[f"{name}_zero_profile"] = {"pool": pool, "size": "0", "dynamic_th": "-8"}
    for port in inactive:
        ingress[port] = {"profile_list": "ingress_lossless_zero_profile,ingress_lossy_zero_profile"}
        egress[port] = {"profile_list": "egress_lossless_zero_profile,egress_lossy_zero_profile"}
        queue[f"{port}|3-4"] = {"profile": "egress_lossless_zero_profile"}
        queue[f"{port}|0-2"] = queue[f"{port}|5-6"] = {"profile": "egress_lossy_zero_profile"}
        pg[f"{port}|0"] = {"profile": "ingress_lossy_pg_zero_profile"}
    return {"BUFFER_POOL": pools, "BUFFER_PROFILE": profiles, "BUFFER_PORT_INGRESS_PROFILE_LIST": ingress,
            "BUFFER_PORT_EGRESS_PROFILE_LIST": egress, "BUFFER_QUEUE": copy.deepcopy(queue), "BUFFER_PG": pg,
            "CABLE_LENGTH": {"AZURE": {p: "5m" for p in active + inactive}}}


def _qos(ports: list[str]) -> Config:
    dscp = {str(d): "1" for d in range(64)} | {"3": "3", "4": "4", "5": "2", "8": "0", "46": "5", "48": "6"}
    port_qos: dict[str, dict[str, str]] = {"global": {"dscp_to_tc_map": "AZURE"}}
    queue: dict[str, dict[str, str]] = {}
    for port in ports:
        port_qos[port] = {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
                          "pfc_to_queue_map": "AZURE", "pfc_to_pg_map": "AZURE", "pfc_enable": "3,4",
                          "pfcwd_sw_enable": "3,4"}
        for q in range(7):
            queue[f"{port}|{q}"] = ({"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"} if q in (3, 4)
                                   else {"scheduler": "scheduler.0"})
    wred = {"wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true", "ecn": "ecn_all"}
    for color in ("green", "yellow", "red"):
        wred |= {f"{color}_max_threshold": "2097152", f"{color}_min_threshold": "1048576",
                 f"{color}_drop_probability": "5"}
    return {
        "DSCP_TO_TC_MAP": {"AZURE": dscp},
        "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {str(t): str(t) if t in (3, 4, 7) else "0" for t in range(8)}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {str(t): str(t) for t in range(8)}},
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}, "scheduler.1": {"type": "DWRR", "weight": "15"}},
        "WRED_PROFILE": {"AZURE_LOSSLESS": wred},
        "PORT_QOS_MAP": port_qos,
        "QUEUE": queue,
    }


def factory_config_db(sku: str, active: list[str] | None = None) -> Config:
    """The CONFIG_DB of a switch of HWSKU `sku` after its factory first boot and `config qos reload`.
    `active`: the ports with a DEVICE_NEIGHBOR (the others get the zero buffer profiles); None: all active."""
    hw = load_hwsku(sku)
    ports, breakout = _ports(sku)
    names = list(ports)
    on = names if active is None else [p for p in names if p in active]
    off = [p for p in names if p not in on]
    db: Config = {
        "DEVICE_METADATA": {"localhost": {
            "hostname": "sonic", "hwsku": sku, "platform": hw.hardware.sonic_platform, "mac": "1c:34:da:00:00:01",
            "type": "LeafRouter", "bgp_asn": "65100", "buffer_model": "traditional", "default_bgp_status": "up",
            "default_pfcwd_status": "disable", "docker_routing_config_mode": "separated",
            "create_only_config_db_buffers": "true"}},
        "PORT": ports, "BREAKOUT_CFG": breakout,
        **_t1_preset(names), **_buffers(sku, on, off), **_qos(on),
    }
    if active is not None:
        db["DEVICE_NEIGHBOR"] = {f"PEER{i}": {"name": f"PEER{i}", "port": "Ethernet1", "local_port": p}
                                 for i, p in enumerate(on)}
    return db


def after_breakout(db: Config, intent: Config) -> Config:
    """What Dynamic Port Breakout (`config interface breakout <port> <mode> -f -l -y`, sonic-utilities
    config/main.py + config_mgmt.py breakOutPort) leaves: each cage whose mode the intent changes has its old
    ports and every entry that names them removed (-f: the dependencies), the new ports added with the
    platform's defaults (-l), and BREAKOUT_CFG set to the new mode. No buffer or QoS entries for the new ports."""
    out = copy.deepcopy(db)
    want_cfg = intent.get("BREAKOUT_CFG") or {}
    for parent, entry in want_cfg.items():
        mode = entry.get("brkout_mode")
        if (out.get("BREAKOUT_CFG") or {}).get(parent, {}).get("brkout_mode") == mode:
            continue
        cage_index = (db["PORT"].get(parent) or {}).get("index")
        old = [p for p, f in db["PORT"].items() if f.get("index") == cage_index]
        for entries in out.values():
            for key in [k for k in entries if k.split("|")[0] in old]:
                del entries[key]
        for bgp_peer, fields in list((out.get("BGP_NEIGHBOR") or {}).items()):
            if not any(f"{p}|{fields.get('local_addr')}/31" in (db.get("INTERFACE") or {}) for p in old):
                continue
            del out["BGP_NEIGHBOR"][bgp_peer]
        if "AZURE" in (out.get("CABLE_LENGTH") or {}):
            for p in old:
                out["CABLE_LENGTH"]["AZURE"].pop(p, None)
        for port, fields in intent["PORT"].items():
            if fields.get("index") == cage_index:
                out["PORT"][port] = {k: fields[k] for k in ("alias", "index", "lanes", "speed") if k in fields} | {
                    "admin_status": "down", "mtu": "9100"}
        out["BREAKOUT_CFG"][parent] = {"brkout_mode": mode}
    return out
