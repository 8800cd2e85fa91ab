"""The resolved cluster: the compute fabric plus every network beside it (storage, frontend) and the
out-of-band network. Each network is a `FabricModel` of its own, so the switch renderers, the rules and the
route simulation run on it unchanged; `ClusterModel` adds what spans the networks (who attaches where,
BMC addresses, OOB cabling).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from netauto.model.kubernetes import KubernetesModel
from netauto.model.types import BondPort, FabricModel, Interface, Link, Mlag, Route, Server, Svi, Switch


@dataclass(slots=True)
class NetworkModel:
    name: str
    role: str  # "storage" | "frontend"
    qos: str  # "lossless" | "lossy"
    default_route: bool
    pools: dict[str, str]  # key under networks.<name>.addressing -> prefix
    fabric: FabricModel  # switches, the network's view of each attached server (rails = network NICs), links
    oversubscription: float = 1.0
    bond: bool = False  # host_routing: bond (LACP to an MLAG pair)


@dataclass(slots=True)
class GroupServer:
    """A non-GPU server (storage node, CPU server) from `server_groups`."""

    name: str
    group: str
    index: int
    mgmt_address: str
    mgmt_gateway: str


@dataclass(slots=True)
class OobVlan:
    """One management pool on the OOB network: its VLAN and the gateway its devices already point to."""

    vlan: int
    network: str  # "bmc", "oob" (the OOB switches' own pool) or the network whose switch ports it carries
    pool: str
    gateway: str  # without prefix length, from the model (Bmc.gateway, Switch.mgmt_gateway, OobModel.switch_gateway)


@dataclass(slots=True)
class OobSwitch:
    name: str
    role: str  # "oob-access" | "oob-aggregation"
    index: int
    mgmt_address: str  # access: its SVI in the OOB switches' VLAN; aggregation: its .2/.3 SVI address there
    ports: int
    hardware: str  # switch model (oob.hardware): what `netauto bom` counts and whose cages it fills
    # what its startup.yaml and Linux files hold (netauto.model.oob; render.nvue.oob_startup_yaml, render.device)
    interfaces: list[Interface] = field(default_factory=list)
    bonds: list[BondPort] = field(default_factory=list)
    svis: list[Svi] = field(default_factory=list)
    vlans: list[int] = field(default_factory=list)  # the bridge's VLANs
    mlag: Mlag | None = None
    routes: list[Route] = field(default_factory=list)  # static routes in the default VRF
    cumulus_release: str = ""
    cumulus_config_mode: str = "nvue"  # fabric.cumulus_config_mode: deploy pushes its files per platforms.nos
    nos: str = "cumulus"
    ssh_user: str = "cumulus"  # addressing.management.switch_user
    stp_priority: int | None = None  # bridge STP priority (the aggregation: the root)
    backup_address: str | None = None  # aggregation pair: eth0 (mgmt VRF) on the MLAG backup cable, "a.b.c.d/30"

    @property
    def group_role(self) -> str:
        """Its role as an inventory group name (role_oob_access, role_oob_aggregation)."""
        return self.role.replace("-", "_")

    @property
    def bridge_ports(self) -> list[str]:
        """The VLAN-aware bridge's ports in the Linux files (`bridge-ports`): access ports, bonds and the MLAG
        peerlink; NVUE puts them in br_default by their `bridge domain` subtree (render.nvue.oob_document)."""
        members = {m for b in self.bonds for m in b.members}
        access = [i.name for i in self.interfaces if i.access_vlan and i.name not in members]
        return access + [b.name for b in self.bonds] + (["peerlink"] if self.mlag else [])


@dataclass(slots=True)
class Bmc:
    device: str
    address: str  # with prefix length
    ip: str
    netmask: str  # dotted, as `ipmitool lan set` takes it
    gateway: str


@dataclass(slots=True)
class OobModel:
    switches: list[OobSwitch]
    links: list[Link]
    bmcs: list[Bmc]
    bmc_pool: str
    switch_pool: str
    bmc_gateway: str = ""
    switch_gateway: str = ""  # the OOB switches' own gateway (the aggregation's VRR address in their VLAN)
    vlans: list[OobVlan] = field(default_factory=list)


@dataclass(slots=True)
class ClusterModel:
    compute: FabricModel  # compute plane 1 (the whole compute fabric when there is one plane)
    networks: list[NetworkModel] = field(default_factory=list)
    compute_planes: list[FabricModel] = field(default_factory=list)  # compute planes 2.. (model.compute_planes)
    plane_balancing: str = "none"  # topology.compute_planes.balancing: none, swplb (validate.plane_mode)
    groups: list[GroupServer] = field(default_factory=list)
    oob: OobModel | None = None
    compute_pools: dict[str, str] = field(default_factory=dict)  # key under addressing -> prefix
    kubernetes: KubernetesModel | None = None  # the pods' RDMA networks (inventory `kubernetes:`)
    # features.verify.thresholds: the most a counter may increase per window (verify) or per alert window
    # (the generated Prometheus rules, netauto.monitoring) before it is a finding / an alert
    thresholds: dict[str, int] = field(default_factory=dict)
    hall: Any = None  # netauto.model.hall.HallPlan: every device's rack (inventory `hall:`), None without one

    @property
    def name(self) -> str:
        return self.compute.name

    def fabrics(self) -> list[tuple[str, FabricModel]]:
        """(network name, fabric) of the compute fabric (every compute plane: compute, compute-p2, ...) and every
        network, in inventory order."""
        more = [(f"compute-p{i}", fab) for i, fab in enumerate(self.compute_planes, start=2)]
        return [("compute", self.compute), *more] + [(p.name, p.fabric) for p in self.networks]

    def compute_fabrics(self) -> list[FabricModel]:
        """Every compute plane's fabric, plane 1 first (one fabric when the cluster has one plane)."""
        return [self.compute, *self.compute_planes]

    def all_switches(self) -> list[Switch]:
        return [sw for _, fab in self.fabrics() for sw in fab.switches]

    def all_links(self) -> list[Link]:
        links = [link for _, fab in self.fabrics() for link in fab.cables()]
        return links + (self.oob.links if self.oob else [])

    def server_names(self) -> list[str]:
        return [s.name for s in self.compute.servers] + [g.name for g in self.groups]

    def network_servers(self, name: str) -> list[Server]:
        return [s for p in self.networks if p.name == name for s in p.fabric.servers]

    def to_dict(self) -> dict[str, Any]:
        return {
            "compute": self.compute.to_dict(),
            **({"compute_planes": [f.to_dict() for f in self.compute_planes]} if self.compute_planes else {}),
            "networks": [{"name": p.name, "role": p.role, "qos": p.qos, "default_route": p.default_route,
                        "pools": p.pools, "fabric": p.fabric.to_dict()} for p in self.networks],
            "groups": [asdict(g) for g in self.groups],
            "oob": asdict(self.oob) if self.oob else None,
        }
