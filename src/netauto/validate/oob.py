"""Validation of the OOB network's own switches, read back from their rendered startup.yaml.

The devices' side (every BMC's and every switch's management address and gateway) is the model's; the OOB side
(access VLAN of each port, the VLANs each trunk carries, the aggregation's SVIs and VRR gateways, routes) is
what the files say, so a hand-edited or stale OOB config is caught with `--configs`.

  NVUE-01 (the fabric rule, on these files too) every key and value is in NVIDIA's NVUE schema of the release
  CONS-01 (the fabric rule, on these files too) the Linux files, when rendered, agree with startup.yaml
  OOB-01 every BMC / switch management address reaches, through its access port's VLAN and both trunks, an
         aggregation SVI of that VLAN whose subnet contains it
  OOB-02 every management pool has a gateway: the gateway its devices point to is the VRR (or SVI) address
         of that VLAN's SVI on every aggregation switch
  OOB-03 an aggregation switch's own SVI address is no device's management address and no pool's gateway
  OOB-04 isolation: no routing protocol on an OOB switch, no route but the default (access: via its gateway;
         aggregation: via the site uplink), and the OOB's cables reach other networks' management ports only
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface
from typing import Any

from netauto.formats.nvue import NvueError, parse_nvue
from netauto.model.cluster import ClusterModel, OobSwitch
from netauto.platforms.nos import cumulus_path, unsupported_release
from netauto.validate.mlag_backup import backup_problems
from netauto.validate.files import FileSet
from netauto.validate.findings import CHECKS, Finding
from netauto.validate.nvue_schema import check as schema_check
from netauto.validate.nvue_schema import line_of
from netauto.validate.readers.nvue import nvue_state
from netauto.validate.rules.consistency import linux_vs_nvue
from netauto.validate.view import SWITCH_READERS

NVUE = cumulus_path("nvue")
MGMT_PORTS = ("eth0", "bmc")  # what the OOB network may plug into on another network's device
MAX_SCHEMA_PER_DEVICE = 20

OOB_CHECKS = {
    "OOB-01": "a BMC or switch management address is not in its access port's VLAN, the VLAN is not trunked to the "
              "aggregation, or no aggregation SVI of that VLAN contains the address",
    "OOB-02": "a management pool without a gateway: the devices' gateway is not the VRR/SVI address of their VLAN "
              "on every OOB aggregation switch",
    "OOB-03": "an OOB aggregation switch's own SVI address is also a device's management address or a gateway",
    "OOB-04": "OOB isolation: a routing protocol or a non-default route on an OOB switch, or an OOB cable to a "
              "non-management port of another network",
}
CHECKS.update(OOB_CHECKS)


@dataclass(slots=True)
class _Parsed:
    """What one OOB switch's startup.yaml says."""

    tree: dict[str, Any]
    access: dict[str, int] = field(default_factory=dict)  # port -> untagged VLAN
    member_of: dict[str, str] = field(default_factory=dict)  # port -> bond
    trunk: dict[str, set[int]] = field(default_factory=dict)  # bond -> tagged VLANs
    svis: dict[int, tuple[list[IPv4Interface], list[IPv4Interface]]] = field(default_factory=dict)  # vlan -> own, vrr
    routes: dict[str, list[str]] = field(default_factory=dict)  # vrf/prefix -> next hops


def _addresses(node: dict[str, Any]) -> list[IPv4Interface]:
    out = []
    for a in (node or {}).get("address") or {}:
        try:
            out.append(IPv4Interface(str(a)))
        except ValueError:
            continue
    return out


def _parse(tree: dict[str, Any]) -> _Parsed:
    p = _Parsed(tree)
    for name, node in (tree.get("interface") or {}).items():
        if not isinstance(node, dict):
            continue
        for domain in ((node.get("bridge") or {}).get("domain") or {}).values():
            domain = domain or {}
            if isinstance(domain.get("access"), int):
                p.access[str(name)] = domain["access"]
            if domain.get("vlan"):
                p.trunk[str(name)] = {int(v) for v in domain["vlan"] if str(v).isdigit()}
        for member in ((node.get("bond") or {}).get("member") or {}):
            p.member_of[str(member)] = str(name)
        if node.get("type") == "svi" and isinstance(node.get("vlan"), int):
            ip = node.get("ipv4") or node.get("ip") or {}
            p.svis[node["vlan"]] = (_addresses(ip), _addresses(ip.get("vrr") or {}))
    for vrf, vnode in (tree.get("vrf") or {}).items():
        for prefix, rnode in (((vnode or {}).get("router") or {}).get("static") or {}).items():
            p.routes[f"{vrf} {prefix}"] = [str(v) for v in ((rnode or {}).get("via") or {})]
    return p


