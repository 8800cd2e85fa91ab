"""Deploy planning without devices: selection, waves, Nornir inventory, drained variant."""

import grp
import os
import pwd

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES, require_tool

from netauto.deploy.device import _drained_variant, _rollback_script
from netauto.deploy.nornir_inventory import NetautoInventory
from netauto.deploy.run import select, waves
from netauto.deploy.targets import build_targets
from netauto.errors import NetautoError
from netauto.pipeline import render


@pytest.fixture(scope="module")
def targets():
    model, artifacts = render(DEFAULT_INVENTORY)
    return build_targets(model, artifacts, cumulus_mode="linux-files")


def test_nvue_mode_owns_startup_yaml_only():
    """Default for real Cumulus switches: NVUE regenerates frr.conf, interfaces and the QoS/switchd files, so
    deploy neither pushes nor diffs them; it talks to NVUE about startup.yaml's content."""
    model, artifacts = render(DEFAULT_INVENTORY)
    leaf = build_targets(model, artifacts)["su1-r0-leaf"]
    assert leaf.cumulus_mode == "nvue" and list(leaf.files) == ["/etc/nvue.d/startup.yaml"]
    assert "/etc/frr/frr.conf" in leaf.nvue_writes and "/etc/network/interfaces" in leaf.nvue_writes
    sonic = build_targets(*render(EXAMPLES / "mixed-sonic" / "inventory"))["su1-r0-leaf"]
    assert sonic.nos == "sonic" and "/etc/sonic/config_db.json" in sonic.files  # SONiC is not affected


def test_limit_by_name_glob_and_group(targets):
    assert select(targets, "spine1") == ["spine1"]
    assert select(targets, "su1-r*-leaf") == [f"su1-r{r}-leaf" for r in range(8)]
    assert select(targets, "role_spine") == ["spine1", "spine2", "spine3", "spine4"]
    assert len(select(targets, "servers")) == 8
    with pytest.raises(NetautoError, match="matches no device"):
        select(targets, "nosuch*")


def test_waves_put_spines_last_one_at_a_time(targets):
    plan = waves(targets, list(targets), batch=6)
    assert [len(w) for w in plan] == [6, 6, 4, 1, 1, 1, 1]
    assert all(targets[n].role in ("leaf", "server") for w in plan[:3] for n in w)
    assert [w[0] for w in plan[3:]] == ["spine1", "spine2", "spine3", "spine4"]


def test_targets_carry_expected_sessions_and_facing_ports(targets):
    leaf = targets["su1-r0-leaf"]
    assert leaf.expected_sessions == 8
    assert leaf.facing["spine1"] == ["swp1s0", "swp1s1"]  # spine1's ports toward this leaf
    assert "/etc/frr/frr.conf" in leaf.files and leaf.host == "192.168.200.14"


def test_nornir_inventory_plugin_groups_and_no_secrets_from_files(monkeypatch):
    monkeypatch.setenv("NETAUTO_SSH_PASSWORD", "from-env")
    inv = NetautoInventory(inventory=str(EXAMPLES / "2su-leaf-subnet" / "inventory")).load()
    host = inv.hosts["su2-r3-leaf"]
    assert {g.name for g in host.groups} == {"switches", "role_leaf", "nos_cumulus", "su_2", "pod_1"}
    assert host.password == "from-env" and host.username == "cumulus" and host.platform == "cumulus"
    assert host.connection_options["netmiko"].platform == "linux"  # test_nornir_plugins.py: the rest
    assert "su2-gpu32" not in inv.hosts  # absent server


def test_drained_variant_adds_gshut_once():
    conf = "router bgp 65101\n bgp router-id 10.0.0.1\nexit\n"
    drained = _drained_variant(conf, 65101)
    assert drained.count("bgp graceful-shutdown") == 1
    assert _drained_variant(drained, 65101) == drained


def test_rollback_script_restores_every_file_and_undrains(targets):
    leaf = targets["su1-r0-leaf"]
    before = {path: (b"old" if "frr" in path else None) for path in leaf.files}
    script = _rollback_script(leaf, before, "/var/tmp/stage", None)
    assert "cp -p /var/tmp/stage/backup/etc/frr/frr.conf /etc/frr/frr.conf" in script
    assert "rm -f /etc/network/interfaces" in script
    assert "no bgp graceful-shutdown" in script and "router bgp 65101" in script


