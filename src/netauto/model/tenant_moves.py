"""A server moved between tenants (docs/tenants.md, "Moving a server between tenants"): what changes, for `netauto
plan --from OLD --to NEW`.

A move changes the VRF of the server's own leaf ports and nothing else on a switch: the tenants' VRFs, VNIs and
route targets stay (a tenant's VNI is a function of its name), the other servers' ports stay. The server itself
has no other path than these ports (one leaf per rail): the leaf's BGP drain moves nothing away from them, so the
server is drained where its work runs (the scheduler) before the deploy, and the plan says so per move.
"""

from __future__ import annotations

from dataclasses import dataclass

from netauto.model.types import FabricModel


@dataclass(frozen=True, slots=True)
class TenantMove:
    server: str
    old: str
    new: str
    ports: tuple[tuple[str, str], ...]  # (leaf, port) whose VRF changes

    def text(self) -> str:
        where = ", ".join(f"{leaf} {port}" for leaf, port in self.ports)
        return (f"{self.server}: tenant {self.old} -> {self.new} (VRF of {where}); drain its jobs first: "
                f"scontrol update nodename={self.server} state=drain reason=tenant-move / kubectl drain {self.server}")


def owners(fabric: FabricModel) -> dict[str, str]:
    """server -> tenant of a resolved fabric (empty without tenants)."""
    return {srv: t.name for t in fabric.tenants for srv in t.servers}


def tenant_moves(old: FabricModel, new: FabricModel) -> list[TenantMove]:
    """Every server in a tenant of both fabrics whose tenant changed, with its leaf ports in NEW."""
    was, now = owners(old), owners(new)
    out = []
    for server, tenant in now.items():
        if server not in was or was[server] == tenant:
            continue
        ports = tuple((sw.name, i.name) for sw in new.switches if sw.role == "leaf"
                      for i in sw.host_ports if i.peer_device == server)
        out.append(TenantMove(server, was[server], tenant, ports))
    return out


def renumbered(old: FabricModel, new: FabricModel) -> list[str]:
    """Every tenant of both fabrics whose L3VNI or route target changed (a new vni_pool or route_target_asn, or a
    pin): its VRF changes on every leaf, and until the last of them is deployed its leaves disagree on it, so the
    tenant's traffic between leaves stops for the rollout."""
    was = {t.name: t for t in old.tenants}
    return [f"{t.name}: L3VNI {was[t.name].vni} -> {t.vni}, route target {was[t.name].route_target} -> "
            f"{t.route_target}; its leaves disagree until all are deployed: schedule it as a tenant outage"
            for t in new.tenants if t.name in was and (was[t.name].vni, was[t.name].route_target) != (t.vni, t.route_target)]
