"""Networks beside the compute fabric: storage, frontend, out-of-band, server groups.

The shipped example (examples/cluster-64) must resolve, render and validate clean; every cross-network rule
has a mutation that breaks it and a check that the finding names the devices involved.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from ipaddress import IPv4Network
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve
from netauto.model.networks import resolve_cluster
from netauto.model.types import Link
from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster
from netauto.validate.files import FileSet
from netauto.validate.networks import check_networks, network_views
from netauto.validate.rules import run_rules
from netauto.validate.view import build_view

CLUSTER = EXAMPLES / "cluster-64" / "inventory"


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(CLUSTER)


@pytest.fixture()
def rendered(cluster):
    return FileSet.from_artifacts(render_cluster(cluster))


def findings(cluster, files, rule_prefix="PLANE-"):
    compute_view = build_view(cluster.compute, files)
    found, _ = check_networks(cluster, compute_view, files, simulate=False)
    return [f for f in found if f.rule.startswith(rule_prefix)]


# ---------------------------------------------------------------- the model of the shipped example
def test_example_counts(cluster):
    """64 GPU servers + 16 storage nodes; the switch counts the README's hand count gives."""
    assert len(cluster.compute.servers) == 64 and len(cluster.groups) == 16
    by_network = {p.name: p for p in cluster.networks}
    assert [len(cluster.compute.switches)] == [16 + 8]
    assert len(by_network["storage"].fabric.switches) == 4 + 2
    assert len(by_network["frontend"].fabric.switches) == 4 + 2
    assert len(by_network["storage"].fabric.servers) == 80 and len(by_network["frontend"].fabric.servers) == 80
    # blocks of 24 / 6 / 6 switch management ports, 64 GPU BMCs, 16 storage BMCs on 48-port access switches:
    # 1 + 1 + 1 + 2 + 1 = 6 access switches, 116 ends; 2 aggregation switches
    acc = [s.name for s in cluster.oob.switches if s.role == "oob-access"]
    assert acc == ["oob-sw-compute-1", "oob-sw-storage-1", "oob-sw-frontend-1", "oob-bmc-compute-1",
                   "oob-bmc-compute-2", "oob-bmc-storage-1"]
    assert sum(1 for link in cluster.oob.links if link.kind == "oob-access") == 116
    # bmc-compute reserves 3 aggregation ports: the storage BMC switch sits on port 7, not 6
    up = {(l.a_device, l.b_device): l.b_port for l in cluster.oob.links if l.kind == "oob-uplink"}
    assert up[("oob-bmc-compute-2", "oob-agg1")] == "swp5" and up[("oob-bmc-storage-1", "oob-agg1")] == "swp7"


def test_storage_node_nics_and_names(cluster):
    storage = next(p for p in cluster.networks if p.name == "storage")
    stor = next(s for s in storage.fabric.servers if s.name == "stor16")
    assert [r.nic for r in stor.rails] == ["ens1f0np0", "ens1f1np1"]
    assert [r.rdma_device for r in stor.rails] == ["mlx5_0", "mlx5_1"]
    legs = {r.leaf for r in stor.rails}
    assert len(legs) == 2, "the two NICs land on two different switches"
    leaf = storage.fabric.switch(stor.rails[0].leaf)
    port = leaf.interface(stor.rails[0].leaf_port)
    assert (port.peer_device, port.peer_port, port.speed) == ("stor16", "ens1f0np0", "200G")
    assert port.breakout == 4, "200G server ports are 4-way breakouts of an 800G cage"


def test_frontend_bond_to_an_mlag_pair_and_lossy(cluster):
    fe = next(p for p in cluster.networks if p.name == "frontend")
    srv = next(s for s in fe.fabric.servers if s.name == "su1-gpu01")
    assert srv.bond is not None and srv.bond.members == ["fe0", "fe1"]
    legs = {r.leaf for r in srv.rails}
    assert len(legs) == 2, "the two legs land on the two switches of an MLAG pair"
    a, b = (fe.fabric.switch(n) for n in sorted(legs))
    assert a.mlag.peer == b.name and b.mlag.peer == a.name and a.mlag.mac_address == b.mlag.mac_address
    assert {a.mlag.priority, b.mlag.priority} == {1000, 2000}
    assert a.svi.vrr_address == b.svi.vrr_address and a.svi.address != b.svi.address
    gw = a.svi.vrr_address.split("/")[0]
    assert [(r.to, r.via) for r in srv.bond.routes] == [("0.0.0.0/0", gw)]
    bond_ports = {bp.name: bp for bp in a.bonds}
    assert all(bp.mlag_id == int(name[4:]) and len(bp.members) == 1 for name, bp in bond_ports.items())
    peerlinks = [l for l in fe.fabric.links if l.kind == "mlag-peerlink" and a.name in (l.a_device, l.b_device)]
    assert len(peerlinks) == 2
    assert all(sw.qos.mode == "lossy" and not sw.qos.pfc_watchdog for sw in fe.fabric.switches)
    assert not any(i.pfc for sw in fe.fabric.switches for i in sw.interfaces)
    storage = next(p for p in cluster.networks if p.name == "storage")
    assert all(sw.qos.lossless for sw in storage.fabric.switches)
    assert not any(sw.adaptive_routing for sw in storage.fabric.switches + fe.fabric.switches)


# ---------------------------------------------------------------- the routed session over the peerlink
def _fe(cluster):
    return next(p for p in cluster.networks if p.name == "frontend")


