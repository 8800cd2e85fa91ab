"""Validation of the networks beside the compute fabric, and across all the networks of a cluster.

Per network: the network is a `FabricModel`, so the fabric rules and the route simulation run on it as on the
compute fabric. Its servers' files live at per-network paths (etc/netplan/61-<network>.yaml ...); the view of a
network reads them where the rules expect the compute files, and findings name the real path again.

Across networks (rules PLANE-xx, ids kept from before the rename, on every network's parsed view at once):
  PLANE-01 no address of one network inside another network's pools (names the device that owns it there)
  PLANE-02 no cable, BGP session or port pointing from one network to a device of another
  PLANE-03 every server of an attached group has the network's NICs, each NIC on a different switch
  PLANE-04 lossless only where the network says so (PFC / host RoCE QoS absent on lossy networks)
  PLANE-05 no route leak: a switch announces no other network's prefixes; only the default-route network
           gives the hosts a default route
  PLANE-06 the exit to the site network: numbered (upstream) sessions only on the lossy frontend network, and
           what they may advertise (their outbound prefix-list) holds nothing of another network
  PLANE-07 one network per NIC, PCI address and RDMA device on a server; every network NIC resolvable
           (netauto.validate.network_nics)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from ipaddress import IPv4Interface, IPv4Network

from netauto.model.cluster import ClusterModel, NetworkModel
from netauto.model.types import FabricModel
from netauto.validate.fabric_run import rules_and_simulation
from netauto.validate.files import FileSet
from netauto.validate.findings import CHECKS, Finding
from netauto.validate.network_nics import network_nics
from netauto.platforms.host import HostFiles
from netauto.validate.readers.server import host_files
from netauto.validate.upstream_sessions import numbered_neighbors, permitted_space
from netauto.validate.view import HOST_FILES, ParsedFabric, build_view, gc_paused

NETWORK_CHECKS = {
    "PLANE-01": "an address of one network lies in another network's pools (networks of a cluster never share addresses)",
    "PLANE-02": "a cable, BGP session or port description connects devices of two different networks",
    "PLANE-03": "a server of a group the network attaches lacks the network's NICs, or two of them reach the same switch",
    "PLANE-04": "lossless QoS (PFC, host RoCE QoS) rendered on a lossy network, or missing on a lossless one",
    "PLANE-05": "route leak: a switch announces another network's prefix, or a host default route outside the frontend",
    "PLANE-06": "an upstream (site) session outside the lossy frontend network, or one whose advertisements may carry "
                "another network's prefix (compute, storage, OOB)",
    "TEN-03": "tenants: a storage or frontend network connects servers of two tenants (netauto isolates tenants on the "
              "compute fabric only; warning)",
}
CHECKS.update(NETWORK_CHECKS)  # `netauto validate --list-rules` and the report describe them like the other checks


def network_paths(network: str) -> dict[str, str]:
    """Compute host file path -> this network's path (the same templates render both)."""
    return {HOST_FILES[key]: path for key, path in host_files(HostFiles(network)).items()}


def network_fileset(files: FileSet, network: NetworkModel) -> FileSet:
    """The network's switches' files as they are; its servers' network files at the compute paths."""
    out: dict[str, dict[str, str]] = {}
    for sw in network.fabric.switches:
        if sw.name in files.files:
            out[sw.name] = files.files[sw.name]
    for compute_path, path in network_paths(network.name).items():
        for srv in network.fabric.servers:
            text = files.get(srv.name, path)
            if text is not None:
                out.setdefault(srv.name, {})[compute_path] = text
    return FileSet(out, files.root)


def _unmap(f: Finding, network: str) -> Finding:
    back = network_paths(network)
    return replace(f, file=back.get(f.file, f.file)) if f.file in back else f


def network_views(cluster: ClusterModel, files: FileSet) -> dict[str, ParsedFabric]:
    views: dict[str, ParsedFabric] = {}
    for network in cluster.networks:
        view = build_view(network.fabric, network_fileset(files, network))
        view.provisioning = False  # NCCL, firmware and the rail naming rules are the compute fabric's
        view.host_files = HostFiles(network.name)
        view.qos_units = network.qos == "lossless"  # a lossless network's NIC QoS has its own boot and NIC units
        views[network.name] = view
    return views


def check_networks(cluster: ClusterModel, compute_view: ParsedFabric, files: FileSet, *, simulate: bool = True,
                 drain: list[str] | None = None) -> tuple[list[Finding], list[str]]:
    """Fabric rules and route simulation per network, then the cross-network rules."""
    with gc_paused():  # the views are large: no collection passes over them (validate/view.py)
        return _check_networks(cluster, compute_view, files, simulate=simulate, drain=drain)


