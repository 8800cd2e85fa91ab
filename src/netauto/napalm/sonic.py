"""NAPALM driver `netauto_sonic`: SONiC. FRR runs in the `bgp` container (optional_args frr_exec, set by
netauto's targets), LLDP in the `lldp` container (unless frr_exec is empty: FRR and lldpd on the node itself,
as in the lab). The candidate is the split-unified FRR config /etc/sonic/frr/frr.conf."""

from __future__ import annotations

import shlex

from netauto.deploy.device import SONIC_FRR
from netauto.napalm import parsers
from netauto.napalm.parsers import SwitchQosCounters
from netauto.napalm.switch import FrrSwitch

DB_KEY = "swqos_db"

# Run on the switch as `python3 -I -c QOS_COUNTERS_PY <port>...` (-I, isolated: `-c` would put the current folder,
# the login's under `sudo`, first on sys.path and run a json.py there as root): prints the COUNTERS_DB name/type
# maps of those ports and their `COUNTERS:<oid>` hashes (QoS fields only), keys as in the database. The reads are those of
# sonic-utilities scripts/pfcstat (COUNTERS_PORT_NAME_MAP, SAI_PORT_STAT_PFC_<p>_{RX,TX}_PKTS), scripts/queuestat
# and scripts/wredstat (COUNTERS_QUEUE_NAME_MAP `<port>:<index>`, COUNTERS_QUEUE_TYPE_MAP,
# SAI_QUEUE_STAT_DROPPED_PACKETS, SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS) and pfcwd/main.py
# (PFC_WD_QUEUE_STATS_*). No single quotes inside: it is passed shell-quoted.
QOS_COUNTERS_PY = """
import json, sys
from swsscommon.swsscommon import SonicV2Connector
db = SonicV2Connector(use_unix_socket_path=False)
db.connect(db.COUNTERS_DB)
def get(key):
    return db.get_all(db.COUNTERS_DB, key) or {}
want = set(sys.argv[1:])
out = {"COUNTERS_PORT_NAME_MAP": {p: o for p, o in get("COUNTERS_PORT_NAME_MAP").items() if p in want},
       "COUNTERS_QUEUE_NAME_MAP": {q: o for q, o in get("COUNTERS_QUEUE_NAME_MAP").items()
                                   if q.rsplit(":", 1)[0] in want}}
qoids = set(out["COUNTERS_QUEUE_NAME_MAP"].values())
out["COUNTERS_QUEUE_TYPE_MAP"] = {o: t for o, t in get("COUNTERS_QUEUE_TYPE_MAP").items() if o in qoids}
keep = ("SAI_PORT_STAT_PFC_", "SAI_QUEUE_STAT_DROPPED_PACKETS", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "PFC_WD_")
for oid in list(out["COUNTERS_PORT_NAME_MAP"].values()) + sorted(qoids):
    out["COUNTERS:" + oid] = {f: v for f, v in get("COUNTERS:" + oid).items() if f.startswith(keep)}
print(json.dumps(out, sort_keys=True))
"""


class Sonic(FrrSwitch):
    platform = "sonic"
    vendor = "SONiC"

    def commands(self) -> dict[str, str]:
        frr = self.optional_args.get("frr_exec", self.session.frr_exec if self.session else "")
        self.lldp_container = "lldp" if frr else ""
        return {**super().commands(), "config_db": "sonic-cfggen -d --print-data"}

    def config_path(self) -> str:
        return self.optional_args.get("config_path") or SONIC_FRR

    @staticmethod
    def qos_counter_commands(ports: list[str]) -> dict[str, str]:
        """COUNTERS_DB in one process on the switch (python3 with swsscommon's SonicV2Connector, as pfcstat,
        queuestat and pfcwd read it): only the ports asked for, only the QoS fields. Guarded: no SONiC database
        (the lab's FRR nodes), no read."""
        if not ports:
            return {}
        args = " ".join(shlex.quote(p) for p in ports)
        return {DB_KEY: f"command -v sonic-db-cli >/dev/null && python3 -I -c {shlex.quote(QOS_COUNTERS_PY)} {args}"}

    @staticmethod
    def parse_qos_counters(outputs: dict[str, str | None], priority: int, tc: int) -> dict[str, SwitchQosCounters] | None:
        """Queue `tc` of each port: netauto renders TC_TO_QUEUE_MAP as traffic class N -> queue N
        (sonic/config_db.py)."""
        text = outputs.get(DB_KEY)
        return None if text is None else parsers.parse_sonic_qos_counters(text, priority, tc)