class _LocalSession:
    """A DeviceSession stand-in that runs the device-side shell locally (same `sh -c` as over SSH)."""

    def __init__(self, no_tar: bool = False) -> None:
        self.no_tar = no_tar
        self.commands: list[str] = []

    def run_bytes(self, command: str, timeout: float = 120.0, limit: int = 0):
        import subprocess

        self.commands.append(command)
        if self.no_tar:
            command = command.replace("exec tar ", "exec netauto-no-such-tar ")
        res = subprocess.run(["sh", "-c", command], check=False, capture_output=True, timeout=timeout)
        return res.returncode, res.stdout, res.stderr.decode(errors="replace")

    def run(self, command: str, timeout: float = 120.0):
        from netauto.deploy.connection import CommandResult

        rc, out, err = self.run_bytes(command, timeout)
        return CommandResult(rc, out.decode(errors="replace"), err)


@pytest.mark.parametrize("no_tar", [False, True])
def test_read_files_in_one_command_bytes_exact_missing_is_none(tmp_path, no_tar):
    from netauto.deploy import remote

    data = {"a.conf": b"line 1\nline 2\n", "bin": bytes(range(256)) * 3, "empty": b"", "sp ace's": b"x"}
    for name, content in data.items():
        (tmp_path / name).write_bytes(content)
    (tmp_path / "link").symlink_to(tmp_path / "a.conf")
    (tmp_path / "hard").hardlink_to(tmp_path / "bin")
    paths = [str(tmp_path / n) for n in [*data, "link", "hard", "missing"]] + [str(tmp_path)]  # a dir: not a file
    session = _LocalSession(no_tar)
    got = remote.read_files(session, paths)  # type: ignore[arg-type]
    assert got == {**{str(tmp_path / n): c for n, c in data.items()}, str(tmp_path / "link"): data["a.conf"],
                   str(tmp_path / "hard"): data["bin"], str(tmp_path / "missing"): None, str(tmp_path): None}
    assert len(session.commands) == (2 if no_tar else 1)  # one command; a device without tar: the per-file script
    for name in data:
        (tmp_path / name).chmod({"a.conf": 0o640, "bin": 0o755}.get(name, 0o644))
    got, meta = remote.read_files_meta(session, paths)  # type: ignore[arg-type]
    me = f"{pwd.getpwuid(os.getuid()).pw_name}:{grp.getgrgid(os.getgid()).gr_name}"
    assert got[str(tmp_path / "a.conf")] == data["a.conf"]  # the bytes and their mode/owner in the same command
    assert len(session.commands) == (4 if no_tar else 2)
    assert meta == {**{str(tmp_path / n): (0o644, me) for n in data}, str(tmp_path / "a.conf"): (0o640, me),
                    str(tmp_path / "bin"): (0o755, me), str(tmp_path / "hard"): (0o755, me),
                    str(tmp_path / "link"): None, str(tmp_path / "missing"): None, str(tmp_path): None}
    assert remote.read_files(session, [str(tmp_path / "missing")]) == {str(tmp_path / "missing"): None}  # type: ignore[arg-type]
    assert remote.read_files(session, []) == {}  # type: ignore[arg-type]


def test_ssh_socket_has_nagle_off_and_acks_at_once():
    """Without TCP_NODELAY/QUICKACK each SSH connection stalled ~40 ms twice (Nagle + delayed ACK)."""
    import socket

    from netauto.deploy.connection import _tcp

    with socket.create_server(("127.0.0.1", 0)) as server:
        sock = _tcp("127.0.0.1", server.getsockname()[1], None, 5.0)
        peer, _ = server.accept()
        with sock, peer:
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            peer.sendall(b"SSH-2.0-test\r\n")
            assert sock.recv(64) == b"SSH-2.0-test\r\n"
            sock.sendall(b"ok")
            assert peer.recv(2) == b"ok"


