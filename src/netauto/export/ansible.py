"""The fabric as an Ansible inventory, in the YAML inventory format (`ansible-inventory -i hosts.yml`).

One function, used by `netauto export ansible` and by the `netauto` inventory plugin in ansible_compat/, so
the static file and the dynamic inventory are the same data. Groups:

* `switches` (children `leaf`, `spine`, `super_spine`) and `gpu_servers`: what the playbooks target;
* `nos_<nos>` per network OS (`nos_cumulus`, ...), `su<N>` (the leaves and servers of a scalable unit),
  `pod<N>` (spines, leaves and servers of a pod), `rail<N>` (the leaves of a rail),
  `super_spine_group<N>` (the super-spines that spine N of every pod connects to).
* a cluster with storage/frontend networks: their switches join `switches` (leaf/spine) and `nos_<nos>`;
  `network_<name>` (network_compute, network_storage, ...) holds a network's switches and the servers attached
  to it, so `--limit 'network_frontend:&switches'` is the frontend's switches; servers only a network has (storage
  nodes) are `group_servers`. A server's network files (`etc/netplan/61-<network>.yaml`, ...) are in its
  `netauto_network_files` (and `netauto_files`); playbooks/networks.yml installs them.

Host variables: `ansible_host`/`ansible_user` (management address and SSH user; no secrets), the addressing
(`netauto_loopback`, `netauto_asn`, `netauto_mgmt_address`, per-rail `netauto_rails` on servers, ...) and the
rendered files (`netauto_render_dir` and `netauto_files`: src/dest/mode of every artifact of that device).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from netauto.model.cluster import Bmc, ClusterModel, OobSwitch
from netauto.model.types import FabricModel, Server, Switch
from netauto.render.device import Network, OobNetwork, compute_network, device_specs, networks
from netauto.render.file_tables import ArtifactSpec
from netauto.netutil.ip import ip_of

ROLE_GROUPS = ("leaf", "spine", "super_spine")


def _files(device: Switch | Server | OobSwitch | Bmc, specs: tuple[ArtifactSpec, ...],
           render_dir: Path) -> list[dict[str, str]]:
    """`specs`: the device's files as render.device.device_specs chooses them."""
    paths = [(spec, spec.path_for(device) if isinstance(device, Switch) else spec.path) for spec in specs]
    return [{"path": path, "src": str(render_dir / path), "dest": "/" + path, "mode": f"{spec.mode:04o}"}
            for spec, path in paths]


def switch_vars(sw: Switch, render_root: Path, specs: tuple[ArtifactSpec, ...]) -> dict[str, Any]:
    render_dir = render_root / sw.name
    return {
        "ansible_host": ip_of(sw.mgmt_address),
        "ansible_user": sw.ssh_user,
        "netauto_kind": "switch",
        "netauto_role": sw.role,
        "netauto_nos": sw.nos,
        "netauto_pod": sw.pod,
        "netauto_su": sw.su,
        "netauto_rail": sw.rail,
        "netauto_group": sw.group,
        "netauto_asn": sw.bgp.asn,
        "netauto_router_id": sw.bgp.router_id,
        "netauto_loopback": sw.loopback,
        "netauto_mgmt_address": sw.mgmt_address,
        "netauto_mgmt_gateway": sw.mgmt_gateway,
        "netauto_mgmt_vrf": sw.mgmt_vrf,
        "netauto_cumulus_release": sw.cumulus_release,
        "netauto_drained": sw.bgp.graceful_shutdown,
        "netauto_bgp_peers": [nb.interface for nb in sw.bgp.neighbors],
        "netauto_render_dir": str(render_dir),
        "netauto_files": _files(sw, specs, render_dir),
    }


def server_vars(server: Server, pod: int | None, render_root: Path,
                specs: tuple[ArtifactSpec, ...]) -> dict[str, Any]:
    render_dir = render_root / server.name
    return {
        "ansible_host": ip_of(server.mgmt_address),
        "ansible_user": server.ssh_user,
        "netauto_kind": "server",
        "netauto_role": "gpu_server",
        "netauto_pod": pod,
        "netauto_su": server.su,
        "netauto_index": server.index,
        "netauto_mgmt_address": server.mgmt_address,
        "netauto_mgmt_gateway": server.mgmt_gateway,
        "netauto_rails": [
            {"index": r.index, "nic": r.nic, "rdma_device": r.rdma_device, "address": r.address,
             "gateway": r.gateway, "leaf": r.leaf, "leaf_port": r.leaf_port, "table": r.table}
            for r in server.rails
        ],
        "netauto_render_dir": str(render_dir),
        "netauto_files": _files(server, specs, render_dir),
    }


