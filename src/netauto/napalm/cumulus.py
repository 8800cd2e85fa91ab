"""NAPALM driver `netauto_cumulus`: NVIDIA Cumulus Linux 5.x.

With NVUE on the switch (`nv` exists) the candidate is NVUE's startup.yaml, applied by deploy with
`nv config replace` + `nv config apply --confirm` (not exercised here: no NVUE on this machine). Without NVUE
(the documented opt-out, and the lab) it is /etc/frr/frr.conf, applied with frr-reload.py.
"""

from __future__ import annotations

import shlex

from netauto.deploy.device import FRR_CONF, NVUE_STARTUP
from netauto.napalm import parsers
from netauto.napalm.parsers import SwitchQosCounters
from netauto.napalm.switch import FrrSwitch

ROCE_KEY, WD_KEY = "swqos_roce", "swqos_wd"


def nv_per_port(ports: list[str], path: str) -> str:
    """One shell loop printing `{"<port>": <nv show interface <port> <path> -o json> | null, ..., "": null}`:
    one JSON document for every port, in the round trip of the other reads."""
    names = " ".join(shlex.quote(p) for p in ports)
    return (f"printf '{{'; for p in {names}; do o=$(nv show interface \"$p\" {path} -o json 2>/dev/null) "
            "&& [ -n \"$o\" ] || o=null; printf '\"%s\":' \"$p\"; printf '%s,' \"$o\"; done; printf '\"\":null}'")


class Cumulus(FrrSwitch):
    platform = "cumulus"
    vendor = "NVIDIA"

    def config_path(self) -> str:
        if self.optional_args.get("config_path"):
            return self.optional_args["config_path"]
        return NVUE_STARTUP if self.has("nv") else FRR_CONF

    @staticmethod
    def qos_counter_commands(ports: list[str]) -> dict[str, str]:
        """RoCE counters: `nv show interface qos-roce-counters -o json` (every interface in one call, CL 5.14+:
        "What's New" 5.14 > new NVUE commands), else `nv show interface <swp> qos roce counters -o json` per port
        (CL 5.0+, NVUE command reference). PFC watchdog: `nv show interface <swp> qos pfc-watchdog -o json` per
        port (CL 5.6+; NVUE has no all-interface view of it). Both guarded: no NVUE (the lab), no read."""
        if not ports:
            return {}
        # the one-call view is used only when it looks like the per-port documents (rx-stats/tx-stats inside)
        roce = ("command -v nv >/dev/null && { o=$(nv show interface qos-roce-counters -o json 2>/dev/null); "
                f"case \"$o\" in *'\"rx-stats\"'*) printf '%s' \"$o\";; *) {nv_per_port(ports, 'qos roce counters')};; esac; }}")
        wd = f"command -v nv >/dev/null && {{ {nv_per_port(ports, 'qos pfc-watchdog')}; }}"
        return {ROCE_KEY: roce, WD_KEY: wd}

    @staticmethod
    def parse_qos_counters(outputs: dict[str, str | None], priority: int, tc: int) -> dict[str, SwitchQosCounters] | None:
        """NVUE's RoCE counters count the RoCE class (the switch priority `qos roce` uses: `priority`); the PFC
        watchdog deadlock count is read for traffic class `tc`."""
        roce, wd = outputs.get(ROCE_KEY), outputs.get(WD_KEY)
        if roce is None and wd is None:
            return None
        out = parsers.parse_nvue_roce_counters(roce) if roce is not None else {}
        for port, n in (parsers.parse_nvue_pfc_watchdog(wd, tc) if wd is not None else {}).items():
            out.setdefault(port, SwitchQosCounters()).wd_storms = n
        return out
