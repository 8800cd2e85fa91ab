"""Device output of the wrong shape (valid JSON, wrong types: a list where an object belongs, a number where a
list belongs) is unreadable output, reported in one line, never an AttributeError/KeyError/TypeError traceback.
A hostile device, or a neighbour whose FRR answers the drain's reads, chooses these bytes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from conftest import DEFAULT_INVENTORY
from test_device_trust import _BatchSession  # type: ignore[attr-defined]

from netauto.deploy.targets import build_targets
from netauto.pipeline import build
from netauto.verify import run as verify_run

# valid JSON of every wrong shape the parsers met: a scalar, a list of scalars, objects of scalars and lists
SHAPES = ["1", "null", '"x"', "[1, 2]", '[{"ifname": 5, "addr_info": 7, "flags": 3, "linkinfo": []}]',
          '{"lldp": {"interface": [1, {"name": "swp1", "chassis": [1], "port": 7}]}}',
          '{"prio_pfc": 5, "tc_tsa": 3, "tc_bw": ["x"]}', '{"routes": {"10.0.0.0/8": [5, {"nexthops": 7}]}}',
          '{"10.0.0.0/8": [5, {"selected": true, "nexthops": [5]}]}', '[{"dst": 5, "nexthops": [5], "dev": [1]}]']


@pytest.fixture(scope="module")
def pod1():
    built = build(DEFAULT_INVENTORY)
    return built, build_targets(built.cluster, built.artifacts)


@pytest.mark.parametrize("device", ["spine1", "gpu01"])
@pytest.mark.parametrize("answer", SHAPES)
def test_verify_reads_a_device_answering_the_wrong_shape_as_unreadable_in_one_line(pod1, device, answer):
    from types import SimpleNamespace

    _, targets = pod1
    host = SimpleNamespace(data={"target": targets[device]}, get_connection=lambda *a: _BatchSession(answer), name=device)
    task = SimpleNamespace(host=host, nornir=SimpleNamespace(config=None))
    result = verify_run.collect_task(task, verify_run.networks_of(pod1[0].cluster))  # type: ignore[arg-type]
    if result.failed:
        assert isinstance(result.result, str) and "\n" not in result.result and "unreadable" in result.result


@pytest.mark.parametrize("answer", SHAPES)
def test_a_servers_qos_and_routing_reads_of_the_wrong_shape_are_error_findings(pod1, answer):
    from netauto.verify.state import DeviceState

    built, _ = pod1
    networks = verify_run.networks_of(built.cluster)
    st = DeviceState("gpu01", "server", "linux")
    st.raw = {k: (0, answer) for k in ("rules", "routes_all", "addrs")}
    nic = next(s for _, fab in networks for s in fab.servers if s.name == "gpu01").rails[0].nic
    st.raw.update({f"dcb_pfc:{nic}": (0, answer), f"dcb_ets:{nic}": (0, answer)})
    found = verify_run.run_checks(networks, {"gpu01": st}, {"gpu01"}, ["host-routing", "host-qos"])
    assert found  # every finding is a verdict; none is an exception


@pytest.mark.parametrize("answer", SHAPES)
def test_counter_deltas_of_the_wrong_shape_are_no_deltas_not_a_traceback(answer):
    from netauto.verify import counter_checks
    from netauto.verify.state import DeviceState

    before, after = DeviceState("gpu01", "server", "linux"), DeviceState("gpu01", "server", "linux")
    before.raw = {"stats": (0, answer)}
    after.raw = {"stats": (0, answer)}
    assert counter_checks.counter_deltas({"gpu01": before}, {"gpu01": after}) == {}


@pytest.mark.parametrize("answer", SHAPES)
def test_a_neighbours_route_tables_of_the_wrong_shape_never_raise_out_of_the_drain(answer):
    from netauto.deploy import forwarding
    from netauto.deploy.connection import CommandResult
    from netauto.deploy.remote import StepFailed

    class Session:
        frr_exec = ""

        def run(self, script: str, timeout: float = 120.0, sudo: bool = True) -> CommandResult:
            split = forwarding._SPLIT + "\n"
            return CommandResult(0, f"{answer}\n{split}{answer}\n{split}{answer}\n", "")

    try:
        fwd = forwarding.read_forwarding(Session())  # type: ignore[arg-type]
    except StepFailed as exc:
        assert "\n" not in str(exc)
        return
    view = forwarding.view_of(fwd, "leaf1", {"swp1"}, 65001)
    assert view.pending >= 0


def test_an_ethtool_counter_that_no_nic_can_hold_is_not_a_counter():
    from netauto.napalm import parsers

    got = parsers.parse_ethtool_stats("     rx_prio3_pause: -5\n     tx_prio3_pause: 18446744073709551616\n"
                                      "     rx_discards_phy: 18446744073709551615\n")
    assert got == {"rx_discards_phy": 2**64 - 1}


@pytest.mark.parametrize("answer", ["[]", "5", '{"PORT": []}', '{"PORT": {"Ethernet0": 5}}', '{"BREAKOUT_CFG": "x"}'])
def test_a_sonic_config_db_of_the_wrong_shape_is_one_line_or_the_intent(answer):
    """`sonic-cfggen -d --print-data` and the switch's config_db.json: tables of objects, else unreadable."""
    from types import SimpleNamespace

    from netauto.deploy import sonic_config, sonic_db
    from netauto.deploy.connection import CommandResult
    from netauto.deploy.remote import StepFailed

    intent = '{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}}, "PORT": {"Ethernet0": {"lanes": "0"}}}'
    assert sonic_db.expected_file(answer.encode(), intent) == intent.encode()
    session = SimpleNamespace(run=lambda *a, **k: CommandResult(0, answer, ""))
    with pytest.raises(StepFailed, match="not the shape of a CONFIG_DB"):
        sonic_config.running(session)  # type: ignore[arg-type]


