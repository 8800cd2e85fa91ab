"""netauto verify without a lab: parsers on real command outputs (tests/data/verify, see its README), the checks
on a running state mirrored from the model and then broken one way at a time, the report formats, and the NAPALM
driver registration. The live version is tests/test_verify_lab.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from netauto.lab.plan import expected_ecmp
from netauto.napalm import parsers
from netauto.napalm.parsers import BgpPeer, BgpSummary
from netauto.verify import catalog, counter_checks, fabric_checks, output
from netauto.verify.expect import build_intent
from netauto.verify.findings import Report
from netauto.verify.state import DeviceState

DATA = Path(__file__).parent / "data" / "verify"


def _read(name: str) -> str:
    return (DATA / name).read_text()


# ---------------------------------------------------------------------------------------------- parsers


def test_lldp_json0_from_lldpd_names_neighbour_and_port():
    leaf = parsers.parse_lldp_json0(_read("lldpcli-json0-leaf.json"))
    assert [(n.hostname, n.port) for n in leaf["swp33"]] == [("spine1", "swp1")]
    assert [(n.hostname, n.port) for n in leaf["swp1"]] == [("gpu01", "rail0")]
    assert len(leaf) == 9  # 8 uplinks + the one server of the lab subset
    server = parsers.parse_lldp_json0(_read("lldpcli-json0-server.json"))
    assert [(n.hostname, n.port) for n in server["rail0"]] == [("su1-r0-leaf", "swp1")]


def test_frr_summary_and_kernel_routes():
    summ = parsers.parse_bgp_summary(_read("frr-bgp-summary-leaf.json"))
    assert summ.router_id == "10.254.0.1" and summ.local_as == 65101
    assert summ.peers["swp33"].state == "Established" and summ.peers["swp33"].hostname == "spine1"
    widths = parsers.route_widths(_read("ip-route-bgp-leaf.json"))
    assert widths["10.254.0.2/32"] == 8 and widths["10.253.0.1/32"] == 2  # other leaf: 8 uplinks; spine1: 2 links
    links = parsers.parse_ip_link(_read("ip-link-leaf.json"))
    assert links["swp33"].kind == "veth" and links["swp33"].mtu == 9216 and links["swp33"].oper == "UP"


def test_mlnx_qos_text_through_the_shipped_ttp_template():
    q = parsers.parse_mlnx_qos(_read("mlnx_qos-cx7.txt"))
    assert q.trust == "dscp"
    assert q.pfc == [0, 0, 0, 1, 0, 0, 0, 0]
    assert q.tsa == {0: "ets", 3: "ets", 6: "strict"} and q.bw == {0: 50, 3: 50}
    broken = parsers.parse_mlnx_qos(_read("mlnx_qos-cx7.txt").replace("trust state: dscp", "trust state: pcp"))
    assert broken.trust == "pcp"


def test_dcb_json_and_ethtool():
    assert parsers.parse_dcb_pfc(_read("dcb-pfc.json")) == [0, 0, 0, 1, 0, 0, 0, 0]
    ets = parsers.parse_dcb_ets(_read("dcb-ets.json"))
    assert ets.tsa[3] == "ets" and ets.bw[3] == 50
    assert parsers.parse_ethtool_fec("FEC parameters for swp1:\nSupported/Configured FEC encodings: Auto RS\n"
                                     "Active FEC encoding: RS\n") == "rs"
    assert parsers.parse_ethtool_fec("FEC parameters for swp1:\nActive FEC encoding: None\n") == "off"
    assert parsers.parse_ethtool_stats("NIC statistics:\n     rx_prio3_pause: 12\n     tx_bytes: 5\n") == \
        {"rx_prio3_pause": 12, "tx_bytes": 5}


# ---------------------------------------------------------------------------------------------- checks


def healthy(model) -> dict[str, DeviceState]:
    """The running state a correct fabric would show, built from the model (what the checks must accept)."""
    it = build_intent(model)
    widths = expected_ecmp(model)
    states: dict[str, DeviceState] = {}
    for sw in model.switches:
        st = DeviceState(sw.name, "switch", sw.nos, drained=False, widths=dict(widths.get(sw.name, {})))
        st.interfaces = {i.name: {"is_up": i.enabled, "is_enabled": i.enabled, "mtu": i.mtu, "kind": "veth",
                                  "oper_status": "UP" if i.enabled else "DOWN", "speed": 10000.0}
                         for i in sw.interfaces}
        st.lldp = {p: [{"hostname": peer.device, "port": peer.port}] for p, peer in it.cabling[sw.name].items() if peer}
        st.bgp = BgpSummary("x", sw.bgp.asn, {iface: BgpPeer(iface, "Established", 1, sw.bgp.asn, peer.device, 1, 1, 1)
                                              for iface, peer in it.sessions[sw.name].items()})
        states[sw.name] = st
    for srv in model.servers:
        st = DeviceState(srv.name, "server", "linux")
        st.interfaces = {r.nic: {"is_up": True, "is_enabled": True, "mtu": r.mtu, "kind": "veth", "oper_status": "UP",
                                 "speed": 10000.0, "master": srv.bond.name if srv.bond else ""} for r in srv.rails}
        st.lldp = {p: [{"hostname": peer.device, "port": peer.port}] for p, peer in it.cabling[srv.name].items() if peer}
        if srv.bond:  # what the kernel shows for netplan's `bonds:` (ip -j -d link: info_kind bond, mode 802.3ad)
            b = srv.bond
            st.interfaces[b.name] = {"is_up": True, "is_enabled": True, "mtu": b.mtu, "kind": "bond", "oper_status": "UP",
                                     "speed": 0.0, "master": "", "bond_mode": "802.3ad"}
            nics = [(b.name, b.address, b.routes)]
            rules = []
        else:
            nics = [(r.nic, r.address, r.routes) for r in srv.rails]
            rules = [{"priority": r.rule_priority, "src": r.ip, "table": str(r.table)} for r in srv.rails]
        # iproute2 JSON: `default` for 0.0.0.0/0, table "main" or the number, metric when set
        # an on-link route (no `via`) has no "gateway" key and `"scope": "link"` (iproute2 iproute.c print_route)
        routes = [{"dst": "default" if rt.to == "0.0.0.0/0" else rt.to, "dev": nic,
                   **({"gateway": rt.via} if rt.via else {"scope": "link"}),
                   "table": str(rt.table) if rt.table else "main", **({"metric": rt.metric} if rt.metric else {})}
                  for nic, _, rts in nics for rt in rts]
        addrs = [{"ifname": nic, "addr_info": [{"local": a.split("/")[0], "prefixlen": int(a.split("/")[1]),
                                                "scope": "global"}]} for nic, a, _ in nics]
        st.raw = {"rules": (0, json.dumps(rules)), "routes_all": (0, json.dumps(routes)), "addrs": (0, json.dumps(addrs))}
        states[srv.name] = st
    return states


def run_all(model, states) -> Report:
    it = build_intent(model)
    rep = Report(model.name)
    for c in catalog.CATALOG.values():
        rep.findings += list(c.run(it, states))
    return rep


def failures(rep: Report) -> set[tuple[str, str, str]]:
    return {(f.check, f.device, f.item) for f in rep.findings if f.failed}


def test_a_healthy_leaf_subnet_fabric_passes_host_routing():
    """Leaf-subnet host links have on-link routes (no gateway): iproute2 prints them without "gateway", which
    must read as the intended `dev <nic>` route, not as `via None | via -` (issue 34 item 11)."""
    model = _cluster("2su-leaf-subnet").compute
    onlink = [rt for srv in model.servers for r in srv.rails for rt in r.routes if rt.via is None]
    assert onlink, "the leaf-subnet example renders on-link rail routes"
    rep = run_all(model, healthy(model))
    assert not [f for f in rep.findings if f.check == "host-routing" and f.failed], \
        sorted(failures(rep))[:5]
    # an on-link route that points at another NIC still fails
    states = healthy(model)
    srv = model.servers[0]
    routes = json.loads(states[srv.name].raw["routes_all"][1])
    wrong = next(x for x in routes if x["dev"] == srv.rails[0].nic and "gateway" not in x)
    wrong["dev"] = srv.rails[1].nic
    states[srv.name].raw["routes_all"] = (0, json.dumps(routes))
    bad = [f for f in run_all(model, states).findings if f.check == "host-routing" and f.failed]
    assert len(bad) == 1 and srv.rails[1].nic in bad[0].actual, bad


def test_a_fabric_as_intended_passes_and_says_what_it_could_not_check(default_model):
    rep = run_all(default_model, healthy(default_model))
    assert rep.ok, sorted(failures(rep))[:5]
    na = {f.check for f in rep.findings if f.status == "n/a"}
    assert {"speed", "qos", "ar", "host-qos", "counters"} <= na
    assert all(f.reason for f in rep.findings if f.status == "n/a")


def test_swapped_cables_name_all_four_ends(default_model):
    states = healthy(default_model)
    leaf = states["su1-r0-leaf"]
    a, b = leaf.lldp["swp33s0"][0], leaf.lldp["swp34s0"][0]
    leaf.lldp["swp33s0"], leaf.lldp["swp34s0"] = [b], [a]
    s1 = states[a["hostname"]].lldp[a["port"]]
    s2 = states[b["hostname"]].lldp[b["port"]]
    states[a["hostname"]].lldp[a["port"]], states[b["hostname"]].lldp[b["port"]] = s2, s1
    got = {(d, i) for c, d, i in failures(run_all(default_model, states)) if c == "lldp"}
    assert got == {("su1-r0-leaf", "swp33s0"), ("su1-r0-leaf", "swp34s0"), (a["hostname"], a["port"]),
                   (b["hostname"], b["port"])}


def test_bgp_missing_wrong_peer_and_unexpected_sessions(default_model):
    states = healthy(default_model)
    del states["spine3"].bgp.peers["swp2s1"]
    states["su1-r2-leaf"].bgp.peers["swp33s0"].hostname = "spine2"
    states["su1-r3-leaf"].bgp.peers["swp1s0"] = BgpPeer("swp1s0", "Active", 0, 0, None, 0, 0, 0)
    rep = run_all(default_model, states)
    bgp = {(d, i): f for f in rep.findings if f.check == "bgp" and f.failed for d, i in [(f.device, f.item)]}
    assert set(bgp) == {("spine3", "swp2s1"), ("su1-r2-leaf", "swp33s0"), ("su1-r3-leaf", "swp1s0")}
    assert "no such neighbour" in bgp[("spine3", "swp2s1")].actual
    assert "wrong peer" in bgp[("su1-r2-leaf", "swp33s0")].actual
    assert bgp[("su1-r3-leaf", "swp1s0")].expected.startswith("no session")


def test_drained_spine_fails_drain_only_and_ecmp_follows(default_model):
    states = healthy(default_model)
    states["spine2"].drained = True
    for leaf, prefixes in expected_ecmp(default_model, {"spine2"}).items():
        states[leaf].widths = dict(prefixes)
    rep = run_all(default_model, states)
    assert failures(rep) == {("drain", "spine2", "graceful-shutdown")}
    ecmp = next(f for f in rep.findings if f.check == "ecmp" and f.device == "su1-r0-leaf")
    assert ecmp.expected == "6 paths (spine2 drained)"
    # the leaves still at 8 paths although spine2 is drained: ECMP fails on them
    states["su1-r1-leaf"].widths = {p: 8 for p in states["su1-r1-leaf"].widths}
    assert ("ecmp", "su1-r1-leaf", f"{len(states['su1-r1-leaf'].widths)} of {len(states['su1-r1-leaf'].widths)} prefixes") \
        in failures(run_all(default_model, states))


def test_uplink_down_and_mtu_and_host_rule(default_model):
    states = healthy(default_model)
    up = states["su1-r1-leaf"].interfaces["swp33s0"]
    up.update(is_up=False, oper_status="DOWN")
    states["spine1"].interfaces["swp2s0"]["mtu"] = 1500
    srv = default_model.servers[0]
    rules = json.loads(states[srv.name].raw["rules"][1])
    states[srv.name].raw["rules"] = (0, json.dumps(rules[1:]))
    got = failures(run_all(default_model, states))
    assert ("interface", "su1-r1-leaf", "swp33s0") in got
    assert ("interface", "spine1", "swp2s0") in got
    assert ("host-routing", srv.name, f"{srv.rails[0].nic} rule {srv.rails[0].rule_priority}") in got


def test_host_qos_from_mlnx_qos_and_sysfs(default_model):
    states = healthy(default_model)
    srv = default_model.servers[0]
    q = srv.qos
    st = states[srv.name]
    for r in srv.rails:
        st.raw[f"mlnx_qos:{r.nic}"] = (0, _read("mlnx_qos-cx7.txt"))
        st.raw[f"tos:{r.nic}"] = (0, f"Global tclass={q.host_tos}\n")
        st.raw[f"ecn:{r.nic}"] = (0, f"roce_np/enable/{q.roce_priority}:1\nroce_rp/enable/{q.roce_priority}:1\n"
                                      f"roce_np/cnp_dscp:{q.cnp_dscp}\nroce_np/cnp_802p_prio:{q.cnp_priority}\n")
    rep = run_all(default_model, states)
    host = [f for f in rep.findings if f.check == "host-qos" and f.device == srv.name]
    assert host and all(f.status == "pass" for f in host), [f for f in host if f.status != "pass"][:3]
    nic = srv.rails[0].nic
    st.raw[f"mlnx_qos:{nic}"] = (0, _read("mlnx_qos-cx7.txt").replace("trust state: dscp", "trust state: pcp"))
    st.raw[f"ecn:{nic}"] = (0, f"roce_np/enable/{q.roce_priority}:0\n")
    got = failures(run_all(default_model, states))
    assert ("host-qos", srv.name, f"{nic} trust") in got
    assert ("host-qos", srv.name, f"{nic} roce_np ecn prio {q.roce_priority}") in got


def test_counter_window_and_thresholds(default_model):
    states = healthy(default_model)
    srv = default_model.servers[0]
    nic = srv.rails[0].nic
    before = copy.deepcopy(states)
    before[srv.name].raw[f"hw:{nic}"] = (0, "np_cnp_sent:10\nrp_cnp_handled:4\nnp_ecn_marked_roce_packets:100\n")
    states[srv.name].raw[f"hw:{nic}"] = (0, "np_cnp_sent:25\nrp_cnp_handled:4\nnp_ecn_marked_roce_packets:100\n")
    deltas = counter_checks.counter_deltas(before, states)
    assert deltas[srv.name][nic] == {"np_cnp_sent": 15, "rp_cnp_handled": 0, "np_ecn_marked_roce_packets": 0}
    it = build_intent(default_model)
    found = {f.item: f for f in counter_checks.check_counters(it, states, deltas, {"np_cnp_sent": 10}) if f.device == srv.name}
    assert found[f"{nic} np_cnp_sent"].status == "fail" and found[f"{nic} rp_cnp_handled"].status == "pass"
    assert all(f.status == "pass" for f in counter_checks.check_counters(it, states, deltas, {"np_cnp_sent": 20})
               if f.device == srv.name and f.item.startswith(nic))


# ---------------------------------------------------------------------------------------------- reports


def test_json_junit_markdown_carry_the_same_findings(default_model):
    states = healthy(default_model)
    del states["spine3"].bgp.peers["swp2s1"]
    rep = run_all(default_model, states)
    doc = json.loads(output.to_json(rep))
    assert doc["ok"] is False and len(doc["findings"]) == len(rep.findings)
    root = ET.fromstring(output.to_junit(rep))
    cases = root.findall(".//testcase")
    assert len(cases) == len(rep.findings)
    failed = [(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None]
    assert failed == [(f["device"], f"{f['check']} {f['item']}") for f in doc["findings"] if f["status"] == "fail"]
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    assert skipped == doc["counts"]["n/a"]
    md = output.to_markdown(rep)
    assert "| fail | bgp | compute | spine3 | swp2s1 |" in md
    assert all(f["network"] == "compute" for f in doc["findings"])


# ---------------------------------------------------------------------------------------------- NAPALM


@pytest.mark.parametrize("name,cls", [("netauto_cumulus", "CumulusDriver"), ("netauto_sonic", "SonicDriver"),
                                      ("netauto_linux", "LinuxDriver")])
def test_napalm_finds_the_drivers(name, cls):
    napalm = pytest.importorskip("napalm")
    from napalm.base import NetworkDriver

    drv = napalm.get_network_driver(name)
    assert drv.__name__ == cls and issubclass(drv, NetworkDriver)
    assert drv.__module__.startswith("netauto.napalm.")


def test_batch_output_split(monkeypatch):
    from netauto.deploy.connection import CommandResult
    from netauto.napalm.cumulus import Cumulus

    class FakeSession:
        frr_exec = ""

        def run(self, script, timeout=120.0):  # noqa: ANN001 - the script really runs in sh
            import subprocess

            p = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
            return CommandResult(p.returncode, p.stdout, p.stderr)

    d = Cumulus("x", "root", optional_args={"session": FakeSession()})
    out = d.run_batch({"a": "printf 'one\\ntwo\\n'", "b": "false", "c": "echo '__NETAUTO_OUT__ fake'; echo x"})
    assert out["a"] == (0, "one\ntwo") and out["b"][0] == 1
    assert out["c"][1].endswith("x")


def test_backup_json_is_stable():
    from netauto.verify.backup import _stable

    a = '[{"ifname": "lo", "addr_info": [{"local": "10.0.0.1", "valid_life_time": 4294967295, "preferred_life_time": 3}]}]'
    b = '[{"addr_info": [{"preferred_life_time": 9, "local": "10.0.0.1", "valid_life_time": 100}], "ifname": "lo"}]'
    assert _stable(a) == _stable(b)
    assert "life_time" not in _stable(a)
    assert _stable(a) != _stable(a.replace("10.0.0.1", "10.0.0.2"))


@pytest.mark.parametrize("release,on", [("v5_12", {"enable": "on"}), ("v5_15", {"state": "enabled"})])
def test_switch_roce_and_ar_read_from_nvue(default_model, release, on):
    """`nv show qos roce -o json` / `nv show router adaptive-routing -o json` documents shaped (and validated) by
    NVIDIA's NVUE schema (PyPI nvueschema) for the release's boolean spelling; no captured switch output."""
    models = pytest.importorskip(f"nvueschema.models.{release}")
    roce = {**on, "mode": "lossless"}
    ar = dict(on)
    models.NvueConfigQosRoce.model_validate(roce)
    models.NvueConfigRouterAdaptiveRouting.model_validate(ar)
    states = healthy(default_model)
    sw = default_model.switch("spine1")
    st = states["spine1"]
    st.raw.update({"nv": (0, "/usr/bin/nv"), "nv_qos_roce": (0, json.dumps(roce)), "nv_ar": (0, json.dumps(ar))})
    it = build_intent(default_model)
    found = {(f.check, f.item): f for f in fabric_checks.check_switch_qos(it, states) if f.device == "spine1"}
    assert found[("qos", "roce mode")].status == "pass" and found[("qos", "roce")].status == "pass"
    assert found[("ar", "adaptive-routing")].status == ("pass" if sw.adaptive_routing else "fail")
    st.raw["nv_qos_roce"] = (0, json.dumps({**roce, "mode": "lossy"}))
    found = {(f.check, f.item): f for f in fabric_checks.check_switch_qos(it, states) if f.device == "spine1"}
    assert found[("qos", "roce mode")].status == "fail" and found[("qos", "roce mode")].actual == "lossy"
    # other switches have no NVUE here: not applicable, with the reason
    other = [f for f in fabric_checks.check_switch_qos(it, states) if f.device == "spine2"]
    assert other and all(f.status == "n/a" and "NVUE" in f.reason for f in other)


def test_discards_over_a_window_from_kernel_counters(default_model):
    def stats(drops: int) -> str:
        return json.dumps([{"ifname": "swp1s0", "stats64": {"rx": {"dropped": drops, "errors": 0},
                                                           "tx": {"dropped": 0, "errors": 1}}}])

    before, after = healthy(default_model), healthy(default_model)
    before["spine1"].raw["stats"] = (0, stats(5))
    after["spine1"].raw["stats"] = (0, stats(12))
    deltas = counter_checks.counter_deltas(before, after)
    assert deltas["spine1"]["swp1s0"]["discards"] == 7
    it = build_intent(default_model)
    f = {x.item: x for x in counter_checks.check_counters(it, after, deltas, {"discards": 5}) if x.device == "spine1"}
    assert f["swp1s0 discards"].status == "fail" and f["swp1s0 discards"].actual == "7"
    f = {x.item: x for x in counter_checks.check_counters(it, after, deltas, {"discards": 10}) if x.device == "spine1"}
    assert f["swp1s0 discards"].status == "pass"


def test_cli_bad_checks_and_thresholds_exit_2(tmp_path):
    import shutil
    import subprocess
    import sys

    from conftest import DEFAULT_INVENTORY

    p = subprocess.run([sys.executable, "-m", "netauto", "verify", "--checks", "bgp,nonsense", "--lab", "nolab"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "nonsense" in p.stderr and "Traceback" not in p.stderr
    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    text = (inv / "features.yaml").read_text()
    (inv / "features.yaml").write_text(text.replace("features:\n", "features:\n  verify: {thresholds: {np_cnp_sent: lots}}\n", 1))
    p = subprocess.run([sys.executable, "-m", "netauto", "verify", "-i", str(inv), "--checks", "counters", "--window", "1",
                        "--lab", "nolab"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "features.yaml:2" in p.stderr and "thresholds" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([sys.executable, "-m", "netauto", "verify", "--list-checks"], capture_output=True, text=True)
    assert p.returncode == 0 and "host-qos" in p.stdout


# ---------------------------------------------------------------------------------------------- networks


def _cluster(path: str):
    from conftest import EXAMPLES

    from netauto.pipeline import build_cluster

    return build_cluster(EXAMPLES / path / "inventory")


@pytest.fixture(scope="module")
def cluster_lab():
    return _cluster("cluster-lab")


def healthy_cluster(cluster) -> dict[str, DeviceState]:
    """Every network's healthy state; a server on several networks is one device holding all its NICs."""
    states: dict[str, DeviceState] = {}
    for _, fab in cluster.fabrics():
        for name, st in healthy(fab).items():
            have = states.setdefault(name, st)
            if have is st:
                continue
            have.interfaces.update(st.interfaces)
            (have.lldp or {}).update(st.lldp or {})
            for key in ("rules", "routes_all", "addrs"):
                have.raw[key] = (0, json.dumps(json.loads(have.raw[key][1]) + json.loads(st.raw[key][1])))
    return states