def test_frontend_pair_peers_over_the_peerlink(cluster):
    """Each access switch has one eBGP unnumbered neighbour on peerlink.4094 (peer-group PEERLINK) to its MLAG
    peer, with the peer's ASN; no other switch of any network has one."""
    fe = _fe(cluster)
    a, b = fe.fabric.switch("fe-g1-acc0"), fe.fabric.switch("fe-g1-acc1")
    for sw, peer in ((a, b), (b, a)):
        assert sw.mlag.session.interface == "peerlink.4094" and sw.mlag.session.lag == "peerlink"
        nb = [n for n in sw.bgp.neighbors if n.peer_group == "PEERLINK"]
        assert [(n.interface, n.peer_device, n.peer_port, n.peer_asn) for n in nb] == [
            ("peerlink.4094", peer.name, "peerlink.4094", peer.bgp.asn)]
        assert [pg.name for pg in sw.bgp.peer_groups] == ["SPINE", "PEERLINK"]
    assert a.bgp.asn != b.bgp.asn, "eBGP: the peer's routes come one AS longer than the uplinks'"
    others = [sw for net, fab in cluster.fabrics() for sw in fab.switches if sw.mlag is None]
    assert others and not any(n.peer_group == "PEERLINK" for sw in others for n in sw.bgp.neighbors)


def test_peer_session_rendered_nvue_and_frr(cluster, rendered):
    tree = yaml.load(rendered.get("fe-g1-acc0", "etc/nvue.d/startup.yaml"), Loader=yaml.BaseLoader)[0]["set"]
    assert tree["interface"]["peerlink.4094"] == {"type": "sub", "base-interface": "peerlink", "vlan": "4094"}
    bgp = tree["vrf"]["default"]["router"]["bgp"]
    assert bgp["neighbor"]["peerlink.4094"] == {"type": "unnumbered", "peer-group": "PEERLINK",
                                                "description": "fe-g1-acc1 peerlink.4094"}
    pg = bgp["peer-group"]["PEERLINK"]
    assert pg["remote-as"] == "external"
    assert pg["address-family"]["ipv4-unicast"]["policy"] == bgp["peer-group"]["SPINE"]["address-family"][
        "ipv4-unicast"]["policy"], "the peer session carries the uplinks' inbound filter and GSHUT policy"
    frr = rendered.get("fe-g1-acc0", "etc/frr/frr.conf")
    assert " neighbor peerlink.4094 interface peer-group PEERLINK\n" in frr
    assert "  neighbor PEERLINK prefix-list FABRIC-PREFIXES in\n" in frr
    assert "auto peerlink.4094\n" in rendered.get("fe-g1-acc0", "etc/network/interfaces")


def test_peer_session_inbound_filter_permits_what_the_isolated_switch_needs(cluster, rendered):
    """FABRIC-PREFIXES on the peer session lets in the other group's subnet and every loopback of the network."""
    from netauto.formats.frr import parse_frr
    from netauto.netutil.prefix_list import permits

    fe = _fe(cluster)
    conf = parse_frr(rendered.get("fe-g1-acc0", "etc/frr/frr.conf"))
    plist = conf.effective("peerlink.4094").prefix_list_in
    assert plist == "FABRIC-PREFIXES"
    wanted = [IPv4Network(fe.fabric.switch("fe-g2-acc0").bgp.connected_prefixes[0].prefix)]
    wanted += [IPv4Network(sw.loopback) for sw in fe.fabric.switches]
    assert all(permits(conf.prefix_lists.get(plist), net) for net in wanted)
    assert not permits(conf.prefix_lists.get(plist), IPv4Network("10.0.0.0/24")), "compute prefixes stay out"


def _fe_view(cluster, rendered):
    view = network_views(cluster, rendered)["frontend"]
    return view


def _cut_uplinks(view, device):
    for name, port in view.switches[device].ports.items():
        if view.intent(device).interface(name).kind == "fabric":
            port.up = False


def test_normal_state_keeps_traffic_off_the_peerlink(cluster, rendered):
    """All uplinks up: the peer's path to another group is one AS longer, so it is in no ECMP set."""
    from netauto.validate.routesim import build_graph, propagate, simulate

    view = _fe_view(cluster, rendered)
    nodes = build_graph(view, [])
    assert nodes["fe-g1-acc0"].adj == {"fe-agg1": 5, "fe-agg2": 5, "fe-g1-acc1": 1}
    best = propagate(nodes, frozenset({"fe-g2-acc0", "fe-g2-acc1"}))["fe-g1-acc0"]
    assert set(best.via) == {"fe-agg1", "fe-agg2"} and best.width == 10
    sim = simulate(view)
    assert sim.unreachable == 0 and not sim.findings
    assert all(lo == hi == want for lo, hi, want in sim.leaf_width.values())


