"""Parsers for what the netauto NAPALM drivers read from a device: pure functions, text or JSON in, typed data out.

Formats and where each sample used by the tests comes from:
- `lldpcli -f json0 show neighbors details` (lldpd 1.0.16, Debian 12; run in the lab). `json0` keeps the same
  shape for one or many neighbours (plain `-f json` turns lists of one into objects).
- `vtysh -c 'show bgp vrf default ipv4 unicast summary json'` (FRR 8.4.4; run in the lab).
- `ip -j -d link show` / `ip -j -4 route show proto bgp` (iproute2 6.1; run in the lab).
- `dcb -j ets show dev X` / `dcb -j pfc show dev X` (iproute2 dcb(8); see tests/data/verify for the sources).
- `mlnx_qos -i X` (NVIDIA MLNX_OFED, text only: parsed with the ttp template shipped in netauto/verify/templates).
- `nv show ... -o json` (NVIDIA Cumulus Linux NVUE).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any
from importlib.resources import files

from netauto.formats import device_json
from netauto.formats.bgp_summary import BgpPeer, BgpSummary, parse_bgp_summary  # noqa: F401 - one parser per format
from netauto.formats.routes import route_widths  # noqa: F401 - one parser per format (formats/routes.py)


@dataclass(slots=True)
class LldpNeighbour:
    local_port: str
    hostname: str
    port: str  # the neighbour's port id (ifname subtype) or, failing that, its port description
    port_description: str = ""
    chassis_id: str = ""
    system_description: str = ""
    capabilities: list[tuple[str, bool]] = field(default_factory=list)  # (name, enabled)


def _v(obj: Any) -> str:
    """json0 wraps scalars as [{"value": x}] or {"value": x}."""
    if isinstance(obj, list):
        obj = obj[0] if obj else ""
    if isinstance(obj, dict):
        return str(obj.get("value", ""))
    return "" if obj is None else str(obj)


@device_json.shaped("lldpcli -f json0")
def parse_lldp_json0(text: str) -> dict[str, list[LldpNeighbour]]:
    """local port -> neighbours seen on it (`lldpcli -f json0 show neighbors [details]`)."""
    data = device_json.loads(text or "{}")
    out: dict[str, list[LldpNeighbour]] = {}
    for lldp in data.get("lldp", []) if isinstance(data.get("lldp"), list) else [data.get("lldp", {})]:
        for iface in lldp.get("interface", []) or []:
            local = iface.get("name", "")
            for ch in iface.get("chassis", []) or []:
                ports = iface.get("port", []) or [{}]
                port = ports[0]
                pid = port.get("id", [{}])[0] if isinstance(port.get("id"), list) else port.get("id", {})
                out.setdefault(local, []).append(LldpNeighbour(
                    local_port=local,
                    hostname=_v(ch.get("name")),
                    port=str(pid.get("value", "")) if pid.get("type") in ("ifname", "local", None) else _v(port.get("descr")),
                    port_description=_v(port.get("descr")),
                    chassis_id=_v((ch.get("id") or [{}])[0] if isinstance(ch.get("id"), list) else ch.get("id")),
                    system_description=_v(ch.get("descr")),
                    capabilities=_capabilities(ch.get("capability")),
                ))
    return out


# lldpd's capability names (lldpd src/lib/atoms/chassis.c: Other, Repeater, Bridge, Router, Wlan, Telephone,
# Docsis, Station) -> NAPALM's (napalm.base.constants.LLDP_CAPAB_TRANFORM_TABLE values)
_LLDP_CAPAB = {"wlan": "wlan-access-point", "docsis": "docsis-cable-device"}


def _capabilities(caps: object) -> list[tuple[str, bool]]:
    """lldpd's chassis capabilities (`[{"type": "Bridge", "enabled": true}, ...]` in json0) as (name, enabled),
    named as NAPALM's LLDP model names them (bridge, router, wlan-access-point, station...)."""
    out: list[tuple[str, bool]] = []
    for c in caps if isinstance(caps, list) else []:
        if isinstance(c, dict) and c.get("type"):
            name = str(c["type"]).lower()
            out.append((_LLDP_CAPAB.get(name, name), bool(c.get("enabled"))))
    return out


@device_json.shaped("show bgp neighbors json")
def parse_bgp_remote_ids(text: str) -> dict[str, str]:
    """`show bgp vrf default neighbors json` (FRR): neighbour key -> the peer's BGP identifier
    (`remoteRouterId`, FRR bgp_vty.c; "0.0.0.0" until the OPEN was received)."""
    data = device_json.loads(text or "{}")
    return {name: str(p.get("remoteRouterId", "") or "") for name, p in data.items() if isinstance(p, dict)}


