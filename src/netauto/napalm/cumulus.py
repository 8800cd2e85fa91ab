"""NAPALM driver `netauto_cumulus`: NVIDIA Cumulus Linux 5.x.

With NVUE on the switch (`nv` exists) the candidate is NVUE's startup.yaml, applied by deploy with
`nv config replace` + `nv config apply --confirm` (not exercised here: no NVUE on this machine). Without NVUE
(the documented opt-out, and the lab) it is /etc/frr/frr.conf, applied with frr-reload.py.
"""

from __future__ import annotations

from netauto.deploy.device import FRR_CONF, NVUE_STARTUP
from netauto.napalm.switch import FrrSwitch


class Cumulus(FrrSwitch):
    platform = "cumulus"
    vendor = "NVIDIA"

    def config_path(self) -> str:
        if self.optional_args.get("config_path"):
            return self.optional_args["config_path"]
        return NVUE_STARTUP if self.has("nv") else FRR_CONF
