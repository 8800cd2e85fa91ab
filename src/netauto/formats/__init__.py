"""Readers of the on-device file formats netauto renders, one module per format, shared by validate, lab and
deploy: frr.conf (`frr`), /etc/network/interfaces (`ifupdown`), netplan (`netplan`), sysctl.d (`sysctl`), NVUE
startup.yaml (`nvue`), switchd `key = value` files (`kv`), the GPU-server scripts, units and rules (`host`), and
the fast YAML reader under them (`fastyaml`); and the output of the acceptance tests' tools run on the servers:
perftest (`perftest`), nccl-tests (`nccl_tests`) and iperf3's JSON (`iperf3`).

Every reader takes the file's text and returns a dataclass or plain data; none of them needs the model.
"""

from netauto.formats.frr import FrrConf, parse_frr
from netauto.formats.host import (
    HostQos, parse_firmware_script, parse_nccl, parse_roce_script, parse_udev_rules, parse_unit,
)
from netauto.formats.ifupdown import InterfacesFile, Stanza, parse_interfaces
from netauto.formats.kv import parse_kv
from netauto.formats.netplan import Netplan, NetplanError, NetplanLink, parse_netplan
from netauto.formats.nvue import parse_nvue
from netauto.formats.sysctl import parse_sysctl

__all__ = [
    "FrrConf", "HostQos", "InterfacesFile", "Netplan", "NetplanError", "NetplanLink", "Stanza",
    "parse_firmware_script", "parse_frr", "parse_interfaces", "parse_kv", "parse_nccl", "parse_netplan", "parse_nvue",
    "parse_roce_script", "parse_sysctl", "parse_udev_rules", "parse_unit",
]
