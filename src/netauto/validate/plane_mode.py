"""CPLANE-03: one compute-plane mode everywhere it shows (docs/compute-planes.md, "Validation").

The inventory's `topology.compute_planes` (count, balancing) is the one owner of the plane mode; three outputs
carry it and must agree with it, read back from the rendered files:
  NIC template  NicConfigurationTemplate spectrumXOptimized {multiplaneMode, numberOfPlanes} (the NIC Configuration
                Operator sets the NIC's plane mode from it; CRD enum none/swplb/hwplb, numberOfPlanes 1/2/4)
  host files    swplb: every plane's netplan file (60-rails.yaml, 61-compute-p<p>.yaml) gives each of the server's
                ports on that plane an address (one address per plane port)
  NCCL          /etc/nccl.conf NCCL_IB_HCA lists the RDMA device of every plane port (NCCL spreads over them)
What one of them shows that the others do not is an error naming the file: the NIC would run one mode while the
host or NCCL expects another.
"""

from __future__ import annotations

from typing import Any

import yaml

from netauto.formats import fastyaml
from netauto.formats.host import parse_nccl
from netauto.formats.netplan import NetplanError, parse_netplan
from netauto.model.cluster import ClusterModel
from netauto.model.compute_planes import network_name
from netauto.model.kubernetes import FOLDER
from netauto.platforms.host import NCCL, HostFiles
from netauto.validate.files import FileSet
from netauto.validate.findings import CHECKS, Finding

CHECKS["CPLANE-03"] = ("the compute-plane mode (balancing, plane count) differs between the inventory, the NIC "
                       "template (multiplaneMode, numberOfPlanes), the hosts' netplan files and NCCL_IB_HCA")
Mode = tuple[str, int]


def spectrum_x(doc: dict[str, Any]) -> dict[str, Any] | None:
    """A NicConfigurationTemplate's enabled spectrumXOptimized block, None without one."""
    block: Any = doc
    for key in ("spec", "template", "spectrumXOptimized"):  # a hand-edited file may hold a list anywhere
        block = block.get(key) if isinstance(block, dict) else None
    return block if isinstance(block, dict) and block.get("enabled") else None


def _int(value: object) -> int:
    """A count read from a hand-editable file: -1 for what is not a small integer (never a traceback)."""
    text = str(value).strip()
    return int(text) if text.isdigit() and len(text) < 4 else -1


def _shown(planes: int) -> Mode:
    return ("swplb", planes) if planes > 1 else ("none", 1)


def _say(mode: Mode) -> str:
    return f"{mode[0]} over {mode[1]} plane(s)"


def _templates(files: FileSet, want: Mode) -> list[Finding]:
    found = []
    for path in sorted(p for d, p in files.paths() if d == FOLDER and p.endswith(".yaml")):
        try:
            docs = [d for d in fastyaml.load_all(files.get(FOLDER, path) or "") if isinstance(d, dict)]
        except yaml.YAMLError:
            continue  # K8S-01 names an unreadable manifest
        for doc in docs:
            if doc.get("kind") != "NicConfigurationTemplate":
                continue
            sx = spectrum_x(doc) or {}
            have = (str(sx.get("multiplaneMode", "none"))[:40], _int(sx.get("numberOfPlanes", 1)))
            if have != want:
                meta = doc.get("metadata")
                name = str(meta.get("name"))[:80] if isinstance(meta, dict) else None
                found.append(Finding("CPLANE-03", "error", FOLDER, f"NicConfigurationTemplate/{name} sets the NICs to "
                                     f"{_say(have)}; the inventory's compute planes are {_say(want)}", path))
    return found


def _host_planes(cluster: ClusterModel, files: FileSet, server: str) -> tuple[int, str | None]:
    """How many planes' netplan files address every port of `server` on that plane (and the first file that does
    not), read back from the rendered files."""
    count, missing = 0, None
    for plane, fab in enumerate(cluster.compute_fabrics(), start=1):
        path = HostFiles(None if plane == 1 else network_name(plane)).netplan
        srv = next((s for s in fab.servers if s.name == server), None)
        try:
            plan = parse_netplan(files.get(server, path) or "network: {}")
        except (NetplanError, yaml.YAMLError, ValueError, TypeError):
            plan = None  # the netplan validators name it
        links = {link.name: link for link in (plan.ethernets.values() if plan else [])}
        if srv is not None and all(r.nic in links and links[r.nic].addresses for r in srv.rails):
            count += 1
        elif missing is None:
            missing = path
    return count, missing


def _nccl_planes(cluster: ClusterModel, files: FileSet, server: str) -> int:
    text = files.get(server, NCCL)
    hca = parse_nccl(text).get("NCCL_IB_HCA", "") if text else ""
    listed = {item.split(":")[0] for item in hca.lstrip("=^").split(",") if item}
    count = 0
    for fab in cluster.compute_fabrics():
        srv = next((s for s in fab.servers if s.name == server), None)
        if srv is not None and srv.rails and all(r.rdma_device in listed for r in srv.rails):
            count += 1
    return count


def check_plane_mode(cluster: ClusterModel, files: FileSet) -> list[Finding]:
    """CPLANE-03: the NIC template, every server's netplan files and its NCCL_IB_HCA show the inventory's mode."""
    want: Mode = (cluster.plane_balancing, len(cluster.compute_fabrics()))
    found = _templates(files, want)
    for srv in cluster.compute.servers:
        hosts, missing = _host_planes(cluster, files, srv.name)
        if _shown(hosts) != want:
            found.append(Finding("CPLANE-03", "error", srv.name, f"the netplan files address the ports of {hosts} "
                                 f"plane(s) ({missing} does not): {_say(_shown(hosts))}, the inventory's compute "
                                 f"planes are {_say(want)}", missing))
        if files.get(srv.name, NCCL) is not None and _shown(_nccl_planes(cluster, files, srv.name)) != want:
            shown = _shown(_nccl_planes(cluster, files, srv.name))
            found.append(Finding("CPLANE-03", "error", srv.name, f"NCCL_IB_HCA lists the ports of "
                                 f"{_nccl_planes(cluster, files, srv.name)} plane(s): {_say(shown)}, the inventory's "
                                 f"compute planes are {_say(want)}", NCCL))
    return found
