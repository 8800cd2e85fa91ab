"""The running state of one device, read through its netauto NAPALM driver in one SSH round trip."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any

from netauto.napalm.cumulus import Cumulus
from netauto.napalm.device import NetautoDevice
from netauto.napalm.parsers import BgpSummary
from netauto.napalm.sonic import Sonic
from netauto.napalm.switch import FrrSwitch

# the switch drivers that read QoS counters from their NOS (napalm.cumulus / napalm.sonic)
QOS_COUNTER_DRIVERS: dict[str, type[FrrSwitch]] = {"cumulus": Cumulus, "sonic": Sonic}


@dataclass(slots=True)
class DeviceState:
    device: str
    kind: str  # switch | server
    nos: str
    interfaces: dict[str, dict[str, Any]] = field(default_factory=dict)  # NAPALM get_interfaces (+ kind)
    lldp: dict[str, list[dict[str, str]]] | None = None  # NAPALM get_lldp_neighbors; None: unreadable
    bgp: BgpSummary | None = None
    drained: bool | None = None
    widths: dict[str, int] | None = None  # BGP prefix -> kernel next hops
    raw: dict[str, tuple[int, str]] = field(default_factory=dict)  # extra reads (QoS, FEC, rules...) by key
    errors: dict[str, str] = field(default_factory=dict)  # what could not be read, and why

    def out(self, key: str) -> str | None:
        """Output of an extra read, None when the command failed or was not run."""
        rc, text = self.raw.get(key, (1, ""))
        return text if rc == 0 else None


def _phy(port: str) -> str:
    """Shell test (a builtin, no process): the port has a device behind it (not a veth, bridge...)."""
    return f"[ -e /sys/class/net/{shlex.quote(port)}/device ]"


def extra_reads(kind: str, nos: str, ports: dict[str, str | None], rails: list[tuple[str, str]],
                counter_ports: list[str] | None = None) -> dict[str, str]:
    """Reads beyond the NAPALM getters, run in the same round trip.

    ports: switch port -> FEC intent (None: no FEC read); rails: (NIC, RDMA device) of a server;
    counter_ports: switch ports whose RoCE-class QoS counters the NOS is asked for (`verify --window` only:
    on Cumulus it costs an `nv` call per port).
    """
    cmds: dict[str, str] = {"stats": "ip -j -s link show"}  # kernel interface counters (discards, errors)
    if kind == "switch":
        cmds["nv"] = "command -v nv"
        if nos == "cumulus":
            # NVUE operational/applied state as JSON (CL 5.x `nv show ... -o json`)
            cmds["nv_qos_roce"] = "command -v nv >/dev/null && nv show qos roce -o json"
            cmds["nv_ar"] = "command -v nv >/dev/null && nv show router adaptive-routing -o json"
        if nos == "sonic":
            cmds["config_db"] = "command -v sonic-cfggen >/dev/null && sonic-cfggen -d --print-data"
        if counter_ports and nos in QOS_COUNTER_DRIVERS:
            cmds.update(QOS_COUNTER_DRIVERS[nos].qos_counter_commands(counter_ports))
        for port, fec in ports.items():
            if fec is not None:
                cmds[f"fec:{port}"] = f"{_phy(port)} && ethtool --show-fec {shlex.quote(port)}"
    else:
        cmds["rules"] = "ip -j rule show"
        cmds["addrs"] = "ip -j -4 addr show"  # every NIC's addresses (rails, network NICs, bonds)
        cmds["routes_all"] = "ip -j -4 route show table all"
        cmds["dcb"] = "command -v dcb"
        cmds["mlnx_qos"] = "command -v mlnx_qos"
        for nic, rdma in rails:
            q = shlex.quote(nic)
            ib = f"/sys/class/infiniband/{shlex.quote(rdma)}"
            # guarded with shell builtins: a veth or a host without the tools costs no process per NIC
            cmds[f"dcb_ets:{nic}"] = f"{_phy(nic)} && command -v dcb >/dev/null && dcb -j ets show dev {q}"
            cmds[f"dcb_pfc:{nic}"] = f"{_phy(nic)} && command -v dcb >/dev/null && dcb -j pfc show dev {q}"
            cmds[f"mlnx_qos:{nic}"] = f"command -v mlnx_qos >/dev/null && mlnx_qos -i {q}"
            cmds[f"ecn:{nic}"] = f"[ -d /sys/class/net/{q}/ecn ] && cd /sys/class/net/{q}/ecn && grep -r . roce_np roce_rp"
            cmds[f"tos:{nic}"] = f"[ -e {ib}/tc/1/traffic_class ] && cat {ib}/tc/1/traffic_class"
            cmds[f"hw:{nic}"] = f"[ -d {ib}/ports/1/hw_counters ] && cd {ib}/ports/1/hw_counters && grep . *"
            cmds[f"ethtool_s:{nic}"] = f"{_phy(nic)} && ethtool -S {q}"
    return cmds


def read_state(driver: NetautoDevice, device: str, kind: str, nos: str, extra: dict[str, str]) -> DeviceState:
    keys = ["links", "speeds", "lldp"] + (["bgp", "frr_running", "routes"] if kind == "switch" else [])
    driver.prefetch(*keys, extra=extra)
    st = DeviceState(device, kind, nos)
    st.interfaces = driver.interface_details()
    try:
        st.lldp = driver.get_lldp_neighbors()
    except Exception as exc:  # noqa: BLE001 - reported per device
        st.errors["lldp"] = str(exc)
    if kind == "switch":
        try:
            st.bgp, st.drained = driver.get_bgp_state()  # type: ignore[attr-defined]
        except (ValueError, json.JSONDecodeError) as exc:
            st.errors["bgp"] = f"unreadable `show bgp summary json`: {exc}"
        st.widths = driver.get_route_widths()  # type: ignore[attr-defined]
    st.raw = {k: driver.output(k) for k in extra}
    return st