def test_unreachable_device_is_one_clear_error():
    import socket

    from netauto.deploy.connection import open_session

    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
    with pytest.raises(NetautoError, match=rf"127.0.0.1:{port}: SSH failed: ConnectionRefusedError"):
        open_session("127.0.0.1", port, "root", check_host_keys=False, timeout=3)


def test_sonic_switch_runs_frr_tools_in_the_bgp_container_and_rolls_back_config_db_first():
    """A real SONiC switch: vtysh/frr-reload go through `docker exec -i bgp`, on the container's /etc/frr path;
    CONFIG_DB is restored from the GCU checkpoint before the files and FRR. A lab node runs FRR itself."""
    model, artifacts = render(EXAMPLES / "mixed-sonic" / "inventory")
    leaf = build_targets(model, artifacts)["su1-r0-leaf"]
    spine = build_targets(model, artifacts)["spine1"]
    assert (leaf.nos, leaf.frr_exec, spine.frr_exec) == ("sonic", "docker exec -i bgp ", "")
    sku = "/usr/share/sonic/device/x86_64-nvidia_sn5600-r0/ACS-SN5600"  # the templates `config qos reload` renders
    assert set(leaf.files) == {"/etc/sonic/config_db.json", "/etc/sonic/frr/frr.conf", f"{sku}/qos.json.j2",
                               f"{sku}/buffers.json.j2"}
    before = {path: b"old" for path in leaf.files}
    script = _rollback_script(leaf, before, "/var/tmp/netauto-x", "netauto-x").splitlines()
    rollback, reload = script.index("config rollback netauto-x && config delete-checkpoint netauto-x >/dev/null 2>&1"), \
        script.index("docker exec -i bgp /usr/lib/frr/frr-reload.py --reload /etc/frr/frr.conf")
    restore = script.index("cp -p /var/tmp/netauto-x/backup/etc/sonic/config_db.json /etc/sonic/config_db.json")
    assert rollback < restore < reload
    assert f"cp -p /var/tmp/netauto-x/backup{sku}/qos.json.j2 {sku}/qos.json.j2" in script  # the SKU's own comes back
    assert any(line.endswith("docker exec -i bgp vtysh -c 'configure terminal' -c 'router bgp 65101' "
                             "-c 'no bgp graceful-shutdown'") for line in script)
    assert "ifreload" not in "\n".join(script)  # SONiC has no ifupdown2 interfaces file


def test_frr_check_reads_the_staged_file_on_stdin_so_a_container_sees_it(tmp_path):
    """SONiC's bgp container cannot see the host's stage dir: vtysh --dryrun gets the file on stdin."""
    from netauto.deploy import remote
    from netauto.deploy.remote import StepFailed

    good = tmp_path / "good.conf"
    good.write_text("router bgp 65101\n bgp router-id 10.0.0.1\n")
    bad = tmp_path / "bad.conf"
    bad.write_text("router bgp 65101\n neighbor swp1 frobnicate\n")
    session = _LocalSession()
    session.frr_exec = ""
    require_tool("vtysh")
    remote.frr_check(session, str(good))  # type: ignore[arg-type]
    with pytest.raises(StepFailed, match=r"line 2: % Unknown command.*frobnicate"):
        remote.frr_check(session, str(bad))  # type: ignore[arg-type]
    assert "-f /dev/stdin <" in session.commands[0]


@pytest.mark.parametrize("line, secret", [
    (" neighbor swp33 password s3cret-1", "s3cret-1"),  # FRR
    (" neighbor 10.0.0.1 password 7 0822455D0A16", "0822455D0A16"),
    ('        "password": "pa ss",', "pa ss"),  # config_db.json
    ("      secret: hunter2", "hunter2"),  # NVUE yaml
    ("snmp-server community pub1ic ro", "pub1ic"),
    ("rocommunity pub1ic default", "pub1ic"),
    ("tacacs-server key=abc123", "abc123"),
])
def test_secrets_are_redacted_in_every_spelling(line, secret):
    from netauto.deploy.device import unified
    from netauto.deploy.redact import redact

    assert secret not in redact(line) and "<redacted>" in redact(line)
    diff = unified("/etc/x", f"a\n{line}\n".encode(), b"a\n")
    assert secret not in diff and diff.count("<redacted>") == 1


