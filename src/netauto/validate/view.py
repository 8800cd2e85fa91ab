"""The parsed fabric: values read back from the rendered files, roles and cabling from the model.

Each switch is reduced to a NOS-agnostic `SwitchState` (ports, loopback, QoS, adaptive routing, BGP).
A Cumulus switch has two: the Linux-files view (interfaces, frr.conf, qos_features.conf,
adaptive_routing.conf) which the rules check, and the NVUE view (startup.yaml) which must agree with it.
Other NOSes plug in through `STATE_BUILDERS` (a SONiC builder reads config_db.json and its frr.conf).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from netauto.model.types import FabricModel, Server, Switch
from netauto.platforms.nos import cumulus_path, nvue_spelling, sonic_path
from netauto.validate.files import FileSet
from netauto.validate.findings import Finding
from netauto.validate.parse import (
    FrrConf, HostQos, parse_firmware_script, parse_frr, parse_interfaces, parse_kv, parse_nccl, parse_netplan,
    parse_netplan_bonds, parse_nvue, parse_roce_script, parse_sysctl, parse_udev_rules, parse_unit,
)
from netauto.validate.parse.kv import kv_bool, kv_list
from netauto.validate.parse.nvue import NvueError, dig, enabled, is_on

CUMULUS_FILES = {role: cumulus_path(role) for role in ("nvue", "ports", "interfaces", "frr", "ar", "qos")}
SONIC_FILES = {role: sonic_path(role) for role in ("config_db", "frr")}
HOST_FILES = {
    "netplan": "etc/netplan/60-rails.yaml",
    "sysctl": "etc/sysctl.d/90-gpu-rails.conf",
    "qos": "usr/local/sbin/netauto-roce-qos.sh",
    "nccl": "etc/nccl.conf",
    "unit": "etc/systemd/system/netauto-roce-qos.service",
    "unit_rail": "etc/systemd/system/netauto-roce-qos@.service",
    "udev": "etc/udev/rules.d/90-netauto-rails.rules",
    "firmware": "usr/local/sbin/netauto-nic-firmware.sh",
}

SPEED_MBPS = {"1G": 1000, "10G": 10000, "25G": 25000, "40G": 40000, "50G": 50000, "100G": 100000,
              "200G": 200000, "400G": 400000, "800G": 800000}
# What `qos roce` (mode lossless) programs on Cumulus when NVUE has no explicit mapping.
# Classification is the default DSCP >> 3 map (24-31 -> SP3, 48-55 -> SP6) and SP3 -> TC3, SP6 -> TC6, the rest
# -> TC0 (CL RoCE page); SP3 is the only switch priority in the lossless (roce-lossless) traffic pool.
ROCE_DEFAULT = {"dscp": {d: d >> 3 for d in range(64)}, "prio_to_tc": {p: p if p in (3, 6) else 0 for p in range(8)},
                "lossless_pool": {3}, "pfc": {3}, "ecn": {0: (150000, 1500000, 100), 3: (150000, 1500000, 100)},
                "ets": {0: ("dwrr", 50), 3: ("dwrr", 50), 6: ("strict", 0)}}


@dataclass(slots=True)
class Port:
    name: str
    mtu: int | None = None
    speed_mbps: int | None = None
    fec: str | None = None
    up: bool = True
    addresses: list[str] = field(default_factory=list)
    access_vlan: int | None = None
    bond: str | None = None  # the LAG this port is a member of
    lanes: int | None = None  # SerDes lanes (SONiC PORT lanes; Cumulus: cage lanes / breakout ways)
    stp_edge: bool | None = None  # admin edge (portfast); None when the file says nothing
    bpdu_guard: bool | None = None


@dataclass(slots=True)
class QosState:
    dscp_to_prio: dict[int, int] = field(default_factory=dict)
    pfc_prios: set[int] = field(default_factory=set)
    pfc_ports: set[str] = field(default_factory=set)
    ecn: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # tc -> (min, max, probability)
    ets: dict[int, tuple[str, int]] = field(default_factory=dict)  # tc -> ("dwrr"|"strict", weight)
    pfcwd_ports: set[str] = field(default_factory=set)
    cable_length: int | None = None
    prio_to_tc: dict[int, int] | None = None  # None: not in the files read (Cumulus Linux files: qos_infra.conf)
    lossless_buffers: dict[str, set[int]] | None = None  # port -> priorities with lossless buffers; None: unknown
    wred_drop: set[int] = field(default_factory=set)  # queues where WRED drops (not only marks) packets
    buffer_notes: dict[str, str] = field(default_factory=dict)  # port -> why a PFC priority has no lossless PG


@dataclass(slots=True)
class SwitchState:
    name: str
    source: str  # "linux-files", "nvue", "config_db"
    ports: dict[str, Port] = field(default_factory=dict)
    loopbacks: list[str] = field(default_factory=list)
    svis: dict[str, list[str]] = field(default_factory=dict)
    bonds: dict[str, list[str]] = field(default_factory=dict)
    bond_edge: dict[str, bool] = field(default_factory=dict)  # bond -> STP admin-edge and BPDU guard both on
    breakouts: dict[int, int] = field(default_factory=dict)  # cage -> ways (NVUE link breakout / ports.conf)
    bridges: dict[str, list[str]] = field(default_factory=dict)  # bridge name -> member ports
    ar_global: bool = False
    ar_ports: set[str] = field(default_factory=set)
    qos: QosState = field(default_factory=QosState)
    bgp: FrrConf | None = None
    files: dict[str, str] = field(default_factory=dict)  # role -> on-device path (for findings)


@dataclass(slots=True)
class Nic:
    name: str
    mtu: int | None
    addresses: list[str]
    routes: list[dict[str, Any]]
    policies: list[dict[str, Any]]
    members: list[str] = field(default_factory=list)  # a netplan bond: its NICs
    bond: str | None = None  # a bond member: the bond
    match: dict[str, Any] = field(default_factory=dict)  # netplan match: (macaddress, driver, name)
    set_name: str | None = None
    optional: bool = False


@dataclass(slots=True)
class ServerState:
    name: str
    nics: dict[str, Nic] = field(default_factory=dict)
    sysctl: dict[str, str] = field(default_factory=dict)
    qos: HostQos | None = None
    nccl: dict[str, str] = field(default_factory=dict)
    units: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)  # role -> parsed unit
    udev: list[list[tuple[str, str, str]]] = field(default_factory=list)
    firmware: dict[str, dict[str, int]] | None = None  # NIC kind -> mlxconfig settings


@dataclass
class ParsedFabric:
    model: FabricModel
    files: FileSet
    switches: dict[str, SwitchState] = field(default_factory=dict)
    nvue: dict[str, SwitchState] = field(default_factory=dict)
    nvue_raw: dict[str, dict[str, Any]] = field(default_factory=dict)
    servers: dict[str, ServerState] = field(default_factory=dict)
    problems: list[Finding] = field(default_factory=list)  # unreadable / missing files
    provisioning: bool = True  # the compute fabric: servers get NIC provisioning, NCCL and firmware files

    @property
    def oversubscription(self) -> float:
        """topology.oversubscription of the inventory (down:up bandwidth allowed), as the resolver set it."""
        return self.model.oversubscription

    def intent(self, name: str) -> Switch:
        return self.model.switch(name)

    def server_intent(self) -> dict[str, Server]:
        return {s.name: s for s in self.model.servers}


# ---------------------------------------------------------------- Cumulus Linux files
def _yes(value: Any) -> bool | None:
    return None if value is None else str(value).strip().lower() in ("yes", "on", "true", "1")


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def cumulus_state(name: str, files: dict[str, str | None]) -> SwitchState:
    st = SwitchState(name, "linux-files", files={k: v for k, v in CUMULUS_FILES.items() if k != "nvue"})
    for key, value in parse_kv(files.get("ports") or "").items():
        ways = value.strip().rstrip("x")
        if key.strip().isdigit() and ways.isdigit():
            st.breakouts[int(key)] = int(ways)
    stanzas = parse_interfaces(files.get("interfaces") or "")
    for sname, sz in stanzas.items():
        if sname == "lo":
            st.loopbacks = [a for a in sz.addresses if not a.startswith("127.") and ":" not in a]
        elif sname.startswith("swp") or sname.startswith("Ethernet"):
            speed = sz.int_("link-speed")
            st.ports[sname] = Port(
                sname, mtu=sz.int_("mtu"), speed_mbps=speed, fec=sz.first("link-fec"),
                up=(sz.first("link-down") or "no") != "yes", addresses=list(sz.addresses),
                access_vlan=sz.int_("bridge-access"),
                stp_edge=_yes(sz.first("mstpctl-portadminedge")), bpdu_guard=_yes(sz.first("mstpctl-bpduguard")),
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
    st.bgp = parse_frr(files["frr"]) if files.get("frr") is not None else None
    ar = parse_kv(files.get("ar") or "")
    st.ar_global = kv_bool(ar.get("adaptive_routing.enable"))
    st.ar_ports = {k.split(".")[1] for k, v in ar.items()
                   if k.startswith("interface.") and k.endswith(".adaptive_routing.enable") and kv_bool(v)}
    st.qos = _cumulus_qos(parse_kv(files.get("qos") or ""))
    return st


def _cumulus_qos(kv: dict[str, str]) -> QosState:
    q = QosState()
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
            q.pfc_ports |= set(kv_list(kv.get(f"pfc.{group}.port_set")))
            q.cable_length = _int(kv.get(f"pfc.{group}.cable_length"))
    for group in kv_list(kv.get("ecn_red.port_group_list")):
        if not kv_bool(kv.get(f"ecn_red.{group}.ecn_enable")):
            continue
        vals = (_int(kv.get(f"ecn_red.{group}.min_threshold_bytes")), _int(kv.get(f"ecn_red.{group}.max_threshold_bytes")),
                _int(kv.get(f"ecn_red.{group}.probability")))
        for tc in kv_list(kv.get(f"ecn_red.{group}.egress_queue_list")):
            if tc.isdigit():
                q.ecn[int(tc)] = tuple(v if v is not None else -1 for v in vals)  # type: ignore[assignment]
                if kv_bool(kv.get(f"ecn_red.{group}.red_enable")):
                    q.wred_drop.add(int(tc))
    for group in kv_list(kv.get("pfc_watchdog.port_group_list")):
        q.pfcwd_ports |= set(kv_list(kv.get(f"pfc_watchdog.{group}.port_set")))
    return q


# ---------------------------------------------------------------- Cumulus NVUE
def nvue_state(name: str, tree: dict[str, Any], release: str) -> SwitchState:
    """The NVUE view, read with the release's spelling (`ip: address` <= 5.14, `ipv4: address` >= 5.15)."""
    st = SwitchState(name, "nvue", files={"nvue": CUMULUS_FILES["nvue"]})
    nv = nvue_spelling(release)
    addr_key = nv.ipv4_container
    interfaces = dig(tree, "interface", default={}) or {}
    for iname, node in interfaces.items():
        iname = str(iname)
        if not isinstance(node, dict):
            continue
        addrs = [str(a) for a in (dig(node, addr_key, "address", default={}) or {})]
        if node.get("type") == "loopback":
            st.loopbacks = [a for a in addrs if ":" not in a]
        elif node.get("type") == "swp" and isinstance(dig(node, "link", "breakout"), dict):
            modes = [str(m) for m in node["link"]["breakout"]]
            ways = _int(modes[0].rstrip("x").split("x")[0]) if modes else None
            if iname[3:].isdigit() and ways:
                st.breakouts[int(iname[3:])] = ways
        elif node.get("type") == "swp" and "link" in node:
            link = node.get("link") or {}
            state = link.get("state") or {}
            domains = dig(node, "bridge", "domain") or {}
            domain_name, domain = next(iter(domains.items()), (None, None)) if isinstance(domains, dict) else (None, None)
            stp = (domain or {}).get("stp") if isinstance(domain, dict) else None
            st.ports[iname] = Port(
                iname, mtu=_int(link.get("mtu")), speed_mbps=SPEED_MBPS.get(str(link.get("speed"))),
                fec=str(link["fec"]) if link.get("fec") is not None else None,
                up="down" not in state if isinstance(state, dict) else True, addresses=addrs,
                access_vlan=_int((domain or {}).get("access")) if isinstance(domain, dict) else None,
                stp_edge=is_on(stp.get("admin-edge")) if isinstance(stp, dict) else None,
                bpdu_guard=is_on(stp.get("bpdu-guard")) if isinstance(stp, dict) else None,
            )
            if domain_name is not None:
                st.bridges.setdefault(str(domain_name), []).append(iname)
            if dig(node, "qos", "pfc-watchdog", "state") == nv.pfc_watchdog_on:  # explicit: `{}` is not enough
                st.qos.pfcwd_ports.add(iname)
            if enabled(dig(node, "router", "adaptive-routing")):
                st.ar_ports.add(iname)
        elif node.get("type") == "svi":
            st.svis[iname] = addrs
        elif node.get("type") in ("bond", "peerlink"):
            members = [str(m) for m in (dig(node, "bond", "member", default={}) or {})]
            st.bonds[iname] = members
            bstp = next(iter((dig(node, "bridge", "domain") or {}).values()), None)
            bstp = bstp.get("stp") if isinstance(bstp, dict) else None
            st.bond_edge[iname] = isinstance(bstp, dict) and bool(is_on(bstp.get("admin-edge")) and is_on(bstp.get("bpdu-guard")))
    for bond, members in st.bonds.items():
        for m in members:
            if m in st.ports:
                st.ports[m].bond = bond
    st.ar_global = enabled(dig(tree, "router", "adaptive-routing"))
    roce = dig(tree, "qos", "roce")
    if enabled(roce):
        st.qos.dscp_to_prio = dict(ROCE_DEFAULT["dscp"])
        st.qos.pfc_prios = set(ROCE_DEFAULT["pfc"])
        st.qos.ecn = dict(ROCE_DEFAULT["ecn"])
        st.qos.ets = dict(ROCE_DEFAULT["ets"])
        st.qos.pfc_ports = set(st.ports)
        st.qos.prio_to_tc = dict(ROCE_DEFAULT["prio_to_tc"])
        st.qos.lossless_buffers = {p: set(ROCE_DEFAULT["lossless_pool"]) for p in st.ports}
    dscp = dig(tree, "qos", "mapping", "default-global", "dscp")
    if isinstance(dscp, dict):  # entries change the default (DSCP >> 3) map
        st.qos.dscp_to_prio = {**(st.qos.dscp_to_prio or {d: d >> 3 for d in range(64)}),
                               **{int(d): int(v.get("switch-priority")) for d, v in dscp.items() if isinstance(v, dict)}}
    eqm = dig(tree, "qos", "egress-queue-mapping", "default-global", "switch-priority")
    if isinstance(eqm, dict):
        st.qos.prio_to_tc = {**(st.qos.prio_to_tc or {p: p for p in range(8)}),
                             **{int(p): int(v.get("traffic-class")) for p, v in eqm.items()
                                if isinstance(v, dict) and _int(v.get("traffic-class")) is not None}}
    pool = dig(tree, "qos", "traffic-pool", "roce-lossless", "switch-priority")
    if isinstance(pool, dict):
        st.qos.lossless_buffers = {p: {int(x) for x in pool} for p in st.ports}
    pfc = dig(tree, "qos", "pfc", "default-global")
    if isinstance(pfc, dict):
        st.qos.pfc_prios = {int(p) for p in (pfc.get("switch-priority") or {})}
        st.qos.cable_length = _int(pfc.get("cable-length"))
    cc = dig(tree, "qos", "congestion-control", "default-global", "traffic-class")
    if isinstance(cc, dict):
        st.qos.ecn = {int(tc): (_int(v.get("min-threshold")) or -1, _int(v.get("max-threshold")) or -1,
                                _int(v.get("probability")) or -1)
                      for tc, v in cc.items() if isinstance(v, dict) and v.get("ecn") == nv.ecn_on}
        # `red` takes the same enable/disable enum as `ecn` (nvueschema 5.6-5.18)
        st.qos.wred_drop = {int(tc) for tc, v in cc.items() if isinstance(v, dict) and v.get("red") == nv.ecn_on}
    ets = dig(tree, "qos", "egress-scheduler", "default-global", "traffic-class")
    if isinstance(ets, dict):
        st.qos.ets = {int(tc): ("strict", 0) if v.get("mode") == "strict" else ("dwrr", _int(v.get("bw-percent")) or 0)
                      for tc, v in ets.items() if isinstance(v, dict)}
    st.bgp = _nvue_bgp(tree)
    return st