def ansible_inventory(
    model: FabricModel | ClusterModel,
    *,
    source: Path,
    render_out: Path,
    templates: Path | None = None,
    netauto_command: str = "netauto",
) -> dict[str, Any]:
    """The YAML-inventory dict. `render_out` is what `netauto render -o` gets; files live in render_out/<fabric>/.
    A ClusterModel adds every network's switches and servers (groups network_<name>, group_servers)."""
    cluster = model if isinstance(model, ClusterModel) else None
    model = model.compute if isinstance(model, ClusterModel) else model
    render_root = render_out / model.name
    groups: dict[str, dict[str, None]] = {}

    def member(group: str, host: str) -> None:
        groups.setdefault(group, {})[host] = None

    hostvars: dict[str, dict[str, Any]] = {}
    compute = compute_network(model)  # which files each device gets in each network: render.device
    for sw in model.switches:
        hostvars[sw.name] = switch_vars(sw, render_root, device_specs(compute, sw))
        member(sw.role, sw.name)
        member(f"nos_{sw.nos}", sw.name)
        if sw.role != "super_spine":
            member(f"pod{sw.pod}", sw.name)
        if sw.su is not None:
            member(f"su{sw.su}", sw.name)
        if sw.rail is not None:
            member(f"rail{sw.rail}", sw.name)
        if sw.role == "super_spine" and sw.group is not None:
            member(f"super_spine_group{sw.group}", sw.name)
    for server in model.servers:
        pod = model.switch(server.rails[0].leaf).pod if server.rails else None
        hostvars[server.name] = server_vars(server, pod, render_root, device_specs(compute, server))
        member("gpu_servers", server.name)
        member(f"su{server.su}", server.name)
        if pod is not None:
            member(f"pod{pod}", server.name)
    if cluster is not None and cluster.compute_planes:
        _compute_planes(cluster, render_root, hostvars, member)
    if cluster is not None and cluster.networks:
        _networks(cluster, render_root, hostvars, member)
    if cluster is not None and cluster.oob:
        _oob(cluster, render_root, hostvars, member)

    def by_number(prefix: str) -> list[str]:
        return sorted((g for g in groups if g.startswith(prefix) and g[len(prefix):].isdigit()),
                      key=lambda g: int(g[len(prefix):]))

    children: dict[str, Any] = {
        "switches": {"children": {role: {"hosts": {h: hostvars[h] for h in groups[role]}}
                                  for role in ROLE_GROUPS if role in groups}},
        "gpu_servers": {"hosts": {h: hostvars[h] for h in groups.get("gpu_servers", {})}},
    }
    if "group_servers" in groups:
        children["group_servers"] = {"hosts": {h: hostvars[h] for h in groups["group_servers"]}}
    if "oob_switches" in groups:  # beside `switches`: no BGP, no fabric checks; NVUE startup.yaml only
        children["oob_switches"] = {"hosts": {h: hostvars[h] for h in groups["oob_switches"]}}
    for group in sorted(g for g in groups if g.startswith("nos_")):
        children[group] = {"hosts": dict(groups[group])}
    for group in (g for g in groups if g.startswith("network_")):  # compute first, then the networks in order
        children[group] = {"hosts": dict(groups[group])}
    for prefix in ("pod", "su", "rail", "super_spine_group", "compute_plane"):
        for group in by_number(prefix):
            children[group] = {"hosts": dict(groups[group])}
    return {
        "all": {
            "vars": {
                "netauto_fabric": model.name,
                "netauto_source": str(source),
                "netauto_templates": str(templates) if templates else "",
                "netauto_render_out": str(render_out),
                "netauto_render_root": str(render_root),
                "netauto_command": netauto_command,
                "netauto_host_link_mode": model.host_link_mode,
                "netauto_rail_supernets": list(model.rail_supernets),
            },
            "children": children,
        }
    }


