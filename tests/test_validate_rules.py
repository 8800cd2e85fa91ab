"""Each fabric rule: break exactly that rule in an otherwise clean, rendered gpu-pod1 and find it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from netauto.validate.rules import load_rules
from netauto.pipeline import validate

from _validate_helpers import (
    AR, FRR, IFACES, INVENTORY, NETPLAN, QOS, ROOT, Tree, errors, has, rendered, render_to, show, tree,  # noqa: F401
)

LEAF, LEAF1, SPINE, SPINE2, GPU = "su1-r0-leaf", "su1-r1-leaf", "spine1", "spine2", "gpu01"
MIXED = ROOT / "examples/mixed-sonic/inventory"



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
    tree.replace(LEAF, FRR, "neighbor swp33s0 interface peer-group SPINE", "neighbor swp33s0 peer-group SPINE")
    tree.replace(LEAF, "etc/nvue.d/startup.yaml", "swp33s0:\n                type: unnumbered", "swp33s0:\n                type: numbered")
    check(tree, "BGP-03", LEAF, "swp33s0 (to spine1 swp1s0): neighbour is not unnumbered")


def test_bgp03_fabric_port_without_neighbour(tree: Tree):
    tree.replace(LEAF, FRR, " neighbor swp36s1 interface peer-group SPINE\n neighbor swp36s1 description spine4 swp1s1\n", "")
    tree.nvue(LEAF, "vrf", "default", "router", "bgp", "neighbor", "swp36s1", delete=True)
    check(tree, "BGP-03", LEAF, "swp36s1 (to spine4 swp1s1) is a fabric link but has no BGP neighbour", also={"BGP-04"})


def test_bgp04_remote_as_mismatch(tree: Tree):
    tree.replace(LEAF, FRR, " neighbor swp33s0 interface peer-group SPINE\n",
                 " neighbor swp33s0 interface peer-group SPINE\n neighbor swp33s0 remote-as 65199\n")
    check(tree, "BGP-04", LEAF, "neighbour swp33s0: remote-as 65199 but spine1 is AS 65100")


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
    tree.replace(LEAF, AR, "interface.swp34s0.adaptive_routing.enable = TRUE", "interface.swp34s0.adaptive_routing.enable = FALSE")
    tree.nvue(LEAF, "interface", "swp34s0", "router", delete=True)
    check(tree, "AR-01", LEAF, "adaptive routing off on fabric port(s) swp34s0")


def test_ar01_one_switch_off(tree: Tree):
    text = tree.path(SPINE, AR).read_text().split("adaptive_routing.enable = TRUE")[0] + "adaptive_routing.enable = FALSE\n"
    tree.path(SPINE, AR).write_text(text)
    tree.nvue(SPINE, "router", "adaptive-routing", "enable", value="off")
    for port in [f"swp{i}s{s}" for i in range(1, 9) for s in (0, 1)]:
        tree.nvue(SPINE, "interface", port, "router", delete=True)
    check(tree, "AR-01", SPINE, "adaptive routing off while 11 of 12 switches have it on")


def test_ar05_nvue_spelling(tree: Tree):
    tree.replace(LEAF, "etc/nvue.d/startup.yaml", "      roce:\n        enable: on", "      roce:\n        state: enabled")
    check(tree, "AR-05", LEAF, "target CL 5.14: qos.roce.state: `state: enabled` needs CL 5.15", also={"NVUE-01"})


def test_q01_roce_dscp_not_pfc(tree: Tree):
    tree.replace(LEAF, QOS, "traffic.cos_1.priority_source.dscp = [8,9,10,11,12,13,14,15]",
                 "traffic.cos_1.priority_source.dscp = [8,9,10,11,12,13,14,15,26]")
    tree.replace(LEAF, QOS, "traffic.cos_3.priority_source.dscp = [24,25,26,", "traffic.cos_3.priority_source.dscp = [24,25,")
    tree.nvue(LEAF, "qos", "mapping", value={"default-global": {"dscp": {26: {"switch-priority": 1}}}})
    # RoCE now rides SP1 -> TC0: lossy class, classification off, no ECN on its class
    check(tree, "Q-01", LEAF, "RoCE DSCP 26 maps to priority 1, PFC is on [3]", also={"Q-06", "Q-10", "Q-11"})


def test_q02_host_pfc_priority(tree: Tree):
    tree.replace(GPU, "usr/local/sbin/netauto-roce-qos.sh", "PFC=0,0,0,1,0,0,0,0", "PFC=0,0,0,0,1,0,0,0")
    # the pods' NIC template (K8S-05) now disagrees with the edited host script too
    check(tree, "Q-02", GPU, "host PFC on priorities [4], the switches on [3]", also={"K8S-05"})


def test_q03_host_trust(tree: Tree):
    tree.replace(GPU, "usr/local/sbin/netauto-roce-qos.sh", "--trust=dscp", "--trust=pcp")
    check(tree, "Q-03", GPU, "trust mode 'pcp', must be dscp", also={"K8S-05"})


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
    tree.replace(LEAF, QOS, "pfc_watchdog.pfc_wd_port_group.port_set = swp1s0,swp1s1,", "pfc_watchdog.pfc_wd_port_group.port_set = swp1s0,")
    tree.nvue(LEAF, "interface", "swp1s1", "qos", delete=True)
    check(tree, "PFC-01", LEAF, "no PFC watchdog on 1 PFC port(s): swp1s1")


def test_lag01_fabric_bond(tree: Tree):
    p = tree.path(LEAF, IFACES)
    p.write_text(p.read_text() + "\nauto bond1\niface bond1\n    bond-slaves swp33s0 swp33s1\n")
    tree.nvue(LEAF, "interface", "bond1", value={"type": "bond", "bond": {"member": {"swp33s0": {}, "swp33s1": {}}}})
    check(tree, "LAG-01", LEAF, "fabric port swp33s0 is a member of bond bond1")


def test_phy01_fec_mismatch(tree: Tree):
    text = tree.path(LEAF, IFACES).read_text()
    stanza = text.split("iface swp33s0\n")[1].split("\n\n")[0]
    tree.replace(LEAF, IFACES, "iface swp33s0\n" + stanza, "iface swp33s0\n" + stanza.replace("link-fec rs", "link-fec baser"))
    tree.nvue(LEAF, "interface", "swp33s0", "link", "fec", value="baser")
    check(tree, "PHY-01", LEAF, "swp33s0 <-> spine1 swp1s0: FEC baser vs rs")


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
    tree.nvue(LEAF, "interface", "swp1s0", "link", "mtu", value=9000)
    check(tree, "CONS-01", LEAF, "swp1s0 mtu: Linux files 9216, NVUE 9000")


def test_every_rule_is_tested():
    import re

    # rules of one area may be broken in that area's test file (test_bgp_protection.py, test_nvue_schema.py, ...)
    text = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    tested = set(re.findall(r'"([A-Z]+-\d\d)"', text))
    assert set(load_rules()) <= tested, sorted(set(load_rules()) - tested)


MIXED = ROOT / "examples/mixed-sonic/inventory"  # noqa: F811


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


# ------------------------------------------------------------------ issue #12: hardware, buffers, QoS semantics, L2
PORTS_CONF = "etc/cumulus/ports.conf"


def test_phy05_400g_on_a_whole_800g_cage(tree: Tree):
    # a hand edit undoes the 2x breakout of cage 1: swp1s0 would run 400G on all 8 lanes (8 x 50G), which a
    # 4 x 100G ConnectX-7 port cannot link with
    tree.replace(LEAF, PORTS_CONF, "1=2x", "1=1x")
    check(tree, "PHY-05", LEAF, "swp1s0 400G on 8 lane(s) (50G each; needs 4 x 100G, a 2x breakout of cage 1)")


def test_phy05_nvue_without_breakout(tree: Tree):
    tree.nvue(LEAF, "interface", "swp33", delete=True)
    check(tree, "PHY-05", LEAF, "swp33s0 400G on 8 lane(s)")


def test_q10_roce_priority_on_the_lossy_class(tree: Tree):
    tree.nvue(LEAF, "qos", "egress-queue-mapping", value={"default-global": {"switch-priority": {"3": {"traffic-class": 0}}}})
    check(tree, "Q-10", LEAF, "RoCE (DSCP 26, switch priority 3) egresses on traffic class 0",
          also={"Q-06", "Q-11", "Q-12", "CONS-01"})  # CONS-01: qos_infra.conf still maps SP3 to TC3


def test_q11_qos_features_maps_only_two_dscps(tree: Tree):
    # the old rendering: only DSCP 26 and 48 classified, while `qos roce` maps 24-31 and 48-55 (DSCP >> 3)
    text = tree.path(LEAF, QOS).read_text()
    lines = [ln for ln in text.splitlines() if ".priority_source.dscp" not in ln]
    at = lines.index("traffic.port_default_priority = 0") + 1
    lines[at:at] = ["traffic.cos_3.priority_source.dscp = [26]", "traffic.cos_6.priority_source.dscp = [48]"]
    tree.path(LEAF, QOS).write_text("\n".join(lines) + "\n")
    check(tree, "Q-11", LEAF, "DSCP 8 -> 0 (qos roce 1)", also={"CONS-01"})


def test_q12_ets_weight_nothing_feeds(tree: Tree):
    tree.replace(LEAF, QOS, "default_egress_sched.egr_queue_0.bw_percent = 50",
                 "default_egress_sched.egr_queue_0.bw_percent = 40\ndefault_egress_sched.egr_queue_1.bw_percent = 10")
    tree.nvue(LEAF, "qos", "egress-scheduler", value={"default-global": {"traffic-class": {
        0: {"mode": "dwrr", "bw-percent": 40}, 1: {"mode": "dwrr", "bw-percent": 10},
        3: {"mode": "dwrr", "bw-percent": 50}, 6: {"mode": "strict"}}}})
    check(tree, "Q-12", LEAF, "ETS gives traffic class 1 10 % but no DSCP is classified into it")


def test_q13_red_drop_on_cumulus(tree: Tree):
    tree.replace(LEAF, QOS, "ecn_red.ROCE_ECN.red_enable = false", "ecn_red.ROCE_ECN.red_enable = true")
    check(tree, "Q-13", LEAF, "WRED drop enabled on queue(s) [0, 3]")


def test_buf01_roce_priority_outside_the_lossless_pool(tree: Tree):
    tree.nvue(LEAF, "qos", "traffic-pool", value={"roce-lossless": {"switch-priority": {"4": {}}}})
    # the Linux files still keep priority 3 in their lossless pool: the two views disagree too (CONS-01)
    check(tree, "BUF-01", LEAF, "PFC priority [3] without a lossless buffer", also={"CONS-01"})


def test_l201_host_ports_not_edge(tmp_path: Path):
    two_su = ROOT / "examples/2su-leaf-subnet/inventory"
    t = Tree(render_to(two_su, tmp_path / "out"), tmp_path / "configs", fabric="gpu-2su")
    t.replace("su1-r0-leaf", IFACES, "    mstpctl-bpduguard yes\n", "")
    result = validate(two_su, configs=t.root, external=False)
    assert has(result, "EDGE-01", "su1-r0-leaf", "host port(s) swp1s0 not STP admin-edge with BPDU guard"), show(result)
    assert errors(result) <= {"EDGE-01"}, show(result)
    t.replace("su1-r1-leaf", IFACES, "iface br_default\n", "iface bridge\n")
    t.replace("su1-r1-leaf", IFACES, "auto br_default\n", "auto bridge\n")
    result = validate(two_su, configs=t.root, external=False)
    assert has(result, "EDGE-01", "su1-r1-leaf", "host ports are in bridge bridge, the fabric's bridge is br_default"), show(result)


def _sonic_tree(tmp_path: Path) -> tuple[Path, Path]:
    out = render_to(MIXED, tmp_path / "out")
    return out, out / "gpu-mixed" / "su1-r0-leaf" / "etc/sonic/config_db.json"


def test_buf01_sonic_lossless_pg_missing(tmp_path: Path):
    import json

    out, path = _sonic_tree(tmp_path)
    db = json.loads(path.read_text())
    del db["BUFFER_PG"]["Ethernet0|3"]  # the shape netauto rendered before: only the lossy PG 0
    path.write_text(json.dumps(db, indent=2))
    result = validate(MIXED, configs=out, external=False)
    assert has(result, "BUF-01", "su1-r0-leaf", "PFC priority [3] without a lossless buffer (no headroom: PFC pauses too late) on 1 port(s): Ethernet0"), show(result)
    assert errors(result) <= {"BUF-01"}, show(result)


def test_q09_sonic_cable_length_not_in_the_table(tmp_path: Path):
    import json

    out, path = _sonic_tree(tmp_path)
    db = json.loads(path.read_text())
    db["CABLE_LENGTH"]["AZURE"]["Ethernet0"] = "100m"
    path.write_text(json.dumps(db, indent=2))
    result = validate(MIXED, configs=out, external=False)
    assert has(result, "Q-09", "su1-r0-leaf", "Ethernet0: CABLE_LENGTH 100m is not a 400G row of ACS-SN5600's pg_profile_lookup (5m, 40m, 300m)"), show(result)
    assert errors(result) <= {"Q-09"}, show(result)


def test_q13_sonic_wred_drop_and_phy05_lanes(tmp_path: Path):
    import json

    out, path = _sonic_tree(tmp_path)
    db = json.loads(path.read_text())
    # the colour enables are on (SONiC marks only then) and WRED sits on the lossless queue 3: no finding for that;
    # bound to the lossy queue 0 as well, plain TCP there is WRED-dropped
    db["QUEUE"]["Ethernet0|0"]["wred_profile"] = "ROCE_ECN"
    db["PORT"]["Ethernet0"]["lanes"] = "0,1,2,3,4,5,6,7"
    path.write_text(json.dumps(db, indent=2))
    result = validate(MIXED, configs=out, external=False)
    assert has(result, "Q-13", "su1-r0-leaf", "WRED drop enabled on queue(s) [0]"), show(result)
    assert has(result, "PHY-05", "su1-r0-leaf", "Ethernet0 400G on 8 lane(s)"), show(result)
    assert errors(result) <= {"Q-13", "PHY-05"}, show(result)


def _mutated_sonic(tmp_path: Path, mutate) -> object:  # noqa: ANN001
    import json

    out, path = _sonic_tree(tmp_path)
    db = json.loads(path.read_text())
    mutate(db)
    path.write_text(json.dumps(db, indent=2))
    return validate(MIXED, configs=out, external=False)


def test_sonic01_ecn_without_colour_enables(tmp_path: Path):
    def off(db: dict) -> None:
        for color in ("green", "yellow", "red"):
            db["WRED_PROFILE"]["ROCE_ECN"][f"wred_{color}_enable"] = "false"  # what netauto rendered before
    result = _mutated_sonic(tmp_path, off)
    assert has(result, "SONIC-01", "su1-r0-leaf", "ECN on queue(s) [3] never marks"), show(result)
    assert errors(result) <= {"SONIC-01"}, show(result)


def test_sonic02_active_port_without_profile_lists(tmp_path: Path):
    def drop(db: dict) -> None:
        del db["BUFFER_PORT_INGRESS_PROFILE_LIST"]["Ethernet0"]
        db["BUFFER_PORT_EGRESS_PROFILE_LIST"]["Ethernet12"]["profile_list"] = "egress_lossless_profile,gone_profile"
    result = _mutated_sonic(tmp_path, drop)
    assert has(result, "SONIC-02", "su1-r0-leaf", "2 active port(s) without working buffer profile lists: "
               "Ethernet0: no BUFFER_PORT_INGRESS_PROFILE_LIST; Ethernet12: BUFFER_PORT_EGRESS_PROFILE_LIST names "
               "missing profile(s) gone_profile"), show(result)
    assert errors(result) <= {"SONIC-02"}, show(result)


def test_sonic03_type_without_buffer_defaults(tmp_path: Path):
    def spine(db: dict) -> None:
        db["DEVICE_METADATA"]["localhost"]["type"] = "SpineRouter"  # what spines were: buffers_defaults_t2.j2
    result = _mutated_sonic(tmp_path, spine)
    assert has(result, "SONIC-03", "su1-r0-leaf", "DEVICE_METADATA type SpineRouter selects buffers_defaults_t2.j2, "
               "which HWSKU ACS-SN5600 lacks (it has t0, t1)"), show(result)
    assert errors(result) <= {"SONIC-03"}, show(result)
