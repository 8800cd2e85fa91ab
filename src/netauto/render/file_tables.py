"""Which files a device gets: per NOS (Cumulus, SONiC), per server (the compute rails, each network's NICs), the
OOB switches and the BMCs, each as an `ArtifactSpec` (template or builder, on-device path, mode, owner).
On-device paths come from netauto.platforms; this module only lists them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from netauto.model.types import FabricModel, Switch
from netauto.platforms import host as host_files
from netauto.platforms.hardware import load_hwsku
from netauto.platforms.nos import cumulus_path, sonic_path, sonic_sku_path
from netauto.render.nvue import startup_yaml
from netauto.sonic.config_db import config_db_json
from netauto.sonic.qos_reload import buffers_json_j2, qos_json_j2


@dataclass(frozen=True, slots=True)
class ArtifactSpec:
    template: str | None  # Jinja template, or None when `builder` makes the content in Python
    path: str
    mode: int = 0o644
    when: Callable[[Switch], bool] | None = None  # switch specs only: render the file when this holds
    builder: Callable[[Switch, FabricModel], str] | None = None  # switch specs only: JSON built as a dict
    owner: str | None = "root:root"

    def path_for(self, sw: Switch) -> str:
        """The path on this switch: a SONiC SKU file's {platform}/{hwsku} filled in."""
        if "{" not in self.path or not sw.hwsku:
            return self.path
        return sonic_sku_path(self.path, load_hwsku(sw.hwsku).platform, sw.hwsku)


# FRR's own files are frr:frr 0640 as Debian's frr package installs them (frr 8.4.4-1.1~deb12u2 `ls -l /etc/frr`:
# daemons, frr.conf, vtysh.conf all -rw-r----- frr frr); Cumulus Linux ships FRR the same way. Not world-readable:
# frr.conf may hold BGP passwords.
FRR_MODE = 0o640
FRR_OWNER = "frr:frr"

# Which file each role is and where it lives on the switch: netauto.platforms.nos (data/nos_cumulus.yaml).
# Every Cumulus switch gets all of them: in NVUE mode startup.yaml is pushed and the Linux files are the
# rendered view the lab runs; in linux-files mode the other way round (platforms.nos.cumulus_files).
CUMULUS: tuple[ArtifactSpec, ...] = (
    ArtifactSpec(None, cumulus_path("nvue"), builder=startup_yaml),
    ArtifactSpec("cumulus/interfaces.j2", cumulus_path("interfaces")),
    ArtifactSpec("cumulus/frr.conf.j2", cumulus_path("frr"), mode=FRR_MODE, owner=FRR_OWNER),
    ArtifactSpec("cumulus/daemons.j2", cumulus_path("daemons"), mode=FRR_MODE, owner=FRR_OWNER),
    ArtifactSpec("cumulus/adaptive_routing.conf.j2", cumulus_path("ar")),
    ArtifactSpec("cumulus/qos_features.conf.j2", cumulus_path("qos"), when=lambda sw: sw.qos.lossless),
    ArtifactSpec("cumulus/qos_infra.conf.j2", cumulus_path("qos_infra"), when=lambda sw: sw.qos.lossless),
    # switchd.conf: the PFC watchdog keys and a tenant VTEP's DSCP actions, either without the other
    ArtifactSpec("cumulus/switchd.conf.j2", cumulus_path("switchd"),
                 when=lambda sw: (sw.qos.lossless and sw.qos.pfc_watchdog) or sw.vxlan_qos is not None),
    ArtifactSpec("cumulus/ports.conf.j2", cumulus_path("ports"), when=lambda sw: bool(sw.breakout_cages)),
)

# The OOB switches' Linux files (linux-files mode): ifupdown2 from the same stanza macros as CUMULUS's
# interfaces.j2; frr.conf + daemons only for their static routes (no routing protocol: OOB-04).
OOB_INTERFACES = ArtifactSpec("cumulus/oob_interfaces.j2", cumulus_path("interfaces"))
OOB_ROUTES: tuple[ArtifactSpec, ...] = (
    ArtifactSpec("cumulus/oob_frr.conf.j2", cumulus_path("frr"), mode=FRR_MODE, owner=FRR_OWNER),
    ArtifactSpec("cumulus/daemons.j2", cumulus_path("daemons"), mode=FRR_MODE, owner=FRR_OWNER),
)


def _nic_specs(files: host_files.HostFiles, lossless: bool, bond: bool = False) -> list[ArtifactSpec]:
    """One network's NIC files on a server (paths: netauto.platforms.host): netplan, sysctls and, where the network
    is lossless, the RoCE QoS script with what re-applies it at boot and on every NIC add (units, udev rules)."""
    netplan = "host/netplan-bond.yaml.j2" if bond else "host/netplan-rails.yaml.j2"
    specs = [ArtifactSpec(netplan, files.netplan, mode=0o600), ArtifactSpec("host/sysctl-rails.conf.j2", files.sysctl)]
    if lossless:
        specs += [
            ArtifactSpec("host/roce-qos.sh.j2", files.qos_script, mode=0o755),
            ArtifactSpec("host/roce-qos.service.j2", files.unit),
            ArtifactSpec("host/roce-qos@.service.j2", files.nic_unit),
        ]
    specs.append(ArtifactSpec("host/rails.rules.j2", files.udev))  # NIC names by PCI path; QoS on NIC add if lossless
    return specs


HOST: tuple[ArtifactSpec, ...] = (
    *_nic_specs(host_files.COMPUTE, lossless=True),
    ArtifactSpec("host/nic-firmware.sh.j2", host_files.FIRMWARE, mode=0o755),
    ArtifactSpec("host/nccl.conf.j2", host_files.NCCL),
    # RoCE counters for node-exporter's textfile collector (netauto.monitoring alerts on them)
    ArtifactSpec("host/roce-counters.sh.j2", host_files.ROCE_COUNTERS, mode=0o755),
    ArtifactSpec("host/roce-counters.service.j2", host_files.ROCE_COUNTERS_SERVICE),
    ArtifactSpec("host/roce-counters.timer.j2", host_files.ROCE_COUNTERS_TIMER),
)

SONIC: tuple[ArtifactSpec, ...] = (
    ArtifactSpec(None, sonic_path("config_db"), builder=config_db_json),
    # the bgp container's FRR reads it through a bind mount of /etc/sonic/frr; which host user owns it is not
    # documented anywhere netauto can cite, so the owner a switch has is kept
    ArtifactSpec("sonic/frr.conf.j2", sonic_path("frr"), owner=None),
    # the SKU's QoS/buffer templates in its device folder, so that `config qos reload` regenerates netauto's tables
    # (netauto.sonic.qos_reload); a lossy network's switch keeps SONiC's own
    ArtifactSpec(None, sonic_path("qos_template"), builder=qos_json_j2, when=lambda sw: sw.qos.lossless),
    ArtifactSpec(None, sonic_path("buffers_template"), builder=buffers_json_j2, when=lambda sw: sw.qos.lossless),
)

PLATFORMS: dict[str, tuple[ArtifactSpec, ...]] = {"cumulus": CUMULUS, "sonic": SONIC}


def network_host_specs(network: str, lossless: bool, bond: bool = False) -> tuple[ArtifactSpec, ...]:
    """A server's files for one network: the same templates as the compute rails, at the network's paths (a bonded
    network: one LACP bond over the NICs instead)."""
    return tuple(_nic_specs(host_files.HostFiles(network), lossless, bond))


BMC = ArtifactSpec("host/bmc-lan.sh.j2", "usr/local/sbin/netauto-bmc-lan.sh", mode=0o755)