@pytest.mark.parametrize("line", [" set community 65000:1 additive", "bgp community-list standard GSHUT permit",
                                  " neighbor swp1 interface remote-as external", "key_file: x"])
def test_redaction_keeps_what_is_not_secret(line):
    from netauto.deploy.redact import redact

    assert redact(line) == line


def test_results_file_is_0600_in_a_new_0700_dir(tmp_path):
    from netauto.deploy.device import DeviceResult
    from netauto.deploy.run import write_results

    path = write_results(tmp_path / "new" / "r.json", "apply",
                         [DeviceResult("x", "apply", "failed", error="% neighbor swp1 password s3cret refused")], {})
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    assert "s3cret" not in path.read_text()


@pytest.mark.parametrize("value", ["1", "-5", "100", "4000"])
def test_confirm_timeout_must_cover_the_push(value, tmp_path):
    from click.testing import CliRunner

    from netauto.cli.app import cli, load_commands

    load_commands()
    res = CliRunner().invoke(cli, ["deploy", "-i", str(DEFAULT_INVENTORY), "--yes", "--confirm-timeout", value,
                                   "--results", str(tmp_path / "r.json")])
    assert res.exit_code == 2 and "--confirm-timeout" in res.output and "at least 240 s" in res.output, res.output
    assert not (tmp_path / "r.json").exists()  # refused before rendering or connecting


def test_password_is_not_inherited_by_child_processes(monkeypatch):
    import subprocess
    import sys

    from netauto.deploy.targets import Credentials, scrub_env

    monkeypatch.setenv("NETAUTO_SSH_PASSWORD", "pw-4711")
    monkeypatch.setenv("NETAUTO_SSH_PASSWORD_SPINE1", "pw-spine1")
    creds = Credentials.from_env()
    scrub_env()  # what the deploy CLI does right after reading them
    child = subprocess.run([sys.executable, "-c", "import os; print(sorted(n for n in os.environ if 'PASSWORD' in n))"],
                           capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "[]"  # NETAUTO_SSH_PASSWORD and the per-device ones are gone
    assert creds.password == "pw-4711" and creds.passwords == {"NETAUTO_SSH_PASSWORD_SPINE1": "pw-spine1"}


def test_boot_unit_that_resumes_watchdogs_is_valid_for_systemd(tmp_path):
    """systemd-analyze verify (the real parser) on the unit deploy installs on systemd devices."""
    require_tool("systemd-analyze")
    import subprocess

    from netauto.deploy.boot_unit import BOOT_UNIT, BOOT_UNIT_TEXT

    unit = tmp_path / BOOT_UNIT.rsplit("/", 1)[-1]
    unit.write_text(BOOT_UNIT_TEXT)
    res = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True)
    problems = [ln for ln in (res.stdout + res.stderr).splitlines() if unit.name in ln]
    assert res.returncode == 0 and not problems, res.stdout + res.stderr


def test_lock_status_parses_holder_watchdog_and_history():
    from netauto.deploy.devstate import _parse_status

    st = _parse_status("__NOW__ 1000\n__LOCK__\nrun=R1\nclient=h\npid=42\nuser=u\nstarted=T\nstage=/var/tmp/netauto/run.a\n"
                       "__HELD__\n__STAGE__ /var/tmp/netauto/run.a 1060 alive deadline guard.sh watchdog.pid\n"
                       "__HISTORY__\n2026 run R0 on x: applied and confirmed\n")
    assert st.busy and st.lock["pid"] == "42" and st.stages[0].watchdog_alive and st.stages[0].deadline == 1060
    text = st.describe()
    assert "locked by run R1 (pid 42 on h" in text and "restores the files from before that run in 60 s" in text
    assert not _parse_status("__NOW__ 5\n__LOCK__\n__HISTORY__\n").busy


