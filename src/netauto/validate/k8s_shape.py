"""The shape of what the K8S rules read in a rendered manifest (`validate --configs` reads a tree that may have been
edited by hand or by someone hostile): each path a rule reads, by kind, and the type it must have there. A document
off its shape is one K8S-01 finding naming its file and document (netauto.validate.kubernetes) and the rules do not
read it; so a rule can read its values as typed, and an error raised inside a rule is netauto's own bug, never
reported as the user's file.

Kept in step with the reads of validate/kubernetes.py, k8s_ranges.py and k8s_tenants.py (a value read there as a
mapping, a list or a number is listed here; values only compared or printed need no shape).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from netauto.formats import cni_networks, device_json

Check = Callable[[Any], str | None]  # None: the value has the shape; else " must be ...", said after its path


def _want(value: Any, ok: bool, what: str) -> str | None:
    return None if ok else f" must be {what}, got {type(value).__name__}"


def _mapping(value: Any) -> str | None:
    return _want(value, isinstance(value, dict), "a mapping")


def _integer(value: Any) -> str | None:
    return _want(value, isinstance(value, int), "an integer")


def _strings(value: Any) -> str | None:
    return _want(value, isinstance(value, list) and all(isinstance(v, str) for v in value), "a list of strings")


def _mappings(value: Any) -> str | None:
    return _want(value, isinstance(value, list) and all(isinstance(v, dict) for v in value), "a list of mappings")


def _scalars(value: Any) -> str | None:
    """ConfigMap data: each value a scalar (Kubernetes: strings; a number is the schema check's finding)."""
    if not isinstance(value, dict):
        return _mapping(value)
    bad = next((k for k, v in value.items() if isinstance(v, (dict, list))), None)
    return None if bad is None else f".{bad} must be a string, got {type(value[bad]).__name__}"


def _device_plugin(value: Any) -> str | None:
    """The sriov device plugin's config: JSON of {resourceList: [{resourceName, selectors: {pciAddresses: [str],
    pfNames: [str]}}]} (sriov-network-device-plugin README, "Config parameters")."""
    if not isinstance(value, str):
        return _want(value, False, "a string")
    try:
        conf = device_json.loads(value)  # bounded nesting
    except ValueError as exc:
        return f" is not JSON ({' '.join(str(exc).split())[:120]})"
    if not isinstance(conf, dict) or _mappings(conf.get("resourceList") or []):
        return ": resourceList must be a list of mappings"
    for res in conf.get("resourceList") or []:
        sel = res.get("selectors") or {}
        if _mapping(sel) or any(_strings(sel.get(k) or []) for k in ("pciAddresses", "pfNames")):
            return ": resourceList[].selectors must be a mapping with lists of strings (pciAddresses, pfNames)"
    return None


def _chain_mtu(doc: dict[str, Any]) -> str | None:
    """A network's CNI chain: a tuning plugin's mtu is an integer (an unreadable chain is K8S-09's finding)."""
    try:
        chain = cni_networks.plugins(doc)
    except cni_networks.NetworkFormatError:
        return None
    bad = [p.get("mtu") for p in chain if isinstance(p, dict) and p.get("type") == "tuning"
           and p.get("mtu") is not None and not isinstance(p.get("mtu"), int)]
    return f"the CNI chain's tuning plugin: mtu must be an integer, got {str(bad[0])[:40]!r}" if bad else None


Path = tuple[str, ...]
def _string(value: Any) -> str | None:
    return _want(value, isinstance(value, str), "a string")


EVERY: dict[Path, Check] = {("apiVersion",): _string, ("kind",): _string, ("metadata",): _mapping,
                            ("spec",): _mapping}
SHAPES: dict[str, dict[Path, Check]] = {
    "SriovNetworkNodePolicy": {("spec", "nodeSelector"): _mapping, ("spec", "nicSelector"): _mapping,
                               ("spec", "mtu"): _integer},
    "NicConfigurationTemplate": {
        ("spec", "nodeSelector"): _mapping, ("spec", "nicSelector"): _mapping,
        ("spec", "nicSelector", "pciAddresses"): _strings, ("spec", "template"): _mapping,
        ("spec", "template", "rawNvConfig"): _mappings, ("spec", "template", "roceOptimized"): _mapping,
        ("spec", "template", "roceOptimized", "qos"): _mapping,
        ("spec", "template", "roceOptimized", "qos", "ecn"): _mapping},
    "SpiderMultusConfig": {("spec", "sriov"): _mapping, ("spec", "sriov", "mtu"): _integer},
    "ConfigMap": {("data",): _scalars},
    "NicClusterPolicy": {("spec", "sriovDevicePlugin"): _mapping,
                         ("spec", "sriovDevicePlugin", "config"): _device_plugin},
}


def _at(doc: dict[str, Any], path: Path) -> Any:
    """The value at `path`, None where it or a parent is absent (a parent of the wrong type is checked first)."""
    value: Any = doc
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def off_shape(doc: dict[str, Any]) -> str | None:
    """What is wrong with the first value of `doc` a rule reads that has not its shape ("spec.nodeSelector must
    be a mapping, got list"), None when every one has it."""
    kind = doc.get("kind")
    paths = {**EVERY, **(SHAPES.get(kind, {}) if isinstance(kind, str) else {})}
    for path, check in paths.items():
        value = _at(doc, path)
        wrong = check(value) if value is not None else None
        if wrong:
            return f"{'.'.join(path)}{wrong}"
    if isinstance(kind, str) and kind in cni_networks.NETWORK_KINDS:
        return _chain_mtu(doc)
    return None
