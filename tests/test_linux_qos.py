"""Linux-files QoS equal to NVUE `qos roce` (issue 23 item 2): qos_features.conf trusts PCP and DSCP, qos_infra.conf
holds the lossless (flow control) pool and the switch priority -> egress queue map, deploy pushes both in
linux-files mode, and CONS-01 catches a hand-edited qos_infra.conf that lost the RoCE priority's pool or queue."""

from __future__ import annotations

from _validate_helpers import Tree, has, rendered, show, tree  # noqa: F401  (fixtures)

from netauto.formats.kv import parse_kv
from netauto.platforms.nos import cumulus_path, cumulus_pushed

INFRA = "etc/mlx/datapath/qos/qos_infra.conf"
QOS = "etc/cumulus/datapath/qos/qos_features.conf"
LEAF = "su1-r0-leaf"


def test_linux_files_render_the_lossless_pool_and_the_queue_map(tree: Tree):
    infra = parse_kv(tree.path(LEAF, INFRA).read_text())
    pool = infra["flow_control.ingress_service_pool"]
    assert float(infra[f"ingress_service_pool.{pool}.percent"]) > 0
    assert infra["flow_control.egress_service_pool"] == pool
    # qos roce: SP3 -> TC3 (RoCE), SP6 -> TC6 (CNP), every other priority remapped to TC0
    assert {int(k.split(".")[1][4:]): int(v) for k, v in infra.items() if k.startswith("cos_egr_queue.")} == \
        {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}
    qos = parse_kv(tree.path(LEAF, QOS).read_text())
    assert qos["traffic.packet_priority_source_set"] == "[802.1p,dscp]"
    assert qos["traffic.cos_3.priority_source.8021p"] == "[3]"


def test_linux_files_mode_pushes_qos_infra_and_nvue_mode_does_not():
    assert cumulus_path("qos_infra") in cumulus_pushed("linux-files")
    assert cumulus_path("qos_infra") not in cumulus_pushed("nvue")


def test_validate_catches_a_qos_infra_conf_that_lost_the_roce_pool(tree: Tree):
    tree.replace(LEAF, INFRA, "flow_control.ingress_service_pool = 1\n", "")
    result = tree.validate()
    assert has(result, "CONS-01", LEAF, "qos_infra.conf has none (no flow_control service pool)"), show(result)


def test_validate_catches_a_qos_infra_conf_that_put_roce_on_the_lossy_queue(tree: Tree):
    tree.replace(LEAF, INFRA, "cos_egr_queue.cos_3.uc = 3", "cos_egr_queue.cos_3.uc = 0")
    result = tree.validate()
    assert has(result, "CONS-01", LEAF, "switch priority -> egress queue"), show(result)


def test_validate_catches_dscp_only_trust(tree: Tree):
    tree.replace(LEAF, QOS, "traffic.packet_priority_source_set = [802.1p,dscp]", "traffic.packet_priority_source_set = [dscp]")
    result = tree.validate()
    assert has(result, "CONS-01", LEAF, "QoS trust"), show(result)


def test_untouched_tree_is_consistent(tree: Tree):
    result = tree.validate()
    assert not [f for f in result.findings if f.rule == "CONS-01"], show(result)


SWITCHD = "etc/cumulus/switchd.conf"


def test_linux_files_carry_the_pfc_watchdog_interval_and_robustness_as_nvue_does(tree: Tree):
    """NVUE sets `qos pfc-watchdog polling-interval` / `robustness`; the Linux files must too (switchd.conf
    pfc_wd.poll_interval / pfc_wd.robustness, CL QoS page "PFC Watchdog"), and linux-files mode pushes them."""
    switchd = parse_kv(tree.path(LEAF, SWITCHD).read_text())
    assert (switchd["pfc_wd.poll_interval"], switchd["pfc_wd.robustness"]) == ("100", "3")
    assert cumulus_path("switchd") in cumulus_pushed("linux-files") and cumulus_path("switchd") not in cumulus_pushed("nvue")


def test_validate_catches_a_switchd_conf_whose_pfc_watchdog_differs_from_nvue(tree: Tree):
    tree.replace(LEAF, SWITCHD, "pfc_wd.robustness = 3", "pfc_wd.robustness = 7")
    result = tree.validate()
    assert has(result, "CONS-01", LEAF, "PFC watchdog (polling interval ms, robustness): switchd.conf (100, 7)"), \
        show(result)


PLATFORM_INFRA = """# qos_infra.conf as the platform installs it (abridged)
traffic.cos_0.priority_source.8021p = [0]
ingress_service_pool.0.percent = 100.0
ingress_service_pool.0.mode = 1
egress_service_pool.0.percent = 100.0
  cos_egr_queue.cos_3.uc  = 1
port.management.headroom_buffer.reserved = 0
buffer_config.alpha_values = platform
"""


def test_deploy_sets_netautos_keys_in_the_platforms_qos_infra_conf_and_keeps_every_other_line(tree: Tree):
    """The push's target for qos_infra.conf is the switch's own file with netauto's keys set: platform keys
    netauto does not own stay byte for byte, owned keys get netauto's values in place, keys the file lacks are
    appended; the diff is key by key."""
    from netauto.deploy import common
    from netauto.deploy.push import unified

    intent = tree.path(LEAF, INFRA).read_text()
    merged = common.platform_kv_file(PLATFORM_INFRA.encode(), intent).decode()
    ours = parse_kv(intent)
    assert {k: v for k, v in parse_kv(merged).items() if k in ours} == ours
    assert "port.management.headroom_buffer.reserved = 0\n" in merged and "buffer_config.alpha_values = platform\n" in merged
    assert "  cos_egr_queue.cos_3.uc = 3\n" in merged  # set in place, indentation kept
    assert parse_kv(merged)["ingress_service_pool.0.percent"] == "50.0"  # netauto's lossless split
    diff = unified("/" + INFRA, PLATFORM_INFRA.encode(), merged.encode(), LEAF)
    removed = [ln for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    assert removed == ["-ingress_service_pool.0.percent = 100.0", "-egress_service_pool.0.percent = 100.0",
                       "-  cos_egr_queue.cos_3.uc  = 1"], diff
    assert common.platform_kv_file(merged.encode(), intent).decode() == merged  # idempotent: no diff next time
