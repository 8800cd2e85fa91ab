"""Switch-side QoS counters for `netauto verify --window` (the `counters` check): the Cumulus (NVUE) and SONiC
(COUNTERS_DB) reads and parsers on outputs in the documented formats (tests/data/verify/README.md says where each
format comes from: none was captured on a switch), the shell and Python the drivers run on the switch (run here
against a stand-in `nv` and a stand-in swsscommon), and the check's findings over a window."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_verify import DATA, _read, healthy

from netauto.napalm import parsers
from netauto.napalm.cumulus import ROCE_KEY, WD_KEY, Cumulus
from netauto.napalm.sonic import DB_KEY, QOS_COUNTERS_PY, Sonic
from netauto.verify import counter_checks
from netauto.verify.expect import build_intent

# ---------------------------------------------------------------------------------------------- parsers


def test_nvue_roce_counters_and_watchdog():
    got = parsers.parse_nvue_roce_counters(_read("nvue-roce-counters.json"))
    assert set(got) == {"swp1s0", "swp1s1"}  # swp2s0's nv call failed (null): not invented as zeros
    c = got["swp1s0"]
    assert (c.pause_rx, c.pause_tx, c.ecn_marked, c.drops) == (120, 7, 693777, 0)
    assert c.wd_storms is None  # not in the RoCE view
    wd = parsers.parse_nvue_pfc_watchdog(_read("nvue-pfc-watchdog.json"), 7)
    assert wd == {"swp1s0": 3, "swp1s1": 0}
    assert parsers.parse_nvue_pfc_watchdog(_read("nvue-pfc-watchdog.json"), 3) == {"swp1s0": 0, "swp1s1": 0}
    # the driver merges both reads; the RoCE class is traffic class 3 by default
    both = Cumulus.parse_qos_counters({ROCE_KEY: _read("nvue-roce-counters.json"), WD_KEY: _read("nvue-pfc-watchdog.json")},
                                      3, 2)
    assert both is not None and both["swp1s0"].wd_storms == 2 and both["swp1s0"].pause_rx == 120
    assert Cumulus.parse_qos_counters({ROCE_KEY: None, WD_KEY: None}, 3, 3) is None  # no NVUE: unreadable


def test_nvue_counters_accept_numeric_strings_and_refuse_units():
    doc = {"swp1": {"rx-stats": {"rx-pfc-stats": {"pause-packets": "1,234"}},
                    "tx-stats": {"tx-ecn-stats": {"ecn-marked-packets": "12 Bytes"}}}}
    c = parsers.parse_nvue_roce_counters(json.dumps(doc))["swp1"]
    assert c.pause_rx == 1234 and c.ecn_marked is None


def test_sonic_counters_db_through_the_name_maps():
    got = parsers.parse_sonic_qos_counters(_read("sonic-counters-db-qos.json"), 3, 3)
    e0 = got["Ethernet0"]
    assert (e0.pause_rx, e0.pause_tx, e0.ecn_marked, e0.drops, e0.wd_storms, e0.wd_drops) == (1500, 20, 4242, 0, 2, 77)
    e8 = got["Ethernet8"]
    assert (e8.pause_rx, e8.ecn_marked, e8.wd_storms) == (0, 0, 0)
    # queue 0 (lossy) has drops but no watchdog; priority 0 has no pauses
    q0 = parsers.parse_sonic_qos_counters(_read("sonic-counters-db-qos.json"), 0, 0)["Ethernet0"]
    assert q0.drops == 9 and q0.wd_storms is None and q0.pause_rx == 0
    # a multicast queue index is never read as the lossless queue
    assert parsers.parse_sonic_qos_counters(_read("sonic-counters-db-qos.json"), 3, 11)["Ethernet0"].drops is None


# ---------------------------------------------------------------------------------------------- what runs on the switch


FAKE_NV = r"""#!/bin/sh
# stand-in for NVUE's `nv show interface <if> <path...> -o json`: documents from files named after the view
if [ "$1 $2 $3" = "show interface qos-roce-counters" ]; then
  [ -n "$ALL_VIEW" ] && cat "$ALL_VIEW" && exit 0
  echo "Error: unknown command" >&2; exit 1
