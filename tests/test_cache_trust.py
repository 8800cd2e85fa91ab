"""Every cache netauto reads is trusted only when it is the running user's own (netauto.cache.trusted): a cache
entry, or one of its folders up to the cache root, owned by another user, a link or writable by the group or
others is ignored and said once on stderr (issue 33, item 1). Root plants as uid 65534 (nobody)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import jinja2
import pytest

from netauto import cache
from netauto.render import fingerprint
from netauto.private_files import private_dir
from netauto.render import incremental, jinja_env, store
from netauto.validate import clean_cache, yang_models

NOBODY = 65534
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="plants files owned by another uid (root only)")


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(cache, "_WARNED", set(), raising=False)
    return tmp_path / "xdg" / "netauto"


def plant(path: Path, data: str | bytes, how: str) -> None:
    """`path` written, then made untrusted: 'owner' (another uid), 'mode' (0666) or 'folder' (0777 cache root)."""
    private_dir(path.parent)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    path.chmod(0o600)
    if how == "owner":
        os.chown(path, NOBODY, NOBODY)
    elif how == "mode":
        path.chmod(0o666)
    else:
        cache.cache_dir().chmod(0o777)


HOW = ["owner", "mode", "folder"]


@pytest.mark.parametrize("how", HOW)
def test_a_planted_template_bytecode_never_runs(xdg, tmp_path, how, capsys):
    marker = tmp_path / "ran"
    bcc = jinja_env._bytecode_cache()
    assert bcc is not None
    env = jinja2.Environment(loader=jinja2.DictLoader({"t": "hello {{ x }}"}), bytecode_cache=bcc)
    assert env.get_template("t").render(x=1) == "hello 1"
    bucket = bcc.get_bucket(env, "t", None, "hello {{ x }}")
    bucket.code = compile(f"open({str(marker)!r}, 'w').write('pwned')", "planted", "exec")
    bcc.dump_bytecode(bucket)
    planted = Path(bcc._get_cache_filename(bucket))  # type: ignore[attr-defined]
    plant(planted, planted.read_bytes(), how)
    again = jinja_env._bytecode_cache()
    fresh = jinja2.Environment(loader=jinja2.DictLoader({"t": "hello {{ x }}"}), bytecode_cache=again)
    assert fresh.get_template("t").render(x=2) == "hello 2"
    assert not marker.exists()
    err = capsys.readouterr().err
    assert err.count("netauto: ignoring the cache") == 1


def _clean_run(tmp_path: Path) -> list[list[str]]:
    from netauto.validate.files import FileSet

    texts = {f"leaf{i}": f"hostname leaf{i}\n" for i in range(3)}
    refs = []
    for dev, text in texts.items():
        path = tmp_path / "tree" / dev / "etc/frr/frr.conf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        refs.append((dev, path))
    files = FileSet({dev: {"etc/frr/frr.conf": t} for dev, t in texts.items()}, tmp_path / "tree")
    ran: list[list[str]] = []

    def check(todo):
        ran.append(sorted(dev for dev, _ in todo))
        return []

    clean_cache.run_cached("trust test", ("true",), check, refs, clean_cache.DeviceDigests(files))
    return ran


def test_the_cache_switch_is_named_for_what_it_does():
    """NETAUTO_VALIDATE_CACHE switches the clean-run cache (on by default); no name says it disables it."""
    assert clean_cache.CACHE_ENV == "NETAUTO_VALIDATE_CACHE"
    assert not [name for name in vars(clean_cache) if "DISABLE" in name]


@pytest.mark.parametrize("how", HOW)
def test_a_planted_clean_run_key_skips_no_validator(xdg, tmp_path, monkeypatch, how):
    monkeypatch.setenv(clean_cache.CACHE_ENV, "1")
    assert _clean_run(tmp_path) == [["leaf0", "leaf1", "leaf2"]]
    assert _clean_run(tmp_path) == []  # recorded clean: nothing runs
    (keys,) = (xdg / "validate").glob("*.keys")
    plant(keys, keys.read_bytes(), how)  # as if another user had written every key
    assert _clean_run(tmp_path) == [["leaf0", "leaf1", "leaf2"]]


def _reader_cases() -> dict[str, tuple[Callable[[], Path], str, Callable[[], object], object]]:
    target = Path("/nonexistent/out/fab")
    return {
        "code stamps": (fingerprint._stamps_file,
                        json.dumps({"version": __import__("netauto").__version__, "k": "v"}),
                        fingerprint._load_stamps, {}),
        "device keys": (lambda: incremental._state_file(target),
                        json.dumps({"version": __import__("netauto").__version__, "tree": "t", "keys": {"a": "b"}}),
                        lambda: incremental.load_keys(target, "t"), {}),
        "render state": (lambda: store._base(target).with_suffix(".json"),
                         json.dumps({"version": __import__("netauto").__version__, "tree": "t", "data": "/x",
                                     "raw": [], "settings": {}, "devices": {}, "facts": {}, "code": ""}),
                         lambda: store.load(target, "t"), None),
        "ifquery keywords": (lambda: cache.cache_dir("validate") / "words.keywords", "mtuu\n",
                             lambda: clean_cache.read_words(cache.cache_dir("validate") / "words.keywords"), set()),
    }


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("case", list(_reader_cases()))
def test_every_cache_reader_ignores_an_entry_not_ours(xdg, how, case):
    where, data, read, empty = _reader_cases()[case]
    path = where()
    private_dir(path.parent)
    path.write_text(data)
    path.chmod(0o600)
    assert read() != empty  # the reader does read its own entry
    plant(path, data, how)
    assert read() == empty


def test_the_render_index_of_another_user_is_not_followed(xdg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inv = tmp_path / "inv.yaml"
    inv.write_text("fabric: x\n")
    index = fingerprint._index_file(Path("build"), inv, None)
    data = json.dumps({"version": __import__("netauto").__version__, "target": str(tmp_path / "build" / "x")})
    plant(index, data, "owner")
    assert fingerprint.render_request(["render", "-i", str(inv)]) is None


def test_another_users_yang_cache_is_not_looked_at(xdg, monkeypatch):
    monkeypatch.delenv(yang_models.DIR_ENV, raising=False)
    folder = yang_models.models_cache()
    plant(folder / yang_models.MARKER, "module sonic-types {}\n", "owner")
    os.chown(folder, NOBODY, NOBODY)
    assert yang_models.find_models().found is None


def test_a_planted_ssh_proxy_config_is_not_used(xdg):
    from netauto.deploy.nornir_inventory import netns_ssh_config

    path = cache.netns_ssh_config_path("labx-mgmt")
    plant(path, "Host *\n  ProxyCommand touch /tmp/pwned\n", "folder")
    used = netns_ssh_config("labx-mgmt")
    assert "pwned" not in Path(used).read_text()
    assert Path(used).stat().st_uid == os.geteuid() and not Path(used).stat().st_mode & 0o022


def test_own_caches_are_made_private_and_read(xdg):
    """The caches netauto makes itself are trusted (no warning, no ignored cache under a umask of 002)."""
    old = os.umask(0o002)
    try:
        assert cache.write_cache(cache.cache_dir("render") / "f.json", "{}")
    finally:
        os.umask(old)
    assert cache.read_trusted(cache.cache_dir("render") / "f.json") == b"{}"
    assert oct(cache.cache_dir().stat().st_mode & 0o777) == "0o700"


def test_sonic_cfggen_venv_of_another_user_is_never_run(tmp_path, monkeypatch):
    """The generator's venv ($XDG_CACHE_HOME/netauto-sonic-cfggen/venv) is code: its bin/python runs sonic-cfggen.
    Another user's (root under `sudo -E`) or one others may write is refused, as every cache netauto runs."""
    if os.geteuid() != 0:
        pytest.skip("planting another user's venv needs root")
    from netauto.validate import sonic_cfggen

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    venv = tmp_path / "netauto-sonic-cfggen" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("#!/bin/sh\ntouch /nonexistent-marker\n")
    (venv / "bin" / "python").chmod(0o755)
    os.chown(venv, 65534, 65534)
    with pytest.raises(sonic_cfggen.CfggenError, match="owned by uid 65534"):
        sonic_cfggen.venv_python()
    os.chown(venv, 0, 0)
    (venv / "bin").chmod(0o777)
    with pytest.raises(sonic_cfggen.CfggenError, match="writable by others"):
        sonic_cfggen.venv_python()
    (venv / "bin").chmod(0o755)
    assert sonic_cfggen.venv_python() == venv / "bin" / "python"