def test_isolated_access_switch_routes_via_its_peer(cluster, rendered):
    """fe-g1-acc0 without any uplink still reaches the other group's subnet and the loopbacks through fe-g1-acc1
    (AS path 65302 65300 ...); without the peer session it would be a blackhole."""
    from netauto.validate.routesim import build_graph, propagate, simulate

    view = _fe_view(cluster, rendered)
    _cut_uplinks(view, "fe-g1-acc0")
    nodes = build_graph(view, [])
    assert nodes["fe-g1-acc0"].adj == {"fe-g1-acc1": 1}
    acc1, agg = nodes["fe-g1-acc1"].asn, nodes["fe-agg1"].asn
    for origin in ("fe-g2-acc0", "fe-agg1"):  # a loopback of the other group, an aggregation switch's loopback
        state = propagate(nodes, frozenset({origin}))["fe-g1-acc0"]
        assert state.via == ("fe-g1-acc1",) and state.path[:2] == (acc1, agg), (origin, state)
    subnet = propagate(nodes, frozenset({"fe-g2-acc0", "fe-g2-acc1"}))["fe-g1-acc0"]
    assert subnet.via == ("fe-g1-acc1",) and len(subnet.path) == 3
    sim = simulate(view)
    assert sim.unreachable == 0 and not [f for f in sim.findings if f.rule == "SIM-01"]
    assert [(f.rule, f.device, f.severity) for f in sim.findings] == [("SIM-02", "fe-g1-acc0", "warning")] * 2
    assert "width 1 of 10 uplinks towards 2 rail subnet(s), through its MLAG peer fe-g1-acc1" in sim.findings[0].message
    # the site's default route too: through the peer (FABRIC-PREFIXES on the peer session permits it), narrowed
    assert "default route over 1 of 10 uplinks" in sim.findings[1].message
    width, path = sim.default_route["fe-g1-acc0"]
    assert width == 1 and path[0] == acc1, (width, path)

    del view.switches["fe-g1-acc0"].bgp.peers["peerlink.4094"]  # the same failure without the peer session
    nodes = build_graph(view, [])
    assert "fe-g1-acc0" not in propagate(nodes, frozenset({"fe-g2-acc0"}))
    sim = simulate(view)
    assert [f.device for f in sim.findings if f.rule == "SIM-01" and "reaches none" in f.message] == ["fe-g1-acc0"]


def test_peer_session_needs_a_live_peerlink(cluster, rendered):
    from netauto.validate.routesim import build_graph

    view = _fe_view(cluster, rendered)
    for member in view.switches["fe-g1-acc1"].bonds["peerlink"]:
        view.switches["fe-g1-acc1"].ports[member].up = False
    assert "fe-g1-acc1" not in build_graph(view, [])["fe-g1-acc0"].adj


def test_peer_session_is_no_leak_but_one_to_another_network_is(cluster, rendered):
    path = "etc/frr/frr.conf"
    assert not [f for f in findings(cluster, rendered) if f.rule == "PLANE-02"]
    text = rendered.get("fe-g1-acc0", path)
    rendered.files["fe-g1-acc0"][path] = text.replace("description fe-g1-acc1 peerlink.4094",
                                                      "description st-g1-leaf0 peerlink.4094")
    hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-02"]
    assert [(f.device, "st-g1-leaf0" in f.message, "storage" in f.message) for f in hits] == [("fe-g1-acc0", True, True)]


def test_peer_session_must_pair(cluster, rendered):
    """BGP-04 knows the session over the peerlink: clean as rendered; one end alone, or a peerlink.4094 neighbour
    on a switch that has no MLAG peer, is an error."""
    def bgp04():
        view = network_views(cluster, rendered)["frontend"]
        return [(f.device, f.message) for f in run_rules(view) if f.rule == "BGP-04"]

    assert bgp04() == []
    path = "etc/frr/frr.conf"
    acc1, agg = rendered.get("fe-g1-acc1", path), rendered.get("fe-agg1", path)
    rendered.files["fe-g1-acc1"][path] = "".join(l for l in acc1.splitlines(keepends=True)
                                                 if not l.startswith(" neighbor peerlink.4094 "))
    rendered.files["fe-agg1"][path] = agg.replace(" !\n address-family",
                                                  " neighbor peerlink.4094 interface peer-group LEAF\n !\n address-family", 1)
    hits = bgp04()
    assert any(d == "fe-g1-acc0" and "fe-g1-acc1 has no neighbour on peerlink.4094" in m for d, m in hits), hits
    assert any(d == "fe-agg1" and "peerlink.4094 is not on an enabled fabric link" in m for d, m in hits), hits


def test_missing_peer_session_is_mlag01(cluster, rendered):
    """The old failure mode, as a rule: an MLAG switch without its session over the peerlink is an error (the
    Linux files and, for NVUE, CONS-01 would also see the two views disagree)."""
    def mlag01():
        view = network_views(cluster, rendered)["frontend"]
        return [(f.device, f.message) for f in run_rules(view, only=["MLAG-01"])]

    assert mlag01() == []
    path = "etc/frr/frr.conf"
    text = rendered.get("fe-g2-acc1", path)
    rendered.files["fe-g2-acc1"][path] = "".join(l for l in text.splitlines(keepends=True)
                                                 if not l.startswith(" neighbor peerlink.4094 "))
    assert [(d, "MLAG peer fe-g2-acc0" in m and "blackholed" in m) for d, m in mlag01()] == [("fe-g2-acc1", True)]
    rendered.files["fe-g2-acc1"][path] = text.replace("  neighbor PEERLINK activate\n", "")
    assert [(d, "not activated" in m) for d, m in mlag01()] == [("fe-g2-acc1", True)]


def test_verify_expects_the_peer_session(cluster):
    """`netauto verify` expects the session on peerlink.4094 as long as a peerlink cable is up."""
    from netauto.verify.expect import build_intent

    fe = _fe(cluster)
    sessions = build_intent(fe.fabric).sessions
    assert sessions["fe-g1-acc0"]["peerlink.4094"].device == "fe-g1-acc1"
    assert len(sessions["fe-g1-acc0"]) == 11 and "peerlink.4094" not in sessions["fe-agg1"]
    links = fe.fabric.links
    fe.fabric.links = [replace(link, enabled=False) if link.kind == "mlag-peerlink" else link for link in links]
    try:
        assert "peerlink.4094" not in build_intent(fe.fabric).sessions["fe-g1-acc0"]
    finally:
        fe.fabric.links = links


def test_frontend_l3_to_host_default_route():
    """The lab example's frontend routes to the host: a /31 per NIC, defaults at metric 100 and 101."""
    fe = next(p for p in build_cluster(EXAMPLES / "cluster-lab" / "inventory").networks if p.name == "frontend")
    srv = fe.fabric.servers[0]
    assert srv.bond is None
    defaults = [(r.metric, r.table) for rail in srv.rails for r in rail.routes if r.to == "0.0.0.0/0"]
    assert defaults == [(100, None), (None, 121), (101, None), (None, 122)]