def _oob(cluster: ClusterModel, render_root: Path, hostvars: dict[str, dict[str, Any]], member: Any) -> None:
    """The OOB switches: group oob_switches (not under `switches`: no BGP, nothing of the fabric playbooks
    applies) and network_oob; their files as every Cumulus switch's (startup.yaml and the Linux files). Each BMC's
    address script is in its server's files."""
    assert cluster.oob is not None
    oob = OobNetwork(cluster)
    for sw in cluster.oob.switches:
        render_dir = render_root / sw.name
        hostvars[sw.name] = {
            "ansible_host": ip_of(sw.mgmt_address), "ansible_user": sw.ssh_user, "netauto_kind": "switch",
            "netauto_role": sw.group_role, "netauto_nos": sw.nos, "netauto_network": "oob",
            "netauto_mgmt_address": sw.mgmt_address, "netauto_render_dir": str(render_dir),
            "netauto_files": _files(sw, device_specs(oob, sw), render_dir),
        }
        member("oob_switches", sw.name)
        member(f"nos_{sw.nos}", sw.name)
        member("network_oob", sw.name)
    for bmc in cluster.oob.bmcs:
        if bmc.device in hostvars:  # every BMC is a server's or a group server's (model.oob)
            host = hostvars[bmc.device]
            host["netauto_files"] = host["netauto_files"] + _files(bmc, device_specs(oob, bmc),
                                                                   render_root / bmc.device)


def _rows(cluster: ClusterModel) -> dict[str, Network]:
    """network label (render.device: compute, compute-p<p>, network:<name>) -> its row of render.device.networks."""
    return {n.label: n for n in networks(cluster) if isinstance(n, Network)}


def _compute_planes(cluster: ClusterModel, render_root: Path, hostvars: dict[str, dict[str, Any]], member: Any) -> None:
    """Compute planes 2.. (docs/compute-planes.md): their switches in the compute fabric's groups (role, NOS, pod,
    SU, rail, super-spine group) and compute_plane<p>; each server's plane-p files added to its files."""
    for sw in cluster.compute.switches:
        member("compute_plane1", sw.name)
    rows = _rows(cluster)
    for p, (net, fab) in enumerate(cluster.fabrics()[1:1 + len(cluster.compute_planes)], start=2):
        row = rows[net]
        for sw in fab.switches:
            hostvars[sw.name] = switch_vars(sw, render_root, device_specs(row, sw))
            for group in (sw.role, f"nos_{sw.nos}", f"compute_plane{p}",
                          *([f"pod{sw.pod}"] if sw.role != "super_spine" else []),
                          *([f"super_spine_group{sw.group}"] if sw.role == "super_spine" and sw.group else []),
                          *([f"su{sw.su}"] if sw.su is not None else []),
                          *([f"rail{sw.rail}"] if sw.rail is not None else [])):
                member(group, sw.name)
        for server in fab.servers:
            hostvars[server.name]["netauto_files"] = hostvars[server.name]["netauto_files"] + _files(
                server, device_specs(row, server), render_root / server.name)


def _networks(cluster: ClusterModel, render_root: Path, hostvars: dict[str, dict[str, Any]], member: Any) -> None:
    """Every network's switches (role and NOS groups as the compute fabric's; no su/pod/rail: those are the compute
    fabric's), its servers' network files, and network_<name> groups."""
    for sw in cluster.compute.switches:
        member("network_compute", sw.name)
    for server in cluster.compute.servers:
        member("network_compute", server.name)
        hostvars[server.name]["netauto_networks"] = ["compute"]
    group_servers = {g.name: g for g in cluster.groups}
    rows = _rows(cluster)
    for network in cluster.networks:
        row = rows[f"network:{network.name}"]
        for sw in network.fabric.switches:
            v = switch_vars(sw, render_root, device_specs(row, sw))
            v.update(netauto_pod=None, netauto_su=None, netauto_rail=None, netauto_network=network.name)
            hostvars[sw.name] = v
            member(sw.role, sw.name)
            member(f"nos_{sw.nos}", sw.name)
            member(f"network_{network.name}", sw.name)
        for server in network.fabric.servers:
            files = _files(server, device_specs(row, server), render_root / server.name)
            if server.name not in hostvars:  # a server only the networks have (a storage node)
                # its management address is its group's (the network-side record carries a placeholder)
                own = group_servers[server.name]
                hostvars[server.name] = {
                    "ansible_host": ip_of(own.mgmt_address), "ansible_user": server.ssh_user,
                    "netauto_kind": "server", "netauto_role": "group_server", "netauto_mgmt_address": own.mgmt_address,
                    "netauto_mgmt_gateway": own.mgmt_gateway, "netauto_render_dir": str(render_root / server.name),
                    "netauto_files": [], "netauto_networks": [],
                }
                member("group_servers", server.name)
            v = hostvars[server.name]
            v["netauto_files"] = v["netauto_files"] + files
            v["netauto_network_files"] = v.get("netauto_network_files", []) + files
            v["netauto_networks"] = v.get("netauto_networks", []) + [network.name]
            member(f"network_{network.name}", server.name)
