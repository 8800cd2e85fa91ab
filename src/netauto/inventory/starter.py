"""`netauto init`: a starter source of truth that renders and validates, and the JSON schema editors use.

The schema comes from the pydantic models (netauto.inventory.schema.Inventory). The inventory is split over
several files, each holding some of the top-level sections, so the per-file schema requires no section;
`whole=True` gives the schema of the merged inventory (fabric and topology required).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netauto.inventory.schema import Inventory

SCHEMA_FILE = "netauto-inventory.schema.json"
SCHEMA_ID = "https://netauto.invalid/schema/inventory.json"  # a name, not a download location


def inventory_schema(whole: bool = False) -> dict[str, Any]:
    schema = Inventory.model_json_schema(mode="validation")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
    schema["title"] = "netauto inventory" + ("" if whole else " file (any of the top-level sections)")
    if not whole:
        schema.pop("required", None)
    return schema


@dataclass(frozen=True)
class StarterOptions:
    name: str
    nos: str = "cumulus"
    rails: int = 8
    servers: int = 4  # per SU
    spines: int = 2


def _modeline() -> str:
    return f"# yaml-language-server: $schema={SCHEMA_FILE}\n"


def starter_files(opt: StarterOptions) -> dict[str, str]:
    """file name -> YAML text: a one-SU, two-tier fabric, non-blocking (uplinks sized to the servers)."""
    links = max(1, math.ceil(opt.servers / opt.spines))  # leaf uplinks >= downlinks: 1:1 (TOPO-02)
    fabric = f"""{_modeline()}# Fabric-wide intent. Every key: `netauto schema` (editors complete it from {SCHEMA_FILE}).
fabric:
  name: {opt.name}
  nos:
    default: {opt.nos}          # per tier: leaf/spine/super_spine; per device: overrides.devices.<name>.nos
  cumulus_release: "5.14"      # NVUE spelling: "enable: on" up to 5.14, "state: enabled" from 5.15
  host_link_speed: 400G
  fabric_link_speed: 400G

features:
  adaptive_routing: {"true" if opt.nos == "cumulus" else "false       # netauto renders no adaptive routing on SONiC"}
  gshut:
    drain: []                  # switches to drain with BGP graceful shutdown
"""
    topology = f"""{_modeline()}# One scalable unit (SU): NIC k of every server goes to the rail-k leaf; every leaf to every spine.
topology:
  rails: {opt.rails}
  servers_per_su: {opt.servers}
  sus_per_pod: 1
  pods: 1
  spines_per_pod: {opt.spines}
  leaf_spine_links: {links}         # {opt.servers} x 400G down, {opt.spines} x {links} x 400G up per leaf

naming:
  leaf: "su{{su}}-r{{rail}}-leaf"
  spine: "spine{{index}}"
  server: "gpu{{index:02d}}"

servers:
  nics: [{", ".join(f"rail{r}" for r in range(opt.rails))}]
  rdma_devices: [{", ".join(f"mlx5_{r}" for r in range(opt.rails))}]
"""
    addressing = f"""{_modeline()}# IPAM and ASN plan. No secrets here: SSH keys and passwords come from the environment.
addressing:
  host_links:
    mode: p2p                  # a /31 per NIC-leaf link (leaf-subnet: one subnet per leaf)
    pool: 10.0.0.0/12
  management:
    switch_pool: 192.168.200.0/24
    server_pool: 192.168.201.0/24
    switch_user: {"admin" if opt.nos == "sonic" else "cumulus"}
    server_user: ubuntu

asns:                          # RFC 7938: every leaf unique, the spines of a pod share one
  leaf_base: 65101
  spine_base: 65100
"""
    return {"fabric.yaml": fabric, "topology.yaml": topology, "addressing.yaml": addressing}


def write_starter(directory: Path, opt: StarterOptions, force: bool = False) -> list[Path]:
    """Write the starter files and the schema; refuses to overwrite unless `force`."""
    files = starter_files(opt)
    files[SCHEMA_FILE] = json.dumps(inventory_schema(), indent=2) + "\n"
    existing = [directory / n for n in files if (directory / n).exists()]
    if existing and not force:
        from netauto.errors import UsageError

        raise UsageError(f"{existing[0]} exists; netauto init does not overwrite (use --force, or another folder)")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        (directory / name).write_text(text)
        written.append(directory / name)
    return written