@pytest.mark.parametrize("made", ["/var/tmp/netauto/run.AbC12345; touch /tmp/PWNED", "/tmp/elsewhere",
                                  "/var/tmp/netauto/run.../../etc", "/var/tmp/netauto/run.$(id)xx"])
def test_a_stage_dir_the_device_names_is_mktemps_name_or_refused(made):
    """The stage dir `mktemp -d` printed is pasted, unquoted, into every later command of the push (install, arm,
    rollback.sh): only the name mktemp makes is taken."""
    from netauto.deploy import devstate
    from netauto.deploy.connection import CommandResult
    from netauto.deploy.remote import StepFailed

    class Device:
        def run(self, command: str, timeout: float = 120.0, sudo: bool = True) -> CommandResult:
            return CommandResult(0, f"__ACQUIRED__ {made}\n", "")

    with pytest.raises(StepFailed, match="not a stage dir"):
        devstate.acquire(Device(), devstate.RunInfo.new())  # type: ignore[arg-type]
    good = CommandResult(0, "__ACQUIRED__ /var/tmp/netauto/run.AbC12345\n", "")
    assert devstate.acquire(SimpleNamespace(run=lambda *a, **k: good), devstate.RunInfo.new()) == \
        "/var/tmp/netauto/run.AbC12345"  # type: ignore[arg-type]


@pytest.mark.parametrize("answer", SHAPES + ['{"state": [1], "enable": {"x": 1}, "mode": [2]}',
                                             '{"PORT_QOS_MAP": {"swp1": {"pfc_enable": [3]}}}', '{"PORT_QOS_MAP": 5}'])
def test_a_switchs_nvue_and_config_db_reads_of_the_wrong_shape_are_verdicts(pod1, answer):
    """`nv show qos roce -o json`, `nv show router adaptive-routing -o json` (Cumulus) and `sonic-cfggen -d
    --print-data` (SONiC's PFC per port, read through the same check)."""
    from netauto.formats import device_json
    from netauto.verify import fabric_checks
    from netauto.verify.state import DeviceState

    built, _ = pod1
    networks = verify_run.networks_of(built.cluster)
    st = DeviceState("spine1", "switch", "cumulus")
    st.raw = {"nv": (0, "/usr/bin/nv"), "nv_qos_roce": (0, answer), "nv_ar": (0, answer)}
    found = verify_run.run_checks(networks, {"spine1": st}, {"spine1"}, ["qos"])
    sw = next(s for _, fab in networks for s in fab.switches if s.name == "spine1")
    found += list(fabric_checks._sonic_qos(sw, device_json.loads(answer)))
    for f in found:
        assert f.status in ("pass", "fail", "n/a", "error") and "\n" not in str(f.actual)


