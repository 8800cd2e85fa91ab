"""netauto uses a few private APIs of netmiko, paramiko and pybatfish (for speed and bounded retries). Their
version ranges in pyproject.toml are bounded, and this test fails on a release that drops or changes what
netauto calls, before a deploy does."""

from __future__ import annotations

import inspect
import re
import tomllib
from importlib.metadata import version

import pytest
from conftest import ROOT
from packaging.requirements import Requirement

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
REQUIREMENTS = {Requirement(r).name: Requirement(r) for r in PYPROJECT["project"]["dependencies"]}
REQUIREMENTS.update({Requirement(r).name: Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["batfish"]})


@pytest.mark.parametrize("dist", ["netmiko", "paramiko", "pybatfish"])
def test_private_api_users_have_an_upper_bound_and_the_installed_release_is_inside(dist):
    req = REQUIREMENTS[dist]
    assert any(spec.operator in ("<", "<=", "~=", "==") for spec in req.specifier), f"{dist}: no upper bound"
    try:
        installed = version(dist)
    except Exception:  # noqa: BLE001
        pytest.skip(f"{dist} not installed")
    assert req.specifier.contains(installed, prereleases=True), f"{dist} {installed} is outside {req.specifier}"


def test_netmiko_private_api_deploy_connection_uses():
    import paramiko
    from netmiko import ConnectHandler
    from netmiko.channel import SSHChannel

    conn = ConnectHandler(device_type="linux", host="192.0.2.1", username="u", password="p", port=22,
                          ssh_strict=True, system_host_keys=False, auto_connect=False, fast_cli=True)
    conn._modify_connection_params()
    client = conn._build_ssh_client()
    assert isinstance(client, paramiko.SSHClient)
    assert isinstance(client._host_keys, paramiko.HostKeys) and isinstance(client._host_keys._entries, list)
    params = conn._connect_params_dict()
    assert {"hostname", "port", "username", "password", "pkey", "sock", "timeout", "auth_timeout",
            "banner_timeout"} <= set(params)
    assert set(params) <= set(inspect.signature(paramiko.SSHClient.connect).parameters)
    for attr in ("blocking_timeout", "keepalive", "encoding"):
        assert hasattr(conn, attr), attr
    # connection.py sets remote_conn_pre / remote_conn itself, where netmiko's own connect would
    source = inspect.getsource(type(conn).establish_connection)
    assert "self.remote_conn_pre" in source and "self.remote_conn" in source
    assert callable(conn.special_login_handler)
    assert {"conn", "encoding"} <= set(inspect.signature(SSHChannel).parameters)


def test_paramiko_private_api_deploy_connection_uses(tmp_path):
    import paramiko

    key = paramiko.Ed25519Key  # the key type lab and tests use
    assert callable(paramiko.PKey.from_path) and key is not None
    known = tmp_path / "known_hosts"
    known.write_text("[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")
    keys = paramiko.HostKeys()
    keys.load(str(known))
    assert len(keys._entries) == 1 and isinstance(keys._entries[0], paramiko.hostkeys.HostKeyEntry)
    client = paramiko.SSHClient()
    client._host_keys._entries.extend(keys._entries)  # what connection.py does with the parsed file
    assert client.get_host_keys().lookup("[127.0.0.1]:2222") is not None
    config = tmp_path / "ssh_config"
    config.write_text("Host a\n  ProxyJump b\n  IdentityFile ~/k\n")
    entry = paramiko.SSHConfig.from_path(str(config)).lookup("a")
    assert entry["proxyjump"] == "b" and isinstance(entry["identityfile"], list)
    assert "command_line" in inspect.signature(paramiko.ProxyCommand).parameters


def test_pybatfish_private_api_batfish_client_uses():
    pytest.importorskip("pybatfish", reason="pybatfish not installed (netauto-fabric[batfish])")
    from pybatfish.client import restv2helper
    from pybatfish.client.session import Session

    sessions = [getattr(restv2helper, n, None) for n in ("_requests_session", "_requests_session_fail_fast")]
    assert any(s is not None and hasattr(s, "adapters") and hasattr(s, "mount") for s in sessions)
    params = inspect.signature(Session.__init__).parameters
    assert "host" in params and "load_questions" in params and ("port" in params or "port_v2" in params)


def test_no_unused_dependency():
    """Every runtime dependency is imported somewhere in src/ (netaddr was not)."""
    import_names = {"pyyaml": "yaml", "jinja2": "jinja2"}
    sources = "\n".join(p.read_text() for p in (ROOT / "src").rglob("*.py"))
    sources += "\n".join(p.read_text() for p in (ROOT / "tasks").rglob("*.py"))
    for name in REQUIREMENTS:
        if name == "pybatfish":
            continue
        module = import_names.get(name.lower(), name.lower().replace("-", "_"))
        assert re.search(rf"^\s*(import|from) {module}\b", sources, re.MULTILINE), f"{name} is never imported"
