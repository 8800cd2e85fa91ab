"""The frontend's exit (`networks.<name>.upstream`): eBGP from the aggregation switches to site routers.

- the shipped example (examples/cluster-64: fe-agg1/2 to site-rtr1/2) resolves to numbered /31 ports and
  sessions, renders UPSTREAM-IN (default only) / UPSTREAM-OUT (the host pool only) and lets 0.0.0.0/0 into the
  access switches' FABRIC-PREFIXES only;
- the route simulation gives every access switch the default route from the site over both aggregation
  switches, and loses it (SIM-03) when a filter on the way drops it;
- BORDER-01 / PLANE-06 / BGP-07 catch mutations: a storage prefix in the outbound list, a session out of the
  storage or compute network, a wider inbound list, a default route accepted upward;
- inventory mistakes are one-line errors naming file, key and fix (exit 2).
"""

from __future__ import annotations

import json
import shutil
from ipaddress import IPv4Network
from pathlib import Path

import pytest
from conftest import EXAMPLES, edited_copy

from netauto.errors import InventoryError
from netauto.formats.frr import parse_frr
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve
from netauto.model.networks import resolve_cluster
from netauto.pipeline import build_cluster
from netauto.render.engine import render_cluster
from netauto.validate import routesim
from netauto.validate.upstream_sessions import permits
from netauto.validate.files import FileSet
from netauto.validate.networks import check_networks, network_views
from netauto.validate.rules import run_rules
from netauto.validate.view import build_view

CLUSTER = EXAMPLES / "cluster-64" / "inventory"
FRR = "etc/frr/frr.conf"
NVUE = "etc/nvue.d/startup.yaml"
DEFAULT = IPv4Network("0.0.0.0/0")
ACCESS = ["fe-g1-acc0", "fe-g1-acc1", "fe-g2-acc0", "fe-g2-acc1"]


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(CLUSTER)


@pytest.fixture()
def rendered(cluster):
    return FileSet.from_artifacts(render_cluster(cluster))


def frontend(cluster):
    return next(p for p in cluster.networks if p.name == "frontend")


def edit(files: FileSet, device: str, old: str, new: str, path: str = FRR) -> None:
    text = files.get(device, path)
    assert text is not None and old in text, f"{old!r} not in {device} {path}"
    files.files[device][path] = text.replace(old, new, 1)


def network_findings(cluster, files, prefix: str) -> list:
    found, _ = check_networks(cluster, build_view(cluster.compute, files), files, simulate=True)
    return [f for f in found if f.rule.startswith(prefix)]


def frontend_rules(cluster, files, prefix: str) -> list:
    view = network_views(cluster, files)["frontend"]
    return [f for f in run_rules(view) if f.rule.startswith(prefix)]


def simulate(cluster, files) -> routesim.SimResult:
    return routesim.simulate(network_views(cluster, files)["frontend"])


# ---------------------------------------------------------------- model and rendering of the example
def test_aggregation_ports_and_sessions(cluster):
    fab = frontend(cluster).fabric
    agg1, agg2 = fab.switch("fe-agg1"), fab.switch("fe-agg2")
    ports = {i.name: (i.kind, i.address, i.description) for i in agg1.interfaces if i.kind == "upstream"}
    assert ports == {"swp63": ("upstream", "172.31.255.0/31", "to site-rtr1 Ethernet1/1"),
                     "swp64": ("upstream", "172.31.255.2/31", "to site-rtr2 Ethernet1/1")}
    up = agg2.bgp.upstream
    assert up is not None
    assert [(p.address, p.asn, p.interface) for p in up.peers] == [("172.31.255.5", 64900, "swp63"),
                                                                    ("172.31.255.7", 64900, "swp64")]
    assert [r.frr for r in up.accept] == ["0.0.0.0/0"] and [r.frr for r in up.advertise] == ["10.32.0.0/15"]
    assert up.aggregates == ["10.32.0.0/15"] and up.bfd and up.maximum_prefix == 16
    # the default route comes in (access switches) and never goes up (aggregation switches)
    for sw in fab.switches:
        has_default = any(r.prefix == "0.0.0.0/0" and r.le is None for r in sw.bgp.accept_prefixes)
        assert has_default == (sw.role == "leaf"), sw.name
        assert (sw.bgp.upstream is not None) == (sw.role == "spine"), sw.name
    # and nothing of it on the compute fabric or the storage network
    others = cluster.compute.switches + next(p for p in cluster.networks if p.name == "storage").fabric.switches
    assert others and not [sw.name for sw in others if sw.bgp.upstream is not None
                           or any(r.prefix == "0.0.0.0/0" for r in sw.bgp.accept_prefixes)]


