"""What a lab is made of, computed from the model and the rendered artifacts (no root, no side effects).

A `LabPlan` lists the namespaces, the veth links (named as the real ports, wired as `model.links`), the
files each node gets (rendered frr.conf untouched; lab variant of interfaces), the host `ip` commands
from the rendered netplan, and what `lab check` expects: BGP sessions, ECMP widths and pings.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from netauto.errors import NetautoError
from netauto.model.ecmp import expected_ecmp
from netauto.model.types import FabricModel, Server, Switch
from netauto.render.artifact import Artifact
from netauto.render.file_tables import FRR_MODE

from netauto.formats.sysctl import parse_sysctl
from netauto.lab import adapt
from netauto.platforms.nos import cumulus_path, sonic_path
from netauto.netutil.ip import host_cidr

# where each NOS keeps the files the lab runs (platforms/data/nos_*.yaml)
CL_FRR, CL_DAEMONS, CL_IFACES = cumulus_path("frr"), cumulus_path("daemons"), cumulus_path("interfaces")
SONIC_FRR, SONIC_DB = sonic_path("frr"), sonic_path("config_db")
SONIC_FRR_DIR = SONIC_FRR.rsplit("/", 1)[0]  # etc/sonic/frr: the bgp container's /etc/frr

NAME_RE = re.compile(r"^[A-Za-z0-9_]{1,20}$")
MGMT_NS = "mgmt"
VOID_NS = "void"

NOT_EMULATED = (
    "not emulated in the lab: RoCE QoS (PFC/ECN/ETS, qos_features.conf, host netauto-roce-qos.sh), adaptive routing "
    "(adaptive_routing.conf), NVUE (startup.yaml is not applied; the Linux files are), port speed/FEC (veths), "
    "Cumulus switchd/ports.conf breakouts (breakout ports are plain veths); startup.yaml and the switchd files are "
    "still installed at their paths in each switch's private /etc, as inert files"
)


def ns_prefix(name: str) -> str:
    return f"na-{name}-"


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise NetautoError(f"lab name {name!r}: use 1-20 letters, digits or '_' (it prefixes namespace names: na-<name>-<device>)")
    return name


@dataclass(slots=True)
class Node:
    device: str
    ns: str
    kind: str  # "switch" | "server"
    nos: str
    files: dict[str, str] = field(default_factory=dict)  # on-node path -> content
    ip_batch: list[str] = field(default_factory=list)  # applied inside the node's netns (hosts, SONiC ports)
    sysctls: list[tuple[str, str]] = field(default_factory=list)
    mgmt_address: str | None = None
    frr_conf_path: str | None = None  # which rendered file is /etc/frr/frr.conf
    frr_dir: str = "etc/frr"  # where the node's FRR files live; SONiC: etc/sonic/frr, seen by FRR as /etc/frr
    inert: list[str] = field(default_factory=list)  # installed as files only: nothing in the lab applies them
    modes: dict[str, int] = field(default_factory=dict)  # on-node path -> the rendered file's mode (its intent)
    owners: dict[str, str | None] = field(default_factory=dict)  # on-node path -> the rendered file's owner

    def mode(self, rel: str) -> int:
        """The mode `lab up` installs a file with, and deploy --lab expects: the rendered one; files the lab adds
        itself (a default FRR daemons file) as FRR's own are 0640, the others 0644."""
        return self.modes.get(rel, FRR_MODE if rel.startswith(self.frr_dir + "/") else 0o644)

    def owner(self, rel: str) -> str | None:
        """The owner the rendered file must have (the lab makes its FRR folder FRR's, the rest root's)."""
        return self.owners.get(rel, "frr:frr" if rel.startswith(self.frr_dir + "/") else "root:root")


@dataclass(slots=True)
class VethLink:
    a_ns: str
    a_port: str
    b_ns: str
    b_port: str
    a_device: str
    b_device: str
    enabled: bool = True


@dataclass(slots=True)
class Session:
    device: str
    interface: str
    peer_device: str
    peer_port: str


