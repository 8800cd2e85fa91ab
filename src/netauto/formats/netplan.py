"""netplan YAML (netplan reference, "network: ethernets / bonds"): each link's settings, read once for validate
and lab alike. Read with `fastyaml` (no aliases, bounded nesting: the file may be hand-edited)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from netauto.formats import fastyaml
from netauto.formats.fastyaml_similar import Similar


class NetplanError(ValueError):
    pass


@dataclass(slots=True)
class NetplanLink:
    key: str  # the name under `ethernets:` / `bonds:` (an ID when `match` + `set-name` rename the NIC)
    mtu: int | None = None
    addresses: list[str] = field(default_factory=list)
    routes: list[dict[str, Any]] = field(default_factory=list)
    routing_policy: list[dict[str, Any]] = field(default_factory=list)
    match: dict[str, Any] = field(default_factory=dict)
    set_name: str | None = None
    optional: bool = False
    link_local: bool = True  # `link-local: []` turns IPv6 link-local addressing off (default: [ipv6])
    dhcp: bool = False  # dhcp4 or dhcp6
    interfaces: list[str] = field(default_factory=list)  # a bond's members
    keys: list[str] = field(default_factory=list)  # every key the file sets for this link

    @property
    def name(self) -> str:
        """The kernel name the link ends up with."""
        return self.set_name or self.key


@dataclass(slots=True)
class Netplan:
    ethernets: dict[str, NetplanLink] = field(default_factory=dict)
    bonds: dict[str, NetplanLink] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)  # the keys under `network:`, in file order


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _link(section: str, key: Any, node: Any) -> NetplanLink:
    node = node or {}
    if not isinstance(node, dict):
        raise NetplanError(f"network.{section}.{key}: expected a mapping of settings, got {type(node).__name__}")
    set_name = node.get("set-name")
    return NetplanLink(
        key=str(key), mtu=_int(node.get("mtu")),
        addresses=[str(a) for a in node.get("addresses") or []], routes=list(node.get("routes") or []),
        routing_policy=list(node.get("routing-policy") or []), match=dict(node.get("match") or {}),
        set_name=str(set_name) if set_name is not None else None, optional=bool(node.get("optional")),
        link_local=bool(node.get("link-local", ["ipv6"])), dhcp=bool(node.get("dhcp4") or node.get("dhcp6")),
        interfaces=[str(m) for m in node.get("interfaces") or []], keys=[str(k) for k in node],
    )


def parse_netplan(text: str, similar: Similar | None = None) -> Netplan:
    """A netplan file; with `similar` (YAML 1.1) read as a difference from similar files before it (read-only
    values shared with them: `fastyaml_similar`)."""
    data = (similar.load(text) if similar is not None and not similar.yaml12 else fastyaml.load(text)) or {}
    if not isinstance(data, dict):
        raise NetplanError("a netplan file is a mapping with a `network:` key")
    net = data.get("network") or {}
    if not isinstance(net, dict):
        raise NetplanError("`network:` must be a mapping")
    out = Netplan(sections=[str(k) for k in net])
    for section, into in (("ethernets", out.ethernets), ("bonds", out.bonds)):
        links = net.get(section) or {}
        if not isinstance(links, dict):
            raise NetplanError(f"network.{section} must be a mapping of links")
        for key, node in links.items():
            into[str(key)] = _link(section, key, node)
    return out