def test_rendered_policies(rendered):
    agg = parse_frr(rendered.get("fe-agg1", FRR))
    assert permits(agg.prefix_lists["UPSTREAM-IN"], DEFAULT)
    assert not permits(agg.prefix_lists["UPSTREAM-IN"], IPv4Network("10.0.0.0/8"))
    out = agg.prefix_lists["UPSTREAM-OUT"]
    assert permits(out, IPv4Network("10.32.0.0/15"))
    assert not permits(out, IPv4Network("10.32.0.0/24")), "the host subnets go out as one aggregate"
    assert not permits(out, IPv4Network("10.251.1.1/32")) and not permits(out, DEFAULT)
    nb = agg.effective("172.31.255.1")
    assert (nb.remote_as, nb.peer_group, nb.prefix_list_in, nb.prefix_list_out, nb.maximum_prefix) == \
        ("64900", "UPSTREAM", "UPSTREAM-IN", "UPSTREAM-OUT", 16)
    assert ("10.32.0.0/15", False) in agg.aggregates, "no summary-only: the access switches keep each other's /24s"
    assert not permits(agg.prefix_lists["FABRIC-PREFIXES"], DEFAULT), "no default route up from an access switch"
    acc = parse_frr(rendered.get("fe-g1-acc0", FRR))
    assert permits(acc.prefix_lists["FABRIC-PREFIXES"], DEFAULT)
    assert not permits(acc.prefix_lists["FABRIC-PREFIXES"], IPv4Network("0.0.0.0/1"))
    assert "bfdd=yes" in rendered.get("fe-agg1", "etc/frr/daemons")
    assert "bfdd=no" in rendered.get("fe-g1-acc0", "etc/frr/daemons")
    # the storage and compute networks know nothing of it
    assert "UPSTREAM" not in rendered.get("st-spine1", FRR) and "UPSTREAM" not in rendered.get("spine1", FRR)
    nvue = rendered.get("fe-agg1", NVUE)
    assert "172.31.255.1:\n                type: numbered\n                remote-as: 64900" in nvue


def test_nvue_bfd_per_release(cluster):
    """CL <= 5.14: timers on the neighbour; 5.15+: `router bfd profile` and the neighbour names it (nvueschema)."""
    import copy

    from netauto.render.nvue import nvue_document

    sw = copy.copy(frontend(cluster).fabric.switch("fe-agg1"))
    old = nvue_document(sw)
    nb = old["vrf"]["default"]["router"]["bgp"]["neighbor"]["172.31.255.1"]
    assert nb["bfd"] == {"enable": "on", "detect-multiplier": 3, "min-rx-interval": 300, "min-tx-interval": 300}
    assert "bfd" not in old["router"]
    sw.cumulus_release = "5.15"
    new = nvue_document(sw)
    assert new["vrf"]["default"]["router"]["bgp"]["neighbor"]["172.31.255.1"]["bfd"] == {"profile": "UPSTREAM"}
    assert new["router"]["bfd"] == {"state": "enabled", "profile": {"UPSTREAM": {
        "detect-multiplier": 3, "min-rx-interval": 300, "min-tx-interval": 300}}}


def test_example_validates_clean_with_the_exit(cluster, rendered):
    compute_view = build_view(cluster.compute, rendered)
    found, notes = check_networks(cluster, compute_view, rendered, simulate=True)
    assert not [f for f in found + run_rules(compute_view) if f.severity == "error"], found[:5]
    assert "frontend: default route: 4 of 4 access switches learn 0.0.0.0/0 from 4 upstream session(s), " \
           "ECMP width 10" in notes


