"""Reading the frontend's exit back from the parsed files: numbered eBGP sessions to upstream routers.

A fabric session is unnumbered (`neighbor swpN interface ...`); a session named by an IPv4 address is a
session out of the cluster. Used by BORDER-01 (the session as intended), PLANE-06 (no such session outside
the frontend, nothing of another network in what it advertises) and the route simulation (where the default
route enters).
"""

from __future__ import annotations

from functools import lru_cache
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from netauto.formats.frr import FrrConf
from netauto.netutil.prefix_list import permits, permitted_space
from netauto.validate.state import SwitchState

DEFAULT = IPv4Network("0.0.0.0/0")
__all__ = ["DEFAULT", "is_address", "numbered_neighbors", "permits", "permitted_space", "port_towards"]


@lru_cache(maxsize=4096)
def is_address(name: str) -> bool:
    try:
        IPv4Address(name)
    except ValueError:
        return False
    return True


def numbered_neighbors(conf: FrrConf) -> list[str]:
    """The neighbours named by an address: sessions to routers outside the cluster's fabrics."""
    return sorted(n for n in conf.neighbors if is_address(n))


def port_towards(st: SwitchState, address: str) -> str | None:
    """The up port whose subnet holds `address` (where a numbered session to it can come up)."""
    ip = IPv4Address(address)
    for name, port in st.ports.items():
        if not port.up:
            continue
        for a in port.addresses:
            try:
                mine = IPv4Interface(a)
            except ValueError:
                continue
            if ip in mine.network and ip != mine.ip:
                return name
    return None
