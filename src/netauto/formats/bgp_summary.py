"""FRR's `show bgp summary json`, the one reader (deploy's session check, the lab's session wait, the NAPALM
driver behind verify).

- `vtysh -c 'show bgp vrf default ipv4 unicast summary json'` (FRR 8.4.4, run in the lab): `{"routerId",
  "as", "peers": {NAME: {"state", "remoteAs", "localAs", "hostname", "peerUptimeMsec", "pfxRcd", "pfxSnt",
  "desc"}}}`; NAME is the interface of an unnumbered neighbour, else its address; `{}` when bgpd has no IPv4
  unicast peers. `show bgp summary json` wraps the same object per address family (`"ipv4Unicast": {...}`).
Device output is hostile: a value of the wrong type reads as absent, never as an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from netauto.formats import device_json

__all__ = ["BgpPeer", "BgpSummary", "parse_bgp_summary"]


@dataclass(slots=True)
class BgpPeer:
    name: str  # the FRR neighbour key: interface name for unnumbered peers, else the address
    state: str
    remote_as: int
    local_as: int
    hostname: str | None  # the peer's hostname (FRR hostname capability)
    uptime_s: float
    received: int
    sent: int
    description: str = ""


@dataclass(slots=True)
class BgpSummary:
    router_id: str = ""
    local_as: int = 0
    peers: dict[str, BgpPeer] = field(default_factory=dict)

    def established(self) -> set[str]:
        """The neighbours in state Established."""
        return {name for name, p in self.peers.items() if p.state == "Established"}


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def parse_bgp_summary(text: str) -> BgpSummary:
    """`show bgp [vrf default ipv4 unicast] summary json` -> the IPv4 unicast summary (empty when bgpd has no
    such peers). Raises ValueError when `text` is not JSON."""
    data = device_json.loads(text or "{}")  # bounded nesting: device output is hostile
    if isinstance(data, dict) and "ipv4Unicast" in data:  # `show bgp summary json` wraps per address family
        data = data["ipv4Unicast"]
    if not isinstance(data, dict):
        return BgpSummary()
    out = BgpSummary(router_id=_str(data.get("routerId")), local_as=_int(data.get("as")))
    peers = data.get("peers")
    for name, p in (peers.items() if isinstance(peers, dict) else ()):
        if not isinstance(p, dict):
            continue
        uptime = p.get("peerUptimeMsec")
        out.peers[name] = BgpPeer(
            name=name, state=_str(p.get("state")) or "?", remote_as=_int(p.get("remoteAs")),
            local_as=_int(p.get("localAs"), out.local_as), hostname=_str(p.get("hostname")) or None,
            uptime_s=float(uptime) / 1000.0 if isinstance(uptime, int | float) and not isinstance(uptime, bool) else 0.0,
            received=_int(p.get("pfxRcd")), sent=_int(p.get("pfxSnt")), description=_str(p.get("desc")),
        )
    return out