@dataclass(slots=True)
class Ping:
    server: str
    nic: str
    src: str
    dst_server: str
    dst_nic: str
    dst: str
    via: str  # "leaf" or "spine"; "isolated" for a probe that must get no reply
    expect: bool = True  # False: a probe across networks that must not be answered


@dataclass(slots=True)
class LabPlan:
    name: str
    fabric: str
    nodes: dict[str, Node]
    links: list[VethLink]
    stub_links: list[VethLink]  # leaf ports whose server is not in the lab: peer end in the void namespace
    sessions: list[Session]
    ecmp: dict[str, dict[str, int]]  # leaf -> remote prefix -> expected kernel nexthops
    pings: list[Ping]
    notes: list[str]
    mgmt_gateways: list[str]
    uplinks: dict[str, list[str]] = field(default_factory=dict)  # leaf -> peer switch per enabled uplink
    foreign_pools: dict[str, list[str]] = field(default_factory=dict)  # switch -> other networks' pools (networks)

    @property
    def namespaces(self) -> list[str]:
        p = ns_prefix(self.name)
        return [n.ns for n in self.nodes.values()] + [p + MGMT_NS, p + VOID_NS]

    def summary(self) -> dict[str, Any]:
        return {
            "switches": sum(1 for n in self.nodes.values() if n.kind == "switch"),
            "servers": sum(1 for n in self.nodes.values() if n.kind == "server"),
            "links": len(self.links),
            "sessions": len(self.sessions),
        }

    def to_state(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fabric": self.fabric,
            "nodes": {k: {"ns": v.ns, "kind": v.kind, "nos": v.nos, "mgmt_address": v.mgmt_address} for k, v in self.nodes.items()},
            "sessions": [asdict(s) for s in self.sessions],
            "ecmp": self.ecmp,
            "uplinks": self.uplinks,
            "pings": [asdict(p) for p in self.pings],
            "foreign_pools": self.foreign_pools,
            "notes": self.notes,
        }


def _by_device(artifacts: list[Artifact]) -> dict[str, dict[str, Artifact]]:
    out: dict[str, dict[str, Artifact]] = {}
    for a in artifacts:
        out.setdefault(a.device, {})[a.path] = a
    return out


def select_servers(model: FabricModel, per_su: int | None) -> list[Server]:
    if per_su is None:
        return list(model.servers)
    by_su: dict[int, list[Server]] = {}
    for s in model.servers:
        by_su.setdefault(s.su, []).append(s)
    chosen = []
    for su in sorted(by_su):
        chosen += sorted(by_su[su], key=lambda s: s.index)[:per_su]
    return chosen


def _switch_node(sw: Switch, files: dict[str, Artifact], ns: str, notes: list[str]) -> Node:
    node = Node(device=sw.name, ns=ns, kind="switch", nos=sw.nos, mgmt_address=sw.mgmt_address)
    sonic_frr = files.get(SONIC_FRR)
    if sw.nos == "sonic" or sonic_frr is not None:
        frr = sonic_frr or files.get(CL_FRR)
        if frr is None:
            raise NetautoError(f"{sw.name}: SONiC switch without a rendered {SONIC_FRR} (SONiC rendering not available)")
        # SONiC's layout: the host's /etc/sonic/frr is what the bgp container sees as /etc/frr (a bind mount,
        # reproduced by the node init), so deploy installs at the SONiC path and FRR reads it as on a switch
        node.frr_conf_path = frr.path
        node.frr_dir = SONIC_FRR_DIR
        node.files[SONIC_FRR] = frr.content
        db = files.get(SONIC_DB)
        if db is not None:
            batch, n = adapt.sonic_config_db_batch(db.content)
            node.ip_batch = batch
            node.files[SONIC_DB] = db.content
            node.inert.append(SONIC_DB)  # applied once at `lab up`; no swss/syncd/GCU after
            notes += [f"{sw.name}: {x}" for x in n]
            notes.append(f"{sw.name}: SONiC ports/addresses applied from config_db.json PORT/INTERFACE with ip (no swss/syncd)")
        else:
            node.ip_batch = _ip_from_model(sw)
            notes.append(f"{sw.name}: no config_db.json rendered; ports/addresses taken from the model")
        node.files[f"{SONIC_FRR_DIR}/daemons"] = adapt.adapt_daemons(
            files[CL_DAEMONS].content if CL_DAEMONS in files else DEFAULT_DAEMONS)[0]
        return node
    frr = files.get(CL_FRR)
    ifaces = files.get(CL_IFACES)
    if frr is None or ifaces is None:
        raise NetautoError(f"{sw.name}: rendered {CL_FRR} and {CL_IFACES} are required")
    node.frr_conf_path = frr.path
    node.files[CL_FRR] = frr.content
    daemons, n = adapt.adapt_daemons(files[CL_DAEMONS].content if CL_DAEMONS in files else DEFAULT_DAEMONS)
    node.files[CL_DAEMONS] = daemons
    notes += [f"{sw.name}: {x}" for x in n]
    text, n = adapt.adapt_interfaces(ifaces.content, sw.name)
    node.files[CL_IFACES] = text
    notes += [f"{sw.name}: interfaces: {x}" for x in n]
    # NVUE startup.yaml and the switchd files (QoS/ECN, adaptive routing, ports.conf) are installed at their
    # real paths in the node's private /etc, byte for byte, so deploy can diff/push/roll them back; nothing
    # in the lab reads them (no NVUE, no switchd)
    for path, art in sorted(files.items()):
        if path not in node.files and path not in (CL_FRR, CL_IFACES):
            node.files[path] = art.content
            node.inert.append(path)
    return node


