"""Shared helpers for the rules: fabric links with both ends' parsed ports."""

from __future__ import annotations

from collections.abc import Iterator

from netauto.model.types import Link
from netauto.platforms.nos import cumulus_path
from netauto.validate.state import ParsedFabric, Port, SwitchState

FABRIC_KINDS = ("leaf-spine", "spine-superspine")
IFACES = cumulus_path("interfaces")
FRR = cumulus_path("frr")
QOS = cumulus_path("qos")


def fabric_links(view: ParsedFabric, enabled_only: bool = True) -> Iterator[Link]:
    for link in view.model.links:
        if link.kind in FABRIC_KINDS and (link.enabled or not enabled_only):
            yield link


def peer_sessions(view: ParsedFabric) -> dict[tuple[str, str], tuple[str, str]]:
    """(switch, interface) -> (peer, its interface) of every MLAG pair's routed session over the peerlink, as
    the model intends it (`Mlag.session`): a BGP neighbour there is as legitimate as one on a fabric link."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for sw in view.model.switches:
        m = sw.mlag
        if m is None or m.session is None:
            continue
        peer = view.model.switch(m.peer)
        if peer.mlag is not None and peer.mlag.session is not None:
            out[(sw.name, m.session.interface)] = (peer.name, peer.mlag.session.interface)
    return out


def end(view: ParsedFabric, device: str, port: str) -> tuple[SwitchState | None, Port | None]:
    st = view.switches.get(device)
    return st, (st.ports.get(port) if st else None)


def file_of(st: SwitchState | None, role: str, default: str) -> str:
    return (st.files.get(role) if st else None) or default
