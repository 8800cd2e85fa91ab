"""Where netauto's files for one network's NICs live on a Linux server (GPU server or storage node).

The compute rails and each network (storage, frontend) get the same kinds of files from the same templates, at
paths of their own, so that a network's files never overwrite the compute fabric's and each network's NIC settings
come back after a reboot on their own:

  kind        compute rails                                   network <p>
  netplan     etc/netplan/60-rails.yaml                       etc/netplan/61-<p>.yaml
  sysctl      etc/sysctl.d/90-gpu-rails.conf                  etc/sysctl.d/91-<p>.conf
  qos script  usr/local/sbin/netauto-roce-qos.sh              usr/local/sbin/netauto-<p>-qos.sh
  boot unit   etc/systemd/system/netauto-roce-qos.service     etc/systemd/system/netauto-<p>-qos.service
  NIC unit    etc/systemd/system/netauto-roce-qos@.service    etc/systemd/system/netauto-<p>-qos@.service
  udev rules  etc/udev/rules.d/90-netauto-rails.rules         etc/udev/rules.d/91-netauto-<p>.rules

Ordering facts: systemd-networkd reads netplan's generated files in lexical order, so 60-rails comes before
61-<network> (netplan(5): "files are merged in lexical order"); sysctl.d files apply in lexical order (sysctl.d(5));
udev rules files run in lexical order across /etc and /lib (udev(7)): 90/91 run after 80-net-setup-link.rules,
which imports ID_PATH that the rules match on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class HostFiles:
    """One network's NIC files on a server: `network` None is the compute fabric's rails."""

    network: str | None = None

    @property
    def qos_name(self) -> str:
        """The provisioning script's and units' base name (`netauto-roce-qos`, `netauto-storage-qos`)."""
        return "netauto-roce-qos" if self.network is None else f"netauto-{self.network}-qos"

    @property
    def netplan(self) -> str:
        return "etc/netplan/60-rails.yaml" if self.network is None else f"etc/netplan/61-{self.network}.yaml"

    @property
    def sysctl(self) -> str:
        return "etc/sysctl.d/90-gpu-rails.conf" if self.network is None else f"etc/sysctl.d/91-{self.network}.conf"

    @property
    def qos_script(self) -> str:
        return f"usr/local/sbin/{self.qos_name}.sh"

    @property
    def unit_name(self) -> str:
        return f"{self.qos_name}.service"

    @property
    def unit(self) -> str:
        return f"etc/systemd/system/{self.unit_name}"

    @property
    def nic_unit_template(self) -> str:
        """The per-NIC template unit's name: `<qos_name>@.service`."""
        return f"{self.qos_name}@.service"

    @property
    def nic_unit(self) -> str:
        return f"etc/systemd/system/{self.nic_unit_template}"

    def nic_unit_for(self, nic: str) -> str:
        return f"{self.qos_name}@{nic}.service"

    @property
    def udev(self) -> str:
        return "etc/udev/rules.d/90-netauto-rails.rules" if self.network is None \
            else f"etc/udev/rules.d/91-netauto-{self.network}.rules"

    @property
    def udev_file(self) -> str:
        return self.udev.rsplit("/", 1)[-1]

    @property
    def nic_word(self) -> str:
        return "rail NIC" if self.network is None else f"{self.network} NIC"

    @property
    def nic_noun(self) -> str:
        """One of these NICs in prose: "rail" on the compute fabric, "<network> NIC" on a network."""
        return "rail" if self.network is None else self.nic_word

    @property
    def nics_label(self) -> str:
        """How comments and unit descriptions name these NICs."""
        return "GPU rail NICs" if self.network is None else f"{self.network} NICs"

    @property
    def provisioning(self) -> tuple[str, ...]:
        """The files that make the NIC QoS survive a reboot or a NIC reset: script, boot unit, NIC unit, udev."""
        return (self.qos_script, self.unit, self.nic_unit, self.udev)


COMPUTE = HostFiles()
NCCL = "etc/nccl.conf"
FIRMWARE = "usr/local/sbin/netauto-nic-firmware.sh"
ROCE_COUNTERS = "usr/local/sbin/netauto-roce-counters.sh"  # textfile-collector script (platforms.telemetry)
ROCE_COUNTERS_SERVICE = "etc/systemd/system/netauto-roce-counters.service"
ROCE_COUNTERS_TIMER = "etc/systemd/system/netauto-roce-counters.timer"

_QOS = re.compile(r"^/?(?:etc/systemd/system/netauto-(?P<unit>.+)-qos@?\.service|usr/local/sbin/netauto-(?P<script>.+)-qos\.sh)$")


def provisioned(paths: Iterable[str]) -> list[HostFiles]:
    """The networks with NIC QoS provisioning among a server's `paths` (their script or units: the compute rails
    and each lossless network; a lossy network has udev naming rules only), compute first."""
    found: set[str | None] = set()
    for m in filter(None, map(_QOS.fullmatch, paths)):
        name = m["unit"] or m["script"]
        found.add(None if name == "roce" else name)
    return [HostFiles(n) for n in sorted(found, key=lambda n: (n is not None, n or ""))]