def run_cluster(cluster, states, networks=None) -> Report:
    from netauto.verify.run import run_checks

    rep = Report(cluster.name)
    rep.findings = run_checks(networks or cluster.fabrics(), states, set(states))
    return rep


def by_network(rep: Report) -> set[tuple[str, str, str, str]]:
    return {(f.network, f.check, f.device, f.item) for f in rep.findings if f.failed}


def test_every_network_is_checked_against_its_own_intent(cluster_lab):
    states = healthy_cluster(cluster_lab)
    rep = run_cluster(cluster_lab, states)
    assert rep.ok, sorted(by_network(rep))[:5]
    nets = {f.network for f in rep.findings}
    assert nets == {"compute", "storage", "frontend"}
    # a network switch is checked once, on its own network, with the same checks as a compute switch
    st_leaf = {(f.network, f.check) for f in rep.findings if f.device == "st-leaf0"}
    assert {n for n, _ in st_leaf} == {"storage"}
    assert {"bgp", "lldp", "interface", "ecmp", "drain"} <= {c for _, c in st_leaf}
    # a GPU server on all three networks: each network checks its own NICs (address, rule, routes, LLDP)
    gpu = cluster_lab.compute.servers[0].name
    items = {(f.network, f.item) for f in rep.findings if f.device == gpu and f.status == "pass"}
    stor = next(s for s in cluster_lab.network_servers("storage") if s.name == gpu).rails[0]
    fe = next(s for s in cluster_lab.network_servers("frontend") if s.name == gpu).rails[0]
    assert ("storage", f"{stor.nic} address") in items and ("storage", stor.nic) in items  # address, LLDP
    assert ("storage", f"{stor.nic} rule {stor.rule_priority}") in items
    assert ("frontend", f"{fe.nic} table main 0.0.0.0/0 metric 100") in items  # the frontend's default route
    assert not any(n == "compute" and i.startswith(stor.nic) for n, i in items)  # not the compute fabric's port
    # the frontend is lossy: no RoCE QoS on its NICs, said so
    lossy = [f for f in rep.findings if f.check == "host-qos" and f.network == "frontend"]
    assert lossy and all(f.status == "n/a" and "lossy" in f.reason for f in lossy)


