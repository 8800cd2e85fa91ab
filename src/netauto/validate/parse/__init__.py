"""Parse rendered files back into plain data, one small parser per format.

Every parser takes the file's text and returns a dataclass or dict; none of them needs the model.
"""

from netauto.validate.parse.frr import FrrConf, parse_frr
from netauto.validate.parse.ifupdown import Stanza, parse_interfaces
from netauto.validate.parse.host import (
    HostQos, parse_netplan, parse_netplan_bonds, parse_nccl, parse_roce_script, parse_sysctl,
)
from netauto.validate.parse.kv import parse_kv
from netauto.validate.parse.nvue import parse_nvue

__all__ = [
    "FrrConf", "HostQos", "Stanza", "parse_frr", "parse_interfaces", "parse_kv", "parse_nccl", "parse_netplan", "parse_netplan_bonds",
    "parse_nvue", "parse_roce_script", "parse_sysctl",
]