def test_rendered_files_per_network(rendered):
    assert rendered.get("su1-gpu01", "etc/netplan/60-rails.yaml") is not None
    assert "stor0:" in rendered.get("su1-gpu01", "etc/netplan/61-storage.yaml")
    assert rendered.get("su1-gpu01", "usr/local/sbin/netauto-storage-qos.sh") is not None
    assert rendered.get("su1-gpu01", "usr/local/sbin/netauto-frontend-qos.sh") is None, "lossy: no host RoCE QoS"
    assert rendered.get("stor01", "etc/nccl.conf") is None, "storage nodes have no GPU rails"
    startup = rendered.get("fe-g1-acc0", "etc/nvue.d/startup.yaml")
    assert "roce" not in startup and "pfc" not in startup
    assert rendered.get("fe-g1-acc0", "etc/cumulus/datapath/qos/qos_features.conf") is None
    assert "mode: lossless" in rendered.get("st-g1-leaf0", "etc/nvue.d/startup.yaml")
    assert "1=4x" in rendered.get("st-g1-leaf0", "etc/cumulus/ports.conf")
    assert "33=2x" in rendered.get("st-g1-leaf0", "etc/cumulus/ports.conf")


def test_lossless_network_nic_qos_survives_reboot_and_nic_reset(rendered):
    """A storage NIC's RoCE QoS is runtime state like a rail's: its own boot unit, per-NIC unit and udev rules
    re-apply it (the compute rails' units run only netauto-roce-qos.sh). A lossy network gets naming rules only."""
    for server, nic in (("su1-gpu01", "stor0"), ("stor01", "ens1f0np0")):
        unit = rendered.get(server, "etc/systemd/system/netauto-storage-qos.service")
        assert "ExecStart=/usr/local/sbin/netauto-storage-qos.sh\n" in unit and "WantedBy=multi-user.target" in unit
        template = rendered.get(server, "etc/systemd/system/netauto-storage-qos@.service")
        assert "ExecStart=/usr/local/sbin/netauto-storage-qos.sh %i" in template
        rules = rendered.get(server, "etc/udev/rules.d/91-netauto-storage.rules")
        assert f'NAME=="{nic}", TAG+="systemd", ENV{{SYSTEMD_WANTS}}+="netauto-storage-qos@{nic}.service"' in rules
        script = rendered.get(server, "usr/local/sbin/netauto-storage-qos.sh")
        assert "netauto-storage-qos.service runs this at" in script and "netauto-roce-qos" not in script
    assert rendered.get("su1-gpu01", "etc/systemd/system/netauto-frontend-qos.service") is None
    fe_rules = rendered.get("su1-gpu01", "etc/udev/rules.d/91-netauto-frontend.rules")
    assert "SYSTEMD_WANTS" not in fe_rules and "No RoCE QoS on this network (lossy)" in fe_rules
    # the compute rails' units are untouched by the networks
    assert "netauto-storage" not in rendered.get("su1-gpu01", "etc/udev/rules.d/90-netauto-rails.rules")


@pytest.mark.parametrize("path, edit, says", [
    ("etc/systemd/system/netauto-storage-qos.service", None, "no etc/systemd/system/netauto-storage-qos.service"),
    ("etc/udev/rules.d/91-netauto-storage.rules", ("netauto-storage-qos@stor1.service", "netauto-roce-qos@stor1.service"),
     "stor1: no udev rule starting netauto-storage-qos@stor1.service"),
    ("etc/systemd/system/netauto-storage-qos@.service", ("netauto-storage-qos.sh %i", "netauto-roce-qos.sh %i"),
     "no per-NIC unit running `/usr/local/sbin/netauto-storage-qos.sh %i`"),
])
def test_storage_nic_qos_units_are_checked_on_the_network(cluster, rendered, path, edit, says):
    """HOST-07 on the storage network: a missing unit, a udev rule starting the compute unit for a storage NIC, a
    template running the wrong script; the finding names the server and the network's own file."""
    if edit is None:
        del rendered.files["su1-gpu02"][path]
    else:
        rendered.files["su1-gpu02"][path] = rendered.get("su1-gpu02", path).replace(*edit)
    hits = [f for f in findings(cluster, rendered, "HOST-07")]
    assert [(f.device, f.file) for f in hits] == [("su1-gpu02", path)], hits
    assert says in hits[0].message, hits[0].message


def test_deploy_runs_each_changed_networks_unit():
    """deploy after installing a server's files: the storage unit is enabled and run when its files changed, the
    compute unit only when the rails' files did; rollback re-runs both."""
    from netauto.deploy import host_nic

    class Session:
        def __init__(self) -> None:
            self.commands: list[str] = []

        def run(self, command: str, timeout: float = 120.0):  # noqa: ANN201
            from netauto.deploy.connection import CommandResult

            self.commands.append(command)
            return CommandResult(0, "", "")

    files = ["/etc/systemd/system/netauto-roce-qos.service", "/etc/systemd/system/netauto-storage-qos.service",
             "/usr/local/sbin/netauto-storage-qos.sh", "/usr/local/sbin/netauto-roce-qos.sh"]
    s, notes = Session(), []
    host_nic.provision(s, {"/usr/local/sbin/netauto-storage-qos.sh"}, lambda n, fn: fn(), notes, files)
    assert "systemctl enable netauto-storage-qos.service" in s.commands[1], s.commands
    assert s.commands[2:] == ["systemctl restart netauto-storage-qos.service"]
    s = Session()
    host_nic.provision(s, {"/usr/local/sbin/netauto-storage-qos.sh", "/etc/udev/rules.d/90-netauto-rails.rules"},
                       lambda n, fn: fn(), notes, files)
    assert s.commands[2:] == ["systemctl restart netauto-roce-qos.service", "systemctl restart netauto-storage-qos.service"]
    assert host_nic.restart_lines(files)[0].endswith("try-restart netauto-roce-qos.service netauto-storage-qos.service")