def test_nvue_document_reads_yaml12_merges_owned_subtrees_and_keeps_the_baseline():
    from netauto.deploy import nvue

    applied = nvue.parse("- header:\n    version: Cumulus Linux 5.14.0\n- set:\n    system:\n      hostname: old\n"
                         "      aaa: {user: {cumulus: {role: system-admin}}}\n    service: {ntp: {mgmt: {}}}\n"
                         "    interface:\n      swp9: {link: {state: {up: {}}}}\n    router:\n      bgp: {enable: on}\n"
                         "    vrf: {mgmt: {}, default: {router: {bgp: {enable: on}}}}\n", "applied")
    assert applied.version == (5, 14) and applied.set["router"]["bgp"]["enable"] == "on"  # a string, not True
    intent = nvue.parse("- set:\n    system: {hostname: leaf1}\n    interface: {swp1: {type: swp}}\n"
                        "    router: {bgp: {enable: on, autonomous-system: 65101}}\n", "intent")
    merged = nvue.merge(applied.set, intent.set)
    assert merged["system"] == {"hostname": "leaf1", "aaa": {"user": {"cumulus": {"role": "system-admin"}}}}
    assert merged["service"] == {"ntp": {"mgmt": {}}} and merged["vrf"] == {"mgmt": {}}  # baseline kept
    assert merged["interface"] == {"swp1": {"type": "swp"}}  # owned: the stale swp9 goes
    assert nvue.drained(merged, applied.version)["router"]["bgp"]["graceful-shutdown"] == "on"
    assert nvue.drained(merged, (5, 15))["router"]["bgp"]["graceful-shutdown"] == "enabled"
    text = nvue.diff(applied.set, intent.set)
    assert "+  hostname: leaf1" in text and "aaa" not in text and "ntp" not in text  # owned parts only
    assert nvue.diff(merged, intent.set) == ""
    assert nvue.parse(nvue.NvDoc(applied.header, merged).text(), "round trip").set == merged


def test_nvue_secrets_are_redacted_in_its_diff():
    from netauto.deploy import nvue

    applied = {"vrf": {"default": {"router": {"bgp": {"neighbor": {"swp1": {"password": "s3cr3t"}}}}}}}
    assert "s3cr3t" not in nvue.diff(applied, {}) and "<redacted>" in nvue.diff(applied, {})


def test_cumulus_mode_comes_from_the_inventory_unless_overridden():
    model, artifacts = render(DEFAULT_INVENTORY)
    leaf = next(sw for sw in model.switches if sw.name == "su1-r0-leaf")
    leaf.cumulus_config_mode = "linux-files"  # fabric.cumulus_config_mode, as resolved into the model
    targets = build_targets(model, artifacts)
    assert targets["su1-r0-leaf"].cumulus_mode == "linux-files" and "/etc/frr/frr.conf" in targets["su1-r0-leaf"].files
    assert targets["su1-r1-leaf"].cumulus_mode == "nvue"
    assert build_targets(model, artifacts, cumulus_mode="nvue")["su1-r0-leaf"].cumulus_mode == "nvue"


def test_cluster_targets_include_network_switches_and_group_servers():
    """`netauto deploy` on a cluster: every network switch and network-only server is a target with its rendered files,
    a server holds its network netplan files too, and `--limit network_<network>` selects a network."""
    from netauto.pipeline import build_cluster
    from netauto.render.engine import render_cluster

    cluster = build_cluster(EXAMPLES / "cluster-lab" / "inventory")
    targets = build_targets(cluster, list(render_cluster(cluster)), cumulus_mode="linux-files")
    storage, frontend = (p.fabric for p in cluster.networks)
    for sw in [*storage.switches, *frontend.switches]:
        t = targets[sw.name]
        assert t.kind == "switch" and "/etc/frr/frr.conf" in t.files and t.su is None and t.pod is None
        assert t.expected_sessions == len(sw.bgp.neighbors) > 0
    assert targets["stor1"].kind == "server" and targets["stor1"].networks == ["storage", "frontend"]
    assert {"/etc/netplan/61-storage.yaml", "/etc/netplan/61-frontend.yaml"} <= set(targets["stor1"].files)
    assert {"/etc/netplan/60-rails.yaml", "/etc/netplan/61-storage.yaml"} <= set(targets["gpu1"].files)
    assert targets["gpu1"].networks == ["compute", "storage", "frontend"] and targets["gpu1"].su == 1
    switches = select(targets, "network_frontend,&switches")
    assert set(switches) == {sw.name for sw in frontend.switches}
    assert set(select(targets, "network=storage")) == {sw.name for sw in storage.switches} | {"stor1", "gpu1", "gpu2"}
    assert not set(select(targets, "su_1")) & {sw.name for sw in storage.switches}  # su_/pod_: the compute fabric's
    order = [n for wave in waves(targets, switches, batch=8) for n in wave]
    assert order.index("fe-agg1") > max(order.index("fe-acc0"), order.index("fe-acc1"))  # spines after leaves
    # the Nornir inventory (NetautoInventory plugin) holds them in the same groups
    inv = NetautoInventory(str(EXAMPLES / "cluster-lab" / "inventory")).load()
    assert "fe-acc0" in inv.hosts and "network_frontend" in inv.hosts["fe-acc0"].groups
    assert set(inv.children_of_group("network_storage")) >= {inv.hosts["st-leaf0"], inv.hosts["stor1"]}


