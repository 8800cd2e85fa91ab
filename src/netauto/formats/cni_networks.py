"""The CNI chain a pod's rail network runs, read from the rendered manifests (one parser for every network kind).

What each operator turns its object into, by its source:
  NetworkAttachmentDefinition  spec.config is the CNI config (list) itself (multi-net-spec v1 §2.2)
  SriovNetwork                 sriov-network-operator bindata/manifests/cni-config/sriov-cni-config.yaml: a conflist
                               `[{"type": "sriov", ..., "ipam": <spec.ipam>}, <spec.metaPlugins>]`
  SpiderMultusConfig           spiderpool pkg/multuscniconfig: the main plugin (cniType), then `coordinator` unless
                               enableCoordinator is false (CRD default true), then each chainCNIJsonData object
SpiderIPPool: spec.gateway becomes the pod's default route (spiderpool docs/usage/route.md), spec.routes its routes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netauto.formats import device_json

NETWORK_KINDS = ("NetworkAttachmentDefinition", "SriovNetwork", "SpiderMultusConfig", "HostDeviceNetwork")
RESOURCE_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"


class NetworkFormatError(ValueError):
    pass


@dataclass(frozen=True)
class PoolRoutes:
    """What Spiderpool hands a pod from one SpiderIPPool: its addresses' subnet, default gateway, routes."""

    name: str
    subnet: str
    ips: list[str]  # "a" or "a-b"
    gateway: str | None
    routes: list[tuple[str, str]]
    nodes: list[str]


def _json(text: object, what: str) -> Any:
    try:
        return device_json.loads(str(text))  # a --configs manifest is input: bounded nesting
    except ValueError as exc:
        raise NetworkFormatError(f"{what} is not JSON: {exc}") from None


def _object(value: object, what: str) -> dict[str, Any]:
    """A mapping of a network object (null: empty); anything else is the input's error, never a traceback."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise NetworkFormatError(f"{what} must be an object, got {type(value).__name__}")
    return value


def _list(value: object, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise NetworkFormatError(f"{what} must be a list, got {type(value).__name__}")
    return value


def plugins(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The CNI plugin objects, in chain order, the operator renders from one network object (a value of the wrong
    type: NetworkFormatError)."""
    kind, spec = doc.get("kind"), _object(doc.get("spec"), "spec")
    if kind == "NetworkAttachmentDefinition":
        conf = _object(_json(spec.get("config"), "spec.config"), "spec.config")
        return list(_list(conf.get("plugins"), "spec.config plugins") or [conf])
    if kind == "SriovNetwork":
        main = {"type": "sriov", "ipam": _json(spec.get("ipam") or "{}", "spec.ipam")}
        return [main, *_json(f"[{spec.get('metaPlugins') or ''}]", "spec.metaPlugins")]
    if kind == "SpiderMultusConfig":
        cni = str(spec.get("cniType", "custom"))
        ippools = _object(_object(spec.get(cni), f"spec.{cni}").get("ippools"), f"spec.{cni}.ippools")
        pools = _list(ippools.get("ipv4"), f"spec.{cni}.ippools.ipv4")
        out: list[dict[str, Any]] = [{"type": cni, "ipam": {"type": "spiderpool", "default_ipv4_ippool": pools}}]
        if spec.get("enableCoordinator", cni != "custom"):
            out.append({"type": "coordinator"})
        chain = _list(spec.get("chainCNIJsonData"), "spec.chainCNIJsonData")
        return out + [_json(c, "spec.chainCNIJsonData[]") for c in chain]
    if kind == "HostDeviceNetwork":  # network-operator's hostdevice template: host-device + spec.ipam, nothing chained
        return [{"type": "host-device", "ipam": _json(spec.get("ipam") or "{}", "spec.ipam")}]
    raise NetworkFormatError(f"{kind} is not a pod network kind")


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def resource(doc: dict[str, Any]) -> str:
    """The device-plugin resource the network's pods request, without its prefix."""
    spec = _dict(doc.get("spec"))
    if doc.get("kind") == "NetworkAttachmentDefinition":
        name = _dict(_dict(doc.get("metadata")).get("annotations")).get(RESOURCE_ANNOTATION, "")
    elif doc.get("kind") == "SpiderMultusConfig":
        name = _dict(spec.get(str(spec.get("cniType")))).get("resourceName", "")
    else:
        name = spec.get("resourceName", "")
    return str(name).rsplit("/", 1)[-1]


def pool(doc: dict[str, Any]) -> PoolRoutes:
    spec = doc.get("spec") or {}
    return PoolRoutes(str((doc.get("metadata") or {}).get("name")), str(spec.get("subnet")),
                      [str(i) for i in spec.get("ips") or []],
                      None if spec.get("gateway") is None else str(spec.get("gateway")),
                      [(str(r.get("dst")), str(r.get("gw"))) for r in spec.get("routes") or []],
                      [str(n) for n in spec.get("nodeName") or []])