# ---------------------------------------------------------------- route simulation
def test_every_access_switch_learns_the_default_over_both_aggregation_switches(cluster, rendered):
    res = simulate(cluster, rendered)
    assert set(res.default_route) == set(ACCESS)
    # 2 aggregation switches x 5 links each; AS path: the aggregation pair, then the site
    assert all(v == (10, (65300, 64900)) for v in res.default_route.values()), res.default_route
    assert not [f for f in res.findings if f.rule == "SIM-03"]


def test_one_aggregation_switch_without_default_halves_the_width(cluster, rendered):
    edit(rendered, "fe-agg1", "ip prefix-list UPSTREAM-IN seq 10 permit 0.0.0.0/0",
         "ip prefix-list UPSTREAM-IN seq 10 permit 192.0.2.0/24")
    res = simulate(cluster, rendered)
    assert {v[0] for v in res.default_route.values()} == {5} and len(res.default_route) == 4
    reduced = sorted((f.device, f.severity, f.message) for f in res.findings if f.rule == "SIM-02")
    assert reduced == [(leaf, "warning", "reduced ECMP: default route over 5 of 10 uplinks to the aggregation switches")
                       for leaf in ACCESS]


def test_access_switch_filtering_the_default_is_sim03(cluster, rendered):
    edit(rendered, "fe-g2-acc1", "ip prefix-list FABRIC-PREFIXES seq 40 permit 0.0.0.0/0\n", "")
    res = simulate(cluster, rendered)
    assert [(f.rule, f.device) for f in res.findings if f.rule == "SIM-03"] == [("SIM-03", "fe-g2-acc1")]
    assert "fe-g2-acc1" not in res.default_route and len(res.default_route) == 3


def test_no_upstream_session_up_is_sim03_everywhere(cluster, rendered):
    for agg in ("fe-agg1", "fe-agg2"):  # the /31s gone: no session can come up
        text = rendered.get(agg, "etc/network/interfaces")
        rendered.files[agg]["etc/network/interfaces"] = "\n".join(
            line for line in text.splitlines() if "address 172.31.255." not in line) + "\n"
    res = simulate(cluster, rendered)
    assert sorted(f.device for f in res.findings if f.rule == "SIM-03") == ACCESS
    assert all("no upstream session is up" in f.message for f in res.findings if f.rule == "SIM-03")


# ---------------------------------------------------------------- rules: mutations
def test_storage_prefix_in_the_outbound_list(cluster, rendered):
    edit(rendered, "fe-agg1", "ip prefix-list UPSTREAM-OUT seq 10 permit 10.32.0.0/15",
         "ip prefix-list UPSTREAM-OUT seq 10 permit 10.32.0.0/15\nip prefix-list UPSTREAM-OUT seq 20 permit 10.16.0.0/16")
    hits = network_findings(cluster, rendered, "PLANE-06")
    assert [(f.device, f.rule) for f in hits] == [("fe-agg1", "PLANE-06")] * 2  # once per session of fe-agg1
    assert "10.16.0.0/16" in hits[0].message and "storage network's host_pool" in hits[0].message
    border = frontend_rules(cluster, rendered, "BORDER-01")
    assert {f.device for f in border} == {"fe-agg1"} and all("10.16.0.0/16" in f.message for f in border)


def test_permit_any_outbound_names_every_other_network(cluster, rendered):
    edit(rendered, "fe-agg2", "ip prefix-list UPSTREAM-OUT seq 10 permit 10.32.0.0/15",
         "ip prefix-list UPSTREAM-OUT seq 10 permit 0.0.0.0/0 le 32")
    hits = network_findings(cluster, rendered, "PLANE-06")
    assert hits and {f.device for f in hits} == {"fe-agg2"} and "0.0.0.0/0" in hits[0].message


def test_no_outbound_filter(cluster, rendered):
    edit(rendered, "fe-agg1", "  neighbor UPSTREAM prefix-list UPSTREAM-OUT out\n", "")
    assert {f.device for f in network_findings(cluster, rendered, "PLANE-06")} == {"fe-agg1"}
    assert any("no outbound prefix-list" in f.message for f in frontend_rules(cluster, rendered, "BORDER-01"))