def test_single_fabric_targets_have_no_network_groups(targets):
    assert all(t.networks == [] for t in targets.values())  # groups unchanged for a fabric without networks


def test_drain_of_a_device_without_bgp_fails_with_one_line_before_any_ssh():
    from netauto.deploy.device import ApplyOptions, maintenance_drain
    from netauto.deploy.targets import Target

    class NoSsh:  # any use of the session would be a bug: the check comes first
        def __getattr__(self, name):
            raise AssertionError(f"session.{name} used")

    host = Target("gpu1", "server", "server", "ubuntu", "192.0.2.10", 22, "root", None, {})
    for undrain in (False, True):
        result = maintenance_drain(NoSsh(), host, ApplyOptions(), undrain=undrain)
        assert (result.result, result.error) == ("failed", "gpu1 runs no BGP: nothing to drain")
        assert result.steps == []


def test_undrain_waits_until_the_neighbour_selects_the_unmarked_path_again():
    """FRR drops the GSHUT local-preference from a path before it re-runs bestpath/multipath: for that moment
    the path is neither marked nor selected, and the ECMP width is still the drained one. Undrain is done only
    when the neighbour chose the switch's path again (an equally short one; a longer path is never waited for)."""
    from netauto.deploy.forwarding import drain_view

    def path(host: str, *, selected: bool, lp0: bool = False, aspath: str = "65100 65001") -> dict:
        p = {"valid": True, "multipath": selected, "path": aspath, "nexthops": [{"hostname": host}]}
        if lp0:
            p["locPrf"] = 0
        return p

    others = [path("spine2", selected=True), path("spine3", selected=True)]
    drained = {"10.0.0.0/24": [path("spine1", selected=False, lp0=True), *others]}
    between = {"10.0.0.0/24": [path("spine1", selected=False), *others]}
    back = {"10.0.0.0/24": [path("spine1", selected=True), *others]}
    longer = {"10.0.0.0/24": [path("spine1", selected=False, aspath="65100 65200 65001"), *others]}
    assert drain_view(drained, "spine1", set()).marked == 1
    v = drain_view(between, "spine1", set())
    assert (v.marked, v.waiting, v.width) == (0, 1, 2)  # the race: not marked, not back either
    v = drain_view(back, "spine1", set())
    assert (v.marked, v.waiting, v.width) == (0, 0, 3)
    assert drain_view(longer, "spine1", set()).waiting == 0