def test_validators_are_found_in_the_system_folders_before_path(tmp_path, monkeypatch):
    """A root run may be handed a user's PATH: a `yanglint` (or any validator) earlier in PATH than the system's is
    not the one netauto runs (validate.tool_path.find_tool: /usr/sbin:/usr/bin:/sbin:/bin first)."""
    import shutil

    from netauto.validate import sonic_yang
    from netauto.validate.tool_path import SYSTEM_PATH

    system = shutil.which("yanglint", path=SYSTEM_PATH)
    if system is None:
        pytest.skip("no yanglint installed")
    fake = tmp_path / "yanglint"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ.get('PATH', '')}")
    assert sonic_yang.yanglint_path() == system


def test_sonic_cfggen_venv_it_makes_is_its_own_under_a_group_umask(tmp_path, monkeypatch):
    """Under umask 002 (Debian/Ubuntu's user-private groups) `python -m venv` made the folders 0775, which the trust
    check refuses as writable by others: the venv netauto had just made was refused on its next use, and again
    after every "remove it" the message advised. It is made private (umask 077) now. The venv is real
    (`python -m venv`); only the PyPI install is skipped."""
    import subprocess

    from netauto.validate import sonic_cfggen

    real = subprocess.run

    def run(cmd, *args, **kwargs):
        if str(cmd[0]).endswith("/pip"):
            return subprocess.CompletedProcess(cmd, 0, "", "")
        return real(cmd, *args, **kwargs)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(sonic_cfggen.subprocess, "run", run)
    old = os.umask(0o002)
    try:
        made = sonic_cfggen.venv_python()
        assert made.is_file()
        assert sonic_cfggen.venv_python() == made  # its own venv, used again
    finally:
        os.umask(old)