@pytest.mark.parametrize("device,network", [("st-spine1", "storage"), ("spine1", "compute")])
def test_upstream_session_on_storage_or_compute(cluster, rendered, device, network):
    text = rendered.get(device, FRR)
    asn = parse_frr(text).asn
    edit(rendered, device, f"router bgp {asn}\n",
         f"router bgp {asn}\n neighbor 172.31.254.1 remote-as 64900\n neighbor 172.31.254.1 description site-rtr1\n")
    hits = network_findings(cluster, rendered, "PLANE-06")
    assert [f.device for f in hits] == [device]
    assert f"out of the {network} network" in hits[0].message and "site-rtr1" in hits[0].message


def test_border_rule_catches_wrong_asn_wide_inbound_and_missing_session(cluster, rendered):
    edit(rendered, "fe-agg1", "neighbor 172.31.255.1 remote-as 64900", "neighbor 172.31.255.1 remote-as 64901")
    edit(rendered, "fe-agg2", "ip prefix-list UPSTREAM-IN seq 10 permit 0.0.0.0/0",
         "ip prefix-list UPSTREAM-IN seq 10 permit 0.0.0.0/0 le 32")
    text = rendered.get("fe-agg2", FRR)
    rendered.files["fe-agg2"][FRR] = "\n".join(l for l in text.splitlines() if "172.31.255.7" not in l) + "\n"
    msgs = sorted((f.device, f.message) for f in frontend_rules(cluster, rendered, "BORDER-01"))
    assert any(d == "fe-agg1" and "remote-as 64901, the inventory says 64900" in m for d, m in msgs), msgs
    assert any(d == "fe-agg2" and "172.31.255.5" in m and "permits 0.0.0.0/0" in m for d, m in msgs), msgs
    assert any(d == "fe-agg2" and "site-rtr2 Ethernet1/2 (172.31.255.7): no BGP neighbour" in m for d, m in msgs), msgs


def test_default_route_only_inward(cluster, rendered):
    """BGP-07 holds the aggregation switches' FABRIC-PREFIXES to the fabric's pools: 0.0.0.0/0 there would take a
    default route up from an access switch; on an access switch `0.0.0.0/0 le 32` would accept anything."""
    edit(rendered, "fe-agg1", "ip prefix-list FABRIC-PREFIXES seq 30 permit 10.32.0.0/15 le 32",
         "ip prefix-list FABRIC-PREFIXES seq 30 permit 10.32.0.0/15 le 32\nip prefix-list FABRIC-PREFIXES seq 40 permit 0.0.0.0/0")
    edit(rendered, "fe-g1-acc0", "ip prefix-list FABRIC-PREFIXES seq 40 permit 0.0.0.0/0",
         "ip prefix-list FABRIC-PREFIXES seq 40 permit 0.0.0.0/0 le 32")
    hits = frontend_rules(cluster, rendered, "BGP-07")
    assert {f.device for f in hits} >= {"fe-agg1", "fe-g1-acc0"}
    assert all("0.0.0.0/0" in f.message for f in hits if f.device in ("fe-agg1", "fe-g1-acc0"))
    assert not [f for f in hits if f.device not in ("fe-agg1", "fe-g1-acc0")]


# ---------------------------------------------------------------- inventory errors
def copy_with(tmp_path: Path, *edits: tuple[str, str], dst: Path | None = None) -> Path:
    """A copy of the example with `edits` made to its networks.yaml (in `dst`, default <tmp_path>/inv)."""
    return edited_copy(CLUSTER, dst or tmp_path / "inv", {"networks": list(edits)})


def resolve_all(path: Path):
    loaded = load_inventory(path)
    return resolve_cluster(loaded, resolve(loaded))


LINK1 = "{switch: 1, port: 63, address: 172.31.255.0/31, peer: site-rtr1, peer_port: Ethernet1/1}"