def _check_networks(cluster: ClusterModel, compute_view: ParsedFabric, files: FileSet, *, simulate: bool,
                  drain: list[str] | None) -> tuple[list[Finding], list[str]]:
    findings: list[Finding] = []
    notes: list[str] = []
    views = network_views(cluster, files)
    for network in cluster.networks:
        view = views[network.name]
        names = {s.name for s in network.fabric.switches}
        # the rules and the simulation, side by side on a large network (validate.fabric_run)
        checked = rules_and_simulation(view, simulate=simulate, drain=[d for d in (drain or []) if d in names])
        found = view.problems + checked.findings
        if checked.sim is not None:
            found += checked.sim.findings
            notes += [f"{network.name}: {n}" for n in checked.sim.notes]
        findings += [_unmap(f, network.name) for f in found]
    findings += cross_network(cluster, {"compute": compute_view, **views})
    findings += list(_shared_by_tenants(cluster))
    if cluster.networks:
        notes.append(f"ran: fabric rules{' and route simulation' if simulate else ''} on networks "
                     f"{', '.join(p.name for p in cluster.networks)}; cross-network rules PLANE-01..07")
    return findings, notes


def _shared_by_tenants(cluster: ClusterModel) -> Iterator[Finding]:
    """TEN-03: the tenants' VRFs live on the compute fabric's leaves; a network beside it that reaches servers of two
    tenants routes between them (docs/tenants.md, "Other networks")."""
    owner = {srv: t.name for t in cluster.compute.tenants for srv in t.servers}
    for network in cluster.networks:
        seen: dict[str, str] = {}
        for srv in network.fabric.servers:
            if srv.name in owner:
                seen.setdefault(owner[srv.name], srv.name)
        if len(seen) > 1:
            who = " and ".join(f"{t} ({s})" for t, s in sorted(seen.items())[:4])
            yield Finding("TEN-03", "warning", network.name,
                          f"network {network.name} ({network.role}) connects servers of tenants {who}"
                          f"{' ...' if len(seen) > 4 else ''}: it routes between them (netauto isolates tenants on "
                          "the compute fabric only); isolate them there yourself or keep it out of the tenants' servers")


# ---------------------------------------------------------------- across networks
def _pools(cluster: ClusterModel) -> list[tuple[str, str, IPv4Network]]:
    """(network, pool key, prefix) of every network."""
    out = [("compute", k, IPv4Network(v)) for k, v in cluster.compute_pools.items()]
    for p in cluster.networks:
        out += [(p.name, k, IPv4Network(v)) for k, v in p.pools.items()]
    if cluster.oob:
        out += [("oob", "bmc_pool", IPv4Network(cluster.oob.bmc_pool)),
                ("oob", "switch_pool", IPv4Network(cluster.oob.switch_pool))]
    return out


def _owners(fabric: FabricModel) -> dict[IPv4Network, str]:
    """Subnet of every addressed switch port and loopback -> the switch that owns it (in intent)."""
    owners: dict[IPv4Network, str] = {}
    for sw in fabric.switches:
        owners[IPv4Interface(sw.loopback).network] = sw.name
        for i in sw.interfaces:
            if i.address:
                owners[IPv4Interface(i.address).network] = sw.name
        if sw.svi:
            owners[IPv4Interface(sw.svi.address).network] = sw.name
    return owners


def _addresses(view: ParsedFabric) -> Iterator[tuple[str, str, str | None]]:
    """(device, address, file) of every address in a network's parsed files."""
    for dev, st in view.switches.items():
        f = st.files.get("interfaces") or st.files.get("config_db") or next(iter(st.files.values()), None)
        for a in st.loopbacks:
            yield dev, a, f
        for p in st.ports.values():
            for a in p.addresses:
                yield dev, a, f
        for addrs in st.svis.values():
            for a in addrs:
                yield dev, a, f
    for dev, srv in view.servers.items():
        for nic in srv.nics.values():
            for a in nic.addresses:
                yield dev, a, HOST_FILES["netplan"]


def _owner_in(view: ParsedFabric, ip: IPv4Interface, owners: dict[IPv4Network, str]) -> str | None:
    for net, dev in owners.items():
        if ip.ip in net:
            return dev
    for srv in view.model.servers:
        for rail in srv.rails:
            if ip.ip in IPv4Interface(rail.address).network:
                return rail.leaf
    return None


