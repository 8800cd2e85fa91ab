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
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from netauto.inventory.loader import load_inventory
from netauto.model import resolve
from netauto.model.types import FabricModel
from netauto.render.engine import render_fabric
from netauto.validate.files import FileSet, fabric_dir

INTERFACES_SENTINEL = "# This file describes the network interfaces"
PORTS_SENTINEL = "# ports.conf --"
FRR_VERSION = "frr version 8.4.3"  # the FRR generation Cumulus Linux 5.x ships; marks where frr.conf starts


def cumulus_concatenated(hostname: str, interfaces: str, ports: str | None, frr: str) -> str:
    body = [hostname, INTERFACES_SENTINEL, interfaces.rstrip("\n"), "", PORTS_SENTINEL]
    if ports:
        body.append(ports.rstrip("\n"))
    body.append("")
    frr_lines = frr.splitlines()
    if not any(ln.startswith("frr version") for ln in frr_lines):
        frr_lines.insert(0, FRR_VERSION)
    body += frr_lines
    return "\n".join(body) + "\n"


def layer1_topology(model: FabricModel) -> dict[str, list[dict[str, dict[str, str]]]]:
    edges = []
    for link in model.links:
        if link.kind == "server-leaf" or not link.enabled:
            continue
        a = {"hostname": link.a_device, "interfaceName": link.a_port}
        b = {"hostname": link.b_device, "interfaceName": link.b_port}
        edges += [{"node1": a, "node2": b}, {"node1": b, "node2": a}]
    return {"edges": edges}


def write_snapshot(inventory: Path, out: Path, configs: Path | None = None) -> dict[str, object]:
    model = resolve(load_inventory(inventory))
    files = FileSet.from_dir(fabric_dir(configs, model.name)) if configs else FileSet.from_artifacts(render_fabric(model))
    if out.exists():
        shutil.rmtree(out)
    (out / "configs").mkdir(parents=True)
    (out / "batfish").mkdir()
    stats: dict[str, object] = {"fabric": model.name, "cumulus": 0, "sonic": 0}
    for sw in model.switches:
        if files.get(sw.name, "etc/sonic/config_db.json") is not None:
            d = out / "sonic_configs" / sw.name
            d.mkdir(parents=True)
            (d / "config_db.json").write_text(files.get(sw.name, "etc/sonic/config_db.json") or "")
            (d / "frr.conf").write_text(files.get(sw.name, "etc/sonic/frr/frr.conf") or "")
            stats["sonic"] = int(stats["sonic"]) + 1
        elif files.get(sw.name, "etc/frr/frr.conf") is not None:
            text = cumulus_concatenated(sw.name, files.get(sw.name, "etc/network/interfaces") or "",
                                        files.get(sw.name, "etc/cumulus/ports.conf"), files.get(sw.name, "etc/frr/frr.conf") or "")
            (out / "configs" / f"{sw.name}.cfg").write_text(text)
            stats["cumulus"] = int(stats["cumulus"]) + 1
    topo = layer1_topology(model)
    (out / "batfish" / "layer1_topology.json").write_text(json.dumps(topo, indent=1) + "\n")
    stats["edges"] = len(topo["edges"])
    return stats
