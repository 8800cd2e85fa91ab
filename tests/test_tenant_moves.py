"""Moving a server between tenants (docs/tenants.md): the rendered change is the VRF line of that server's leaf
ports and nothing else on any switch or host, and `netauto plan` names the move, its ports and the drain."""

from __future__ import annotations

import difflib
from pathlib import Path

from click.testing import CliRunner
from test_tenants import TENANTS, copy_with

from netauto import pipeline
from netauto.cli.app import cli

MOVED = TENANTS.replace("servers: [gpu1, gpu2]", "servers: [gpu1]").replace("servers: [gpu3, gpu4]",
                                                                             "servers: [gpu3, gpu2, gpu4]")


def _files(path: Path) -> dict[tuple[str, str], str]:
    cluster = pipeline.resolve_cluster_model(pipeline.load(path))
    return {(a.device, a.path): a.content for a in pipeline.iter_files(cluster)}


def _switch_changes(old: dict[tuple[str, str], str], new: dict[tuple[str, str], str],
                    switches: set[str]) -> dict[tuple[str, str], list[tuple[int, str, str]]]:
    """(device, path) -> (line number in NEW, old line, new line) of every line that differs in a switch file."""
    out = {}
    for key in sorted(old.keys() | new.keys()):
        if key[0] not in switches or old.get(key) == new.get(key):
            continue
        a, b = (old.get(key) or "").splitlines(), (new.get(key) or "").splitlines()
        ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        out[key] = [(j1 + k, *pair) for tag, i1, i2, j1, j2 in ops if tag != "equal"
                    for k, pair in enumerate(zip(a[i1:i2], b[j1:j2], strict=False))]
        assert all(tag in ("equal", "replace") and i2 - i1 == j2 - j1 for tag, i1, i2, j1, j2 in ops), key
    return out


def test_move_touches_only_the_servers_leaf_ports(tmp_path):
    old_inv, new_inv = copy_with(tmp_path / "a"), copy_with(tmp_path / "b", tenants=MOVED)
    model = pipeline.resolve_cluster_model(pipeline.load(new_inv))
    switches = {sw.name for sw in model.compute.switches}
    ports = {(sw.name, i.name) for sw in model.compute.switches for i in sw.host_ports if i.peer_device == "gpu2"}
    assert ports == {("r0-leaf", "swp1s1"), ("r1-leaf", "swp1s1")}
    old, new = _files(old_inv), _files(new_inv)
    changes = _switch_changes(old, new, switches)
    assert {dev for dev, _ in changes} == {"r0-leaf", "r1-leaf"}  # the spines and every other file: unchanged
    for (dev, path), lines in changes.items():
        assert path in ("etc/network/interfaces", "etc/nvue.d/startup.yaml"), (dev, path)
        assert [(o, n) for _, o, n in lines] in ([("    vrf acme", "    vrf globex")],
                                                 [("        vrf: acme", "        vrf: globex")]), lines
        # the changed line belongs to gpu2's port: the stanza / NVUE interface key above it names swp1s1
        text = new[(dev, path)].splitlines()
        above = [x for x in text[:lines[0][0]] if x.startswith(("iface ", "      swp", "      br", "      vni"))]
        assert above[-1].strip() in ("iface swp1s1", "swp1s1:"), (dev, path, above[-1])
    hosts = {s.name for s in model.compute.servers}
    assert not [k for k in old.keys() | new.keys() if k[0] in hosts and old.get(k) != new.get(k)]


def test_plan_names_the_move_its_ports_and_the_drain(tmp_path):
    old_inv, new_inv = copy_with(tmp_path / "a"), copy_with(tmp_path / "b", tenants=MOVED)
    res = CliRunner().invoke(cli, ["plan", "--from", str(old_inv), "--to", str(new_inv)])
    assert res.exit_code == 0, res.output
    assert "existing devices whose config changes: 2\n" in res.output
    assert "servers that change tenant: 1\n  gpu2: tenant acme -> globex (VRF of r0-leaf swp1s1, r1-leaf swp1s1); " \
           "drain its jobs first: scontrol update nodename=gpu2 state=drain reason=tenant-move / kubectl drain gpu2\n" \
           in res.output
    same = CliRunner().invoke(cli, ["plan", "--from", str(old_inv), "--to", str(old_inv)])
    assert "change tenant" not in same.output  # no move, no section


def test_plan_names_every_renumbered_tenant(tmp_path):
    """A new vni_pool re-hashes every tenant without `vni:` (a new route_target_asn changes every route target): each
    tenant's VRF changes its L3VNI on all its leaves, and between the first and the last leaf deployed the tenant's
    leaves disagree on it. The plan says so per tenant, not only as "config changes" on every leaf."""
    old_inv = copy_with(tmp_path / "a")
    new_inv = copy_with(tmp_path / "b", tenants=TENANTS.replace("{first: 104000, last: 104999}",
                                                                "{first: 104000, last: 105999}"))
    res = CliRunner().invoke(cli, ["plan", "--from", str(old_inv), "--to", str(new_inv)])
    assert res.exit_code == 0, res.output
    old = {t.name: t for t in pipeline.resolve_cluster_model(pipeline.load(old_inv)).compute.tenants}
    new = {t.name: t for t in pipeline.resolve_cluster_model(pipeline.load(new_inv)).compute.tenants}
    moved = [n for n in old if old[n].vni != new[n].vni]
    assert moved, "the wider pool re-hashes at least one of the two"
    assert f"tenants renumbered: {len(moved)}\n" in res.output, res.output
    for n in moved:
        assert f"  {n}: L3VNI {old[n].vni} -> {new[n].vni}, route target {old[n].route_target} -> " \
               f"{new[n].route_target}" in res.output, res.output
    same = CliRunner().invoke(cli, ["plan", "--from", str(old_inv), "--to", str(old_inv)])
    assert "renumbered" not in same.output
