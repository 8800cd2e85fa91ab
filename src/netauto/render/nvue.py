"""Cumulus NVUE `startup.yaml`: the resolved switch -> a structured document -> block YAML.

pyavd style: every value is computed here in Python and spelled with the target release's table
(`netauto.platforms.nos.nvue_spelling`: `enable: on` vs `state: enabled`, `ip` vs `ipv4`, ECN `enable`), so
no template carries release conditionals. One function per top-level subtree (and per interface kind);
a new subtree is a new function added to `SUBTREES`. Key order follows NVUE's own `nv config save` output
loosely and is stable, which keeps golden diffs readable.

Every key and enum is checked against NVIDIA's NVUE schema of the release by `netauto validate`
(netauto.validate.nvue_schema; tests/test_nvue_schema.py runs it for every supported release).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from netauto.model.types import FabricModel, Interface, Switch
from netauto.platforms.nos import NvueSpelling, nvue_spelling, release_tuple  # noqa: F401 (re-exported)
from netauto.render.yaml_block import dump_set

Tree = dict[str, Any]
NVUE_PATH = "etc/nvue.d/startup.yaml"


def spelling_for(release: str) -> NvueSpelling:
    return nvue_spelling(release)


# ---------------------------------------------------------------- system
def system(sw: Switch, nv: NvueSpelling) -> Tree:
    return {"hostname": sw.name}


# ---------------------------------------------------------------- interfaces
def _addresses(nv: NvueSpelling, address: str, gateway: str | None = None, vrf: str | None = None) -> Tree:
    """`ip: {address, gateway, vrf}` (<= 5.14) or `ipv4: {address, gateway}` + `vrf` (>= 5.15)."""
    container: Tree = {"address": {address: {}}}
    if gateway:
        container["gateway"] = {gateway: {}}
    out: Tree = {nv.ipv4_container: container}
    if vrf:
        if nv.vrf_under_ip:
            container["vrf"] = vrf
        else:
            out["vrf"] = vrf
    return out


def loopback(sw: Switch, nv: NvueSpelling) -> Tree:
    return {"type": "loopback", **_addresses(nv, sw.loopback)}


def management(sw: Switch, nv: NvueSpelling) -> Tree:
    return {"type": "eth", **_addresses(nv, sw.mgmt_address, sw.mgmt_gateway, "mgmt" if sw.mgmt_vrf else None)}


def breakout_cage(cage: str, ways: int = 2) -> Tree:
    return {"type": "swp", "link": {"breakout": {f"{ways}x": {}}}}


def front_panel(sw: Switch, iface: Interface, nv: NvueSpelling) -> Tree:
    link: Tree = {"mtu": iface.mtu, "speed": iface.speed}
    if iface.fec:
        link["fec"] = iface.fec
    link["state"] = {"up" if iface.enabled else "down": {}}
    node: Tree = {"type": "swp", "description": iface.description, "link": link}
    if iface.address:
        node.update(_addresses(nv, iface.address))
    if iface.access_vlan:
        node["bridge"] = {"domain": {"br_default": {"access": iface.access_vlan}}}
    if iface.enabled and iface.pfc_watchdog:
        node["qos"] = {"pfc-watchdog": {"state": nv.pfc_watchdog_on}}
    if iface.enabled and iface.adaptive_routing:
        node["router"] = {"adaptive-routing": {**nv.toggle(True),
                                               "link-utilization-threshold": sw.ar_link_util_threshold}}
    return node


def svi(sw: Switch, nv: NvueSpelling) -> Tree:
    assert sw.svi is not None
    return {"type": "svi", "vlan": sw.svi.vlan, **_addresses(nv, sw.svi.address)}


def interfaces(sw: Switch, nv: NvueSpelling) -> Tree:
    out: Tree = {"lo": loopback(sw, nv), "eth0": management(sw, nv)}
    for cage in sw.breakout_cages:
        out[cage] = breakout_cage(cage)
    for iface in sw.interfaces:
        out[iface.name] = front_panel(sw, iface, nv)
    if sw.svi:
        out[sw.svi.name] = svi(sw, nv)
    return out


def bridge(sw: Switch, nv: NvueSpelling) -> Tree | None:
    if not sw.svi:
        return None
    return {"domain": {"br_default": {"vlan": {str(sw.svi.vlan): {}}}}}


# ---------------------------------------------------------------- QoS
def qos(sw: Switch, nv: NvueSpelling) -> Tree:
    q = sw.qos
    out: Tree = {"roce": {**nv.toggle(True), "mode": "lossless"}}
    if q.pfc_watchdog:
        out["pfc-watchdog"] = {"polling-interval": q.pfc_watchdog_polling_interval_ms,
                               "robustness": q.pfc_watchdog_robustness}
    if q.is_nvidia_default:
        return out
    out["mapping"] = {"default-global": {"dscp": {
        str(q.roce_dscp): {"switch-priority": q.roce_priority},
        str(q.cnp_dscp): {"switch-priority": q.cnp_priority},
    }}}
    out["pfc"] = {"default-global": {"switch-priority": {str(p): {} for p in q.pfc_priorities},
                                     "cable-length": q.cable_length_m}}
    out["congestion-control"] = {"default-global": {"traffic-class": {
        str(tc): {"min-threshold": q.ecn_min_threshold, "max-threshold": q.ecn_max_threshold,
                  "probability": q.ecn_probability, "ecn": nv.ecn_on}
        for tc in q.ecn_traffic_classes
    }}}
    out["egress-scheduler"] = {"default-global": {"traffic-class": {
        str(e.traffic_class): ({"mode": "strict"} if e.mode == "strict" else {"mode": "dwrr", "bw-percent": e.weight})
        for e in q.ets
    }}}
    return out


# ---------------------------------------------------------------- routing policy
def _permit_rule(**extra: Any) -> Tree:
    return {"action": {"permit": {}}, **extra}


def policy(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    out: Tree = {}
    if b.gshut_honour or b.gshut_prepend:
        out["community-list"] = {"GSHUT": {"rule": {"5": {"action": "permit", "community": {"65535:0": {}}}}}}
    prefix_lists: Tree = {"LOOPBACK": {"rule": {"10": {"action": "permit", "match": {sw.loopback: {}}}}}}
    if b.connected_prefixes:
        prefix_lists["HOSTLINKS"] = {"rule": {
            str(i * 10): {"action": "permit", "match": {e.prefix: {"max-prefix-len": e.max_len}}}
            for i, e in enumerate(b.connected_prefixes, 1)
        }}
    out["prefix-list"] = prefix_lists
    connected: Tree = {"10": _permit_rule(match={"ip-prefix-list": "LOOPBACK"})}
    if b.connected_prefixes:
        connected["20"] = _permit_rule(match={"ip-prefix-list": "HOSTLINKS"})
    fabric_in: Tree = {}
    if b.gshut_honour:
        fabric_in["10"] = _permit_rule(match={"community-list": "GSHUT"}, set={"local-preference": 0})
    fabric_in["20"] = _permit_rule()
    fabric_out: Tree = {}
    if b.gshut_prepend:
        # `as-path-prepend as` is a string in the schema (a list of ASNs), so the ASN is quoted
        fabric_out["10"] = _permit_rule(match={"community-list": "GSHUT"}, set={"as-path-prepend": {"as": str(b.asn)}})
    fabric_out["20"] = _permit_rule()
    out["route-map"] = {"CONNECTED": {"rule": connected}, "FABRIC-IN": {"rule": fabric_in},
                        "FABRIC-OUT": {"rule": fabric_out}}
    return out


# ---------------------------------------------------------------- router (global)
def router(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    bgp: Tree = {"autonomous-system": b.asn, "router-id": b.router_id, **nv.toggle(True)}
    if b.graceful_shutdown:
        bgp["graceful-shutdown"] = nv.flag(True)
    return {"adaptive-routing": nv.toggle(sw.adaptive_routing), "bgp": bgp, "policy": policy(sw, nv)}


# ---------------------------------------------------------------- VRF default BGP
def peer_group(name: str, description: str, nv: NvueSpelling) -> Tree:
    return {"remote-as": "external", "description": description, "address-family": {"ipv4-unicast": {
        **nv.toggle(True),
        "policy": {"inbound": {"route-map": "FABRIC-IN"}, "outbound": {"route-map": "FABRIC-OUT"}},
    }}}


def ipv4_unicast(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    af: Tree = {**nv.toggle(True), "network": {p: {} for p in b.networks}}
    if b.aggregates:
        af["aggregate-route"] = {p: {"summary-only": nv.flag(True)} for p in b.aggregates}
    af["redistribute"] = {"connected": {**nv.toggle(True), "route-map": "CONNECTED"}}
    af["multipaths"] = {"ebgp": b.maximum_paths}
    return af


def vrf_default_bgp(sw: Switch, nv: NvueSpelling) -> Tree:
    b = sw.bgp
    out: Tree = {**nv.toggle(True)}
    if b.multipath_relax:
        out["path-selection"] = {"multipath": {"aspath-ignore": nv.flag(True)}}
    out["timers"] = {"keepalive": b.keepalive, "hold": b.holdtime, "connection-retry": b.connect_retry}
    out["peer-group"] = {pg.name: peer_group(pg.name, pg.description, nv) for pg in b.peer_groups}
    out["neighbor"] = {nb.interface: {"type": "unnumbered", "peer-group": nb.peer_group,
                                      "description": f"{nb.peer_device} {nb.peer_port}"} for nb in b.neighbors}
    out["address-family"] = {"ipv4-unicast": ipv4_unicast(sw, nv)}
    return out


def vrf(sw: Switch, nv: NvueSpelling) -> Tree:
    return {"default": {"router": {"bgp": vrf_default_bgp(sw, nv)}}}


# ---------------------------------------------------------------- the document
Subtree = Callable[[Switch, NvueSpelling], "Tree | None"]
SUBTREES: tuple[tuple[str, Subtree], ...] = (
    ("system", system),
    ("interface", interfaces),
    ("bridge", bridge),
    ("qos", qos),
    ("router", router),
    ("vrf", vrf),
)


def nvue_document(sw: Switch, nv: NvueSpelling | None = None) -> Tree:
    """The `set:` document of a switch, spelled for its release."""
    nv = nv or nvue_spelling(sw.cumulus_release)
    doc: Tree = {}
    for key, build in SUBTREES:
        node = build(sw, nv)
        if node is not None:
            doc[key] = node
    return doc


def startup_yaml(sw: Switch, fabric: FabricModel) -> str:
    nv = nvue_spelling(sw.cumulus_release)
    header = (f"# {sw.name}: /{NVUE_PATH} rendered by netauto from fabric {fabric.name}\n"
              f"# Target Cumulus Linux {sw.cumulus_release} (NVUE spelling \"{nv.toggle_key}: {nv.on}\").\n")
    return header + dump_set(nvue_document(sw, nv))
