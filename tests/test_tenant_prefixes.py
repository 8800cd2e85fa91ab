"""Tenant-owned prefixes (docs/tenants.md, "Tenant-owned prefixes"): the same prefix in two tenants is allowed and
rendered in each tenant's VRF (frr.conf and NVUE, both checked by FRR and NVUE's schema in test_tenants.py); inside
one tenant, against the fabric's pools or via another tenant's server it is refused in one line naming both; the
per-VRF route simulation proves each stays in its VRF, and each mutation of the rendered files that would move or
lose one fails validate."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_tenants import EXAMPLE, copy_with, members

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve_cluster
from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster
from netauto.render.output import write_tree

from _validate_helpers import FRR, Tree, errors, show

ACME = "acme: {servers: [gpu1, gpu2], prefixes: [%s]}"
GLOBEX = "globex: {servers: [gpu3, gpu4]}"


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(EXAMPLE)


def test_overlap_across_tenants_rendered_in_each_vrf(cluster):
    by_leaf = {sw.name: {v.name: v.routes for v in sw.vrfs} for sw in cluster.compute.switches if sw.vrfs}
    assert by_leaf == {"r0-leaf": {"acme": (("172.16.0.0/24", "10.0.0.1"),), "globex": (("172.16.0.0/24", "10.0.0.5"),)},
                       "r1-leaf": {"acme": (("172.16.0.0/24", "10.1.0.1"),), "globex": (("172.16.0.0/24", "10.1.0.5"),)}}
    arts = {(a.device, a.path): a.content for a in render_cluster(cluster)}
    frr = arts[("r0-leaf", FRR)]
    assert "vrf acme\n vni " in frr and " ip route 172.16.0.0/24 10.0.0.1\nexit-vrf" in frr
    assert " ip route 172.16.0.0/24 10.0.0.5\nexit-vrf" in frr and frr.count("  redistribute static\n") == 2
    nvue = arts[("r0-leaf", "etc/nvue.d/startup.yaml")]
    assert nvue.count("          static:\n            172.16.0.0/24:\n              address-family: ipv4-unicast\n") == 2


@pytest.mark.parametrize(("acme", "key", "text"), [
    ("{prefix: 172.16.0.0/24, via: gpu1}, {prefix: 172.16.0.128/25, via: gpu2}", "tenants.members.acme.prefixes[1].prefix",
     "tenant acme: prefix 172.16.0.128/25 overlaps its prefixes[0] 172.16.0.0/24"),
    ("{prefix: 10.254.0.0/28, via: gpu1}", "tenants.members.acme.prefixes[0].prefix",
     "tenant acme: prefix 10.254.0.0/28 overlaps the fabric's addressing.loopbacks.leaf 10.254.0.0/24"),
    ("{prefix: 10.2.0.0/16, via: gpu1}", "tenants.members.acme.prefixes[0].prefix",
     "overlaps the fabric's addressing.host_links.pool 10.0.0.0/14"),
    ("{prefix: 192.168.201.0/25, via: gpu1}", "tenants.members.acme.prefixes[0].prefix",
     "overlaps the fabric's addressing.management.server_pool"),
    ("{prefix: 172.16.0.0/24, via: gpu3}", "tenants.members.acme.prefixes[0].via",
     "prefix 172.16.0.0/24 via gpu3, which is not one of its servers"),
])
def test_refused_in_one_line(tmp_path, acme, key, text):
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(copy_with(tmp_path, members(ACME % acme, GLOBEX))))
    assert exc.value.key == key and text in exc.value.message and exc.value.hint and exc.value.exit_code == 2, \
        exc.value.format()


NETWORKS = EXAMPLE.parent.parent / "cluster-lab" / "inventory" / "networks.yaml"  # storage and frontend networks
OOB = "\noob: {bmc_pool: 192.168.210.0/24, switch_pool: 192.168.211.0/24}\n"


@pytest.mark.parametrize(("prefix", "text"), [
    ("10.16.4.0/24", "overlaps the cluster's networks.storage.addressing.host_pool 10.16.0.0/15"),
    ("10.250.1.0/28", "overlaps the cluster's networks.storage.addressing.spine_loopbacks 10.250.1.0/24"),
    ("10.251.0.0/16", "overlaps the cluster's networks.frontend.addressing.leaf_loopbacks 10.251.0.0/24"),
    ("192.168.203.128/25", "overlaps the cluster's networks.frontend.addressing.switch_mgmt_pool 192.168.203.0/24"),
    ("192.168.210.0/25", "overlaps the cluster's oob.bmc_pool 192.168.210.0/24"),
    ("192.168.211.64/26", "overlaps the cluster's oob.switch_pool 192.168.211.0/24"),
])
def test_refused_against_every_network_of_the_cluster(tmp_path, prefix, text):
    """Not only the compute fabric's pools: a tenant's route to a storage, frontend or OOB address would shadow it
    in the tenant's VRF and on the tenant's servers (which sit on those networks too)."""
    inv = copy_with(tmp_path, members(ACME % f"{{prefix: {prefix}, via: gpu1}}", GLOBEX))
    networks = NETWORKS.read_text().replace("{rail}", "{group}-{rail}")  # 4 GPU servers here: 2 groups of 3
    (inv / "networks.yaml").write_text(networks + OOB)
    with pytest.raises(InventoryError) as exc:
        resolve_cluster(load_inventory(inv))
    assert exc.value.key == "tenants.members.acme.prefixes[0].prefix", exc.value.format()
    assert f"tenant acme: prefix {prefix} {text}" in exc.value.message and exc.value.hint, exc.value.format()


def test_host_bits_refused_through_the_cli(tmp_path):
    inv = copy_with(tmp_path, members(ACME % "{prefix: 172.16.0.1/24, via: gpu1}", GLOBEX))
    r = subprocess.run([sys.executable, "-m", "netauto", "show", "model", "-i", str(inv)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "host bits must be zero" in r.stderr, r.stderr


@pytest.fixture(scope="module")
def tree(cluster, tmp_path_factory):
    out = tmp_path_factory.mktemp("rendered")
    write_tree(render_cluster(cluster), out / cluster.name, manifest=False)
    return out, cluster.name


def test_route_simulation_keeps_each_in_its_vrf(tree, tmp_path):
    result = Tree(tree[0], tmp_path / "clean", fabric=tree[1]).validate(EXAMPLE)
    assert not errors(result), show(result)
    for t in ("acme", "globex"):
        assert (f"tenant {t}: 100% of 4 leaf-VRF-to-own-prefix pairs reachable, 0% of 4 to other tenants' prefixes "
                "(overlapping ones too)") in result.notes, result.notes


@pytest.mark.parametrize(("old", "new", "rule", "text"), [
    # acme's static route written into globex's VRF on r0-leaf: globex now holds acme's storage subnet
    (" ip route 172.16.0.0/24 10.0.0.1\n", "", None, None),
    # r0-leaf's acme VRF stops redistributing static routes: r1-leaf's acme VRF loses gpu1's prefix
    ("  redistribute connected\n  redistribute static\n", "  redistribute connected\n", "SIM-04",
     "tenant acme: VRF acme does not reach 1 of its own prefix(es): r0-leaf route 172.16.0.0/24 via 10.0.0.1"),
])
def test_mutations_fail(tree, tmp_path, old, new, rule, text):
    t = Tree(tree[0], tmp_path / "m", fabric=tree[1])
    if rule is None:  # move the route from acme's vrf block to globex's
        t.replace("r0-leaf", FRR, old, new)
        t.replace("r0-leaf", FRR, " ip route 172.16.0.0/24 10.0.0.5\n", " ip route 172.16.0.0/24 10.0.0.5\n" + old)
        rule, text = "SIM-05", "tenant leak: VRF globex reaches 172.16.0.0/24 of tenant acme (r0-leaf route 172.16.0.0/24 via 10.0.0.1)"
    else:
        t.replace("r0-leaf", FRR, old, new)
    result = t.validate(EXAMPLE)
    assert rule in errors(result) and any(text in f.message for f in result.findings if f.rule == rule), show(result)


@pytest.mark.parametrize("moved", [False, True])
def test_nvue_prefix_outside_its_vrf_is_ten_01(tree, tmp_path, moved):
    t = Tree(tree[0], tmp_path / "nv", fabric=tree[1])
    t.nvue("r0-leaf", "vrf", "acme", "router", "static", delete=True)
    if moved:  # gpu1's storage subnet now in globex's table on r0-leaf
        t.nvue("r0-leaf", "vrf", "globex", "router", "static", "172.16.0.0/24", "via", "10.0.0.1", value={})
    result = t.validate(EXAMPLE)
    where = "VRF globex" if moved else "no VRF"
    assert any(f.rule == "TEN-01" and f.file == "etc/nvue.d/startup.yaml" and
               f"prefix 172.16.0.0/24 via 10.0.0.1 of tenant acme is routed in {where}" in f.message
               for f in result.findings), show(result)
