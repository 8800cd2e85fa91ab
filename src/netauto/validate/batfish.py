"""A Batfish snapshot of the fabric, written offline (nothing here connects to a Batfish service).

Layout::

    DIR/configs/<switch>.cfg                Cumulus concatenated format: hostname line, then
                                            /etc/network/interfaces (starts with the sentinel
                                            "# This file describes the network interfaces"),
                                            "# ports.conf --" + ports.conf, then frr.conf from
                                            its "frr version" line
    DIR/sonic_configs/<switch>/config_db.json + frr.conf   SONiC switches
    DIR/batfish/layer1_topology.json        every cabled, enabled fabric link (both directions),
                                            so Batfish pairs the unnumbered BGP sessions

`Snapshot.locate` maps Batfish's (file, line) back to the on-device file and line for findings. Asking a
Batfish service is `netauto.validate.batfish_client`; mapping its answers is `netauto.validate.batfish_answers`.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from netauto.model.types import FabricModel
from netauto.validate.files import FileSet
from netauto.platforms.nos import cumulus_path, sonic_path

CL_FRR, CL_IFACES, CL_PORTS = cumulus_path("frr"), cumulus_path("interfaces"), cumulus_path("ports")
SONIC_DB, SONIC_FRR = sonic_path("config_db"), sonic_path("frr")

INTERFACES_SENTINEL = "# This file describes the network interfaces"
PORTS_SENTINEL = "# ports.conf --"
FRR_VERSION = "frr version 8.4.3"  # the FRR generation Cumulus Linux 5.x ships; marks where frr.conf starts


Origin = tuple[str, int] | None  # (on-device path, 1-based line) of one snapshot line; None for added lines


def concatenated_with_origins(hostname: str, interfaces: str, ports: str | None,
                              frr: str) -> tuple[str, list[Origin]]:
    """The Cumulus concatenated file and, per line, where it comes from on the switch (for findings)."""
    lines: list[str] = []
    origins: list[Origin] = []

    def add(text: str, origin: Origin = None) -> None:
        lines.append(text)
        origins.append(origin)

    def add_file(lines_of_file: list[str], path: str) -> None:
        for n, ln in enumerate(lines_of_file, 1):
            add(ln, (path, n))

    add(hostname)
    add(INTERFACES_SENTINEL)
    add_file(interfaces.rstrip("\n").split("\n"), CL_IFACES)
    add("")
    add(PORTS_SENTINEL)
    if ports:
        add_file(ports.rstrip("\n").split("\n"), CL_PORTS)
    add("")
    frr_lines = frr.splitlines()
    if not any(ln.startswith("frr version") for ln in frr_lines):
        add(FRR_VERSION)
    add_file(frr_lines, CL_FRR)
    return "\n".join(lines) + "\n", origins


def layer1_topology(model: FabricModel) -> dict[str, list[dict[str, dict[str, str]]]]:
    edges = []
    for link in model.links:
        if link.kind == "server-leaf" or not link.enabled:
            continue
        a = {"hostname": link.a_device, "interfaceName": link.a_port}
        b = {"hostname": link.b_device, "interfaceName": link.b_port}
        edges += [{"node1": a, "node2": b}, {"node1": b, "node2": a}]
    return {"edges": edges}


@dataclass
class Snapshot:
    """What was written, and how to map Batfish's file/line answers back to on-device files."""

    root: Path
    fabric: str
    cumulus: int = 0
    sonic: int = 0
    edges: int = 0
    # snapshot-relative file ("configs/leaf1.cfg") -> (device, per-line origins or None when 1:1 with `path`)
    files: dict[str, tuple[str, str | None, list[Origin] | None]] = field(default_factory=dict)
    frr_path: dict[str, str] = field(default_factory=dict)  # device -> on-device frr.conf path

    def stats(self) -> dict[str, object]:
        return {"fabric": self.fabric, "cumulus": self.cumulus, "sonic": self.sonic, "edges": self.edges}

    def locate(self, filename: str, line: int | None = None) -> tuple[str, str | None, int | None]:
        """(device, on-device path, line) of a snapshot file and line as Batfish names them."""
        name = filename.replace("\\", "/")
        entry = self.files.get(name)
        if entry is None:  # Batfish may prefix the snapshot folder name
            entry = next((v for k, v in self.files.items() if name.endswith("/" + k)), None)
        if entry is None:
            return Path(name).stem, None, None
        device, path, origins = entry
        if origins is None:
            return device, path, line
        if line is not None and 1 <= line <= len(origins) and origins[line - 1] is not None:
            opath, oline = origins[line - 1]  # type: ignore[misc]
            return device, opath, oline
        return device, None, None


def build_snapshot(model: FabricModel, files: FileSet, out: Path) -> Snapshot:
    """Write the snapshot folder for `model` (the compute fabric) from `files` (rendered, or a --configs tree
    read back; files of devices outside `model` are ignored)."""
    if out.exists():
        shutil.rmtree(out)
    (out / "configs").mkdir(parents=True)
    (out / "batfish").mkdir()
    snap = Snapshot(out, model.name)
    for sw in model.switches:
        if files.get(sw.name, SONIC_DB) is not None:
            d = out / "sonic_configs" / sw.name
            d.mkdir(parents=True)
            (d / "config_db.json").write_text(files.get(sw.name, SONIC_DB) or "")
            (d / "frr.conf").write_text(files.get(sw.name, SONIC_FRR) or "")
            snap.files[f"sonic_configs/{sw.name}/config_db.json"] = (sw.name, SONIC_DB, None)
            snap.files[f"sonic_configs/{sw.name}/frr.conf"] = (sw.name, SONIC_FRR, None)
            snap.frr_path[sw.name] = SONIC_FRR
            snap.sonic += 1
        elif files.get(sw.name, CL_FRR) is not None:
            text, origins = concatenated_with_origins(
                sw.name, files.get(sw.name, CL_IFACES) or "",
                files.get(sw.name, CL_PORTS), files.get(sw.name, CL_FRR) or "")
            (out / "configs" / f"{sw.name}.cfg").write_text(text)
            snap.files[f"configs/{sw.name}.cfg"] = (sw.name, None, origins)
            snap.frr_path[sw.name] = CL_FRR
            snap.cumulus += 1
    topo = layer1_topology(model)
    (out / "batfish" / "layer1_topology.json").write_text(json.dumps(topo, indent=1) + "\n")
    snap.edges = len(topo["edges"])
    return snap

