"""NAPALM driver `netauto_sonic`: SONiC. FRR runs in the `bgp` container (optional_args frr_exec, set by
netauto's targets), LLDP in the `lldp` container (unless frr_exec is empty: FRR and lldpd on the node itself,
as in the lab). The candidate is the split-unified FRR config /etc/sonic/frr/frr.conf."""

from __future__ import annotations

from netauto.deploy.device import SONIC_FRR
from netauto.napalm.switch import FrrSwitch


class Sonic(FrrSwitch):
    platform = "sonic"
    vendor = "SONiC"

    def commands(self) -> dict[str, str]:
        frr = self.optional_args.get("frr_exec", self.session.frr_exec if self.session else "")
        self.lldp_container = "lldp" if frr else ""
        return {**super().commands(), "config_db": "sonic-cfggen -d --print-data"}

    def config_path(self) -> str:
        return self.optional_args.get("config_path") or SONIC_FRR