def test_drain_of_an_mlag_access_switch_ignores_paths_through_it_via_the_peer():
    """With the session over the peerlink, an aggregation switch also learns the drained access switch's loopback
    from its MLAG peer (AS path 65302 65301, GSHUT lp 0 as well). That path is no way around the drained switch:
    the loopback counts as reachable only through it, drained once marked; the pair's shared subnet, which the
    peer originates itself, must move to the peer."""
    from netauto.deploy.forwarding import drain_view

    def path(host: str, aspath: str, *, selected: bool, lp0: bool = False) -> dict:
        p = {"valid": True, "bestpath": selected, "path": aspath, "nexthops": [{"hostname": host}]}
        if lp0:
            p["locPrf"] = 0
        return p

    loopback = {"10.251.0.1/32": [path("fe-g1-acc0", "65301", selected=True, lp0=True),
                                  path("fe-g1-acc1", "65302 65301", selected=False, lp0=True)]}
    v = drain_view(loopback, "fe-g1-acc0", set(), 65301)
    assert (v.pending, v.marked) == (0, 1)
    assert drain_view(loopback, "fe-g1-acc0", set()).pending == 1, "without the ASN the peer's path looks like a detour"
    subnet = {"10.32.0.0/24": [path("fe-g1-acc0", "65301", selected=True, lp0=True),
                               path("fe-g1-acc1", "65302", selected=False)]}
    assert drain_view(subnet, "fe-g1-acc0", set(), 65301).pending == 1, "the peer's own path must take over"


# ---------------------------------------------------------------- BGP post-check (netauto.deploy.sessions)
class _FrrSession:
    """Answers `show bgp summary json` / `show bgp neighbors json` in FRR's shapes from a scripted timeline."""

    def __init__(self, timeline: list[dict[str, str]], neighbors: dict[str, dict] | None = None) -> None:
        self.timeline, self.neighbors, self.frr_exec, self.polls = timeline, neighbors or {}, "", 0

    def run(self, command: str, timeout: float = 120.0):  # noqa: ANN201
        import json as _json

        from netauto.deploy.connection import CommandResult

        if "summary" in command:
            states = self.timeline[min(self.polls, len(self.timeline) - 1)]
            self.polls += 1
            return CommandResult(0, _json.dumps({"ipv4Unicast": {"peers": {n: {"state": s} for n, s in states.items()}}}), "")
        return CommandResult(0, _json.dumps(self.neighbors), "")


def _post_check(session, intended, before, timeout=60.0):
    from netauto.deploy import sessions

    now = [0.0]
    return sessions.post_check(session, intended, before, timeout, clock=lambda: now[0],
                               sleep=lambda s: now.__setitem__(0, now[0] + s))


def test_post_check_sessions_up_before_must_come_back():
    up, down = "Established", "Active"
    s = _FrrSession([{"swp1": down, "swp2": up}, {"swp1": up, "swp2": up}])
    assert _post_check(s, ["swp1", "swp2"], {"swp1", "swp2"}).lost == []
    s = _FrrSession([{"swp1": down, "swp2": up}])
    check = _post_check(s, ["swp1", "swp2"], {"swp1", "swp2"}, timeout=5)
    assert check.lost == ["swp1"] and check.seconds == 5


def test_post_check_new_session_waits_for_a_silent_peer_and_fails_on_a_refusal():
    up, down = "Established", "Active"
    # swp3 was not up before: a peer that sends nothing (no notification) is waited for, not a failure
    s = _FrrSession([{"swp1": up, "swp3": down}])
    check = _post_check(s, ["swp1", "swp3"], {"swp1"})
    assert (check.lost, check.refused, check.waiting) == ([], {}, ["swp3"])
    assert check.seconds == 30  # the grace for new sessions, not the whole timeout
    # the peer answers with a NOTIFICATION (FRR's fields as seen in the lab with a wrong remote-as): a failure
    refusal = {"swp3": {"bgpState": "Idle", "lastErrorCodeSubcode": "0202",
                        "lastNotificationReason": "OPEN Message Error/Bad Peer AS", "lastResetTimerMsecs": 4000}}
    check = _post_check(_FrrSession([{"swp1": up, "swp3": down}], refusal), ["swp1", "swp3"], {"swp1"})
    assert check.refused == {"swp3": "OPEN Message Error/Bad Peer AS"} and check.waiting == []
    # a notification from long before the push is history, not this push's doing
    refusal["swp3"]["lastResetTimerMsecs"] = 3_600_000
    check = _post_check(_FrrSession([{"swp1": up, "swp3": down}], refusal), ["swp1", "swp3"], {"swp1"})
    assert check.refused == {} and check.waiting == ["swp3"]
