"""BGP startup protection and inbound limits of fabric sessions (issue #12 item 8): rendered in FRR (Cumulus and
SONiC) and NVUE, and the rules BGP-07 / BGP-08 that find them missing, each broken in a copy of the rendered tree."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from conftest import EXAMPLES

from netauto.pipeline import build_model, render
from netauto.formats.frr import parse_frr

from _validate_helpers import FRR, Tree, errors, has, rendered, show, tree  # noqa: F401

LEAF = "su1-r0-leaf"
SONIC_FRR = "etc/sonic/frr/frr.conf"


def _check(tree: Tree, rule: str, device: str, text: str, also: set[str] = frozenset()) -> None:
    result = tree.validate()
    assert has(result, rule, device, text), show(result)
    assert errors(result) <= {rule} | set(also), show(result)


def _mixed_with_wait_for_install(tmp_path: Path) -> Path:
    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLES / "mixed-sonic" / "inventory", inv)
    fabric = inv / "fabric.yaml"
    data = yaml.safe_load(fabric.read_text())
    data["fabric"]["bgp"]["startup"] = {"wait_for_install": True}
    fabric.write_text(yaml.safe_dump(data, sort_keys=False))
    return inv


def test_default_protection_is_update_delay_only():
    """Default: update-delay on (lab-tested), suppress-fib-pending off (FRR 8.4 then never advertises the
    fabric's own routes, see inventory.schema.BgpStartup)."""
    model, artifacts = render(EXAMPLES / "mixed-sonic" / "inventory")
    files = {(a.device, a.path): a.content for a in artifacts}
    for sw in model.switches:
        conf = parse_frr(files[(sw.name, SONIC_FRR if sw.nos == "sonic" else FRR)])
        assert conf.update_delay == 120 and not conf.suppress_fib_pending, sw.name
        if sw.nos == "cumulus":
            nv = files[(sw.name, "etc/nvue.d/startup.yaml")]
            assert "convergence-wait:\n          time: 120" in nv and "wait-for-install" not in nv
        else:
            assert "suppress-fib-pending" not in files[(sw.name, "etc/sonic/config_db.json")]


def test_frr_and_nvue_carry_protection_and_limits(tmp_path):
    """With wait_for_install: Cumulus frr.conf, NVUE and SONiC frr.conf + config_db of the mixed fabric all carry
    the same protection and limits."""
    inv = _mixed_with_wait_for_install(tmp_path)
    model, artifacts = render(inv)
    files = {(a.device, a.path): a.content for a in artifacts}
    for sw in model.switches:
        path = SONIC_FRR if sw.nos == "sonic" else FRR
        conf = parse_frr(files[(sw.name, path)])
        assert conf.suppress_fib_pending and conf.update_delay == sw.bgp.update_delay == 120, sw.name
        for name in conf.neighbors:
            nb = conf.effective(name)
            assert nb.prefix_list_in == "FABRIC-PREFIXES" and nb.maximum_prefix == sw.bgp.maximum_prefix > 0
        assert [e.prefix for e in conf.prefix_lists["FABRIC-PREFIXES"]] == [p.prefix for p in sw.bgp.accept_prefixes]
        if sw.nos == "sonic":  # suppress-fib-pending needs orchagent to report offload (sonic-device_metadata.yang)
            assert '"suppress-fib-pending": "enabled"' in files[(sw.name, "etc/sonic/config_db.json")]
            assert '"synchronous_mode": "enable"' in files[(sw.name, "etc/sonic/config_db.json")]
        else:
            nv = files[(sw.name, "etc/nvue.d/startup.yaml")]
            assert "wait-for-install: on" in nv and "prefix-list: FABRIC-PREFIXES" in nv
            assert f"maximum: {sw.bgp.maximum_prefix}" in nv


def test_maximum_prefix_is_what_the_address_plan_can_announce():
    """Loopback pools of the roles in use + one leaf block per leaf_prefix_len of the host pool, the same for
    a fabric twice the size in the same plan (growth changes no existing leaf)."""
    from ipaddress import IPv4Network

    inv = EXAMPLES / "2su-leaf-subnet" / "inventory"
    model = build_model(inv)
    from netauto.inventory.loader import load_inventory

    i = load_inventory(inv).inventory
    roles = {s.role for s in model.switches}
    pools = sum(IPv4Network(getattr(i.addressing.loopbacks, r)).num_addresses for r in roles)
    blocks = 2 ** (i.addressing.host_links.leaf_prefix_len - IPv4Network(i.addressing.host_links.pool).prefixlen)
    assert {s.bgp.maximum_prefix for s in model.switches} == {pools + blocks}
    announced = sum(len(s.bgp.networks) + len(s.bgp.aggregates) + (1 if s.svi else 0) for s in model.switches)
    assert pools + blocks > 2 * announced


def test_bgp07_no_inbound_prefix_list(tree: Tree):
    tree.replace(LEAF, FRR, "  neighbor SPINE prefix-list FABRIC-PREFIXES in\n", "")
    _check(tree, "BGP-07", LEAF, "neighbour swp33s0 (peer-group SPINE): no inbound prefix-list", also={"CONS-01"})


def test_bgp07_prefix_list_wider_than_fabric(tree: Tree):
    tree.replace(LEAF, FRR, "ip prefix-list FABRIC-PREFIXES seq 30 permit 10.0.0.0/12 le 32",
                 "ip prefix-list FABRIC-PREFIXES seq 30 permit 0.0.0.0/0 le 32")
    _check(tree, "BGP-07", LEAF, "permits 0.0.0.0/0, outside the fabric's loopback and host pools")


def test_bgp07_no_maximum_prefix(tree: Tree):
    tree.replace(LEAF, FRR, "  neighbor SPINE maximum-prefix 9216 90\n", "")
    _check(tree, "BGP-07", LEAF, "no inbound maximum-prefix", also={"CONS-01"})


def test_bgp08_no_startup_protection(tree: Tree):
    tree.replace(LEAF, FRR, " update-delay 120\n", "")
    result = tree.validate()
    assert has(result, "BGP-08", LEAF, "no `bgp suppress-fib-pending` and no `update-delay`"), show(result)
    # and the NVUE view no longer matches the Linux files
    assert has(result, "CONS-01", LEAF, "BGP update_delay: frr.conf None, NVUE 120"), show(result)


def test_sonic_suppress_fib_pending_passes_yanglint(tmp_path):
    """The SONiC half of wait_for_install against the real YANG models (yanglint): suppress-fib-pending needs
    synchronous_mode enable (sonic-device_metadata.yang `must`), and the rendered DEVICE_METADATA satisfies it."""
    import json

    from conftest import require_tool, sonic_yang_models

    from netauto.validate.sonic_yang import check_config_dbs

    require_tool("yanglint", "apt-get install libyang-tools")
    models = sonic_yang_models()
    _, artifacts = render(_mixed_with_wait_for_install(tmp_path))
    dbs = {a.device: json.loads(a.content) for a in artifacts if a.path == "etc/sonic/config_db.json"}
    assert dbs and check_config_dbs(dbs, models) == {d: [] for d in dbs}
    broken = dbs["spine4"]
    broken["DEVICE_METADATA"]["localhost"]["synchronous_mode"] = "disable"
    assert "synchronous mode must be enabled" in " ".join(check_config_dbs({"spine4": broken}, models)["spine4"])