def _schema(sw: OobSwitch, tree: dict[str, Any], text: str) -> list[Finding]:
    why = unsupported_release(sw.cumulus_release)
    if why:
        return [Finding("NVUE-01", "error", sw.name, why, NVUE)]
    problems = schema_check(tree, sw.cumulus_release)
    found = [Finding("NVUE-01", "error", sw.name, f"CL {sw.cumulus_release} NVUE schema: {'.'.join(p.path) or '(root)'}: "
                     f"{p.message}", NVUE, line_of(text, p.path)) for p in problems[:MAX_SCHEMA_PER_DEVICE]]
    if len(problems) > MAX_SCHEMA_PER_DEVICE:
        found.append(Finding("NVUE-01", "error", sw.name, f"CL {sw.cumulus_release} NVUE schema: "
                             f"{len(problems) - MAX_SCHEMA_PER_DEVICE} more problems", NVUE))
    return found


def _devices(cluster: ClusterModel) -> dict[str, tuple[str, str]]:
    """(device, management port) -> (address with prefix length, gateway), from the model."""
    out: dict[str, tuple[str, str]] = {}
    assert cluster.oob is not None
    for b in cluster.oob.bmcs:
        out[f"{b.device} bmc"] = (b.address, b.gateway)
    for sw in cluster.all_switches():
        out[f"{sw.name} eth0"] = (sw.mgmt_address, sw.mgmt_gateway)
    return out


def check_oob(cluster: ClusterModel, files: FileSet) -> list[Finding]:
    """NVUE-01, CONS-01 (when their Linux files are there) and OOB-01..04 on the OOB switches' files."""
    oob = cluster.oob
    if oob is None:
        return []
    found: list[Finding] = []
    parsed: dict[str, _Parsed] = {}
    trees: dict[str, dict[str, Any]] = {}
    for sw in oob.switches:
        text = files.get(sw.name, NVUE)
        if text is None:
            found.append(Finding("PARSE-01", "error", sw.name, f"missing {NVUE}", NVUE))
            continue
        try:
            tree = parse_nvue(text)
        except (NvueError, ValueError, TypeError, AttributeError) as exc:
            found.append(Finding("PARSE-01", "error", sw.name, f"cannot parse NVUE: {exc}", NVUE))
            continue
        parsed[sw.name] = _parse(tree)
        trees[sw.name] = tree
        found += _schema(sw, tree, text)
        found += _consistency(sw, files, tree)
    aggs = [s.name for s in oob.switches if s.role == "oob-aggregation" and s.name in parsed]
    found += _reachability(cluster, parsed, aggs)
    found += _own_addresses(cluster, parsed, aggs)
    found += _isolation(cluster, parsed)
    for sw in oob.switches:  # MLAG-02: the aggregation pair's backup off the peerlink
        if sw.mlag is not None and sw.name in trees and sw.mlag.peer in trees:
            found += [Finding("MLAG-02", "error", sw.name, msg, NVUE)
                      for msg in backup_problems(trees[sw.name], sw.mlag.peer, trees[sw.mlag.peer])]
    return found


def _consistency(sw: OobSwitch, files: FileSet, tree: dict[str, Any]) -> list[Finding]:
    """CONS-01 as on every Cumulus switch: its Linux files (when rendered) describe what its startup.yaml does."""
    reader = SWITCH_READERS[sw.nos]
    texts = {role: files.get(sw.name, path) for role, path in reader.paths.items()}
    if texts.get("interfaces") is None:
        return []
    try:
        lin = reader.read(sw.name, texts)
    except Exception as exc:  # noqa: BLE001 - a broken file is a finding, not a crash
        return [Finding("PARSE-01", "error", sw.name, f"cannot parse: {exc}", reader.paths["interfaces"])]
    nv = nvue_state(sw.name, tree, sw.cumulus_release)
    return [Finding("CONS-01", "error", sw.name, msg, NVUE) for msg in linux_vs_nvue(lin, nv)]


def _svi_for(p: _Parsed, vlan: int) -> tuple[list[IPv4Interface], list[IPv4Interface]] | None:
    return p.svis.get(vlan)


