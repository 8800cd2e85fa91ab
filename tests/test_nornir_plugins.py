"""The Nornir inventory serves stock plugins too: platform per NOS, connection_options for netmiko, napalm and
scrapli with the same key/known_hosts/ssh_config/namespace; per-device and per-group credentials; a real
Netmiko session opened from nothing but those options; the namespace relay."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES, ROOT
from test_ssh_config import sshd  # noqa: F401 - the fixture

from netauto.deploy.nornir_inventory import NetautoInventory, connection_options, nornir_inventory
from netauto.deploy.targets import Access, Credentials, build_targets, credentials_for
from netauto.pipeline import render

MIXED = EXAMPLES / "mixed-sonic" / "inventory"


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith(("NETAUTO_SSH", "NETAUTO_KNOWN_HOSTS")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/config of the machine's user
    return monkeypatch


def test_platform_and_plugin_names_per_nos(clean_env):
    inv = NetautoInventory(str(MIXED)).load()
    leaf, spine1, spine4, gpu = (inv.hosts[n] for n in ("su1-r0-leaf", "spine1", "spine4", "gpu01"))
    assert (leaf.platform, spine1.platform, spine4.platform, gpu.platform) == ("sonic", "cumulus", "sonic", "linux")
    assert leaf.connection_options["napalm"].platform == "netauto_sonic"
    assert spine1.connection_options["napalm"].platform == "netauto_cumulus"
    assert gpu.connection_options["napalm"].platform == "netauto_linux"
    assert spine1.connection_options["scrapli"].platform == "cumulus_linux"
    assert leaf.connection_options["scrapli"].platform == "generic"
    assert {h.connection_options["netmiko"].platform for h in inv.hosts.values()} == {"linux"}
    assert leaf.data["nos"] == "sonic" and leaf.data["su"] == 1 and gpu.data["kind"] == "server"


def test_every_plugin_gets_the_key_known_hosts_and_ssh_config(clean_env, tmp_path):
    clean_env.setenv("NETAUTO_SSH_KEY", "/keys/fabric")
    clean_env.setenv("NETAUTO_KNOWN_HOSTS", "/keys/known_hosts")
    clean_env.setenv("NETAUTO_SSH_CONFIG", str(tmp_path / "ssh_config"))
    host = NetautoInventory(str(DEFAULT_INVENTORY)).load().hosts["spine1"]
    own = host.connection_options["netauto"].extras
    netmiko = host.connection_options["netmiko"].extras
    scrapli = host.connection_options["scrapli"].extras
    napalm = host.connection_options["napalm"].extras["optional_args"]
    assert own["key_file"] == netmiko["key_file"] == scrapli["auth_private_key"] == napalm["key_file"] == "/keys/fabric"
    assert netmiko["alt_key_file"] == scrapli["ssh_known_hosts_file"] == napalm["known_hosts"] == "/keys/known_hosts"
    assert netmiko["ssh_strict"] and scrapli["auth_strict_key"] and netmiko["alt_host_keys"]
    assert netmiko["ssh_config_file"] == scrapli["ssh_config_file"] == own["ssh_config"] == str(tmp_path / "ssh_config")
    off = NetautoInventory(str(DEFAULT_INVENTORY), check_host_keys=False).load().hosts["spine1"]
    assert not off.connection_options["netmiko"].extras["ssh_strict"]
    assert not off.connection_options["scrapli"].extras["auth_strict_key"]


def test_per_device_and_group_credentials_most_specific_wins(clean_env):
    clean_env.setenv("NETAUTO_SSH_KEY", "/k/all")
    clean_env.setenv("NETAUTO_SSH_KEY_SWITCHES", "/k/switches")
    clean_env.setenv("NETAUTO_SSH_KEY_ROLE_SPINE", "/k/spines")
    clean_env.setenv("NETAUTO_SSH_KEY_SPINE2", "/k/spine2")
    clean_env.setenv("NETAUTO_SSH_PASSWORD_NOS_SONIC", "sonic-pw")
    model, artifacts = render(MIXED)
    targets = build_targets(model, artifacts)
    creds = Credentials.from_env()
    keys = {n: str(credentials_for(targets[n], creds).key_file) for n in ("gpu01", "su1-r0-leaf", "spine1", "spine2")}
    assert keys == {"gpu01": "/k/all", "su1-r0-leaf": "/k/switches", "spine1": "/k/spines", "spine2": "/k/spine2"}
    inv = nornir_inventory(targets, creds)
    assert inv.hosts["spine4"].password == "sonic-pw" and inv.hosts["spine1"].password is None
    assert inv.hosts["spine2"].connection_options["netmiko"].extras["key_file"] == "/k/spine2"
    lab = Credentials(key_file=Path("/lab/key"))  # a lab's own credentials: the environment does not apply
    assert credentials_for(targets["spine2"], lab).key_file == Path("/lab/key")


def test_lab_namespace_reaches_stock_plugins_through_an_ssh_config(clean_env, tmp_path):
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model, artifacts = render(DEFAULT_INVENTORY)
    access = Access(addresses={d.name: "10.99.0.1" for d in [*model.switches, *model.servers]}, netns="na-t-mgmt",
                    user="root")
    target = build_targets(model, artifacts, access)["spine1"]
    options = connection_options(target, Credentials(key_file=Path("/lab/id"), known_hosts=Path("/lab/kh")))
    config = Path(options["netmiko"].extras["ssh_config_file"])
    assert options["netauto"].extras["netns"] == "na-t-mgmt" and options["netauto"].extras["ssh_config"] is None
    assert options["napalm"].extras["optional_args"]["netns"] == "na-t-mgmt"
    assert config.read_text() == (f"Host *\n  ProxyCommand {sys.executable} -m netauto.deploy.netns_proxy "
                                  f"na-t-mgmt %h %p\n")
    assert options["scrapli"].extras["ssh_config_file"] == str(config)
    assert options["scrapli"].extras["variant"] == "root-login"  # scrapli_community cumulus_linux as root


def test_stock_netmiko_connects_with_nothing_but_the_inventory_options(sshd, clean_env, tmp_path):  # noqa: F811
    """What nornir_netmiko does (ConnectHandler(host, username, password, port, device_type=platform, **extras))
    with the options of a host whose ssh_config sends it to a real sshd on loopback."""
    from netmiko import ConnectHandler

    port, key, known, _ = sshd
    cfg = tmp_path / "ssh_config"
    cfg.write_text(f"Host 192.168.200.*\n  HostName 127.0.0.1\n  Port {port}\n")
    clean_env.setenv("NETAUTO_SSH_KEY", str(key))
    clean_env.setenv("NETAUTO_KNOWN_HOSTS", str(known))
    clean_env.setenv("NETAUTO_SSH_CONFIG", str(cfg))
    host = NetautoInventory(str(DEFAULT_INVENTORY)).load().hosts["spine1"]
    opts = host.connection_options["netmiko"]
    conn = ConnectHandler(host=host.hostname, username="root", password=host.password, port=opts.port,
                          device_type=opts.platform, **opts.extras)
    try:
        assert conn.send_command("echo stock-$((6*7))").strip() == "stock-42"
    finally:
        conn.disconnect()


def test_netns_relay_reaches_a_listener_inside_a_namespace():
    if os.geteuid() != 0:
        pytest.skip("needs root (ip netns)")
    ns = f"na-fu{os.getpid()}-relay"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        server = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-c",
             "import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1);"
             "s.bind(('127.0.0.1', 2222)); s.listen(1); c,_=s.accept(); d=c.recv(100); c.sendall(b'echo:'+d); c.close()"])
        try:
            time.sleep(0.5)
            relay = subprocess.run([sys.executable, "-m", "netauto.deploy.netns_proxy", ns, "127.0.0.1", "2222"],
                                   input=b"hello", capture_output=True, timeout=20, cwd=ROOT,
                                   env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            assert relay.returncode == 0 and relay.stdout == b"echo:hello", relay.stderr
            # the host's own loopback has no such listener: the relay really connected inside the namespace
            missing = subprocess.run([sys.executable, "-m", "netauto.deploy.netns_proxy", "na-no-such-ns",
                                      "127.0.0.1", "2222"], capture_output=True, text=True, timeout=20, cwd=ROOT,
                                     env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            assert missing.returncode == 1 and "does not exist" in missing.stderr
        finally:
            server.kill()
            server.wait()
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)


def test_task_results_carry_the_diff_for_print_result(clean_env, monkeypatch):
    """nornir_utils' print_result shows Result.diff: the dry-run task fills it with the unified diffs."""
    from nornir.core import Nornir
    from nornir.plugins.runners import SerialRunner

    from netauto.deploy.device import DeviceResult
    from netauto.task_loader import load

    tasks = load("deploy_tasks")
    diff = {"/etc/frr/frr.conf": "--- running\n+++ intent\n-a\n+b\n"}
    monkeypatch.setattr(tasks, "_session", lambda task: object())
    monkeypatch.setattr(tasks, "dry_run", lambda session, target: DeviceResult(target.name, "dry-run", "changed", diff))
    inv = NetautoInventory(str(DEFAULT_INVENTORY)).load()
    nr = Nornir(inventory=inv, runner=SerialRunner()).filter(name="spine1")
    result = nr.run(task=tasks.dry_run_task)["spine1"][0]
    assert result.changed and result.diff == diff["/etc/frr/frr.conf"] and result.result.diff == diff