@pytest.mark.parametrize("edits,key,words", [
    ([(LINK1, LINK1.replace("switch: 1", "switch: 3"))], "networks.frontend.upstream.links[0].switch",
     "has 2 aggregation switches"),
    ([(LINK1, LINK1.replace("port: 63", "port: 20"))], "networks.frontend.upstream.links[0].port",
     "cage 20 of fe-agg1 is already used"),
    ([(LINK1, LINK1.replace("port: 63", "port: 65"))], "networks.frontend.upstream.links[0].port", "no front-panel cage 65"),
    ([("peer_asn: 64900", "peer_asn: 65300")], "networks.frontend.upstream.peer_asn", "ASN of the frontend network"),
    ([(LINK1, LINK1.replace("172.31.255.0/31", "10.32.254.0/31"))], "networks.frontend.upstream.links[0].address",
     "overlaps networks.frontend.addressing.host_pool"),
    ([(LINK1, LINK1.replace("172.31.255.0/31", "172.31.255.2/31"))], "networks.frontend.upstream.links[1].address",
     "overlaps networks.frontend.upstream.links.0.address"),
    ([("      maximum_prefix: 16 ", "      accept: [10.0.0.0/8]\n      maximum_prefix: 16 ")],
     "networks.frontend.upstream.accept[0]", "must never cover an address of the cluster"),
    ([("      maximum_prefix: 16 ", "      advertise: [10.16.0.0/16]\n      maximum_prefix: 16 ")],
     "networks.frontend.upstream.advertise[0]", "not inside the frontend network's pools"),
])
def test_resolver_errors(tmp_path, edits, key, words):
    with pytest.raises(InventoryError) as exc:
        resolve_all(copy_with(tmp_path, *edits))
    assert exc.value.exit_code == 2 and exc.value.key == key and words in exc.value.message, exc.value
    assert exc.value.file.name == "networks.yaml" and exc.value.line and exc.value.hint


@pytest.mark.parametrize("edits,key,words", [
    ([(LINK1, LINK1.replace("172.31.255.0/31", "172.31.255.0/29"))], "networks.frontend.upstream.links[0].address",
     "point-to-point /31 or /30"),
    ([(LINK1, LINK1.replace("peer: site-rtr1", "peer_address: 172.31.255.9, peer: site-rtr1"))],
     "networks.frontend.upstream.links[0].peer_address", "not the other end of 172.31.255.0/31"),
    ([(LINK1, LINK1.replace("port: 63", "port: 64"))], "networks.frontend.upstream.links", "both use port 64"),
    ([("      maximum_prefix: 16 ", "      accept_default: false\n      maximum_prefix: 16 ")],
     "networks.frontend.upstream.accept_default", "accepts nothing"),
    ([("    role: storage\n", "    role: storage\n    upstream: {peer_asn: 64900, links: [{switch: 1, port: 60, "
                                "address: 172.31.254.0/31}]}\n")], "networks.storage.upstream", "lossless storage network"),
])
def test_schema_errors(tmp_path, edits, key, words):
    with pytest.raises(InventoryError) as exc:
        load_inventory(copy_with(tmp_path, *edits))
    assert exc.value.exit_code == 2 and exc.value.key == key and words in exc.value.message, exc.value
    assert exc.value.file.name == "networks.yaml" and exc.value.line


def test_cli_bad_upstream_is_one_line_exit_2(tmp_path):
    import subprocess
    import sys

    inv = copy_with(tmp_path, (LINK1, LINK1.replace("switch: 1", "switch: 9")))
    proc = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "networks.yaml" in lines[0] and "upstream.links[0].switch" in lines[0], proc.stderr
    assert "fix: use 1-2" in lines[0] and "Traceback" not in proc.stderr + proc.stdout