def test_a_broken_storage_leaf_is_named_with_the_storage_network(cluster_lab):
    states = healthy_cluster(cluster_lab)
    leaf = cluster_lab.networks[0].fabric.switch("st-leaf0")
    up = leaf.fabric_ports[0]
    states["st-leaf0"].interfaces[up.name].update(is_up=False, oper_status="DOWN")
    del states["st-leaf0"].bgp.peers[up.name]
    gpu = cluster_lab.compute.servers[0].name
    nic = next(s for s in cluster_lab.network_servers("storage") if s.name == gpu).rails[1].nic
    addrs = json.loads(states[gpu].raw["addrs"][1])
    next(a for a in addrs if a["ifname"] == nic)["addr_info"][0]["local"] = "10.16.9.9"
    states[gpu].raw["addrs"] = (0, json.dumps(addrs))
    got = by_network(run_cluster(cluster_lab, states))
    assert ("storage", "interface", "st-leaf0", up.name) in got
    assert ("storage", "bgp", "st-leaf0", up.name) in got
    assert ("storage", "host-routing", gpu, f"{nic} address") in got
    assert {n for n, *_ in got} == {"storage"}  # the compute fabric and the frontend are unaffected


def test_a_bonded_network_checks_the_bond_not_per_nic_routing():
    cluster = _cluster("cluster-64")
    fe = next(p for p in cluster.networks if p.bond)
    fab = fe.fabric
    states = healthy(fab)  # the frontend's devices and NICs only: verify that network alone
    rep = run_cluster(cluster, states, [(fe.name, fab)])
    assert rep.ok, sorted(by_network(rep))[:5]
    srv = fab.servers[0]
    assert srv.bond is not None
    items = {f.item for f in rep.findings if f.device == srv.name and f.check == "host-routing"}
    assert {"bond0 mode", "bond0 members", "bond0 state", "bond0 address", "bond0 table main 0.0.0.0/0"} <= items
    assert not any("rule" in i for i in items)  # bond members carry no per-NIC table
    st = states[srv.name]
    st.interfaces[srv.bond.members[1]]["master"] = ""
    st.interfaces["bond0"]["bond_mode"] = "active-backup"
    got = by_network(run_cluster(cluster, states, [(fe.name, fab)]))
    assert got == {(fe.name, "host-routing", srv.name, "bond0 members"), (fe.name, "host-routing", srv.name, "bond0 mode")}


