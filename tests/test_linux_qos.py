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