@pytest.mark.parametrize(("mode", "checked"), [("strict", True), ("accept-new", True), ("off", False)])
def test_run_credentials_carry_the_host_key_mode(mode: str, checked: bool) -> None:
    from netauto.deploy.run_targets import run_credentials

    access, creds = run_credentials(None, mode)
    assert access is None and creds.host_key_mode == mode and creds.check_host_keys is checked


def test_build_credentials_targets_composed_once() -> None:
    """deploy, verify, acceptance and the Nornir plugin get their credentials, targets and fabric id from one
    sequence: only deploy/run_targets builds targets, reads credentials or attaches the fabric id."""
    import ast

    import netauto

    def calls(path: Path) -> set[str]:
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                found.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
        return found

    src = Path(netauto.__file__).parent
    callers = {p.relative_to(src).as_posix() for p in src.rglob("*.py")
               if calls(p) & {"build_targets", "from_env", "lab_access", "run_targets", "run_credentials", "attach_id"}}
    assert callers == {"deploy/run_targets.py"}


def test_plugin_hosts_carry_the_inventory_fabric_id(clean_env, tmp_path):
    """The plugin's hosts feed tasks/deploy_tasks.apply_task, which pushes (deploy.device.apply_device): each
    target carries the inventory's recorded fabric id as `netauto deploy`'s do. A device whose marker records
    that id is this inventory's (not refused); one recording another id is refused unless adopted."""
    import shutil

    from netauto.deploy import identity
    from netauto.formats.fabric_marker import MARKER, marker_text

    inv = tmp_path / "inv"
    shutil.copytree(DEFAULT_INVENTORY, inv, ignore=shutil.ignore_patterns(identity.ID_FILE))
    fabric_id, _ = identity.record_id(inv)
    target = NetautoInventory(str(inv)).load().hosts["spine1"].data["target"]
    assert (target.fabric_id, target.fabric_id_file) == (fabric_id, str(inv / identity.ID_FILE))
    files = {p: a.content.encode() for p, a in target.files.items()}
    mine = {**files, MARKER: marker_text(target.fabric, fabric_id).encode()}
    assert identity.check_found(target, mine, adopt=False).fabric_id == fabric_id
    other = {**files, MARKER: marker_text(target.fabric, "fid-" + "0" * 32).encode()}
    with pytest.raises(identity.ForeignDevice, match="id fid-0{32}"):
        identity.check_found(target, other, adopt=False)


