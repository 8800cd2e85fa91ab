"""GPU servers' files -> `ServerState`: netplan, sysctl.d, the RoCE QoS script, nccl.conf, the provisioning units,
udev rules and the NIC firmware script."""

from __future__ import annotations

from netauto.formats.host import parse_firmware_script, parse_nccl, parse_roce_script, parse_udev_rules, parse_unit
from netauto.formats.fastyaml_similar import Similar
from netauto.formats.netplan import parse_netplan
from netauto.formats.sysctl import parse_sysctl
from netauto.platforms import host
from netauto.platforms.host import HostFiles
from netauto.validate.state import Nic, ServerState

def host_files(files: HostFiles) -> dict[str, str]:
    """Reader key -> the path of one network's NIC files (netauto.platforms.host)."""
    return {"netplan": files.netplan, "sysctl": files.sysctl, "qos": files.qos_script, "unit": files.unit,
            "unit_rail": files.nic_unit, "udev": files.udev}


HOST_FILES = {**host_files(host.COMPUTE), "nccl": host.NCCL, "firmware": host.FIRMWARE}


def server_state(name: str, files: dict[str, str | None], similar: Similar | None = None) -> ServerState:
    """A server's state; `similar` reads its netplan as a difference from the other servers' (formats.fastyaml_similar)."""
    st = ServerState(name)
    plan = parse_netplan(files.get("netplan") or "", similar)
    for key, link in plan.ethernets.items():
        st.nics[key] = Nic(key, link.mtu, link.addresses, link.routes, link.routing_policy, match=link.match,
                           set_name=link.set_name, optional=link.optional)
    for key, link in plan.bonds.items():
        st.nics[key] = Nic(key, link.mtu, link.addresses, link.routes, link.routing_policy, link.interfaces)
        for m in link.interfaces:
            if m in st.nics:
                st.nics[m].bond = key
    st.sysctl = dict(parse_sysctl(files.get("sysctl") or ""))
    qos, firmware = files.get("qos"), files.get("firmware")
    st.qos = parse_roce_script(qos) if qos is not None else None
    st.nccl = parse_nccl(files.get("nccl") or "")
    for role in ("unit", "unit_rail"):
        unit = files.get(role)
        if unit is not None:
            st.units[role] = parse_unit(unit)
    st.udev = parse_udev_rules(files.get("udev") or "")
    st.firmware = parse_firmware_script(firmware) if firmware is not None else None
    return st