def cross_network(cluster: ClusterModel, views: dict[str, ParsedFabric]) -> list[Finding]:
    found: list[Finding] = []
    network_of: dict[str, str] = {}
    for net, view in views.items():
        for sw in view.model.switches:
            network_of[sw.name] = net
    if cluster.oob:
        for s in cluster.oob.switches:
            network_of[s.name] = "oob"
    found += _isolation(cluster, views)
    found += _adjacency(cluster, views, network_of)
    found += _attachment(cluster, views)
    found += _lossless(cluster, views)
    found += _route_leaks(cluster, views)
    found += _upstream_leaks(cluster, views)
    found += network_nics(cluster)
    return found


def _network_file(net: str, file: str | None) -> str | None:
    return file if net == "compute" else network_paths(net).get(file or "", file)


def _isolation(cluster: ClusterModel, views: dict[str, ParsedFabric]) -> list[Finding]:
    found = []
    pools = _pools(cluster)
    owners = {net: _owners(view.model) for net, view in views.items()}
    for net, view in views.items():
        for dev, addr, file in _addresses(view):
            try:
                ip = IPv4Interface(addr)
            except ValueError:
                continue
            for other, key, pool in pools:
                if other == net or ip.ip not in pool:
                    continue
                where = f"{other}'s {key} {pool}"
                owner = _owner_in(views[other], ip, owners[other]) if other in views else None
                msg = (f"address {addr} ({net} network) lies in {where}"
                       + (f", the subnet of {owner}" if owner else "") + ": networks never share addresses")
                found.append(Finding("PLANE-01", "error", dev, msg, _network_file(net, file)))
                break
    return found


def _adjacency(cluster: ClusterModel, views: dict[str, ParsedFabric], network_of: dict[str, str]) -> list[Finding]:
    found = []
    for link in cluster.all_links():
        if link.network == "oob":
            continue  # the OOB network reaches every device's management port by design
        for dev in (link.a_device, link.b_device):
            other = network_of.get(dev)
            if other is not None and other != link.network:
                peer = link.b_device if dev == link.a_device else link.a_device
                found.append(Finding("PLANE-02", "error", peer,
                                     f"cabled {link.a_device} {link.a_port} <-> {link.b_device} {link.b_port} in the "
                                     f"{link.network} network, but {dev} belongs to the {other} network"))
    for net, view in views.items():
        for dev, st in view.switches.items():
            conf = st.bgp
            if conf is None:
                continue
            for nb in conf.peers.values():
                if nb.is_group or not nb.description:
                    continue
                target = nb.description.split()[0]
                other = network_of.get(target)
                if other is not None and other != net:
                    found.append(Finding("PLANE-02", "error", dev,
                                         f"BGP neighbor {nb.name} is {target} of the {other} network; {dev} is in "
                                         f"the {net} network", st.files.get("frr")))
    return found


def _attachment(cluster: ClusterModel, views: dict[str, ParsedFabric]) -> list[Finding]:
    found = []
    for network in cluster.networks:
        view = views[network.name]
        leaf_of = {(link.b_device, link.b_port): link.a_device for link in network.fabric.links
                   if link.kind == "server-leaf" and link.enabled}
        path = network_paths(network.name)[HOST_FILES["netplan"]]
        for srv in network.fabric.servers:
            parsed = view.servers.get(srv.name)
            seen: dict[str, str] = {}
            if srv.bond is not None:
                got = parsed.nics.get(srv.bond.name) if parsed else None
                if got is None or not got.addresses or sorted(got.members) != sorted(srv.bond.members):
                    found.append(Finding("PLANE-03", "error", srv.name,
                                         f"attached to the {network.name} network but {srv.bond.name} over "
                                         f"{', '.join(srv.bond.members)} is missing or unaddressed", path))
            for rail in srv.rails:
                if srv.bond is not None:
                    if parsed is None or rail.nic not in parsed.nics:
                        found.append(Finding("PLANE-03", "error", srv.name,
                                             f"bond member {rail.nic} of the {network.name} network is missing", path))
                elif parsed is None or rail.nic not in parsed.nics or not parsed.nics[rail.nic].addresses:
                    found.append(Finding("PLANE-03", "error", srv.name,
                                         f"attached to the {network.name} network but {rail.nic} has no address there", path))
                switch = leaf_of.get((srv.name, rail.nic))
                if switch is None:
                    found.append(Finding("PLANE-03", "error", srv.name, f"{rail.nic} is not cabled in the {network.name} network"))
                elif switch in seen:
                    found.append(Finding("PLANE-03", "error", srv.name,
                                         f"{seen[switch]} and {rail.nic} both reach {switch}: the two legs must land "
                                         f"on two different switches"))
                else:
                    seen[switch] = rail.nic
    return found