def test_reads_cover_a_servers_nics_on_every_network(cluster_lab):
    from netauto.deploy.targets import build_targets
    from netauto.render.engine import render_cluster
    from netauto.verify.run import extra_for

    targets = build_targets(cluster_lab, list(render_cluster(cluster_lab)))
    gpu = cluster_lab.compute.servers[0].name
    reads = extra_for(cluster_lab.fabrics(), targets[gpu])
    nics = {r.nic for _, fab in cluster_lab.fabrics() for s in fab.servers if s.name == gpu for r in s.rails}
    assert {f"ecn:{n}" for n in nics} <= set(reads) and "addrs" in reads
    assert "nv_qos_roce" in extra_for(cluster_lab.fabrics(), targets["st-leaf0"])


def test_a_device_with_no_lldp_neighbour_yet_is_one_not_yet_line(default_model):
    """Right after `lab up` (or a reboot) LLDP has not spoken: one line per device saying so, not a failure per
    cable that reads like a mis-cabling."""
    states = healthy(default_model)
    states["su1-r0-leaf"].lldp = {}
    found = [f for f in run_all(default_model, states).findings if f.check == "lldp" and f.device == "su1-r0-leaf"]
    assert len(found) == 1 and found[0].failed and found[0].actual.startswith("not yet"), found
    assert "run verify again" in found[0].reason