fi
port=$3; shift 3
case "$*" in
  "qos roce counters -o json") view=roce;; "qos pfc-watchdog -o json") view=wd;; *) exit 2;;
esac
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])).get(sys.argv[2]); print(json.dumps(d)) if d else sys.exit(1)' \
  "$DATA_DIR/$view.json" "$port"
"""


@pytest.fixture
def fake_nv(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nv").write_text(FAKE_NV)
    (bin_dir / "nv").chmod(0o755)
    (tmp_path / "roce.json").write_text(_read("nvue-roce-counters.json"))
    (tmp_path / "wd.json").write_text(_read("nvue-pfc-watchdog.json"))
    return tmp_path


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_cumulus_reads_one_json_document_per_device(fake_nv, shell):
    """The per-port loop (CL < 5.14: no all-interface view) prints one JSON object, a failing port as null."""
    ports = ["swp1s0", "swp1s1", "swp2s0"]
    cmds = Cumulus.qos_counter_commands(ports)
    env = {**os.environ, "PATH": f"{fake_nv / 'bin'}:{os.environ['PATH']}", "DATA_DIR": str(fake_nv)}
    outs = {k: subprocess.run([shell, "-c", c], capture_output=True, text=True, env=env, check=True).stdout
            for k, c in cmds.items()}
    assert json.loads(outs[ROCE_KEY])["swp2s0"] is None
    got = Cumulus.parse_qos_counters(outs, 3, 7)
    assert got is not None and got["swp1s0"].pause_rx == 120 and got["swp1s0"].wd_storms == 3
    assert "swp2s0" not in got
    # CL 5.14+: the all-interface view answers in one call (the loop does not run)
    (fake_nv / "all.json").write_text(_read("nvue-roce-counters.json"))
    env["ALL_VIEW"] = str(fake_nv / "all.json")
    env["DATA_DIR"] = "/nonexistent"  # a per-port call would fail
    out = subprocess.run([shell, "-c", cmds[ROCE_KEY]], capture_output=True, text=True, env=env, check=True).stdout
    assert parsers.parse_nvue_roce_counters(out)["swp1s0"].ecn_marked == 693777
    # without nv (the lab) the read fails: the check says n/a instead of inventing zeros
    env["PATH"] = "/usr/bin:/bin"
    assert subprocess.run([shell, "-c", cmds[WD_KEY]], capture_output=True, env=env).returncode != 0


def test_sonic_reader_script_against_a_stand_in_swsscommon(tmp_path):
    """QOS_COUNTERS_PY as the switch runs it, with swsscommon's SonicV2Connector backed by the sample database:
    only the ports asked for, only QoS fields, and the parser reads its output like the database itself."""
    pkg = tmp_path / "swsscommon"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "swsscommon.py").write_text(
        "import json, os\n"
        "class SonicV2Connector:\n"
        "    COUNTERS_DB = 'COUNTERS_DB'\n"
        "    def __init__(self, use_unix_socket_path=False):\n"
        "        self.data = json.load(open(os.environ['FAKE_DB']))\n"
        "    def connect(self, db):\n"
        "        assert db == 'COUNTERS_DB'\n"
        "    def get_all(self, db, key):\n"
        "        return self.data.get(key)\n")
    db = json.loads(_read("sonic-counters-db-qos.json"))
    db["COUNTERS:oid:0x1000000000002"]["SAI_PORT_STAT_IF_IN_OCTETS"] = "123"  # not a QoS field: left out
    (tmp_path / "db.json").write_text(json.dumps(db))
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "FAKE_DB": str(tmp_path / "db.json")}
    p = subprocess.run([sys.executable, "-c", QOS_COUNTERS_PY, "Ethernet0"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out["COUNTERS_PORT_NAME_MAP"]) == {"Ethernet0"} and "SAI_PORT_STAT_IF_IN_OCTETS" not in out[
        "COUNTERS:oid:0x1000000000002"]
    assert len(out["COUNTERS_QUEUE_NAME_MAP"]) == 16
    got = Sonic.parse_qos_counters({DB_KEY: p.stdout}, 3, 3)
    assert got is not None and set(got) == {"Ethernet0"} and got["Ethernet0"].wd_storms == 2
    # the command is guarded (no sonic-db-cli: lab) and passes the ports as arguments
    cmd = Sonic.qos_counter_commands(["Ethernet0", "Ethernet8"])[DB_KEY]
    assert cmd.startswith("command -v sonic-db-cli >/dev/null && python3 -I -c ") and cmd.endswith(" Ethernet0 Ethernet8")
    assert "'" not in QOS_COUNTERS_PY


# ---------------------------------------------------------------------------------------------- the check


def _window(default_model, before_roce: dict, after_roce: dict, before_wd: dict | None = None,
            after_wd: dict | None = None):
    """spine1 read twice over a window with the given NVUE documents ({port: tree})."""
    before, after = healthy(default_model), healthy(default_model)
    for st, roce, wd in ((before["spine1"], before_roce, before_wd), (after["spine1"], after_roce, after_wd)):
        st.raw[ROCE_KEY] = (0, json.dumps(roce))
        st.raw[WD_KEY] = (0, json.dumps(wd)) if wd is not None else (1, "")
    roce_cls = counter_checks.roce_classes([("compute", default_model)])
    return before, after, counter_checks.counter_deltas(before, after, roce_cls)


def _roce_doc(prx: int, ptx: int, ecn: int, drops: int) -> dict:
    return json.loads(_read("nvue-roce-counters.json").replace("null", "{}")) | {
        "swp1s0": {"rx-stats": {"rx-pfc-stats": {"pause-packets": prx}, "rx-roce-stats": {"no-buffer-discard": 0}},
                   "tx-stats": {"tx-pfc-stats": {"pause-packets": ptx}, "tx-ecn-stats": {"ecn-marked-packets": ecn},
                                "tx-roce-stats": {"unicast-no-buffer-discard": drops}}}}


def _wd_doc(n: int) -> dict:
    return {"swp1s0": {"state": "enabled", "status": {"3": {"status": "OK", "deadlock-count": n}}}}


def test_switch_counters_over_a_window(default_model):
    before, after, deltas = _window(default_model, _roce_doc(100, 5, 1000, 0), _roce_doc(160, 5, 4000, 0),
                                    _wd_doc(0), _wd_doc(0))
    assert deltas["spine1"]["swp1s0"] == {"roce_pause_rx": 60, "roce_pause_tx": 0, "roce_ecn_marked": 3000,
                                          "roce_drops": 0, "roce_wd_storms": 0}
    it = build_intent(default_model)
    f = {x.item: x for x in counter_checks.check_counters(it, after, deltas, {"switch_rx_prio3_pause": 10})
         if x.device == "spine1"}
    assert f["swp1s0 prio3 rx pause"].status == "fail" and f["swp1s0 prio3 rx pause"].actual == "60"
    assert f["swp1s0 prio3 tx pause"].status == "pass"
    assert f["swp1s0 tc3 ecn marked"].status == "pass" and "informational" == f["swp1s0 tc3 ecn marked"].expected
    assert f["swp1s0 tc3 lossless drops"].status == "pass"
    assert f["swp1s0 tc3 pfc-watchdog storms"].status == "pass"
    # swp2s0's documents are empty ({}): said so, not passed
    assert f["swp2s0 pfc pause/pfc-watchdog/ecn/lossless drops"].status == "n/a"
    assert f["swp1s1 prio3 rx pause"].status == "pass" and f["swp1s1 prio3 rx pause"].actual == "0"
    # thresholds raise the pause limit and make ECN a limit too
    f = {x.item: x for x in counter_checks.check_counters(it, after, deltas, {"switch_rx_prio3_pause": 100,
                                                                       "switch_ecn_marked": 2000})
         if x.device == "spine1"}
    assert f["swp1s0 prio3 rx pause"].status == "pass" and f["swp1s0 tc3 ecn marked"].status == "fail"


def test_lossless_drops_and_watchdog_storms_must_stay_zero(default_model):
    _, after, deltas = _window(default_model, _roce_doc(0, 0, 0, 4), _roce_doc(0, 0, 0, 5), _wd_doc(2), _wd_doc(3))
    it = build_intent(default_model)
    f = {x.item: x for x in counter_checks.check_counters(it, after, deltas, {"discards": 100}) if x.device == "spine1"}
    assert f["swp1s0 tc3 lossless drops"].status == "fail" and f["swp1s0 tc3 lossless drops"].actual == "1"
    assert f["swp1s0 tc3 pfc-watchdog storms"].status == "fail"
    # a counter cleared during the window is not read as a negative increase
    _, after, deltas = _window(default_model, _roce_doc(50, 0, 0, 0), _roce_doc(3, 0, 0, 0))
    f = {x.item: x for x in counter_checks.check_counters(it, after, deltas) if x.device == "spine1"}
    assert f["swp1s0 prio3 rx pause"].status == "n/a" and "cleared" in f["swp1s0 prio3 rx pause"].reason


def test_switch_counters_not_readable_or_no_window_say_why(default_model):
    it = build_intent(default_model)
    states = healthy(default_model)  # no NVUE output at all: the lab
    rows = [x for x in counter_checks.check_counters(it, states, {}) if x.device == "spine1" and "pfc" in x.item]
    assert len(rows) == 1 and rows[0].status == "n/a" and "NVUE" in rows[0].reason
    rows = [x for x in counter_checks.check_counters(it, states, None) if x.device == "spine1" and "pfc" in x.item]
    assert rows[0].status == "n/a" and "--window" in rows[0].reason
    # the SONiC reason names COUNTERS_DB
    sw = copy.copy(default_model.switches[0])
    sw.nos = "sonic"
    assert "COUNTERS_DB" in counter_checks._switch_qos_reason(sw)


def test_lossy_network_switches_get_no_lossless_counters():
    from test_verify import _cluster, healthy_cluster, run_cluster

    cluster = _cluster("cluster-lab")
    states = healthy_cluster(cluster)
    lossy = [(name, fab) for name, fab in cluster.fabrics() if any(not s.qos.lossless for s in fab.switches)]
    assert lossy, "the cluster example has a lossy network"
    rep = run_cluster(cluster, states)
    rows = [f for f in rep.findings if f.check == "counters" and f.network == lossy[0][0] and "pfc" in f.item]
    assert rows and all(f.status == "n/a" and "lossy" in f.reason for f in rows)
    # nor are their counters read: the extra reads of a lossy switch hold no NOS counter command
    from netauto.verify.run import extra_for

    sw = next(s for s in lossy[0][1].switches if not s.qos.lossless)

    class T:
        kind, name = "switch", sw.name

    assert not any(k.startswith("swqos_") for k in extra_for(cluster.fabrics(), T(), qos_counters=True))  # type: ignore[arg-type]
    lossless = next(s for _, fab in cluster.fabrics() for s in fab.switches if s.qos.lossless and s.nos == "cumulus")
    T.name = lossless.name
    assert {ROCE_KEY, WD_KEY} <= set(extra_for(cluster.fabrics(), T(), qos_counters=True))  # type: ignore[arg-type]
    assert not any(k.startswith("swqos_") for k in extra_for(cluster.fabrics(), T()))  # type: ignore[arg-type]


def test_samples_are_the_documented_shapes():
    """Guard the samples themselves: every key the parsers read is in them (a typo would make every test vacuous)."""
    roce = json.loads(_read("nvue-roce-counters.json"))["swp1s0"]
    assert {"rx-pfc-stats", "rx-roce-stats", "rx-non-roce-stats"} <= set(roce["rx-stats"])
    assert {"tx-pfc-stats", "tx-ecn-stats", "tx-roce-stats", "tx-cnp-stats"} <= set(roce["tx-stats"])
    db = json.loads(_read("sonic-counters-db-qos.json"))
    assert all(k.startswith("COUNTERS") for k in db)
    assert Path(DATA / "README.md").read_text().count("derived") >= 2