def test_plugin_adopt_and_cumulus_mode_options_reach_the_targets(clean_env):
    """`adopt` and `cumulus_mode` mean what `netauto deploy --adopt` / `--cumulus-mode` mean: every target is
    marked for adoption, every Cumulus switch runs the mode given (default: the inventory's
    fabric.cumulus_config_mode); a value the CLI would refuse is refused, naming the option."""
    from netauto.deploy import run_targets
    from netauto.errors import NetautoError

    def targets(**options):
        return {n: h.data["target"] for n, h in NetautoInventory(str(MIXED), **options).load().hosts.items()}

    default = targets()
    cumulus = [n for n, t in default.items() if t.kind == "switch" and t.nos == "cumulus"]
    assert cumulus and not any(t.adopt for t in default.values())
    assert {default[n].cumulus_mode for n in cumulus} == {"nvue"}  # fabric.cumulus_config_mode's default
    given = targets(adopt=True, cumulus_mode="linux-files")
    assert all(t.adopt for t in given.values())
    assert {given[n].cumulus_mode for n in cumulus} == {"linux-files"}
    # the same targets as the CLI's sequence with the same options
    cli = run_targets.built_targets(MIXED, None, None, adopt=True, cumulus_mode="linux-files").targets
    assert {n: (t.adopt, t.cumulus_mode, sorted(t.files)) for n, t in cli.items()} == \
        {n: (t.adopt, t.cumulus_mode, sorted(t.files)) for n, t in given.items()}
    with pytest.raises(NetautoError, match=r"cumulus_mode 'nvu'.*nvue, linux-files"):
        NetautoInventory(str(MIXED), cumulus_mode="nvu")
    with pytest.raises(NetautoError, match=r"adopt 'yes'.*true or false"):
        NetautoInventory(str(MIXED), adopt="yes")  # YAML/JSON config: a string would be truthy