def test_bmc_addresses_unique(cluster, rendered):
    ips = [b.ip for b in cluster.oob.bmcs]
    assert len(ips) == len(set(ips)) == 80
    first = cluster.oob.bmcs[0]
    assert f"ipaddr {first.ip}" in rendered.get(first.device, "usr/local/sbin/netauto-bmc-lan.sh")


# ---------------------------------------------------------------- validation of the clean example
def test_example_validates_clean(cluster, rendered):
    compute_view = build_view(cluster.compute, rendered)
    found = [f for f in run_rules(compute_view) if f.severity == "error"]
    more, notes = check_networks(cluster, compute_view, rendered, simulate=True)
    found += [f for f in more if f.severity == "error"]
    assert not found, found[:5]
    assert any(n.startswith("storage: route simulation") and "full reachability" in n for n in notes)
    assert any(n.startswith("frontend: route simulation") and "full reachability" in n for n in notes)


# ---------------------------------------------------------------- mutations: each rule breaks and names devices
def test_frontend_switch_cabled_to_compute_spine_names_both(cluster, rendered):
    fe = next(p for p in cluster.networks if p.name == "frontend")
    fe.fabric.links.append(Link("fe-agg1", "swp30", "spine1", "swp64", "100G", "leaf-spine", network="frontend"))
    try:
        hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-02"]
    finally:
        fe.fabric.links.pop()
    assert hits and all("fe-agg1" in f.device + f.message and "spine1" in f.device + f.message for f in hits), hits


def test_bgp_session_to_another_network_names_both(cluster, rendered):
    path = "etc/frr/frr.conf"
    text = rendered.get("fe-agg1", path)
    rendered.files["fe-agg1"][path] = text.replace(
        " !\n address-family", " neighbor swp30 interface peer-group LEAF\n neighbor swp30 description spine1 swp64\n"
        " !\n address-family", 1)
    hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-02"]
    assert [(f.device, "spine1" in f.message, "compute" in f.message) for f in hits] == [("fe-agg1", True, True)]


def test_storage_nic_with_compute_address_names_both(cluster, rendered):
    path = "etc/netplan/61-storage.yaml"
    text = rendered.get("su1-gpu01", path)
    m = re.search(r"stor0:\n(?:.*\n)*?\s+addresses: \[(\S+)\]", text)
    rendered.files["su1-gpu01"][path] = text.replace(m.group(1), "10.0.0.1/31", 1)
    hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-01"]
    assert any(f.device == "su1-gpu01" and "su1-r0-leaf" in f.message and f.file == path for f in hits), hits


def test_network_address_in_the_oob_pools_names_the_device(cluster, rendered):
    # the OOB network never shares addresses with a network: a storage leaf port moved into the BMC pool is PLANE-01
    path = "etc/network/interfaces"
    text = rendered.get("st-g1-leaf0", path)
    m = re.search(r"address (10\.\d+\.\d+\.\d+/\d+)", text)
    rendered.files["st-g1-leaf0"][path] = text.replace(m.group(1), "192.168.210.77/31", 1)
    hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-01"]
    assert any(f.device == "st-g1-leaf0" and "oob's bmc_pool 192.168.210.0/24" in f.message for f in hits), hits


def test_oob_pool_overlapping_a_network_is_an_inventory_error(tmp_path):
    for old, new, other in (("bmc_pool: 192.168.210.0/24", "bmc_pool: 192.168.203.128/25", "frontend"),
                            ("switch_pool: 192.168.211.0/24", "switch_pool: 10.17.0.0/24", "storage")):
        dst = tmp_path / other
        shutil.copytree(CLUSTER, dst)
        f = dst / "networks.yaml"
        assert old in f.read_text()
        f.write_text(f.read_text().replace(old, new, 1))
        with pytest.raises(InventoryError) as exc:
            resolve_all(dst)
        e = exc.value
        assert e.exit_code == 2 and e.key == f"oob.{old.split(':')[0]}" and e.file.name == "networks.yaml" and e.line
        assert f"networks.{other}.addressing" in e.message, e.message


def test_missing_network_nic_and_legs_on_one_switch(cluster, rendered):
    path = "etc/netplan/61-storage.yaml"
    data = yaml.safe_load(rendered.get("su1-gpu05", path))
    del data["network"]["ethernets"]["stor1"]
    rendered.files["su1-gpu05"][path] = yaml.safe_dump(data)
    hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-03"]
    assert [(f.device, "stor1" in f.message) for f in hits] == [("su1-gpu05", True)]
    storage = next(p for p in cluster.networks if p.name == "storage")
    link = next(l for l in storage.fabric.links if l.b_device == "stor02" and l.b_port == "ens1f1np1")
    other = next(l for l in storage.fabric.links if l.b_device == "stor02" and l.b_port == "ens1f0np0")
    saved = link.a_device
    link.a_device = other.a_device
    try:
        hits = [f for f in findings(cluster, FileSet.from_artifacts(render_cluster(cluster))) if f.rule == "PLANE-03"]
    finally:
        link.a_device = saved
    assert [(f.device, other.a_device in f.message) for f in hits] == [("stor02", True)]