def _nvue_bgp(tree: dict[str, Any]) -> FrrConf:
    from netauto.validate.parse.frr import Peer

    conf = FrrConf()
    conf.asn = _int(dig(tree, "router", "bgp", "autonomous-system"))
    rid = dig(tree, "router", "bgp", "router-id")
    conf.router_id = str(rid) if rid is not None else None
    conf.graceful_shutdown = is_on(dig(tree, "router", "bgp", "graceful-shutdown"))
    conf.suppress_fib_pending = is_on(dig(tree, "router", "bgp", "wait-for-install"))
    conf.update_delay = _int(dig(tree, "router", "bgp", "convergence-wait", "time"))
    vbgp = dig(tree, "vrf", "default", "router", "bgp", default={}) or {}
    conf.multipath_relax = is_on(dig(vbgp, "path-selection", "multipath", "aspath-ignore"))
    for pg, node in (vbgp.get("peer-group") or {}).items():
        af4 = dig(node, "address-family", "ipv4-unicast", default={}) or {}
        conf.peers[str(pg)] = Peer(str(pg), 0, is_group=True, remote_as=str(dig(node, "remote-as")),
                                   activated=enabled(af4), prefix_list_in=dig(af4, "policy", "inbound", "prefix-list"),
                                   maximum_prefix=_int(dig(af4, "prefix-limits", "inbound", "maximum")))
    for nb, node in (vbgp.get("neighbor") or {}).items():
        node = node or {}
        conf.peers[str(nb)] = Peer(str(nb), 0, interface=node.get("type") == "unnumbered",
                                   peer_group=node.get("peer-group"),
                                   remote_as=str(node["remote-as"]) if node.get("remote-as") is not None else None)
    af = dig(vbgp, "address-family", "ipv4-unicast", default={}) or {}
    conf.networks = [str(p) for p in (af.get("network") or {})]
    conf.aggregates = [(str(p), is_on(dig(v, "summary-only"))) for p, v in (af.get("aggregate-route") or {}).items()]
    conf.maximum_paths = _int(dig(af, "multipaths", "ebgp")) or 64
    return conf