def _ip_from_model(sw: Switch) -> list[str]:
    cmds = [f"addr add {host_cidr(sw.loopback)} dev lo", "link set dev lo up"]
    for i in sw.interfaces:
        if not i.enabled:
            continue
        cmds.append(f"link set dev {i.name} mtu {i.mtu}")
        if i.address:
            cmds.append(f"addr add {i.address} dev {i.name}")
        cmds.append(f"link set dev {i.name} up")
    return cmds


DEFAULT_DAEMONS = 'bgpd=yes\nvtysh_enable=yes\nzebra_options="  -A 127.0.0.1 -s 90000000"\nbgpd_options="   -A 127.0.0.1"\nstaticd_options="-A 127.0.0.1"\nfrr_profile="datacenter"\n'


def _server_node(srv: Server, files: dict[str, Artifact], ns: str, notes: list[str]) -> Node:
    node = Node(device=srv.name, ns=ns, kind="server", nos="linux", mgmt_address=srv.mgmt_address)
    netplan = next((a for p, a in files.items() if p.startswith("etc/netplan/")), None)
    if netplan is None:
        raise NetautoError(f"{srv.name}: no rendered netplan file")
    nics, n = adapt.netplan_links(netplan.content)
    node.ip_batch = adapt.netplan_ip_batch(nics)
    for path, art in files.items():  # installed in the server's private /etc and /usr/local
        node.files[path] = art.content
    # no systemd-networkd (netplan was applied once with `ip`), no ConnectX/mlnx tools (QoS script), no NCCL
    node.inert = sorted(p for p in files if not p.startswith("etc/sysctl.d/"))
    notes += [f"{srv.name}: {x}" for x in n]
    sysctl = files.get("etc/sysctl.d/90-gpu-rails.conf") or next((a for p, a in files.items() if p.startswith("etc/sysctl.d/")), None)
    if sysctl is not None:
        node.sysctls = parse_sysctl(sysctl.content)
    return node