def test_bond_missing_and_bond_legs_on_one_switch(cluster, rendered):
    path = "etc/netplan/61-frontend.yaml"
    data = yaml.safe_load(rendered.get("su2-gpu03", path))
    data["network"]["bonds"]["bond0"]["interfaces"] = ["fe0"]
    rendered.files["su2-gpu03"][path] = yaml.safe_dump(data)
    hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-03"]
    assert [(f.device, "bond0" in f.message) for f in hits] == [("su2-gpu03", True)]
    fe = next(p for p in cluster.networks if p.name == "frontend")
    link = next(l for l in fe.fabric.links if l.b_device == "stor05" and l.b_port == "eno2")
    other = next(l for l in fe.fabric.links if l.b_device == "stor05" and l.b_port == "eno1")
    saved, link.a_device = link.a_device, other.a_device
    try:
        hits = [f for f in findings(cluster, FileSet.from_artifacts(render_cluster(cluster))) if f.rule == "PLANE-03"]
    finally:
        link.a_device = saved
    assert [(f.device, other.a_device in f.message) for f in hits] == [("stor05", True)]


def test_pfc_on_a_lossy_network(cluster, rendered):
    qos = rendered.get("st-g1-leaf0", "etc/cumulus/datapath/qos/qos_features.conf")
    rendered.files["fe-g1-acc1"]["etc/cumulus/datapath/qos/qos_features.conf"] = qos
    hits = [f for f in findings(cluster, rendered) if f.rule == "PLANE-04"]
    assert [f.device for f in hits] == ["fe-g1-acc1"]


def test_route_leak_and_default_route_outside_frontend(cluster, rendered):
    path = "etc/frr/frr.conf"
    text = rendered.get("su1-r0-leaf", path)
    rendered.files["su1-r0-leaf"][path] = text.replace("ip prefix-list LOOPBACK seq 10",
                                                       "ip prefix-list HOSTLINKS seq 90 permit 10.32.0.0/16 le 32\n"
                                                       "ip prefix-list LOOPBACK seq 10", 1)
    np = "etc/netplan/60-rails.yaml"
    data = yaml.safe_load(rendered.get("su1-gpu02", np))
    data["network"]["ethernets"]["rail0"]["routes"].append({"to": "0.0.0.0/0", "via": "10.0.0.2"})
    rendered.files["su1-gpu02"][np] = yaml.safe_dump(data)
    hits = sorted((f.device, f.file) for f in findings(cluster, rendered) if f.rule == "PLANE-05")
    assert hits == [("su1-gpu02", np), ("su1-r0-leaf", path)]


# ---------------------------------------------------------------- inventory errors
def copy_with(tmp_path: Path, old: str, new: str) -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(CLUSTER, dst)
    f = dst / "networks.yaml"
    text = f.read_text()
    assert old in text
    f.write_text(text.replace(old, new, 1))
    return dst


def resolve_all(path: Path):
    loaded = load_inventory(path)
    return resolve_cluster(loaded, resolve(loaded))


def test_network_pool_overlapping_compute_is_an_inventory_error(tmp_path):
    inv = copy_with(tmp_path, "host_pool: 10.16.0.0/15", "host_pool: 10.14.0.0/15")
    with pytest.raises(InventoryError) as exc:
        resolve_all(inv)
    assert exc.value.exit_code == 2
    assert exc.value.key == "networks.storage.addressing.host_pool" and "addressing.host_links.pool" in exc.value.message
    assert exc.value.file.name == "networks.yaml" and exc.value.line


def test_unknown_group_and_table_clash(tmp_path):
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path, "      - servers: storage\n        nics: [ens1f0np0",
                              "      - servers: storge\n        nics: [ens1f0np0"))
    assert exc.value.key == "networks.storage.attach[0].servers" and "did you mean 'storage'" in str(exc.value)
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path / "b", "table_base: 110", "table_base: 100"))
    assert exc.value.key == "networks.storage.table_base"


def test_network_switch_name_clash(tmp_path):
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path, 'spine: "st-spine{index}"', 'spine: "spine{index}"'))
    assert "spine1" in exc.value.message and exc.value.key == "networks.storage.naming"


def test_network_errors_point_at_network_keys(tmp_path):
    # 40 servers per leaf at /31 need 80 addresses: a /26 leaf block (64) is too small
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path, "      leaf_prefix_len: 24\n      switch_mgmt_pool: 192.168.202.0/24",
                              "      leaf_prefix_len: 26\n      switch_mgmt_pool: 192.168.202.0/24"))
    assert exc.value.key == "networks.storage.addressing.leaf_prefix_len"


def test_single_network_inventories_unchanged(default_model):
    """No networks: the cluster is the compute fabric alone, nothing added."""
    from conftest import DEFAULT_INVENTORY

    cluster = build_cluster(DEFAULT_INVENTORY)
    assert not cluster.networks and not cluster.groups and cluster.oob is None
    assert len(cluster.compute.switches) == len(default_model.switches)