def _reachability(cluster: ClusterModel, parsed: dict[str, _Parsed], aggs: list[str]) -> list[Finding]:
    """OOB-01 (address in its VLAN's SVI subnet, VLAN trunked up) and OOB-02 (gateway answered there)."""
    assert cluster.oob is not None
    found: list[Finding] = []
    devices = _devices(cluster)
    up_port: dict[tuple[str, str], str] = {}  # (access switch, aggregation) -> aggregation port
    own_up: dict[str, str] = {}  # access switch -> one of its uplink ports
    for link in cluster.oob.links:
        if link.kind == "oob-uplink":
            up_port[(link.a_device, link.b_device)] = link.b_port
            own_up.setdefault(link.a_device, link.a_port)
    gateways_ok: set[tuple[int, str]] = set()
    for link in cluster.oob.links:
        if link.kind != "oob-access":
            continue
        key = f"{link.b_device} {link.b_port}"
        if key not in devices or link.a_device not in parsed:
            continue
        address, gateway = devices[key]
        acc = parsed[link.a_device]
        vlan = acc.access.get(link.a_port)
        if vlan is None:
            found.append(Finding("OOB-01", "error", link.a_device,
                                 f"{link.a_port} ({key}) is in no access VLAN: {address} is unreachable", NVUE))
            continue
        bond = acc.member_of.get(own_up.get(link.a_device, ""), "")
        if vlan not in acc.trunk.get(bond, set()):
            found.append(Finding("OOB-01", "error", link.a_device,
                                 f"VLAN {vlan} of {link.a_port} ({key}) is not on the uplink bond {bond or '(none)'}", NVUE))
        ip = IPv4Interface(address)
        for agg in aggs:
            p = parsed[agg]
            agg_bond = p.member_of.get(up_port.get((link.a_device, agg), ""), "")
            if vlan not in p.trunk.get(agg_bond, set()):
                found.append(Finding("OOB-01", "error", agg, f"VLAN {vlan} ({key} on {link.a_device}) is not on the "
                                     f"bond {agg_bond or '(none)'} to {link.a_device}", NVUE))
            svi = _svi_for(p, vlan)
            if svi is None or not any(ip.ip in own.network for own in svi[0]):
                found.append(Finding("OOB-01", "error", agg, f"{key} has {address} in VLAN {vlan}, but no SVI of "
                                     f"VLAN {vlan} contains it", NVUE))
                continue
            if (vlan, f"{agg} {gateway}") in gateways_ok:
                continue
            answers = {str(a.ip) for a in svi[0] + svi[1]}
            if gateway not in answers:
                found.append(Finding("OOB-02", "error", agg, f"{key} points to gateway {gateway}, which VLAN {vlan}'s SVI "
                                     f"does not answer for ({', '.join(sorted(answers)) or 'no address'})", NVUE))
            gateways_ok.add((vlan, f"{agg} {gateway}"))
    for sw in cluster.oob.switches:  # the OOB switches' own management: an SVI + the default route's gateway
        if sw.role != "oob-access" or sw.name not in parsed:
            continue
        own = [a for svi in parsed[sw.name].svis.values() for a in svi[0]]
        if IPv4Interface(sw.mgmt_address) not in own:
            found.append(Finding("OOB-01", "error", sw.name, f"its management address {sw.mgmt_address} is on no SVI", NVUE))
        hops = parsed[sw.name].routes.get("default 0.0.0.0/0", [])
        for agg in aggs:
            answers = {str(a.ip) for svi in parsed[agg].svis.values() for a in svi[0] + svi[1]}
            if not any(h in answers for h in hops):
                found.append(Finding("OOB-02", "error", sw.name, f"default route via {', '.join(hops) or '(none)'}: "
                                     f"not an address {agg} answers for", NVUE))
    return found


def _own_addresses(cluster: ClusterModel, parsed: dict[str, _Parsed], aggs: list[str]) -> list[Finding]:
    """OOB-03: the aggregation's own SVI addresses are nobody else's."""
    assert cluster.oob is not None
    taken: dict[IPv4Address, str] = {}
    for key, (address, gateway) in _devices(cluster).items():
        taken[IPv4Interface(address).ip] = f"{key}'s address"
        taken.setdefault(IPv4Address(gateway), f"the gateway of {key}")
    for s in cluster.oob.switches:
        if s.role == "oob-access":
            taken[IPv4Interface(s.mgmt_address).ip] = f"{s.name}'s address"
    found = []
    for agg in aggs:
        for vlan, (own, _vrr) in parsed[agg].svis.items():
            for a in own:
                if a.ip in taken:
                    found.append(Finding("OOB-03", "error", agg, f"SVI vlan{vlan} address {a} is also {taken[a.ip]}", NVUE))
    return found


def _isolation(cluster: ClusterModel, parsed: dict[str, _Parsed]) -> list[Finding]:
    assert cluster.oob is not None
    found = []
    oob_names = {s.name for s in cluster.oob.switches}
    for name, p in parsed.items():
        routing = [proto for proto in ("bgp", "ospf", "pim") if (p.tree.get("router") or {}).get(proto)]
        routing += [f"vrf {v} {proto}" for v, vnode in (p.tree.get("vrf") or {}).items()
                    for proto in ("bgp", "ospf") if ((vnode or {}).get("router") or {}).get(proto)]
        if routing:
            found.append(Finding("OOB-04", "error", name, f"runs {', '.join(routing)}: the OOB network routes with "
                                 "nothing (no management subnet may reach a data plane)", NVUE))
        for route in p.routes:
            if route != "default 0.0.0.0/0":
                found.append(Finding("OOB-04", "error", name, f"static route {route}: only the default route is "
                                     "expected on an OOB switch", NVUE))
    for link in cluster.oob.links:
        for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            if dev not in oob_names and port not in MGMT_PORTS:
                found.append(Finding("OOB-04", "error", dev, f"OOB cable {link.a_device} {link.a_port} <-> "
                                     f"{link.b_device} {link.b_port} lands on {port}, not a management port"))
    return found