def _lossless(cluster: ClusterModel, views: dict[str, ParsedFabric]) -> list[Finding]:
    found = []
    for network in cluster.networks:
        if network.qos == "lossless":
            continue  # the per-network Q-/PFC- rules hold a lossless network to the RoCE profile
        view = views[network.name]
        for dev, st in view.switches.items():
            if st.qos.pfc_prios or st.qos.pfc_ports:
                found.append(Finding("PLANE-04", "error", dev,
                                     f"PFC on priorities {sorted(st.qos.pfc_prios)} but the {network.name} network is lossy",
                                     st.files.get("qos") or st.files.get("config_db")))
        for srv in network.fabric.servers:
            path = network_paths(network.name)[HOST_FILES["qos"]]
            parsed = view.servers.get(srv.name)
            if parsed is not None and parsed.qos is not None and parsed.qos.pfc_bitmap:
                found.append(Finding("PLANE-04", "error", srv.name,
                                     f"host RoCE QoS (PFC) rendered for the lossy {network.name} network", path))
    return found


def _route_leaks(cluster: ClusterModel, views: dict[str, ParsedFabric]) -> list[Finding]:
    found = []
    pools = _pools(cluster)
    for net, view in views.items():
        for dev, st in view.switches.items():
            if st.bgp is None:
                continue
            announced = list(st.bgp.networks) + [p for p, _ in st.bgp.aggregates]
            announced += [e.prefix for entries in st.bgp.prefix_lists.values() for e in entries]
            for prefix in announced:
                try:
                    p = IPv4Network(prefix, strict=False)
                except ValueError:
                    continue
                for other, key, pool in pools:
                    if other != net and (p.subnet_of(pool) or pool.subnet_of(p)) and p.prefixlen > 0:
                        found.append(Finding("PLANE-05", "error", dev,
                                             f"announces or permits {prefix}, inside the {other} network's {key} {pool}",
                                             st.files.get("frr")))
                        break
    return found + default_routes(cluster, views)


def default_routes(cluster: ClusterModel, views: dict[str, ParsedFabric]) -> list[Finding]:
    """PLANE-05 on the hosts: a default route only on a network that carries it (validate.compute_planes runs this on
    compute planes 2.. too)."""
    found = []
    for net, view in views.items():
        carries_default = any(p.default_route for p in cluster.networks if p.name == net)
        for dev, srv in view.servers.items():
            for nic in srv.nics.values():
                if any(str(r.get("to")) in ("0.0.0.0/0", "default") for r in nic.routes) and not carries_default:
                    found.append(Finding("PLANE-05", "error", dev,
                                         f"{nic.name} installs a default route in the {net} network; only the "
                                         f"frontend network carries the hosts' default route",
                                         _network_file(net, HOST_FILES["netplan"])))
    return found


def _upstream_leaks(cluster: ClusterModel, views: dict[str, ParsedFabric]) -> list[Finding]:
    """PLANE-06. A numbered session leaves the cluster: only the lossy frontend may have one (compute and storage
    are separate physical networks with no exit), and its outbound prefix-list must not let any prefix of
    another network (or anything wider that covers one) through."""
    found = []
    pools = _pools(cluster)
    exits = {p.name for p in cluster.networks if p.role == "frontend" and p.qos == "lossy"}
    for net, view in views.items():
        for dev, st in view.switches.items():
            if st.bgp is None:
                continue
            f = st.files.get("frr")
            for name in numbered_neighbors(st.bgp):
                nb = st.bgp.effective(name)
                if net not in exits:
                    kind = "compute" if net == "compute" else next(
                        (f"{p.qos} {p.role}" for p in cluster.networks if p.name == net), net)
                    found.append(Finding("PLANE-06", "error", dev,
                                         f"BGP neighbour {name} ({nb.description or 'no description'}) is a session out "
                                         f"of the {net} network ({kind}): only the lossy frontend network has an exit",
                                         f))
                    continue
                if not st.bgp.prefix_lists.get(nb.prefix_list_out or ""):
                    found.append(Finding("PLANE-06", "error", dev,
                                         f"upstream neighbour {name}: no outbound prefix-list, so the site learns "
                                         "every route of the switch", f))
                for space in permitted_space(st.bgp.prefix_lists.get(nb.prefix_list_out or "")):
                    hit = next(((o, k, pool) for o, k, pool in pools if o != net and space.overlaps(pool)), None)
                    if hit:
                        found.append(Finding("PLANE-06", "error", dev,
                                             f"upstream neighbour {name}: outbound prefix-list {nb.prefix_list_out} "
                                             f"permits {space}, which holds the {hit[0]} network's {hit[1]} {hit[2]}: "
                                             "the site must never learn another network", f))
    return found