@pytest.mark.parametrize("answer", SHAPES)
def test_bgp_neighbors_json_of_the_wrong_shape_names_no_refusal(answer):
    """A push's session check asks `show bgp neighbors json` why new sessions are down: another shape says nothing
    (before: an AttributeError that ended the push in a rollback with `'list' object has no attribute 'get'`)."""
    from netauto.deploy import sessions
    from netauto.deploy.connection import CommandResult

    session = SimpleNamespace(frr_exec="", run=lambda *a, **k: CommandResult(0, answer, ""))
    assert sessions.notifications(session, ["swp1"], 1000.0) == {}  # type: ignore[arg-type]


def test_the_sonic_counter_reader_never_imports_from_the_folder_it_runs_in(tmp_path):
    """`python3 -c` puts the current folder first on sys.path, and `sudo -n sh -c` keeps the login's folder: a
    `json.py` there ran as root. The reader runs isolated (`-I`): only the system's modules."""
    import subprocess

    from netauto.napalm.sonic import Sonic

    command = next(iter(Sonic.qos_counter_commands(["Ethernet0"]).values()))
    reader = command.split(" && ", 1)[1]  # without the guard (no sonic-db-cli here)
    (tmp_path / "json.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    subprocess.run(["sh", "-c", reader], cwd=tmp_path, capture_output=True, check=False)
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("text", ["__NOW__ x\n", "__NOW__\n", "__NOW__ 99999999999999999999999999\n", "__STAGE__\n",
                                  "__STAGE__ /var/tmp/netauto/run.AbC12345\n", "__STAGE__ /x 1e9 alive\n"])
def test_a_deploy_status_the_device_garbles_is_parsed_not_a_traceback(text):
    """`deploy status` and a busy push parse the device's status lines: a line of the wrong form is skipped, a
    clock that is no number is this machine's (before: ValueError/IndexError out of `netauto deploy status`)."""
    from netauto.deploy import devstate

    state = devstate._parse_status(text)
    assert isinstance(state.now, int) and 0 < state.now < 2**63
    assert all(s.path.startswith("/") for s in state.stages)


@pytest.mark.parametrize("text", ['{"test_info": 5, "results": {"BW_average": 1, "MsgSize": 1}}',
                                  '{"test_info": {"Device": [1]}, "results": {"BW_average": 1, "MsgSize": 1}}',
                                  '{"end": 5}', '{"end": {"sum_received": 5}}', '{"end": [1]}',
                                  '{"end": {"sum_received": {"bits_per_second": 1e9}, "sum_sent": 7}}'])
def test_a_result_file_of_the_wrong_shape_is_a_failed_test_naming_it(tmp_path, text):
    """`acceptance report` reads what servers wrote: another shape is an unreadable result, not a traceback."""
    from netauto.acceptance import results
    from netauto.acceptance.model import AccTest

    kind = results.PERFTEST if "results" in text else results.IPERF3
    (tmp_path / ("t1.json" if kind == results.PERFTEST else "t1.txt")).write_text(text)
    got = results.measure(AccTest("t1", kind, "gpu01", "gpu02", 0, {}, 0.2), tmp_path)
    assert got is not None and (got[0] is None or isinstance(got[0], float))
    if got[0] is not None and kind == results.PERFTEST:
        assert got[0] == 1.0


def test_a_db_value_holding_a_newline_speaks_for_its_own_port_only(tmp_path, monkeypatch):
    """After a breakout deploy waits for STATE_DB `state ok` per new port, one value per output line: a value with
    a newline (`x\\nok`) shifted the next port's answer, so a port not created read as created."""
    import os
    import stat
    import subprocess

    from netauto.deploy import sonic_breakout
    from netauto.deploy.connection import CommandResult

    fake = tmp_path / "sonic-db-cli"
    fake.write_text('#!/bin/sh\ncase "$3" in *Ethernet0) printf "x\\nok\\n";; *) printf "\\n";; esac\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}

    class Device:
        def run(self, command: str, timeout: float = 120.0, sudo: bool = True) -> CommandResult:
            p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env, check=False)
            return CommandResult(p.returncode, p.stdout, p.stderr)

    got = sonic_breakout._db_field(Device(), "STATE_DB", "PORT_TABLE|{}", "state", ["Ethernet0", "Ethernet1"])  # type: ignore[arg-type]
    assert got["Ethernet1"] != "ok" and got["Ethernet0"] != "ok"