def build_plan(model: FabricModel, artifacts: list[Artifact], name: str, servers_per_su: int | None = None) -> LabPlan:
    check_name(name)
    prefix = ns_prefix(name)
    files = _by_device(artifacts)
    notes: list[str] = []
    nodes: dict[str, Node] = {}
    for sw in model.switches:
        nodes[sw.name] = _switch_node(sw, files.get(sw.name, {}), prefix + sw.name, notes)
        nodes[sw.name].modes = {p: a.mode for p, a in files.get(sw.name, {}).items() if p in nodes[sw.name].files}
        nodes[sw.name].owners = {p: a.owner for p, a in files.get(sw.name, {}).items() if p in nodes[sw.name].files}
    chosen = select_servers(model, servers_per_su)
    for srv in chosen:
        nodes[srv.name] = _server_node(srv, files.get(srv.name, {}), prefix + srv.name, notes)
        nodes[srv.name].modes = {p: a.mode for p, a in files.get(srv.name, {}).items()}
        nodes[srv.name].owners = {p: a.owner for p, a in files.get(srv.name, {}).items()}
    if servers_per_su is not None:
        notes.append(f"server subset {len(chosen)} of {len(model.servers)} ({servers_per_su} per SU); leaf ports of the others "
                     f"are veths into the {prefix}{VOID_NS} namespace (carrier up, nothing behind)")
    links: list[VethLink] = []
    stubs: list[VethLink] = []
    for l in model.links:
        a_in, b_in = l.a_device in nodes, l.b_device in nodes
        if a_in and b_in:
            links.append(VethLink(nodes[l.a_device].ns, l.a_port, nodes[l.b_device].ns, l.b_port, l.a_device, l.b_device, l.enabled))
        elif a_in or b_in:
            dev, port = (l.a_device, l.a_port) if a_in else (l.b_device, l.b_port)
            stubs.append(VethLink(nodes[dev].ns, port, prefix + VOID_NS, f"v{len(stubs)}", dev, "", l.enabled))
    # host ports reserved for an absent server (profile absent_rails, an absent host): no link, but the switch has
    # the port (verify checks it is there): a veth into the void, down as rendered
    cabled = {(l.a_device, l.a_port) for l in model.links} | {(l.b_device, l.b_port) for l in model.links}
    for sw in model.switches:
        for i in sw.interfaces:
            if i.kind == "host" and i.peer_device is None and (sw.name, i.name) not in cabled:
                stubs.append(VethLink(nodes[sw.name].ns, i.name, prefix + VOID_NS, f"v{len(stubs)}", sw.name, "",
                                      i.enabled))
    # BGP sessions the model expects (only over enabled links whose both ends exist)
    enabled_ports = {(l.a_device, l.a_port) for l in model.links if l.enabled} | {(l.b_device, l.b_port) for l in model.links if l.enabled}
    sessions = [
        Session(sw.name, n.interface, n.peer_device, n.peer_port)
        for sw in model.switches
        for n in sw.bgp.neighbors
        if (sw.name, n.interface) in enabled_ports or not model.links
    ]
    ecmp = expected_ecmp(model)
    pings = plan_pings(model, chosen)
    gws = sorted({x for x in [*(s.mgmt_gateway for s in model.switches), *(s.mgmt_gateway for s in chosen)] if x})
    return LabPlan(name=name, fabric=model.name, nodes=nodes, links=links, stub_links=stubs, sessions=sessions,
                   ecmp=ecmp, pings=pings, notes=notes, mgmt_gateways=gws,
                   uplinks={s.name: [i.peer_device for i in s.fabric_ports if i.peer_device]
                            for s in model.switches if s.role == "leaf"})


def plan_pings(model: FabricModel, servers: list[Server]) -> list[Ping]:
    """From every chosen server's rail NIC: to the same rail on another server (preferring another SU, so the
    path crosses the spines when there is one), and, to exercise the spines in a single-SU fabric, to the
    next rail of the next server (the host's per-rail table routes the fabric summary via its own rail)."""
    pings: list[Ping] = []
    if len(servers) < 2:
        return pings
    for k, srv in enumerate(servers):
        others = servers[k + 1:] + servers[:k]
        peer_same = next((o for o in others if o.su != srv.su), others[0])
        nxt = others[0]
        for rail in srv.rails:
            dst = next((r for r in peer_same.rails if r.index == rail.index), None)
            if dst is not None:
                pings.append(Ping(srv.name, rail.nic, rail.ip, peer_same.name, dst.nic, dst.ip,
                                  "leaf" if dst.leaf == rail.leaf else "spine"))
            if len(srv.rails) > 1:
                other = next((r for r in nxt.rails if r.index == (rail.index + 1) % len(srv.rails)), None)
                if other is not None and other.leaf != rail.leaf:
                    pings.append(Ping(srv.name, rail.nic, rail.ip, nxt.name, other.nic, other.ip, "spine"))
    return pings
