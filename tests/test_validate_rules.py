"""Each fabric rule: break exactly that rule in an otherwise clean, rendered gpu-pod1 and find it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from netauto.validate.rules import load_rules
from netauto.validate.runner import validate

from _validate_helpers import (
    AR, FRR, IFACES, INVENTORY, NETPLAN, QOS, ROOT, Tree, errors, has, rendered, render_to, show, tree,  # noqa: F401
)

LEAF, LEAF1, SPINE, SPINE2, GPU = "su1-r0-leaf", "su1-r1-leaf", "spine1", "spine2", "gpu01"



def check(tree: Tree, rule: str, device: str, text: str, also: set[str] = frozenset(), **kw) -> None:  # noqa: ANN003
    result = tree.validate(**kw)
    assert has(result, rule, device, text), show(result)
    assert errors(result) <= {rule} | set(also), show(result)


def test_every_rule_has_id_severity_description():
    rules = load_rules()
    assert len(rules) >= 23
    for rid, r in rules.items():
        assert r.severity in ("error", "warning", "info") and r.description and "\n" not in r.description, rid


def test_untouched_tree_is_clean(tree: Tree):
    result = tree.validate()
    assert result.findings == [], show(result)
    assert result.exit_code() == 0


@pytest.mark.parametrize("inventory", [INVENTORY, ROOT / "examples/2su-leaf-subnet/inventory"], ids=["gpu-pod1", "gpu-2su"])
def test_shipped_fabrics_validate_clean(inventory: Path):
    result = validate(inventory, external=False)
    assert [f for f in result.findings if f.severity != "info"] == [], show(result)


def test_bgp03_numbered_fabric_neighbour(tree: Tree):
    tree.replace(LEAF, FRR, "neighbor swp33 interface peer-group SPINE", "neighbor swp33 peer-group SPINE")
    tree.replace(LEAF, "etc/nvue.d/startup.yaml", "swp33:\n                type: unnumbered", "swp33:\n                type: numbered")
    check(tree, "BGP-03", LEAF, "swp33 (to spine1 swp1): neighbour is not unnumbered")


def test_bgp03_fabric_port_without_neighbour(tree: Tree):
    tree.replace(LEAF, FRR, " neighbor swp40 interface peer-group SPINE\n neighbor swp40 description spine4 swp2\n", "")
    tree.nvue(LEAF, "vrf", "default", "router", "bgp", "neighbor", "swp40", delete=True)
    check(tree, "BGP-03", LEAF, "swp40 (to spine4 swp2) is a fabric link but has no BGP neighbour", also={"BGP-04"})


def test_bgp04_remote_as_mismatch(tree: Tree):
    tree.replace(LEAF, FRR, " neighbor swp33 interface peer-group SPINE\n",
                 " neighbor swp33 interface peer-group SPINE\n neighbor swp33 remote-as 65199\n")
    check(tree, "BGP-04", LEAF, "neighbour swp33: remote-as 65199 but spine1 is AS 65100")


def test_bgp01_duplicate_router_id(tree: Tree):
    tree.replace(SPINE2, FRR, "bgp router-id 10.253.0.2", "bgp router-id 10.253.0.1")
    tree.nvue(SPINE2, "router", "bgp", "router-id", value="10.253.0.1")
    check(tree, "BGP-01", SPINE2, "router-id 10.253.0.1 also used by spine1")


def test_bgp02_asn_plan_without_multipath_relax(tree: Tree):
    tree.replace(SPINE2, FRR, "router bgp 65100", "router bgp 65199")
    tree.nvue(SPINE2, "router", "bgp", "autonomous-system", value=65199)
    tree.replace(LEAF, FRR, " bgp bestpath as-path multipath-relax\n", "")
    tree.nvue(LEAF, "vrf", "default", "router", "bgp", "path-selection", delete=True)
    result = tree.validate()
    assert has(result, "BGP-02", SPINE, "spines of pod 1 use several ASNs (65100, 65199)"), show(result)
    assert errors(result) == {"BGP-02"}, show(result)
    # the consequence, seen by the route simulation: su1-r0-leaf no longer load-balances over spine2
    assert has(result, "SIM-02", LEAF, "reduced ECMP: width 6 of 8 uplinks"), show(result)


def test_ip01_duplicate_address(tree: Tree):
    tree.replace(SPINE, IFACES, "    address 10.253.0.1/32\n", "    address 10.253.0.1/32\n    address 10.0.0.0/31\n")
    tree.nvue(SPINE, "interface", "lo", "ip", "address", value={"10.253.0.1/32": {}, "10.0.0.0/31": {}})
    check(tree, "IP-01", SPINE, "10.0.0.0 on lo is also on su1-r0-leaf swp1")


def test_ar01_not_uniform(tree: Tree):
    tree.replace(LEAF, AR, "interface.swp35.adaptive_routing.enable = TRUE", "interface.swp35.adaptive_routing.enable = FALSE")
    tree.nvue(LEAF, "interface", "swp35", "router", delete=True)
    check(tree, "AR-01", LEAF, "adaptive routing off on fabric port(s) swp35")


def test_ar01_one_switch_off(tree: Tree):
    text = tree.path(SPINE, AR).read_text().split("adaptive_routing.enable = TRUE")[0] + "adaptive_routing.enable = FALSE\n"
    tree.path(SPINE, AR).write_text(text)
    tree.nvue(SPINE, "router", "adaptive-routing", "enable", value="off")
    for port in [f"swp{i}" for i in range(1, 17)]:
        tree.nvue(SPINE, "interface", port, "router", delete=True)
    check(tree, "AR-01", SPINE, "adaptive routing off while 11 of 12 switches have it on")


def test_ar05_nvue_spelling(tree: Tree):
    tree.replace(LEAF, "etc/nvue.d/startup.yaml", "      roce:\n        enable: on", "      roce:\n        state: enabled")
    check(tree, "AR-05", LEAF, "target CL 5.14: qos.roce.state: `state: enabled` needs CL 5.15", also={"NVUE-01"})


def test_q01_roce_dscp_not_pfc(tree: Tree):
    tree.replace(LEAF, QOS, "traffic.cos_3.priority_source.dscp = [26]", "traffic.cos_3.priority_source.dscp = [24]\ntraffic.cos_1.priority_source.dscp = [26]")
    tree.nvue(LEAF, "qos", "mapping", value={"default-global": {"dscp": {24: {"switch-priority": 3}, 26: {"switch-priority": 1}, 48: {"switch-priority": 6}}}})
    check(tree, "Q-01", LEAF, "RoCE DSCP 26 maps to priority 1, PFC is on [3]", also={"Q-06"})


def test_q02_host_pfc_priority(tree: Tree):
    tree.replace(GPU, "usr/local/sbin/netauto-roce-qos.sh", "--pfc=0,0,0,1,0,0,0,0", "--pfc=0,0,0,0,1,0,0,0")
    check(tree, "Q-02", GPU, "host PFC on priorities [4], the switches on [3]")


def test_q03_host_trust(tree: Tree):
    tree.replace(GPU, "usr/local/sbin/netauto-roce-qos.sh", "--trust=dscp", "--trust=pcp")
    check(tree, "Q-03", GPU, "trust mode 'pcp', must be dscp")


def test_q04_cnp_not_strict(tree: Tree):
    tree.replace(LEAF, QOS, "default_egress_sched.egr_queue_0.bw_percent = 50\ndefault_egress_sched.egr_queue_3.bw_percent = 50\n"
                 "default_egress_sched.egr_queue_6.bw_percent = 0",
                 "default_egress_sched.egr_queue_0.bw_percent = 40\ndefault_egress_sched.egr_queue_3.bw_percent = 50\n"
                 "default_egress_sched.egr_queue_6.bw_percent = 10")
    tree.nvue(LEAF, "qos", "egress-scheduler", value={"default-global": {"traffic-class": {
        0: {"mode": "dwrr", "bw-percent": 40}, 3: {"mode": "dwrr", "bw-percent": 50}, 6: {"mode": "dwrr", "bw-percent": 10}}}})
    check(tree, "Q-04", LEAF, "CNP class 6 is scheduled dwrr, must be strict")


def test_q06_ecn_thresholds(tree: Tree):
    tree.replace(LEAF, QOS, "min_threshold_bytes = 150000", "min_threshold_bytes = 2000000")
    tree.nvue(LEAF, "qos", "congestion-control", value={"default-global": {"traffic-class": {
        t: {"min-threshold": 2000000, "max-threshold": 1500000, "probability": 100, "ecn": "enable"} for t in (0, 3)}}})
    check(tree, "Q-06", LEAF, "min threshold 2000000 must be below max threshold 1500000")


def test_q08_ets_sum(tree: Tree):
    tree.replace(LEAF, QOS, "egr_queue_0.bw_percent = 50", "egr_queue_0.bw_percent = 60")
    tree.nvue(LEAF, "qos", "egress-scheduler", value={"default-global": {"traffic-class": {
        0: {"mode": "dwrr", "bw-percent": 60}, 3: {"mode": "dwrr", "bw-percent": 50}, 6: {"mode": "strict"}}}})
    check(tree, "Q-08", LEAF, "DWRR weights sum to 110, must be 100")


def test_pfc01_watchdog_missing(tree: Tree):
    tree.replace(LEAF, QOS, "pfc_watchdog.pfc_wd_port_group.port_set = swp1,swp2,", "pfc_watchdog.pfc_wd_port_group.port_set = swp1,")
    tree.nvue(LEAF, "interface", "swp2", "qos", delete=True)
    check(tree, "PFC-01", LEAF, "no PFC watchdog on 1 PFC port(s): swp2")


def test_lag01_fabric_bond(tree: Tree):
    p = tree.path(LEAF, IFACES)
    p.write_text(p.read_text() + "\nauto bond1\niface bond1\n    bond-slaves swp33 swp34\n")
    tree.nvue(LEAF, "interface", "bond1", value={"type": "bond", "bond": {"member": {"swp33": {}, "swp34": {}}}})
    check(tree, "LAG-01", LEAF, "fabric port swp33 is a member of bond bond1")


def test_phy01_fec_mismatch(tree: Tree):
    text = tree.path(LEAF, IFACES).read_text()
    stanza = text.split("iface swp33\n")[1].split("\n\n")[0]
    tree.replace(LEAF, IFACES, "iface swp33\n" + stanza, "iface swp33\n" + stanza.replace("link-fec rs", "link-fec baser"))
    tree.nvue(LEAF, "interface", "swp33", "link", "fec", value="baser")
    check(tree, "PHY-01", LEAF, "swp33 <-> spine1 swp1: FEC baser vs rs")


def test_phy04_host_mtu(tree: Tree):
    tree.replace(GPU, NETPLAN, "mtu: 9000", "mtu: 1500")
    check(tree, "PHY-04", GPU, "rail0: MTU 1500 below 4200")


def test_topo01_rail_misaddressed(tree: Tree):
    tree.replace(GPU, NETPLAN, "addresses: [10.1.0.1/31]", "addresses: [10.2.0.1/31]")
    check(tree, "TOPO-01", GPU, "rail1 address 10.2.0.1/31 is outside every subnet of its leaf su1-r1-leaf",
          also={"HOST-01", "HOST-02", "IP-01"})


def test_topo02_oversubscribed_unless_declared(tmp_path: Path):
    inv = tmp_path / "inventory"
    shutil.copytree(INVENTORY, inv)
    topo = inv / "topology.yaml"
    topo.write_text(topo.read_text().replace("leaf_spine_links: 2 ", "leaf_spine_links: 1 "))
    result = validate(inv, external=False)
    assert has(result, "TOPO-02", LEAF, "oversubscribed 2.00:1 by design (3200G down, 1600G up)"), show(result)
    assert errors(result) == {"TOPO-02"}, show(result)
    topo.write_text(topo.read_text().replace("pods: 1", "pods: 1\n  oversubscription: 2"))
    assert errors(validate(inv, external=False)) == set()


def test_host01_duplicate_main_route(tree: Tree):
    tree.replace(GPU, NETPLAN, "- to: 10.1.0.0/16\n          via: 10.1.0.0\n", "- to: 10.0.0.0/16\n          via: 10.1.0.0\n")
    check(tree, "HOST-01", GPU, "rail1 and rail0 both install 10.0.0.0/16 in the main table")


def test_host02_table_and_via(tree: Tree):
    tree.replace(GPU, NETPLAN, "table: 102\n", "table: 253\n", count=2)
    check(tree, "HOST-02", GPU, "rail1: routing table 253 outside 1..252")


def test_host02_via_outside_subnet(tree: Tree):
    tree.replace(GPU, NETPLAN, "- to: 10.1.0.0/16\n          via: 10.1.0.0\n", "- to: 10.1.0.0/16\n          via: 10.1.0.8\n")
    check(tree, "HOST-02", GPU, "rail1: route to 10.1.0.0/16 via 10.1.0.8 is outside the NIC's subnet(s) 10.1.0.0/31")


def test_host03_rp_filter(tree: Tree):
    tree.replace(GPU, "etc/sysctl.d/90-gpu-rails.conf", "net.ipv4.conf.all.rp_filter = 2", "net.ipv4.conf.all.rp_filter = 1")
    tree.replace(GPU, "etc/sysctl.d/90-gpu-rails.conf", "net.ipv4.conf.rail0.rp_filter = 2", "net.ipv4.conf.rail0.rp_filter = 1")
    check(tree, "HOST-03", GPU, "rail0: rp_filter 1")


def test_cons01_nvue_and_linux_files_disagree(tree: Tree):
    tree.nvue(LEAF, "interface", "swp1", "link", "mtu", value=9000)
    check(tree, "CONS-01", LEAF, "swp1 mtu: Linux files 9216, NVUE 9000")


def test_every_rule_is_tested():
    import re

    text = Path(__file__).read_text()
    tested = set(re.findall(r'"([A-Z]+-\d\d)"', text))
    assert set(load_rules()) <= tested, sorted(set(load_rules()) - tested)


MIXED = ROOT / "examples/mixed-sonic/inventory"


@pytest.mark.skipif(not MIXED.is_dir(), reason="no SONiC example fabric")
def test_sonic_switches_are_parsed_and_checked(tmp_path: Path):
    import json

    result = validate(MIXED, external=False)
    assert not any(f.rule.startswith("PARSE") for f in result.findings), show(result)
    assert errors(result) <= {"AR-01"}, show(result)  # SONiC has no adaptive routing: see the report
    assert result.sim.unreachable == 0
    out = render_to(MIXED, tmp_path / "out")
    db_path = out / "gpu-mixed" / "su1-r0-leaf" / "etc/sonic/config_db.json"
    db = json.loads(db_path.read_text())
    db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,4"
    db_path.write_text(json.dumps(db, indent=2))
    result = validate(MIXED, configs=out, external=False)
    assert has(result, "Q-02", "su1-r0-leaf", "PFC on priorities [3, 4], the fabric uses [3]"), show(result)
