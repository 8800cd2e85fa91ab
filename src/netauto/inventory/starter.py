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
from netauto.errors import UsageError

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
    sus: int = 1
    storage: int = 0  # storage nodes on a storage network (0: no network)
    oob: bool = False  # the out-of-band network (BMCs, switch management ports)
    kubernetes: str | None = None  # None, "pf" (the rail NICs into one pod per node) or "vf" (SR-IOV VFs)


def _modeline() -> str:
    return f"# yaml-language-server: $schema={SCHEMA_FILE}\n"


def starter_files(opt: StarterOptions) -> dict[str, str]:
    """file name -> YAML text: a one-SU, two-tier fabric, non-blocking (uplinks sized to the servers)."""
    links = max(1, math.ceil(opt.servers / opt.spines))  # leaf uplinks >= downlinks: 1:1 (TOPO-02)
    # VFs need an address on the rail's leaf subnet (docs/kubernetes.md): leaf-subnet host links, not /31s
    mode = "leaf-subnet" if opt.kubernetes == "vf" else "p2p"
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
    topology = f"""{_modeline()}# Scalable units (SU): NIC k of every server of an SU goes to its rail-k leaf; every leaf to every spine.
# Grow by raising sus_per_pod: names carry the SU, so no existing device is renamed (`netauto plan` shows it).
topology:
  rails: {opt.rails}
  servers_per_su: {opt.servers}
  sus_per_pod: {opt.sus}
  pods: 1
  spines_per_pod: {opt.spines}
  leaf_spine_links: {links}         # {opt.servers} x 400G down, {opt.spines} x {links} x 400G up per leaf

naming:
  leaf: "su{{su}}-r{{rail}}-leaf"
  spine: "spine{{index}}"
  server: "su{{su}}-gpu{{index:02d}}"   # index counts within the SU: the SU keeps names unique as you grow

servers:
  nics: [{", ".join(f"rail{r}" for r in range(opt.rails))}]
  rdma_devices: [{", ".join(f"mlx5_{r}" for r in range(opt.rails))}]
  # PLACEHOLDERS: the rail NICs are named by PCI path (docs/gpu-servers.md). Put your servers' addresses here
  # (`lspci -D -d 15b3:`, `rdma link`), or describe each server model under servers.profiles.
  pci: [{", ".join(f'"0000:{r + 1:02x}:00.0"' for r in range(opt.rails))}]
"""
    addressing = f"""{_modeline()}# IPAM and ASN plan. No secrets here: SSH keys and passwords come from the environment.
addressing:
  host_links:
    mode: {mode}{" " * (19 - len(mode))}# p2p: a /31 per NIC-leaf link; leaf-subnet: one subnet per leaf (SR-IOV VFs)
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
    files = {"fabric.yaml": fabric, "topology.yaml": topology, "addressing.yaml": addressing}
    networks = _networks(opt)
    if networks:
        files["networks.yaml"] = networks
    if opt.kubernetes:
        files["kubernetes.yaml"] = _kubernetes(opt)
    return files


def _networks(opt: StarterOptions) -> str:
    """A storage network (its nodes and a storage NIC pair per GPU server) and the OOB network, when chosen."""
    text = ""
    if opt.storage:
        text += f"""# Storage: {opt.storage} storage node(s) and two storage NICs per GPU server on a lossless network of its own
# (docs/networks.md). PLACEHOLDERS: the NIC and RDMA device names of your servers.
server_groups:
  storage: {{count: {opt.storage}, naming: "stor{{index:02d}}"}}

networks:
  storage:
    role: storage
    qos: lossless
    host_link_speed: 200G
    fabric_link_speed: 400G
    servers_per_leaf: 4         # 4 x 200G down, 2 spines x 400G up: 1:1
    spines: 2
    table_base: 110
    rule_priority_base: 1010
    ports:
      leaf: {{cages: 64, downlinks_first: 1, downlinks_breakout: 4, uplinks_first: 33, uplinks_breakout: 2}}
      spine: {{cages: 64, downlinks_first: 1, downlinks_breakout: 2, uplinks_first: 33}}
    naming: {{leaf: "st{{group}}-leaf{{rail}}", spine: "st-spine{{index}}"}}
    addressing: {{leaf_loopbacks: 10.250.0.0/24, spine_loopbacks: 10.250.1.0/24, host_pool: 10.16.0.0/15,
                 nic_prefix_len: 16, leaf_prefix_len: 24, switch_mgmt_pool: 192.168.202.0/24}}
    asns: {{leaf_base: 65201, spine: 65200}}
    # The storage nodes' NICs keep the kernel's names (nic_names: kernel); the GPU servers' storage NICs are
    # renamed stor0/stor1 by PCI path: PLACEHOLDERS, put your servers' addresses here (`lspci -D -d 15b3:`).
    # A NIC the host cannot find is a validate error (PLANE-07).
    attach:
      - {{servers: storage, nics: [ens1f0np0, ens1f1np1], rdma_devices: [mlx5_0, mlx5_1], nic_names: kernel}}
      - {{servers: compute, nics: [stor0, stor1], rdma_devices: [mlx5_{opt.rails}, mlx5_{opt.rails + 1}],
         pci: ["0000:{opt.rails + 1:02x}:00.0", "0000:{opt.rails + 2:02x}:00.0"]}}
"""
    if opt.oob:
        text += """
# Out-of-band: the BMCs and the switches' management ports on access switches with an aggregation pair
# (docs/networks.md); every key: `netauto schema`.
oob:
  bmc_pool: 192.168.210.0/24
  switch_pool: 192.168.211.0/24
"""
    return f"{_modeline()}{text}" if text else ""


def _kubernetes(opt: StarterOptions) -> str:
    """The pods' RDMA networks (docs/kubernetes.md): SR-IOV VFs on the leaf subnets, or the rail NICs themselves."""
    if opt.kubernetes == "vf":
        return f"""{_modeline()}# The pods' side of the RoCE chain (docs/kubernetes.md): one SR-IOV VF per rail NIC per pod, addressed on
# the rails' leaf subnets (so addressing.host_links.mode is leaf-subnet).
kubernetes:
  stack: sriov-network-operator
  nic_config: nic-configuration-operator
  ipam: spiderpool
  vfs_per_nic: 8
  pool_size: 64
  namespace: training
"""
    return f"""{_modeline()}# The pods' side of the RoCE chain (docs/kubernetes.md): the rail NICs themselves (host-device, one pod per
# node) with the host's own /31 address.
kubernetes:
  stack: nvidia-network-operator
  attach: pf
  ipam: spiderpool
  nic_config: nic-configuration-operator
  namespace: training
"""


def write_starter(directory: Path, opt: StarterOptions, force: bool = False) -> list[Path]:
    """Write the starter files and the schema; refuses to overwrite unless `force`."""
    files = starter_files(opt)
    files[SCHEMA_FILE] = json.dumps(inventory_schema(), indent=2) + "\n"
    existing = [directory / n for n in files if (directory / n).exists()]
    if existing and not force:
        raise UsageError(f"{existing[0]} exists; netauto init does not overwrite (fix: another folder, e.g. "
                         "`netauto init myfabric/inventory`, or --force to overwrite it)")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        (directory / name).write_text(text)
        written.append(directory / name)
    return written