# ---------------------------------------------------------------- hosts
def server_state(name: str, files: dict[str, str | None]) -> ServerState:
    st = ServerState(name)
    for nic, node in parse_netplan(files.get("netplan") or "").items():
        node = node or {}
        st.nics[str(nic)] = Nic(str(nic), _int(node.get("mtu")), [str(a) for a in node.get("addresses") or []],
                                list(node.get("routes") or []), list(node.get("routing-policy") or []),
                                match=dict(node.get("match") or {}), set_name=node.get("set-name"),
                                optional=bool(node.get("optional")))
    for bond, node in parse_netplan_bonds(files.get("netplan") or "").items():
        node = node or {}
        members = [str(m) for m in node.get("interfaces") or []]
        st.nics[str(bond)] = Nic(str(bond), _int(node.get("mtu")), [str(a) for a in node.get("addresses") or []],
                                 list(node.get("routes") or []), list(node.get("routing-policy") or []), members)
        for m in members:
            if m in st.nics:
                st.nics[m].bond = str(bond)
    st.sysctl = parse_sysctl(files.get("sysctl") or "")
    st.qos = parse_roce_script(files["qos"]) if files.get("qos") is not None else None
    st.nccl = parse_nccl(files.get("nccl") or "")
    for role in ("unit", "unit_rail"):
        if files.get(role) is not None:
            st.units[role] = parse_unit(files[role] or "")
    st.udev = parse_udev_rules(files.get("udev") or "")
    st.firmware = parse_firmware_script(files["firmware"]) if files.get("firmware") is not None else None
    return st