# ---------------------------------------------------------------- SONiC network
@pytest.mark.parametrize("qos", ["lossless", "lossy"])
def test_sonic_storage_network(tmp_path, qos):
    import json

    inv = copy_with(tmp_path, "    qos: lossless               # RoCE", f"    qos: {qos}               # RoCE")
    f = inv / "networks.yaml"
    f.write_text(f.read_text().replace("    nos: cumulus\n    host_link_speed: 200G", "    nos: sonic\n    host_link_speed: 200G", 1))
    cluster = resolve_all(inv)
    arts = {(a.device, a.path): a.content for a in render_cluster(cluster)}
    db = json.loads(arts[("st-g1-leaf0", "etc/sonic/config_db.json")])
    assert db["DEVICE_METADATA"]["localhost"]["bgp_asn"] == "65201"
    assert ("PFC_WD" in db and "PORT_QOS_MAP" in db) == (qos == "lossless")
    assert db["PORT"]["Ethernet0"]["speed"] == "200000"
    view = network_views(cluster, FileSet.from_artifacts(render_cluster(cluster)))["storage"]
    assert not [f for f in run_rules(view) if f.severity == "error"]
    # and against SONiC's YANG models with yanglint, where the models and the tool are present
    yang = next((p for p in (Path(__file__).resolve().parents[2] / "shared" / "sonic-yang-models",
                             Path("/work/shared/sonic-yang-models")) if (p / "sonic-types.yang").is_file()), None)
    if yang is None or shutil.which("yanglint") is None:
        pytest.skip("SONiC YANG models or yanglint missing: config_db checked by the rules only")
    from netauto.validate.sonic_yang import check_config_dbs

    dbs = {d: json.loads(t) for (d, p), t in arts.items() if p == "etc/sonic/config_db.json"}
    errors = check_config_dbs(dbs, yang)
    assert len(dbs) == 6 and not any(errors.values()), errors


def bonded_lab(tmp_path: Path, nos: str) -> Path:
    dst = tmp_path / f"bond-{nos}"
    shutil.copytree(EXAMPLES / "cluster-lab" / "inventory", dst)
    f = dst / "networks.yaml"
    text = f.read_text()
    text = text.replace("    role: frontend\n    qos: lossy\n", f"    role: frontend\n    qos: lossy\n    nos: {nos}\n")
    text = text.replace("    default_route: true\n", "    default_route: true\n    host_routing: bond\n")
    # SN3420 access (48 x 25G SFP28 to the servers, 12 x 100G QSFP28: uplinks from 49, peerlink on 59-60) and SN4600C
    # aggregation on either NOS; SONiC takes each model's default HWSKU (ACS-MSN3420, ACS-MSN4600C)
    text = text.replace("      leaf: {cages: 60, downlinks_first: 1, uplinks_first: 49}",
                        "      leaf: {cages: 60, downlinks_first: 1, uplinks_first: 49, peerlink_first: 59}")
    f.write_text(text)
    return dst


@pytest.mark.parametrize("nos", ["cumulus", "sonic"])
def test_bonded_frontend_validates_clean(tmp_path, nos):
    from netauto.pipeline import validate

    inv = bonded_lab(tmp_path, nos)
    result = validate(inv, external=False)
    assert not [f for f in result.findings if f.severity == "error"], result.findings[:5]
    sim = next(n for n in result.notes if n.startswith("frontend: route simulation"))
    assert "3 BGP sessions up" in sim and "full reachability" in sim, sim  # one uplink per access switch + the peer
    cluster = resolve_all(inv)
    arts = {(a.device, a.path): a.content for a in render_cluster(cluster)}
    if nos == "sonic":
        db = json.loads(arts[("fe-acc0", "etc/sonic/config_db.json")])
        # SN3420 (ACS-MSN3420, platform.json): SFP28 cage 2 is Ethernet4 on lane 4, QSFP28 cage 49 Ethernet192
        assert db["DEVICE_METADATA"]["localhost"]["hwsku"] == "ACS-MSN3420"
        assert db["PORT"]["Ethernet4"]["lanes"] == "4" and db["PORT"]["Ethernet192"]["lanes"] == "192,193,194,195"
        assert {"Ethernet232", "Ethernet236"} <= set(db["PORT"])  # the peerlink cages 59-60
        agg = json.loads(arts[("fe-agg1", "etc/sonic/config_db.json")])
        # SN4600C (ACS-MSN4600C): cage 2 is Ethernet4 on lanes 8-11, not Ethernet8
        assert agg["DEVICE_METADATA"]["localhost"]["hwsku"] == "ACS-MSN4600C"
        assert agg["PORT"]["Ethernet4"]["lanes"] == "8,9,10,11" and "Ethernet4" in agg["BREAKOUT_CFG"]
        assert db["MCLAG_DOMAIN"]["1"]["peer_link"] == "PortChannel999"
        assert db["MCLAG_DOMAIN"]["1"]["peer_ip"] == cluster.networks[1].fabric.switch("fe-acc1").loopback.split("/")[0]
        assert set(db["MCLAG_INTERFACE"]) == {"1|PortChannel1", "1|PortChannel2", "1|PortChannel3"}
        assert db["VLAN_INTERFACE"]["Vlan10"] == {"static_anycast_gateway": "true"} and "Vlan10|10.32.0.1/24" in db["VLAN_INTERFACE"]
        # the routed session to the MCLAG peer: Vlan4094 on the peer-link only, link-local only, unique-IP
        assert db["VLAN"]["Vlan4094"]["vlanid"] == "4094"
        assert [k for k in db["VLAN_MEMBER"] if k.startswith("Vlan4094|")] == ["Vlan4094|PortChannel999"]
        assert db["VLAN_MEMBER"]["Vlan4094|PortChannel999"] == {"tagging_mode": "tagged"}
        assert db["VLAN_INTERFACE"]["Vlan4094"] == {"ipv6_use_link_local_only": "enable"}
        assert not [k for k in db["VLAN_INTERFACE"] if k.startswith("Vlan4094|")], "no address: BGP unnumbered"
        assert db["MCLAG_UNIQUE_IP"] == {"Vlan4094": {"unique_ip": "enable"}}
        frr = arts[("fe-acc0", "etc/sonic/frr/frr.conf")]
        assert " neighbor Vlan4094 interface peer-group PEERLINK\n neighbor Vlan4094 description fe-acc1 Vlan4094\n" in frr
        yang = next((p for p in (Path(__file__).resolve().parents[2] / "shared" / "sonic-yang-models",
                                 Path("/work/shared/sonic-yang-models")) if (p / "sonic-types.yang").is_file()), None)
        if yang is not None and shutil.which("yanglint"):
            from netauto.validate.sonic_yang import check_config_dbs

            dbs = {d: json.loads(t) for (d, p), t in arts.items() if p == "etc/sonic/config_db.json"}
            errors = check_config_dbs(dbs, yang)
            assert set(dbs) >= {"fe-acc0", "fe-acc1", "fe-agg1"} and not any(errors.values()), errors
    else:
        startup = arts[("fe-acc0", "etc/nvue.d/startup.yaml")]
        assert "type: peerlink" in startup and "peer-ip: linklocal" in startup and "vrr:" in startup
        assert "      peerlink.4094:\n        type: sub\n        base-interface: peerlink\n        vlan: 4094\n" in startup
        ifaces = arts[("fe-acc0", "etc/network/interfaces")]
        assert "clag-id 1" in ifaces and "clagd-peer-ip linklocal" in ifaces and "address-virtual" in ifaces
    netplan = yaml.safe_load(arts[("stor1", "etc/netplan/61-frontend.yaml")])
    bond = netplan["network"]["bonds"]["bond0"]
    assert bond["interfaces"] == ["eno1", "eno2"] and bond["parameters"]["mode"] == "802.3ad"
    assert bond["routes"] == [{"to": "0.0.0.0/0", "via": "10.32.0.1"}]