@dataclass(slots=True)
class Link:
    name: str
    admin_up: bool
    oper: str  # UP / DOWN / LOWERLAYERDOWN / UNKNOWN
    mtu: int
    mac: str
    kind: str  # linkinfo kind: "veth", "bridge", "" for a physical port
    alias: str = ""
    speed_mbps: int | None = None  # from /sys/class/net/<if>/speed when readable
    master: str = ""  # the bond (or bridge, VRF) this port is enslaved to
    mode: str = ""  # a bond's mode (`ip -d` linkinfo.info_data.mode: 802.3ad, active-backup...)


def ifname(link: dict[str, Any]) -> str:
    """An `ip -j` entry's interface name: a string (a KeyError/TypeError otherwise, which the parsers' `shaped`
    reports as unreadable output)."""
    name = link["ifname"]
    if not isinstance(name, str):
        raise TypeError(f"ifname {str(name)[:40]!r} is not a string")
    return name


@device_json.shaped("ip -j link")
def parse_ip_link(text: str) -> dict[str, Link]:
    """`ip -j -d link show`."""
    out: dict[str, Link] = {}
    for l in device_json.loads(text or "[]"):
        out[ifname(l)] = Link(
            name=ifname(l), admin_up="UP" in l.get("flags", []), oper=str(l.get("operstate", "UNKNOWN")),
            mtu=int(l.get("mtu", 0)), mac=str(l.get("address", "")),
            kind=str((l.get("linkinfo") or {}).get("info_kind", "")), alias=str(l.get("ifalias", "") or ""),
            master=str(l.get("master", "") or ""),
            mode=str(((l.get("linkinfo") or {}).get("info_data") or {}).get("mode", "") or ""),
        )
    return out


@device_json.shaped("ip -j addr")
def parse_ip_addr(text: str) -> dict[str, list[str]]:
    """`ip -j addr show`: interface -> its addresses with prefix length (link-local scope left out)."""
    out: dict[str, list[str]] = {}
    for l in device_json.loads(text or "[]"):
        out[ifname(l)] = [f"{a['local']}/{a['prefixlen']}" for a in l.get("addr_info", [])
                            if a.get("scope") != "link" and "local" in a]
    return out


