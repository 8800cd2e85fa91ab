"""Where SONiC's generator kit comes from (netauto.validate.sonic_cfggen, scripts/get-sonic-cfggen): lookup order, and
a real sparse git fetch of a pinned commit from a local repository laid out like sonic-buildimage (made from the
development kit), whose result renders exactly as that kit does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from test_yang_models import git

from netauto.pipeline import build_model
from netauto.sonic.config_db import build_config_db
from netauto.validate import sonic_cfggen
from netauto.validate.sonic_cfggen import DEV_ENV, DIR_ENV, PINNED_COMMIT, find_kit, fetch_kit

SCRIPT = ROOT / "scripts" / "get-sonic-cfggen"
MIXED = ROOT / "examples" / "mixed-sonic" / "inventory"


def _dev_kit() -> Path:
    lookup = find_kit(dev=True)
    if lookup.found is None:
        message = f"sonic-cfggen kit not found (looked in: {lookup.describe()}); run scripts/get-sonic-cfggen"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return lookup.found


@pytest.fixture
def upstream(tmp_path, monkeypatch) -> tuple[str, str, Path]:
    """sonic-buildimage's layout from the kit's files, one SKU file a symlink into another SKU's folder (as in
    sonic-buildimage), and a folder nobody needs; returns (file:// URL, commit, the kit it came from)."""
    kit = _dev_kit()
    repo = tmp_path / "upstream"
    shutil.copytree(kit / "engine", repo / sonic_cfggen.ENGINE, ignore=shutil.ignore_patterns("sonic_py_common"))
    shutil.copytree(kit / "engine" / "sonic_py_common", repo / sonic_cfggen.PY_COMMON)
    (repo / "files" / "build_templates").mkdir(parents=True)
    for t in sonic_cfggen.TEMPLATES:
        shutil.copyfile(kit / "templates" / Path(t).name, repo / t)
    shutil.copytree(kit / "device", repo / sonic_cfggen.DEVICE_ROOT)
    o128 = repo / sonic_cfggen.DEVICE_ROOT / "x86_64-nvidia_sn5600-r0" / "Mellanox-SN5600-O128"
    for name in ("pg_profile_lookup.ini", "buffers_defaults_objects.j2"):
        (o128 / name).chmod(0o644)
        (o128 / name).unlink()
        (o128 / name).symlink_to(f"../ACS-SN5600/{name}")
    (repo / "src" / "sonic-swss").mkdir(parents=True)
    (repo / "src" / "sonic-swss" / "blob.bin").write_bytes(os.urandom(4096))
    for p in repo.rglob("*"):
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() else 0o644)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "kit", cwd=repo, env=env)
    commit = git("rev-parse", "HEAD", cwd=repo)
    (repo / "files" / "build_templates" / "qos_config.j2").write_text("changed later\n")
    git("commit", "-qam", "later", cwd=repo, env=env)  # the pinned commit is not the tip
    server_config = tmp_path / "gitconfig"
    server_config.write_text("[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(server_config))
    return f"file://{repo}", commit, kit


def test_fetch_takes_the_pinned_commit_resolves_links_and_renders_as_the_kit(upstream, tmp_path):
    url, commit, kit = upstream
    dest = fetch_kit(url, commit, tmp_path / "cache" / commit)
    assert sorted(p.name for p in dest.iterdir()) == ["NETAUTO-SOURCE", "device", "engine", "stub", "templates"]
    assert not (dest / "engine" / "src").exists() and (dest / "engine" / "sonic_py_common" / "device_info.py").is_file()
    assert "changed later" not in (dest / "templates" / "qos_config.j2").read_text()  # the pinned commit
    o128 = dest / "device" / "x86_64-nvidia_sn5600-r0" / "Mellanox-SN5600-O128" / "pg_profile_lookup.ini"
    assert not o128.is_symlink() and o128.read_bytes() == (kit / "device" / o128.relative_to(dest / "device")).read_bytes()
    assert not list((tmp_path / "cache").glob(".fetch-*"))
    assert commit in (dest / "NETAUTO-SOURCE").read_text()
    model = build_model(MIXED)
    db = build_config_db(model.switch("su1-r0-leaf"), model)
    for what in ("buffers", "qos"):
        assert sonic_cfggen.render(dest, what, db) == sonic_cfggen.render(kit, what, db), what


def test_fetch_of_a_commit_the_repository_lacks_fails_clearly(upstream, tmp_path):
    url, _, _ = upstream
    with pytest.raises(sonic_cfggen.CfggenError, match="git fetch"):
        fetch_kit(url, "0" * 40, tmp_path / "k")
    assert not (tmp_path / "k").exists()


def _kit_at(folder: Path) -> Path:
    for marker in sonic_cfggen.MARKERS:
        (folder / marker).parent.mkdir(parents=True, exist_ok=True)
        (folder / marker).write_text("")
    return folder


def test_lookup_order_env_then_cache_then_dev(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(DIR_ENV, raising=False)
    cache = tmp_path / "xdg" / "netauto" / "sonic-cfggen" / PINNED_COMMIT
    assert find_kit().found is None and [w for _, w in find_kit().searched] == [cache]
    _kit_at(cache)
    assert find_kit().found == cache
    mine = tmp_path / "mine"
    monkeypatch.setenv(DIR_ENV, str(mine))
    assert find_kit().found == cache and str(mine) in find_kit().describe()  # an empty env folder is passed over
    _kit_at(mine)
    assert find_kit().found == mine


def test_script_if_missing_finds_and_where_says_where_it_looked(tmp_path):
    kit = _kit_at(tmp_path / "kit")
    env = {**os.environ, DIR_ENV: str(kit), "NETAUTO_SONIC_YANG_REPO": "file:///nonexistent", "PYTHON": sys.executable}
    proc = subprocess.run([str(SCRIPT), "--if-missing", "--no-venv"], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0 and str(kit) in proc.stdout
    env.update({DIR_ENV: str(tmp_path / "none"), "XDG_CACHE_HOME": str(tmp_path / "xdg"),
                DEV_ENV: str(tmp_path / "no-dev-checkout")})
    proc = subprocess.run([str(SCRIPT), "where"], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1 and "looked in" in proc.stdout and str(tmp_path / "none") in proc.stdout
    proc = subprocess.run([str(SCRIPT), "--dest", str(tmp_path / "out")], capture_output=True, text=True, env=env,
                          check=False)
    assert proc.returncode == 1 and proc.stderr.startswith("error: git fetch") and "Traceback" not in proc.stderr


def test_a_template_error_is_one_line_naming_the_sku(tmp_path):
    kit = _dev_kit()
    model = build_model(MIXED)
    db = build_config_db(model.switch("spine4"), model)
    db["DEVICE_METADATA"]["localhost"]["type"] = "SpineRouter"
    with pytest.raises(sonic_cfggen.CfggenError, match=r"^sonic-cfggen buffers.json.j2 for ACS-SN5600: .*t2"):
        sonic_cfggen.render(kit, "buffers", db)
    with pytest.raises(sonic_cfggen.CfggenError, match="no SKU folder 'ACS-NONE'"):
        sonic_cfggen.render(kit, "qos", db, "ACS-NONE")