@pytest.mark.parametrize("old,new,key", [
    ('naming: "stor{index:02d}"', 'naming: "../stor{index}"', "server_groups.storage.naming"),
    ('naming: {leaf: "st-g{group}-leaf{rail}"', 'naming: {leaf: "st-g{group.__class__}-leaf{rail}"',
     "networks.storage.naming.leaf"),
    ('naming: {access: "oob-{block}-{index}"', 'naming: {access: "oob-{block}-{su}"', "oob.naming.access"),
])
def test_hostile_names_in_networks_are_refused(tmp_path, old, new, key):
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path, old, new))
    assert exc.value.exit_code == 2 and exc.value.key == key and exc.value.line


NETWORK_FILES = (
    "etc/netplan/61-storage.yaml",
    "etc/udev/rules.d/91-netauto-storage.rules",
    "usr/local/sbin/netauto-storage-qos.sh",
    "etc/systemd/system/netauto-storage-qos@.service",
)
COMPUTE_FILES = ("etc/netplan/60-rails.yaml",)


def test_network_server_files_say_nic_not_rail(rendered):
    """A storage node's files name its storage NICs; the compute rails keep their wording (host_files.nic_noun)."""
    for path in NETWORK_FILES:
        text = rendered.get("stor01", path)
        assert "storage NIC" in text, path
        assert not re.search(r"rail NIC|per rail\b|dead rail\b|GPU server", text), path
    for path in COMPUTE_FILES:
        text = rendered.get("su1-gpu01", path)
        assert "per rail," in text and "a dead rail does not" in text


# ---------------------------------------------------------------- PLANE-07: each network its own NICs, all findable
STORAGE_RDMA = "rdma_devices: [mlx5_1, mlx5_7]"
STORAGE_PCI = '        pci: ["0000:29:00.0", "0000:aa:00.0"]\n'


def _network07(inv: Path) -> list[str]:
    c = build_cluster(inv)
    return [f"{f.device}: {f.message}" for f in findings(c, FileSet.from_artifacts(render_cluster(c)), "PLANE-07")]


def test_network_nics_resolve_by_pci(rendered):
    """The storage NICs of a GPU server are named by PCI path (udev), never left UNRESOLVED in netplan."""
    netplan = rendered.get("su1-gpu01", "etc/netplan/61-storage.yaml")
    assert "UNRESOLVED" not in netplan and "PCI 0000:29:00.0" in netplan


def test_rail_rdma_device_on_a_network_is_an_error(tmp_path):
    """mlx5_9 is rail 5's RDMA device (topology.yaml): a storage network on it is refused, naming both networks."""
    hits = _network07(copy_with(tmp_path, STORAGE_RDMA, "rdma_devices: [mlx5_1, mlx5_9]"))
    assert len(hits) == 64 and all("RDMA device mlx5_9 serves both the compute and the storage" in h for h in hits)


def test_network_nic_without_pci_is_an_error_unless_kernel_named(tmp_path):
    hits = _network07(copy_with(tmp_path, STORAGE_PCI, ""))
    assert len(hits) == 128 and "storage NIC stor0: no PCI address, MAC or nic_names: kernel" in hits[0], hits[:2]
    kernel = copy_with(tmp_path / "k", STORAGE_PCI, "        nic_names: kernel\n")
    assert _network07(kernel) == []


def test_network_pci_count_is_one_line(tmp_path):
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path, STORAGE_PCI, '        pci: ["0000:29:00.0"]\n'))
    assert exc.value.exit_code == 2 and "1 PCI addresses for 2 NICs" in str(exc.value), str(exc.value)


def test_old_planes_key_is_refused_with_the_rename_hint(tmp_path, capsys, monkeypatch):
    """`planes:` was the storage/frontend section's name before compute planes took the word: one line, the file
    and line of the key, the fix, exit 2."""
    from test_bad_input import run_in_process

    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLES / "cluster-lab" / "inventory", inv)
    path = inv / "networks.yaml"
    text = path.read_text()
    path.write_text(text.replace("\nnetworks:", "\nplanes:", 1))
    line = text.splitlines().index("networks:") + 1
    code, _, stderr = run_in_process(["validate", "-i", str(inv)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in stderr
    lines = [x for x in stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and f"{path}:{line}: planes:" in lines[0], stderr
    assert "rename `planes:` to `networks:`" in lines[0]
