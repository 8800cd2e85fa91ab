"""What Cumulus and SONiC share: FRR (vtysh) for BGP, the kernel for routes."""

from __future__ import annotations

from typing import Any

from netauto.napalm import parsers
from netauto.napalm.device import NetautoDevice
from netauto.napalm.parsers import SwitchQosCounters


class FrrSwitch(NetautoDevice):
    kind = "switch"

    def commands(self) -> dict[str, str]:
        frr = self.optional_args.get("frr_exec", self.session.frr_exec if self.session else "")
        return {
            **super().commands(),
            "bgp": f"{frr}vtysh -c 'show bgp vrf default ipv4 unicast summary json'",
            "bgp_neighbors": f"{frr}vtysh -c 'show bgp vrf default neighbors json'",
            "frr_running": f"{frr}vtysh -c 'show running-config'",
            "routes": "ip -j -4 route show proto bgp",
            "nv": "command -v nv",
        }

    def get_bgp_neighbors(self) -> dict[str, Any]:
        """NAPALM's BGP model: `uptime` whole seconds, `remote_id` the peer's BGP identifier (from
        `show bgp neighbors json`; "0.0.0.0" while the session is not up)."""
        self.prefetch("bgp", "bgp_neighbors")
        summ = parsers.parse_bgp_summary(self.text("bgp"))
        ids = parsers.parse_bgp_remote_ids(self.text("bgp_neighbors"))
        peers = {
            name: {"local_as": p.local_as, "remote_as": p.remote_as, "remote_id": ids.get(name) or "0.0.0.0",
                   "is_up": p.state == "Established",
                   "is_enabled": "Admin" not in p.state, "description": p.description or (p.hostname or ""),
                   "uptime": int(p.uptime_s),
                   "address_family": {"ipv4": {"received_prefixes": p.received, "accepted_prefixes": p.received,
                                               "sent_prefixes": p.sent}}}
            for name, p in summ.peers.items()
        }
        return {"global": {"router_id": summ.router_id, "peers": peers}}

    def get_bgp_state(self) -> tuple[parsers.BgpSummary, bool]:
        """netauto extra: the FRR summary (states, peer hostnames) and whether the device is drained
        (`bgp graceful-shutdown` in the running config)."""
        summ = parsers.parse_bgp_summary(self.text("bgp"))
        drained = any(line.strip() == "bgp graceful-shutdown" for line in self.text("frr_running").splitlines())
        return summ, drained

    def get_route_widths(self) -> dict[str, int]:
        """netauto extra: prefix -> kernel next hops of the BGP routes (ECMP width as forwarded)."""
        return parsers.route_widths(self.text("routes"))

    def running_command(self) -> str:
        return self.commands()["frr_running"]

    # ------------------------------------------------------------------ QoS counters (netauto extra)
    @staticmethod
    def qos_counter_commands(ports: list[str]) -> dict[str, str]:
        """key -> shell command reading the RoCE-class counters of `ports` (per NOS; none on a plain FRR box)."""
        return {}

    @staticmethod
    def parse_qos_counters(outputs: dict[str, str | None], priority: int, tc: int) -> dict[str, SwitchQosCounters] | None:
        """The outputs of qos_counter_commands (None: the command failed) -> port -> counters of PFC priority
        `priority` / traffic class `tc`; None when the NOS counters are not readable at all."""
        return None

    def get_qos_counters(self, ports: list[str], priority: int = 3, tc: int = 3) -> dict[str, SwitchQosCounters] | None:
        """netauto extra: cumulative PFC pause (rx/tx on `priority`), ECN-marked, lossless-queue drops and PFC
        watchdog storms (traffic class `tc`) per port, in one round trip; None when the NOS has no such counters."""
        cmds = self.qos_counter_commands(ports)
        if not cmds:
            return None
        got = self.run_batch(cmds)
        return self.parse_qos_counters({k: t if rc == 0 else None for k, (rc, t) in got.items()}, priority, tc)