def parse_speeds(text: str) -> dict[str, int]:
    """Lines `<ifname> <speed>` (from /sys/class/net/*/speed; -1 or unreadable = unknown, left out)."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit() and int(parts[1]) > 0:
            out[parts[0]] = int(parts[1])
    return out




def parse_os_release(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep:
            out[k.strip()] = v.strip().strip('"')
    return out


# ---------------------------------------------------------------------------------------------- host NIC QoS


@dataclass(slots=True)
class NicQos:
    trust: str | None = None  # pcp | dscp
    pfc: list[int] | None = None  # per priority 0..7: 1 = PFC on
    tsa: dict[int, str] = field(default_factory=dict)  # traffic class -> ets | strict | vendor
    bw: dict[int, int] = field(default_factory=dict)  # traffic class -> ETS share %


@device_json.shaped("mlnx_qos")
def parse_mlnx_qos(text: str) -> NicQos:
    """`mlnx_qos -i <netdev>` (MLNX_OFED; text only): parsed with the shipped ttp template."""
    from ttp import ttp  # lazy: +32 modules (ttp) at import otherwise; only this parser needs them

    template = files("netauto.verify").joinpath("templates/mlnx_qos.ttp").read_text()
    # MLNX_OFED indents the PFC and per-TC lines with tabs (the documented sample does not): match either
    parser = ttp(data="\n".join(line.strip() for line in text.splitlines()), template=template)
    parser.parse()
    res = parser.result()[0][0] if parser.result() and parser.result()[0] else {}
    flat: dict[str, Any] = {}
    qos = res.get("qos", {})
    for part in qos if isinstance(qos, list) else [qos]:
        flat.update(part)
    tcs = res.get("tcs", [])
    tcs = tcs if isinstance(tcs, list) else [tcs]
    out = NicQos(trust=flat.get("trust"))
    if "pfc" in flat:
        out.pfc = [int(x) for x in str(flat["pfc"]).split()]
    for tc in tcs:
        out.tsa[int(tc["tc"])] = str(tc.get("tsa"))
        if "bw" in tc:
            out.bw[int(tc["tc"])] = int(tc["bw"])
    return out


@device_json.shaped("dcb -j pfc")
def parse_dcb_pfc(text: str) -> list[int]:
    """`dcb -j pfc show dev X` (iproute2 dcb/dcb_pfc.c: "prio_pfc" is an array of 8 JSON booleans)."""
    return [1 if v else 0 for v in device_json.loads(text)["prio_pfc"]]


@device_json.shaped("dcb -j ets")
def parse_dcb_ets(text: str) -> NicQos:
    """`dcb -j ets show dev X` (iproute2 dcb/dcb_ets.c: "tc_tsa" array of names, "tc_bw" array of %)."""
    data = device_json.loads(text)
    out = NicQos()
    for tc, tsa in enumerate(data.get("tc_tsa", [])):
        out.tsa[tc] = str(tsa)
    for tc, bw in enumerate(data.get("tc_bw", [])):
        out.bw[tc] = int(bw)
    return out


def parse_sysfs_grep(text: str) -> dict[str, str]:
    """`grep -r . DIR...` lines `path:value` (sysfs ECN/CNP knobs, hw_counters) -> {path: value}."""
    out = {}
    for line in text.splitlines():
        path, sep, value = line.rpartition(":")
        if sep:
            out[path] = value.strip()
    return out


def parse_ethtool_fec(text: str) -> str | None:
    """`ethtool --show-fec X`: the active encoding ("Active FEC encoding: RS" -> "rs"; "None" -> "off")."""
    for line in text.splitlines():
        if line.strip().lower().startswith("active fec encoding:"):
            val = line.split(":", 1)[1].strip().lower()
            return "off" if val in ("none", "off") else val
    return None


def parse_ethtool_stats(text: str) -> dict[str, int]:
    """`ethtool -S X`: counter name -> value."""
    out = {}
    for line in text.splitlines():
        k, sep, v = line.strip().partition(":")
        n = _u64(v) if sep else None
        if n is not None:
            out[k.strip()] = n
    return out


U64_MAX = 2**64 - 1  # every NIC, ASIC and kernel counter netauto reads is an unsigned 64-bit integer


def _u64(text: str) -> int | None:
    """A counter as a device prints it: 1-20 ASCII digits up to 2^64-1 (not `-5`, `²`, `1e9` or 5,000 digits)."""
    text = text.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 20):
        return None
    return int(text) if int(text) <= U64_MAX else None


# ---------------------------------------------------------------------------------------------- switch QoS counters


@dataclass(slots=True)
class SwitchQosCounters:
    """Cumulative counters of one switch port on the RoCE class, as the NOS reports them (None: not reported).

    pause_rx / pause_tx: PFC pause frames received / sent on the RoCE priority; ecn_marked: packets ECN-marked
    on the RoCE traffic class; drops: discards of the lossless (RoCE) queue; wd_storms: PFC watchdog storms
    (deadlocks) detected on that class; wd_drops: packets the watchdog dropped while the class was stormed."""

    pause_rx: int | None = None
    pause_tx: int | None = None
    ecn_marked: int | None = None
    drops: int | None = None
    wd_storms: int | None = None
    wd_drops: int | None = None

    def as_dict(self) -> dict[str, int]:
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}


def _count(value: object) -> int | None:
    """An NVUE / COUNTERS_DB counter: a JSON number or a decimal string ("12", "1,234"); anything else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        value = _u64(value.replace(",", ""))
    return value if isinstance(value, int) and 0 <= value <= U64_MAX else None


def _path(doc: object, *keys: str) -> object:
    for k in keys:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(k)
    return doc


def _sum(*values: int | None) -> int | None:
    got = [v for v in values if v is not None]
    return sum(got) if got else None


def _ports_json(text: str) -> dict[str, dict[str, Any]]:
    """{port: document} from netauto's per-port loops (`{"swp1": {...}, "swp2": null, "": null}`) or NVUE's
    all-interface views keyed by interface; ports without a document are left out."""
    data = device_json.loads(text or "{}")
    return {p: d for p, d in data.items() if p and isinstance(d, dict)} if isinstance(data, dict) else {}


@device_json.shaped("nv show qos roce counters")
def parse_nvue_roce_counters(text: str) -> dict[str, SwitchQosCounters]:
    """`nv show interface <swp> qos roce counters -o json` per port (CL 5.0+), or `nv show interface
    qos-roce-counters -o json` (CL 5.14+, every interface), as {port: tree}.

    The tree is the one NVIDIA documents for the text output (CL 5.15 user guide, "RDMA over Converged Ethernet
    - RoCE", CumulusNetworks/docs content/cumulus-linux-515/Layer-1-and-Switch-Ports/Quality-of-Service/
    RDMA-over-Converged-Ethernet-RoCE.md): rx-stats > rx-pfc-stats > pause-packets ("Rx PFC pause packets for
    RoCE traffic"), rx-stats > rx-roce-stats > no-buffer-discard, tx-stats > tx-pfc-stats > pause-packets,
    tx-stats > tx-ecn-stats > ecn-marked-packets, tx-stats > tx-roce-stats > unicast-no-buffer-discard. NVUE's
    `-o json` nests the same keys [derived: not captured on a switch]. The ECN count is the view's port-level
    "Tx ECN marked packets" (NVIDIA documents no per-traffic-class split in it)."""
    out = {}
    for port, doc in _ports_json(text).items():
        c = SwitchQosCounters(
            pause_rx=_count(_path(doc, "rx-stats", "rx-pfc-stats", "pause-packets")),
            pause_tx=_count(_path(doc, "tx-stats", "tx-pfc-stats", "pause-packets")),
            ecn_marked=_count(_path(doc, "tx-stats", "tx-ecn-stats", "ecn-marked-packets")),
            drops=_sum(_count(_path(doc, "rx-stats", "rx-roce-stats", "no-buffer-discard")),
                       _count(_path(doc, "tx-stats", "tx-roce-stats", "unicast-no-buffer-discard"))),
        )
        if c.as_dict():
            out[port] = c
    return out