# ---------------------------------------------------------------- building the view
StateBuilder = Callable[[str, dict[str, "str | None"]], SwitchState]
# NOS -> (file roles -> on-device paths, builder). A new NOS registers here.
STATE_BUILDERS: dict[str, tuple[dict[str, str], StateBuilder]] = {"cumulus": (CUMULUS_FILES, cumulus_state)}


def register_nos(nos: str, paths: dict[str, str], builder: StateBuilder) -> None:
    STATE_BUILDERS[nos] = (paths, builder)


def _problem(device: str, message: str, file: str | None = None) -> Finding:
    return Finding("PARSE-01", "error", device, message, file)


def build_view(model: FabricModel, files: FileSet) -> ParsedFabric:
    """Parse every device's files."""
    return _build_view(model, files)


def _build_view(model: FabricModel, files: FileSet) -> ParsedFabric:
    view = ParsedFabric(model, files)
    for sw in model.switches:
        if sw.nos not in STATE_BUILDERS:
            view.problems.append(Finding("PARSE-02", "warning", sw.name,
                                         f"no parser for NOS {sw.nos!r}: its files are not checked by the fabric rules"))
            continue
        paths, builder = STATE_BUILDERS[sw.nos]
        texts = {role: files.get(sw.name, path) for role, path in paths.items()}
        for role, path in paths.items():
            if texts[role] is None and role in ("frr", "interfaces", "config_db"):
                view.problems.append(_problem(sw.name, f"missing {path}", path))
        try:
            view.switches[sw.name] = builder(sw.name, texts)
        except Exception as exc:  # noqa: BLE001 - a broken file is a finding, not a crash
            view.problems.append(_problem(sw.name, f"cannot parse: {exc}"))
            continue
        if texts.get("nvue") is not None:
            try:
                tree = parse_nvue(texts["nvue"] or "")
                view.nvue_raw[sw.name] = tree
                view.nvue[sw.name] = nvue_state(sw.name, tree, sw.cumulus_release)
            except (NvueError, ValueError, TypeError, AttributeError) as exc:
                view.problems.append(_problem(sw.name, f"cannot parse NVUE: {exc}", paths["nvue"]))
    for server in model.servers:
        texts = {role: files.get(server.name, path) for role, path in HOST_FILES.items()}
        if texts["netplan"] is None:
            view.problems.append(_problem(server.name, f"missing {HOST_FILES['netplan']}", HOST_FILES["netplan"]))
        try:
            view.servers[server.name] = server_state(server.name, texts)
        except Exception as exc:  # noqa: BLE001
            view.problems.append(_problem(server.name, f"cannot parse: {exc}", HOST_FILES["netplan"]))
    return view


import netauto.validate.sonic_view  # noqa: E402,F401  (registers the SONiC builder)