# ---------------------------------------------------------------- SONiC frontend
def test_sonic_frontend_exit(tmp_path):
    """The lab's frontend on SONiC with an exit: the /31 in config_db INTERFACE, the sessions in frr.conf, clean."""
    from netauto.pipeline import validate

    dst = tmp_path / "lab"
    shutil.copytree(EXAMPLES / "cluster-lab" / "inventory", dst)
    f = dst / "networks.yaml"
    text = f.read_text()
    old = "    role: frontend\n    qos: lossy\n"
    assert old in text
    text = text.replace(old, old + "    nos: sonic\n    upstream:\n      peer_asn: 64900\n      links:\n"
                        "        - {switch: 1, port: 64, address: 172.31.255.0/31, peer: site-rtr1}\n", 1)
    f.write_text(text)
    result = validate(dst, external=False)
    assert not [x for x in result.findings if x.severity == "error"], result.findings[:5]
    cluster = resolve_all(dst)
    arts = {(a.device, a.path): a.content for a in render_cluster(cluster)}
    db = json.loads(arts[("fe-agg1", "etc/sonic/config_db.json")])
    agg = next(p for p in cluster.networks if p.name == "frontend").fabric.switch("fe-agg1")
    port = agg.interface(agg.bgp.upstream.peers[0].interface)
    # SN4600C (ACS-MSN4600C): cage 64 is a SONiC EthernetN name, not swp64; addressed, in PORT with its speed
    assert port.name.startswith("Ethernet") and port.cage == 64
    assert f"{port.name}|172.31.255.0/31" in db["INTERFACE"] and db["PORT"][port.name]["speed"] == "100000"
    frr = parse_frr(arts[("fe-agg1", "etc/sonic/frr/frr.conf")])
    assert frr.effective("172.31.255.1").prefix_list_out == "UPSTREAM-OUT"
    acc = parse_frr(arts[("fe-acc0", "etc/sonic/frr/frr.conf")])
    assert permits(acc.prefix_lists["FABRIC-PREFIXES"], DEFAULT)
    yang = Path("/work/shared/sonic-yang-models")
    if not (yang / "sonic-types.yang").is_file() or shutil.which("yanglint") is None:
        pytest.skip("SONiC YANG models or yanglint missing: config_db checked by the rules only")
    from netauto.validate.sonic_yang import check_config_dbs

    errors = check_config_dbs({"fe-agg1": db}, yang)
    assert not any(errors.values()), errors


def test_drained_aggregation_switch_keeps_the_default_on_the_other(cluster, rendered):
    """Graceful shutdown of fe-agg1: its default paths lose on local-pref, the access switches keep the default
    over fe-agg2's 5 links each, reported as info (a drain is on purpose), not as an error."""
    res = routesim.simulate(network_views(cluster, rendered)["frontend"], drain=["fe-agg1"])
    assert set(res.default_route) == set(ACCESS) and {w for w, _ in res.default_route.values()} == {5}
    sim = [(f.rule, f.severity) for f in res.findings if "default route" in f.message]
    assert sim == [("SIM-02", "info")] * 4


def test_missing_discard_route(cluster, rendered):
    edit(rendered, "fe-agg2", "ip route 10.32.0.0/15 blackhole\n", "")
    hits = frontend_rules(cluster, rendered, "BORDER-01")
    assert [(f.device, "no discard route for the advertised 10.32.0.0/15" in f.message) for f in hits] == [("fe-agg2", True)]


def test_real_frr_accepts_the_aggregation_config(cluster, tmp_path):
    """vtysh --dryrun and bgpd -C (FRR as shipped on this machine) accept the rendered exit: UPSTREAM peer-group,
    numbered neighbours with BFD timers, the aggregate, the staticd discard route (not a bgpd command).

    Only the FRR checks run (external.frr on every rendered frr.conf, Cumulus and SONiC): `validate` with every
    validator also runs promtool's unit tests of the monitoring rules, ~100 s of CPU that say nothing about FRR."""
    from conftest import require_tool

    from netauto.platforms.nos import cumulus_path, sonic_path
    from netauto.validate import external

    require_tool("vtysh")
    require_tool("bgpd")
    frr_paths = {cumulus_path("frr"), sonic_path("frr")}
    refs = []
    for art in render_cluster(cluster):
        if art.path in frr_paths:
            target = tmp_path / art.device / art.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(art.content)
            refs.append((art.device, target))
    exits = [dev for dev, path in refs if "UPSTREAM" in path.read_text()]
    assert exits, "no rendered frr.conf holds the exit's UPSTREAM peer-group"
    assert external.frr(refs) == []
