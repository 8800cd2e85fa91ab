"""GPU-server files: netplan, sysctl, the RoCE QoS script, nccl.conf."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from netauto.validate.parse import fastyaml

from netauto.validate.parse.kv import parse_kv

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_netplan(text: str) -> dict[str, Any]:
    """`network.ethernets` of a netplan file: nic -> its settings."""
    data = fastyaml.load(text) or {}
    return dict((data.get("network") or {}).get("ethernets") or {})


def parse_netplan_bonds(text: str) -> dict[str, Any]:
    """`network.bonds` of a netplan file: bond -> its settings (interfaces, addresses, routes, parameters)."""
    data = fastyaml.load(text) or {}
    return dict((data.get("network") or {}).get("bonds") or {})


def parse_sysctl(text: str) -> dict[str, str]:
    return parse_kv(text)


@dataclass(slots=True)
class HostQos:
    trust: str | None
    pfc_bitmap: list[int] | None  # mlnx_qos --pfc=0,0,0,1,0,0,0,0
    roce_tos: int | None
    ecn_priorities: list[int]

    @property
    def pfc_priorities(self) -> list[int]:
        return [i for i, bit in enumerate(self.pfc_bitmap or []) if bit]


def parse_roce_script(text: str) -> HostQos:
    trust = re.search(r"--trust[= ](\w+)", text)
    pfc = re.search(r"--pfc[= ]([0-9,]+)", text)
    tos = re.search(r"echo (\d+) > \S*default_roce_tos", text)
    ecn = sorted({int(p) for p in re.findall(r"ecn/roce_(?:np|rp)/enable/(\d+)", text)})
    return HostQos(
        trust=trust.group(1) if trust else None,
        pfc_bitmap=[int(b) for b in pfc.group(1).split(",") if b] if pfc else None,
        roce_tos=int(tos.group(1)) if tos else None,
        ecn_priorities=ecn,
    )


def parse_nccl(text: str) -> dict[str, str]:
    return parse_kv(text)
