"""`netauto validate --batfish`: Batfish answers -> findings, gap filters, rail-pair traceroutes, fail-fast errors.

The answers are real pybatfish `TableAnswer` objects built from JSON rows shaped like the Batfish service
returns them (column names and schemas of InitIssuesAnswerer, FileParseStatusAnswerer,
BgpSessionCompatibilityAnswerer, BgpSessionStatusAnswerer, IpOwnersAnswerer, UndefinedReferences and
TracerouteAnswerer), so `.frame()` yields the same pandas frames and pybatfish objects (Interface,
FileLines, Trace, Flow) a live service produces. No Batfish service runs here; the live test is opt-in
(NETAUTO_BATFISH_HOST).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from _validate_helpers import INVENTORY, ROOT

from netauto.validate import batfish_answers as bfa
from netauto.validate import batfish_client as bfc
from netauto.pipeline import build
from netauto.validate.batfish import build_snapshot
from netauto.validate.files import FileSet

LEAF_SUBNET = ROOT / "examples/2su-leaf-subnet/inventory"
MIXED_SONIC = ROOT / "examples/mixed-sonic/inventory"


def load_files(inventory: Path):
    """The compute model and the rendered files, as `validate --batfish` hands them to the snapshot."""
    built = build(inventory)
    return built.model, FileSet.from_artifacts(built.artifacts)


# ---------------------------------------------------------------- real pybatfish answers
def answer(columns: list[tuple[str, str]], rows: list[dict]):
    table = pytest.importorskip("pybatfish.datamodel.answer.table", reason="pybatfish not installed (netauto-fabric[batfish])")
    return table.TableAnswer({
        "answerElements": [{
            "class": "org.batfish.datamodel.table.TableAnswerElement",
            "metadata": {"columnMetadata": [{"name": n, "schema": s, "isKey": True, "isValue": False} for n, s in columns]},
            "rows": rows,
        }],
        "status": "SUCCESS",
    })


INIT_ISSUES = [("Nodes", "List<String>"), ("Source_Lines", "List<FileLines>"), ("Type", "String"),
               ("Details", "String"), ("Line_Text", "String"), ("Parser_Context", "String")]
PARSE_STATUS = [("File_Name", "String"), ("Status", "String"), ("File_Format", "String"), ("Nodes", "List<Node>")]
BGP_COMMON = [("Node", "Node"), ("VRF", "String"), ("Local_AS", "Long"), ("Local_Interface", "Interface"),
              ("Local_IP", "Ip"), ("Remote_AS", "String"), ("Remote_Node", "Node"), ("Remote_Interface", "Interface"),
              ("Remote_IP", "SelfDescribing"), ("Address_Families", "Set<String>"), ("Session_Type", "String")]
BGP_COMPAT = BGP_COMMON + [("Configured_Status", "String")]
BGP_STATUS = BGP_COMMON + [("Established_Status", "String")]
IP_OWNERS = [("Node", "String"), ("VRF", "String"), ("Interface", "String"), ("IP", "Ip"), ("Mask", "Integer"),
             ("Active", "Boolean")]
UNDEF_REFS = [("File_Name", "String"), ("Struct_Type", "String"), ("Ref_Name", "String"), ("Context", "String"),
              ("Lines", "FileLines")]
TRACEROUTE = [("Flow", "Flow"), ("Traces", "List<Trace>"), ("TraceCount", "Integer")]


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    model, files = load_files(INVENTORY)
    out = tmp_path_factory.mktemp("bf") / "snap"
    return build_snapshot(model, files, out), model, files


def cfg_line(snapshot, device: str, text: str) -> int:
    lines = (snapshot.root / "configs" / f"{device}.cfg").read_text().splitlines()
    return lines.index(text) + 1


def issue(file: str, line: int, kind: str, details: str, text: str | None, nodes=None) -> dict:
    return {"Nodes": nodes, "Source_Lines": [{"filename": file, "lines": [line]}] if file else None, "Type": kind,
            "Details": details, "Line_Text": text, "Parser_Context": "[s_line cumulus_frr_configuration]"}


def test_init_issues_map_to_on_device_file_and_line_and_gaps_are_filtered(snap):
    s, _, files = snap
    leaf = "su1-r0-leaf"
    adv = " neighbor SPINE advertisement-interval 0"
    rows = [
        issue(f"configs/{leaf}.cfg", cfg_line(s, leaf, adv), "Parse warning", "This syntax is unrecognized", adv),
        issue(f"configs/{leaf}.cfg", cfg_line(s, leaf, "    address ::1/128"), "Parse warning",
              "This syntax is unrecognized", "    address ::1/128"),
        issue(f"configs/{leaf}.cfg", cfg_line(s, leaf, "    link-fec rs"), "Parse warning",
              "This syntax is unrecognized", "    link-fec rs"),
        issue("configs/spine1.cfg", cfg_line(s, "spine1", "bgp community-list standard GSHUT seq 5 permit graceful-shutdown"),
              "Parse warning", "This syntax is unrecognized", "bgp community-list standard GSHUT seq 5 permit graceful-shutdown"),
        issue("", 0, "Convert warning (unimplemented)", "PFC watchdog is not supported", None, ["spine2"]),
        issue("", 0, "Convert error", "Could not convert spine3: NullPointerException", None, ["spine3"]),
        # a parse *error* is never excused by a gap, even when its text looks like one
        issue("configs/spine4.cfg", 5, "Parse error", "Lexer error near ipv6", "ipv6 forwarding"),
    ]
    frame = answer(INIT_ISSUES, rows).frame()
    filtered: Counter[str] = Counter()
    found = bfa.parse_findings(frame, None, s, filtered)
    assert filtered == {"ipv6": 1, "nvue-only": 1, "gshut": 1, "qos": 1}
    got = {(f.rule, f.severity, f.device, f.file, f.line) for f in found}
    frr_line = files.get(leaf, "etc/frr/frr.conf").splitlines().index(adv) + 1
    assert ("BF-PARSE", "warning", leaf, "etc/frr/frr.conf", frr_line) in got
    assert ("BF-PARSE", "error", "spine3", None, None) in got
    spine4 = next(f for f in found if f.device == "spine4")
    assert spine4.severity == "error" and spine4.file == "etc/network/interfaces" and spine4.line == 3
    assert "Parse error: Lexer error near ipv6" in spine4.message
    assert len(found) == 3
    notes = bfa.gap_notes(filtered)
    assert any("known gap 'gshut'" in n and "graceful-shutdown" in n for n in notes)


def test_file_parse_status(snap):
    s, _, _ = snap
    rows = [
        {"File_Name": "configs/spine1.cfg", "Status": "PASSED", "File_Format": "CUMULUS_CONCATENATED", "Nodes": [{"name": "spine1"}]},
        {"File_Name": "configs/spine2.cfg", "Status": "PARTIALLY_UNRECOGNIZED", "File_Format": "CUMULUS_CONCATENATED",
         "Nodes": [{"name": "spine2"}]},
        {"File_Name": "configs/spine3.cfg", "Status": "FAILED", "File_Format": "CUMULUS_CONCATENATED", "Nodes": []},
        {"File_Name": "configs/spine4.cfg", "Status": "PASSED", "File_Format": "CISCO_IOS", "Nodes": [{"name": "spine4"}]},
    ]
    found = bfa.parse_findings(None, answer(PARSE_STATUS, rows).frame(), s, Counter())
    assert [(f.device, f.severity) for f in found] == [("spine3", "error"), ("spine4", "error")]
    assert "FAILED" in found[0].message and "CISCO_IOS" in found[1].message


def iface(host: str, name: str) -> dict:
    return {"hostname": host, "interface": name}


def session(node, port, remote, rport, status_col, status, local_as=65101, remote_as="65100"):
    return {"Node": {"name": node}, "VRF": "default", "Local_AS": local_as, "Local_Interface": iface(node, port),
            "Local_IP": None, "Remote_AS": remote_as, "Remote_Node": {"name": remote} if remote else None,
            "Remote_Interface": iface(remote, rport) if remote else None, "Remote_IP": None,
            "Address_Families": ["IPV4_UNICAST"] if remote else [], "Session_Type": "EBGP_UNNUMBERED", status_col: status}


def test_bgp_compatibility_and_status(snap):
    s, _, _ = snap
    compat = answer(BGP_COMPAT, [
        session("su1-r0-leaf", "swp33", "spine1", "swp1", "Configured_Status", "UNIQUE_MATCH"),
        session("su1-r0-leaf", "swp34", None, None, "Configured_Status", "NO_MATCH_FOUND",
                remote_as="[0-65100, 65102-4294967295]"),
    ]).frame()
    found = bfa.bgp_compat_findings(compat, s)
    assert len(found) == 1
    f = found[0]
    assert (f.rule, f.severity, f.device, f.file) == ("BF-BGP-COMPAT", "error", "su1-r0-leaf", "etc/frr/frr.conf")
    assert "swp34" in f.message and "NO_MATCH_FOUND" in f.message and "no compatible remote peer" in f.message

    status = answer(BGP_STATUS, [
        session("spine1", "swp1", "su1-r0-leaf", "swp33", "Established_Status", "ESTABLISHED"),
        session("spine1", "swp2", "su1-r0-leaf", "swp34", "Established_Status", "NOT_ESTABLISHED"),
        session("su1-r0-leaf", "swp34", None, None, "Established_Status", "NOT_COMPATIBLE"),
    ]).frame()
    found, incompatible = bfa.bgp_status_findings(status, s)
    assert incompatible == 1
    assert [(f.rule, f.device) for f in found] == [("BF-BGP-STATUS", "spine1")]
    assert "swp2 -> su1-r0-leaf swp34" in found[0].message and "NOT_ESTABLISHED" in found[0].message


def test_duplicate_ips_ignore_the_mgmt_vrf_loopback():
    rows = [
        {"Node": "spine1", "VRF": "mgmt", "Interface": "mgmt", "IP": "127.0.0.1", "Mask": 8, "Active": True},
        {"Node": "spine2", "VRF": "mgmt", "Interface": "mgmt", "IP": "127.0.0.1", "Mask": 8, "Active": True},
        {"Node": "su1-r0-leaf", "VRF": "default", "Interface": "lo", "IP": "10.254.0.1", "Mask": 32, "Active": True},
        {"Node": "su1-r1-leaf", "VRF": "default", "Interface": "lo", "IP": "10.254.0.1", "Mask": 32, "Active": True},
    ]
    filtered: Counter[str] = Counter()
    found = bfa.dup_ip_findings(answer(IP_OWNERS, rows).frame(), filtered)
    assert filtered == {"mgmt-vrf-loopback": 2}
    assert {(f.rule, f.severity, f.device) for f in found} == {
        ("BF-DUP-IP", "error", "su1-r0-leaf"), ("BF-DUP-IP", "error", "su1-r1-leaf")}
    assert "10.254.0.1/32 on lo is also on su1-r1-leaf[lo]" in next(f.message for f in found if f.device == "su1-r0-leaf")


def test_undefined_references(snap):
    s, _, files = snap
    leaf = "su1-r0-leaf"
    ref = "  neighbor SPINE route-map FABRIC-IN in"
    rows = [
        {"File_Name": f"configs/{leaf}.cfg", "Struct_Type": "route-map", "Ref_Name": "FABRIC-IN",
         "Context": "bgp inbound route-map", "Lines": {"filename": f"configs/{leaf}.cfg", "lines": [cfg_line(s, leaf, ref)]}},
        {"File_Name": "configs/spine1.cfg", "Struct_Type": "community-list", "Ref_Name": "GSHUT",
         "Context": "route-map match community-list", "Lines": {"filename": "configs/spine1.cfg", "lines": [170]}},
    ]
    filtered: Counter[str] = Counter()
    found = bfa.undefined_ref_findings(answer(UNDEF_REFS, rows).frame(), s, filtered)
    assert filtered == {"gshut": 1}
    assert len(found) == 1
    f = found[0]
    assert (f.rule, f.severity, f.device, f.file) == ("BF-UNDEF-REF", "error", leaf, "etc/frr/frr.conf")
    assert f.line == files.get(leaf, "etc/frr/frr.conf").splitlines().index(ref) + 1
    assert "route-map `FABRIC-IN`" in f.message


@pytest.mark.parametrize("text,gap", [
    ("bgp graceful-shutdown", "gshut"),
    ("qos roce lossless", "qos"),
    ("PFC_WD|Ethernet0", "qos"),
    ("adaptive-routing enable", "adaptive-routing"),
    ("address-family ipv6 unicast", "ipv6"),
    ("address ::1/128", "ipv6"),
    ("neighbor swp1 capability extended-nexthop", "ipv6"),
    ("link-fec rs", "nvue-only"),
    ("neighbor SPINE advertisement-interval 0", None),
    ("route-map FABRIC-IN permit 10", None),
    ("router bgp 65101", None),
])
def test_gap_filter(text: str, gap: str | None):
    got = bfa.gap_of(text)
    assert (got.name if got else None) == gap


# ---------------------------------------------------------------- traceroute per rail pair
@pytest.mark.parametrize("inventory", [INVENTORY, LEAF_SUBNET])
def test_trace_pair_selection(inventory: Path):
    model, _ = load_files(inventory)
    rails = sorted({r.index for s in model.servers for r in s.rails})
    pairs = bfa.select_trace_pairs(model)
    leaves = {sw.name for sw in model.switches}
    unordered = {frozenset((p.src_rail, p.dst_rail)) for p in pairs if p.src_rail != p.dst_rail}
    assert unordered == {frozenset((a, b)) for a in rails for b in rails if a < b}  # every rail pair once
    for p in pairs:
        src = next(s for s in model.servers if s.name == p.src_server)
        dst = next(s for s in model.servers if s.name == p.dst_server)
        src_rail = next(r for r in src.rails if r.index == p.src_rail)
        leaf = model.switch(src_rail.leaf)
        port = leaf.svi.name if model.host_link_mode == "leaf-subnet" else src_rail.leaf_port  # layer-3 entry
        assert (p.src_ip, p.src_leaf, p.src_port) == (src_rail.ip, src_rail.leaf, port)
        assert p.dst_ip == next(r.ip for r in dst.rails if r.index == p.dst_rail)
        assert p.src_server != p.dst_server and p.src_leaf != p.dst_leaf and {p.src_leaf, p.dst_leaf} <= leaves
        assert p.start_location == f"@enter({p.src_leaf}[{p.src_port}])"
    assert len({p.src_server for p in pairs}) > 1  # representatives rotate over the servers
    sus = {s.su for s in model.servers}
    if len(sus) > 1:  # several SUs: one same-rail pair per rail, and destinations in another SU
        assert {p.src_rail for p in pairs if p.src_rail == p.dst_rail} == set(rails)
        su_of = {s.name: s.su for s in model.servers}
        assert all(su_of[p.src_server] != su_of[p.dst_server] for p in pairs)
    else:
        assert len(pairs) == len(rails) * (len(rails) - 1) // 2


def test_trace_pair_count_is_bounded():
    model, _ = load_files(LEAF_SUBNET)
    assert len(bfa.select_trace_pairs(model, limit=10)) == 10
    assert len({(p.src_rail, p.dst_rail) for p in bfa.select_trace_pairs(model, limit=10)}) == 10
    assert bfa.select_trace_pairs(model, limit=0) == []


def flow(src: str, dst: str, node: str, port: str) -> dict:
    return {"dscp": 26, "dstIp": dst, "dstPort": 4791, "ecn": 0, "fragmentOffset": 0, "icmpCode": None, "icmpVar": None,
            "ingressInterface": port, "ingressNode": node, "ingressVrf": None, "ipProtocol": "UDP", "packetLength": 512,
            "srcIp": src, "srcPort": 49152, "tcpFlagsAck": None, "tcpFlagsCwr": None, "tcpFlagsEce": None,
            "tcpFlagsFin": None, "tcpFlagsPsh": None, "tcpFlagsRst": None, "tcpFlagsSyn": None, "tcpFlagsUrg": None}


def hop(node: str, inp: str, out: str | None) -> dict:
    steps = [{"type": "EnterInputInterface", "action": "RECEIVED",
              "detail": {"inputInterface": {"hostname": node, "interface": inp}, "inputVrf": "default"}}]
    if out:
        steps.append({"type": "ExitOutputInterface", "action": "TRANSMITTED",
                      "detail": {"outputInterface": {"hostname": node, "interface": out}}})
    return {"node": {"name": node}, "steps": steps}


def test_trace_findings():
    model, _ = load_files(INVENTORY)
    ok_pair, bad_pair = bfa.select_trace_pairs(model)[:2]

    def traces(pair, dispositions):
        return answer(TRACEROUTE, [{
            "Flow": flow(pair.src_ip, pair.dst_ip, pair.src_leaf, pair.src_port),
            "Traces": [{"disposition": d, "hops": [hop(pair.src_leaf, pair.src_port, "swp33"),
                                                    hop("spine1", "swp1", None if d == "NO_ROUTE" else f"swp{i}")]}
                       for i, d in enumerate(dispositions, 1)],
            "TraceCount": len(dispositions)}]).frame()

    results = [(ok_pair, traces(ok_pair, ["DELIVERED_TO_SUBNET"] * 8)),
               (bad_pair, traces(bad_pair, ["DELIVERED_TO_SUBNET"] * 6 + ["NO_ROUTE"] * 2))]
    found, notes = bfa.trace_findings(results)
    assert len(found) == 1
    f = found[0]
    assert (f.rule, f.severity, f.device) == ("BF-TRACE", "error", bad_pair.src_leaf)
    assert "2 NO_ROUTE of 8 path(s), last hop spine1" in f.message and bad_pair.dst_ip in f.message
    assert notes == ["batfish: traceroute 1/2 rail-pair flow(s) delivered; ECMP paths per flow 8-8"]
    found, _ = bfa.trace_findings([(ok_pair, answer(TRACEROUTE, []).frame())])
    assert found[0].rule == "BF-TRACE" and "no trace" in found[0].message


# ---------------------------------------------------------------- the whole `ask` against a stand-in session
class FakeQuestion:
    def __init__(self, session: FakeSession, name: str, params: dict):
        self.session, self.name, self.params = session, name, params

    def answer(self, snapshot: str | None = None):
        self.session.asked.append((self.name, self.params))
        return self.session.answers.get(self.name, answer([("X", "String")], []))


class FakeQ:
    def __init__(self, session: FakeSession):
        self._session = session

    def __getattr__(self, name: str):
        if name in self._session.missing:
            raise AttributeError(name)
        return lambda **params: FakeQuestion(self._session, name, params)


class FakeSession:
    """Stands in for pybatfish.client.session.Session: records what `ask` does; answers are real TableAnswers."""

    def __init__(self, answers: dict, missing: set[str] = frozenset()):
        self.answers, self.missing = answers, set(missing)
        self.asked: list[tuple[str, dict]] = []
        self.network = self.snapshot_dir = None
        self.q = FakeQ(self)

    def set_network(self, name: str) -> str:
        self.network = name
        return name

    def init_snapshot(self, upload: str, name: str | None = None, overwrite: bool = False) -> str:
        self.snapshot_dir = Path(upload)
        assert (self.snapshot_dir / "batfish" / "layer1_topology.json").is_file()
        assert min(p.name for p in (self.snapshot_dir / "configs").iterdir()) == "spine1.cfg"
        return name or "ss"


def test_run_asks_every_question_and_merges_findings():
    dup = answer(IP_OWNERS, [
        {"Node": "spine1", "VRF": "default", "Interface": "lo", "IP": "10.253.0.1", "Mask": 32, "Active": True},
        {"Node": "spine2", "VRF": "default", "Interface": "lo", "IP": "10.253.0.1", "Mask": 32, "Active": True}])
    fake = FakeSession({"ipOwners": dup}, missing={"undefinedReferences"})
    report = bfc.run(bfc.Target("127.0.0.1", 9996), *load_files(INVENTORY), session_factory=lambda t: fake)
    names = [n for n, _ in fake.asked]
    assert names[:5] == ["initIssues", "fileParseStatus", "bgpSessionCompatibility", "bgpSessionStatus", "ipOwners"]
    assert dict(fake.asked)["ipOwners"] == {"duplicatesOnly": True}
    assert names.count("traceroute") == 28  # 8 rails: every unordered rail pair once
    tr = next(p for n, p in fake.asked if n == "traceroute")
    assert tr["startLocation"].startswith("@enter(su1-r") and tr["headers"].dstPorts == "4791"
    assert fake.network == "netauto-gpu-pod1" and not fake.snapshot_dir.exists()  # temp snapshot cleaned up
    assert {(f.rule, f.device) for f in report.findings} >= {("BF-DUP-IP", "spine1"), ("BF-DUP-IP", "spine2")}
    assert any(f.rule == "BF-TRACE" for f in report.findings)  # empty traceroute answers are failures
    assert "skipped: batfish question undefinedReferences (not offered by this Batfish service)" in report.notes
    assert any(n.startswith("ran: batfish at 127.0.0.1:9996 on 12 switch config(s), 128 layer-1 edges") for n in report.notes)


def test_service_failure_mid_run_is_a_one_line_error():
    class Broken(FakeSession):
        def init_snapshot(self, *a, **kw):
            raise ConnectionError("Connection aborted.\nRemoteDisconnected('Remote end closed connection')")

    with pytest.raises(bfc.BatfishError, match=r"failed after .*ConnectionError: Connection aborted\.$"):
        bfc.run(bfc.Target("127.0.0.1", 9996), *load_files(INVENTORY), session_factory=lambda t: Broken({}))


# ---------------------------------------------------------------- fail fast: no module, no server, silent server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("text,host,port", [
    ("localhost", "localhost", 9996), ("bf.lab:9000", "bf.lab", 9000), ("http://bf.lab:9996/", "bf.lab", 9996),
    ("[::1]:9996", "::1", 9996), ("::1", "::1", 9996)])
def test_parse_target(text, host, port):
    assert bfc.parse_target(text) == bfc.Target(host, port)


@pytest.mark.parametrize("text", ["bf.lab:http", "bf.lab:70000", ":9996", "[::1"])
def test_parse_target_rejects(text):
    with pytest.raises(bfc.BatfishError):
        bfc.parse_target(text)


def test_no_server_is_a_clear_error_within_seconds():
    pytest.importorskip("pybatfish", reason="pybatfish not installed (netauto-fabric[batfish])")
    port = free_port()  # nothing listens there
    args = [sys.executable, "-m", "netauto", "validate", "--no-external", "--no-simulate"]
    t0 = time.perf_counter()  # the same run without Batfish: what start-up, render and rules cost on this machine now
    subprocess.run(args, check=False, capture_output=True, text=True, cwd=ROOT, timeout=300)
    baseline = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = subprocess.run([*args, "--batfish", f"127.0.0.1:{port}"], check=False, capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    elapsed = time.perf_counter() - t0 - baseline
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"no Batfish service at 127.0.0.1:{port}" in r.stderr and "Connection refused" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    # beyond the run without Batfish (load noise: a quarter of it); pybatfish alone retries ~5 s+ (the preflight
    # test below bounds the connection itself under a second)
    assert elapsed < 5 + baseline / 4, (elapsed, baseline)


def test_preflight_refused_in_well_under_a_second():
    pytest.importorskip("pybatfish", reason="pybatfish not installed (netauto-fabric[batfish])")
    port = free_port()
    t0 = time.perf_counter()
    with pytest.raises(bfc.BatfishError, match="Connection refused"):
        bfc.preflight(f"127.0.0.1:{port}")
    assert time.perf_counter() - t0 < 1.0


def test_silent_server_fails_fast(monkeypatch: pytest.MonkeyPatch):
    """A port that accepts but never answers HTTP (hung service, wrong port): bounded, no minutes of retries."""
    pytest.importorskip("pybatfish", reason="pybatfish not installed (netauto-fabric[batfish])")
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    conns: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                pass

    th = threading.Thread(target=accept, daemon=True)
    th.start()
    monkeypatch.setattr(bfc, "PROBE_TIMEOUT", 0.5)
    try:
        target = bfc.preflight(f"127.0.0.1:{srv.getsockname()[1]}")  # TCP connect works
        t0 = time.perf_counter()
        with pytest.raises(bfc.BatfishError, match=r"is 127\.0\.0\.1:\d+ a Batfish service\?"):
            bfc.run(target, *load_files(INVENTORY))
        assert time.perf_counter() - t0 < 10
    finally:
        stop.set()
        th.join()
        for c in conns:
            c.close()
        srv.close()


def test_bounded_retries_restores_pybatfish_adapters():
    restv2helper = pytest.importorskip("pybatfish.client.restv2helper", reason="pybatfish not installed")

    before = dict(restv2helper._requests_session.adapters)
    with bfc.bounded_retries(1):
        assert restv2helper._requests_session.adapters["http://"].max_retries.total == 1
    assert restv2helper._requests_session.adapters == before


def test_missing_pybatfish_names_the_extra(monkeypatch: pytest.MonkeyPatch):
    for mod in [m for m in sys.modules if m == "pybatfish" or m.startswith("pybatfish.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "pybatfish", None)  # import pybatfish -> ImportError
    with pytest.raises(bfc.BatfishError, match=r"pip install 'netauto-fabric\[batfish\]'"):
        bfc.preflight("127.0.0.1:9")


def test_missing_pybatfish_cli_exit_2():
    code = ("import sys; sys.modules['pybatfish'] = None; sys.argv = ['netauto', 'validate', '--no-external', "
            "'--batfish', '127.0.0.1:9']; from netauto.cli.app import main; main()")
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "pip install 'netauto-fabric[batfish]'" in r.stderr and "Traceback" not in r.stderr


def test_without_batfish_nothing_connects(monkeypatch: pytest.MonkeyPatch):
    from click.testing import CliRunner

    from netauto.cli.app import cli, load_commands

    load_commands()

    def no_connect(*a, **kw):
        raise AssertionError("validate without --batfish tried to connect")

    monkeypatch.setattr(socket, "create_connection", no_connect)
    monkeypatch.setattr(bfc, "run", no_connect)
    r = CliRunner().invoke(cli, ["validate", "-i", str(INVENTORY), "--no-external", "--no-simulate"])
    assert r.exit_code == 0, r.output
    assert "batfish" not in r.output.lower()


def test_snapshot_locate_maps_sonic_files(tmp_path: Path):
    model, files = load_files(MIXED_SONIC)
    snap = build_snapshot(model, files, tmp_path / "snap")
    sonic = [sw.name for sw in model.switches if files.get(sw.name, "etc/sonic/config_db.json") is not None]
    assert sonic and snap.sonic == len(sonic)
    assert snap.locate(f"sonic_configs/{sonic[0]}/frr.conf", 12) == (sonic[0], "etc/sonic/frr/frr.conf", 12)
    assert snap.locate(f"snap/sonic_configs/{sonic[0]}/config_db.json") == (sonic[0], "etc/sonic/config_db.json", None)
    assert snap.frr_path[sonic[0]] == "etc/sonic/frr/frr.conf"
    cumulus = next(sw.name for sw in model.switches if sw.name not in sonic)
    assert snap.locate(f"configs/{cumulus}.cfg", 1) == (cumulus, None, None)  # the hostname line netauto added


# ---------------------------------------------------------------- opt-in: a real Batfish service
@pytest.mark.skipif(not os.environ.get("NETAUTO_BATFISH_HOST"),
                    reason="set NETAUTO_BATFISH_HOST=host[:port] of a Batfish service to run the live test")
def test_live_batfish_on_the_shipped_fabric():
    import json

    host = os.environ["NETAUTO_BATFISH_HOST"]
    r = subprocess.run([sys.executable, "-m", "netauto", "validate", "--no-external", "--batfish", host,
                        "--format", "json"], check=False, capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert r.returncode in (0, 1), r.stderr
    data = json.loads(r.stdout)
    assert any(n.startswith("ran: batfish at") for n in data["notes"]), data["notes"]
    bf = [f for f in data["findings"] if f["rule"].startswith("BF-") and f["severity"] == "error"]
    assert not bf, json.dumps(bf, indent=1)  # the shipped fabric is clean for Batfish too (gaps filtered)
    assert any("rail-pair flow(s) delivered" in n for n in data["notes"])


def test_cli_merges_batfish_findings_into_the_report(monkeypatch: pytest.MonkeyPatch):
    import json

    from click.testing import CliRunner

    from netauto.cli.app import cli, load_commands
    from netauto.validate.findings import Finding

    load_commands()
    seen = {}

    def fake_run(target, model, files):
        seen.update(target=target, model=model, files=files)
        return bfc.BatfishReport([Finding("BF-BGP-COMPAT", "error", "su1-r0-leaf", "BGP swp34 -> ?: NO_MATCH_FOUND",
                                          "etc/frr/frr.conf")], ["ran: batfish at bf.lab:9996"], {"batfish_questions": 1.0})

    monkeypatch.setattr(bfc, "preflight", lambda text: bfc.parse_target(text))
    monkeypatch.setattr(bfc, "run", fake_run)
    r = CliRunner().invoke(cli, ["validate", "-i", str(INVENTORY), "--no-external", "--no-simulate",
                                 "--batfish", "bf.lab", "--format", "json"])
    assert r.exit_code == 1, r.output
    data = json.loads(r.output)
    assert seen["target"] == bfc.Target("bf.lab", 9996) and seen["files"].root is None  # the one render, in memory
    assert seen["model"].name == "gpu-pod1" and seen["files"].get("spine1", "etc/frr/frr.conf")
    assert data["findings"][0]["rule"] == "BF-BGP-COMPAT" and data["summary"]["error"] == 1
    assert "ran: batfish at bf.lab:9996" in data["notes"] and "batfish_questions" in data["timings"]
