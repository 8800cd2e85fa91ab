"""NAPALM driver `netauto_linux`: GPU servers (Ubuntu/Debian with netplan). The candidate is the rendered
netplan file (optional_args config_path, default /etc/netplan/60-rails.yaml), applied by deploy with
`netplan generate` as the check and `netplan apply` (needs systemd-networkd on the host)."""

from __future__ import annotations

from typing import Any

from netauto.formats import device_json
from netauto.napalm.device import NetautoDevice

NETPLAN = "/etc/netplan/60-rails.yaml"


class Linux(NetautoDevice):
    platform = "linux"
    vendor = "Linux"

    def commands(self) -> dict[str, str]:
        return {**super().commands(), "rules": "ip -j rule show", "routes_all": "ip -j -4 route show table all"}

    def config_path(self) -> str:
        return self.optional_args.get("config_path") or NETPLAN

    def get_policy_routing(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """netauto extra: (ip rules, IPv4 routes of every table) as iproute2 JSON."""

        return device_json.loads(self.text("rules") or "[]"), device_json.loads(self.text("routes_all") or "[]")
