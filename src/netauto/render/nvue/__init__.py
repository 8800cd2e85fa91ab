"""Cumulus NVUE `startup.yaml`: the resolved switch -> a structured document -> block YAML.

pyavd style: every value is computed here in Python and spelled with the target release's table
(`netauto.platforms.nos.nvue_spelling`: `enable: on` vs `state: enabled`, `ip` vs `ipv4`, ECN `enable`), so
no template carries release conditionals. One function per top-level subtree (and per interface kind), one module
per concern (system, interfaces, overlay, qos, routing); a new subtree is a new function added to `SUBTREES`. Key
order follows NVUE's own `nv config save` output loosely and is stable, which keeps golden diffs readable.

Every key and enum is checked against NVIDIA's NVUE schema of the release by `netauto validate`
(netauto.validate.nvue_schema; tests/test_nvue_schema.py runs it for every supported release).
"""

from __future__ import annotations

from collections.abc import Callable

from netauto.model.cluster import ClusterModel, OobSwitch
from netauto.model.types import FabricModel, Route, Switch
from netauto.platforms.nos import NvueSpelling, cumulus_path, nvue_spelling
from netauto.render.nvue.interfaces import addresses, bond_node, interfaces, peerlink_node, port, svi_node
from netauto.render.nvue.overlay import bridge, evpn, mlag, mlag_node, nve
from netauto.render.nvue.qos import qos
from netauto.render.nvue.routing import router, vrf
from netauto.render.nvue.system import system
from netauto.render.nvue.tree import BRIDGE, Tree
from netauto.render.yaml_block import dump_set

__all__ = ["BRIDGE", "NVUE_PATH", "SUBTREES", "Tree", "nvue_document", "oob_document", "oob_startup_yaml",
           "startup_yaml"]

NVUE_PATH = cumulus_path("nvue")


Subtree = Callable[[Switch, NvueSpelling], "Tree | None"]
SUBTREES: tuple[tuple[str, Subtree], ...] = (
    ("system", system),
    ("interface", interfaces),
    ("bridge", bridge),
    ("mlag", mlag),
    ("evpn", evpn),
    ("nve", nve),
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


def _header(device: str, source: str, nv: NvueSpelling, release: str) -> str:
    return (f"# {device}: /{NVUE_PATH} rendered by netauto from {source}\n"
            f"# Target Cumulus Linux {release} (NVUE spelling \"{nv.toggle_key}: {nv.on}\").\n")


def startup_yaml(sw: Switch, fabric: FabricModel) -> str:
    nv = nvue_spelling(sw.cumulus_release)
    return _header(sw.name, f"fabric {fabric.name}", nv, sw.cumulus_release) + dump_set(nvue_document(sw, nv))


# ---------------------------------------------------------------- the OOB network's own switches
def static_routes(routes: list[Route]) -> Tree:
    """`vrf default router static <prefix> via <address>` (NVUE reference, Static Routes)."""
    return {"default": {"router": {"static": {r.to: {"via": {r.via: {}}} for r in routes if r.via}}}}


def oob_document(sw: OobSwitch, nv: NvueSpelling | None = None) -> Tree:
    """An OOB access or aggregation switch (netauto.model.oob): plain bridging, SVIs, MLAG on the aggregation
    pair, static routes only; the same port, bond, SVI and MLAG subtrees as the frontend's MLAG pairs."""
    nv = nv or nvue_spelling(sw.cumulus_release)
    ifaces: Tree = {}
    for iface in sw.interfaces:
        ifaces[iface.name] = port(iface, nv, BRIDGE)
    if sw.mlag is not None:
        ifaces["peerlink"] = peerlink_node(sw.mlag)
    for b in sw.bonds:
        ifaces[b.name] = bond_node(b, BRIDGE, nv)
    for s in sw.svis:
        ifaces[s.name] = svi_node(s, nv)
    if sw.backup_address:  # the MLAG backup cable, off the peerlink
        ifaces["eth0"] = {"type": "eth", **addresses(nv, sw.backup_address, None, sw.mlag.backup_vrf if sw.mlag else None)}
    domain: Tree = {"vlan": {str(v): {} for v in sw.vlans}}
    if sw.stp_priority:  # the aggregation pair is the spanning tree's root (same priority on both MLAG peers)
        domain = {"stp": {"priority": sw.stp_priority}, **domain}
    doc: Tree = {"system": {"hostname": sw.name}, "interface": ifaces, "bridge": {"domain": {BRIDGE: domain}}}
    if sw.mlag is not None:
        doc["mlag"] = mlag_node(sw.mlag, nv)
    if sw.routes:
        doc["vrf"] = static_routes(sw.routes)
    return doc


def oob_startup_yaml(sw: OobSwitch, cluster: ClusterModel) -> str:
    nv = nvue_spelling(sw.cumulus_release)
    return _header(sw.name, f"fabric {cluster.name} (OOB network, {sw.role})", nv, sw.cumulus_release) \
        + dump_set(oob_document(sw, nv))