@device_json.shaped("nv show pfc-watchdog")
def parse_nvue_pfc_watchdog(text: str, tc: int) -> dict[str, int]:
    """`nv show interface <swp> qos pfc-watchdog -o json` per port (CL 5.6+) as {port: document}: port ->
    deadlock-count of traffic class `tc`.

    NVIDIA documents the text output (CL 5.x user guide "Quality of Service" > PFC watchdog, and the NVUE
    command reference `nv show interface <interface-id> qos pfc-watchdog status <qos-tc-id>`): `state`, then a
    "PFC WD Status" table of traffic-class / status (OK, DEADLOCK) / deadlock-count; as JSON the table is the
    `status` collection keyed by traffic class [derived: not captured on a switch]."""
    out = {}
    for port, doc in _ports_json(text).items():
        n = _count(_path(doc, "status", str(tc), "deadlock-count"))
        if n is not None:
            out[port] = n
    return out


# sonic-utilities (sonic-net/sonic-utilities): scripts/pfcstat reads COUNTERS:<port oid> fields
# SAI_PORT_STAT_PFC_<p>_RX_PKTS / _TX_PKTS through COUNTERS_PORT_NAME_MAP; scripts/queuestat reads
# SAI_QUEUE_STAT_DROPPED_PACKETS and scripts/wredstat SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS from
# COUNTERS:<queue oid> through COUNTERS_QUEUE_NAME_MAP (`<port>:<index>`) and COUNTERS_QUEUE_TYPE_MAP (unicast
# or multicast); pfcwd/main.py (`show pfcwd stats`) reads PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED and
# PFC_WD_QUEUE_STATS_{TX,RX}_DROPPED_PACKETS from the same queue hash.
SAI_QUEUE_TYPE_MULTICAST = "SAI_QUEUE_TYPE_MULTICAST"


@device_json.shaped("sonic COUNTERS_DB")
def parse_sonic_qos_counters(text: str, priority: int, queue: int) -> dict[str, SwitchQosCounters]:
    """SONiC COUNTERS_DB as netauto's reader prints it (napalm.sonic.QOS_COUNTERS_PY: the three name/type maps and
    the `COUNTERS:<oid>` hashes of the selected ports and their queues, keys and fields as in the database, the
    layout of sonic-utilities tests/mock_tables/counters_db.json): port -> counters of PFC priority `priority`
    and unicast queue `queue`."""
    db = device_json.loads(text or "{}")
    if not isinstance(db, dict):
        raise ValueError("COUNTERS_DB dump is not a JSON object")
    ports: dict[str, str] = db.get("COUNTERS_PORT_NAME_MAP") or {}
    queues: dict[str, str] = db.get("COUNTERS_QUEUE_NAME_MAP") or {}
    types: dict[str, str] = db.get("COUNTERS_QUEUE_TYPE_MAP") or {}
    out = {}
    for port, oid in ports.items():
        p = db.get(f"COUNTERS:{oid}") or {}
        qoid = queues.get(f"{port}:{queue}")
        q = (db.get(f"COUNTERS:{qoid}") or {}) if qoid and types.get(qoid) != SAI_QUEUE_TYPE_MULTICAST else {}
        c = SwitchQosCounters(
            pause_rx=_count(p.get(f"SAI_PORT_STAT_PFC_{priority}_RX_PKTS")),
            pause_tx=_count(p.get(f"SAI_PORT_STAT_PFC_{priority}_TX_PKTS")),
            ecn_marked=_count(q.get("SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS")),
            drops=_count(q.get("SAI_QUEUE_STAT_DROPPED_PACKETS")),
            wd_storms=_count(q.get("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED")),
            wd_drops=_sum(_count(q.get("PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS")),
                          _count(q.get("PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS"))),
        )
        if c.as_dict():
            out[port] = c
    return out
