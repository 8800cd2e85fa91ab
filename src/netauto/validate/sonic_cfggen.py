"""SONiC's own configuration generator (sonic-cfggen) and the SKU templates it renders, from the pinned commit.

`config qos reload` on a SONiC switch renders the SKU's buffers.json.j2 and qos.json.j2 with sonic-cfggen. The
kit here is what that needs offline, taken from sonic-buildimage at the same commit as the YANG models
(netauto does not ship it; Apache-2.0): `engine/` (src/sonic-config-engine and src/sonic-py-common's
sonic_py_common), `templates/` (files/build_templates/qos_config.j2 and buffers_config.j2) and
`device/<platform>/<hwsku>/` for the SKUs netauto knows, symlinks resolved; plus two small stand-ins that are
not SONiC code (`stub/`: the swsscommon database binding, which offline is never called, and sonic_yang). It is
the layout of ../shared/sonic-cfggen; `render` runs it as that kit's `run buffers|qos` does.

Lookup order (`find_kit`), the first folder holding engine/sonic-cfggen and templates/buffers_config.j2 wins:
  1. $NETAUTO_SONIC_CFGGEN_DIR
  2. the cache: $XDG_CACHE_HOME/netauto/sonic-cfggen/<commit>, written by `scripts/get-sonic-cfggen`
     (= `python -m netauto.validate.sonic_cfggen fetch`)
  3. development checkouts only (`dev=True`, the tests): ../shared/sonic-cfggen beside the repository
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from netauto.cache import cache_dir, data_dirs, dev_data_dir, refusal
from netauto.private_files import private_dir
from netauto.platforms import hardware
from netauto.validate.kit_command import KitCommand, Lookup, run
from netauto.validate.yang_models import DEFAULT_REPOSITORY, PINNED_COMMIT, REPO_ENV

DIR_ENV = "NETAUTO_SONIC_CFGGEN_DIR"
DEV_ENV = "NETAUTO_SONIC_CFGGEN_DEV_DIR"
MARKERS = ("engine/sonic-cfggen", "templates/buffers_config.j2")
ENGINE = "src/sonic-config-engine"
PY_COMMON = "src/sonic-py-common/sonic_py_common"
TEMPLATES = ("files/build_templates/qos_config.j2", "files/build_templates/buffers_config.j2")
DEVICE_ROOT = "device/mellanox"
STAMP = "NETAUTO-SOURCE"
TIMEOUT_S = 300

_SWSSCOMMON = '''# Offline stand-in for SONiC's swsscommon binding (not SONiC code): sonic-cfggen renders templates from
# files (-j config_db.json, -p port_config.ini, -t template) without a database.
CFG_LOGGER_TABLE_NAME = "LOGGER"


class _NoDB:
    def __init__(self, *a, **k):
        raise RuntimeError("no SONiC database offline")


SonicV2Connector = DBConnector = Table = _NoDB


class ConfigDBConnector(_NoDB):
    KEY_SEPARATOR = "|"

    @staticmethod
    def deserialize_key(key, separator="|"):
        tokens = key.split(separator)
        return tuple(tokens) if len(tokens) > 1 else key

    @staticmethod
    def serialize_key(key, separator="|"):
        return separator.join(key) if isinstance(key, tuple) else key


ConfigDBPipeConnector = ConfigDBConnector


class SonicDBConfig:
    @staticmethod
    def isInit(): return True
    @staticmethod
    def isGlobalInit(): return True
    @staticmethod
    def load_sonic_global_db_config(*a, **k): pass
    @staticmethod
    def initialize(*a, **k): pass
    @staticmethod
    def initializeGlobalConfig(*a, **k): pass
    @staticmethod
    def get_ns_list(*a, **k): return [""]
'''
_SONIC_YANG = "# Offline stand-in (not SONiC code): only YANG input would need sonic_yang.\n"
# the engine's pure-Python dependencies (src/sonic-config-engine/setup.py), in a venv of their own
VENV_PACKAGES = ("jinja2", "pyyaml", "netaddr<1", "lxml", "bitarray", "natsort", "packaging")


class CfggenError(Exception):
    pass


def kit_cache(commit: str = PINNED_COMMIT) -> Path:
    return cache_dir("sonic-cfggen") / commit


def dev_dir() -> Path:
    return dev_data_dir("sonic-cfggen", DEV_ENV)


def find_kit(dev: bool = False) -> Lookup:
    candidates = data_dirs("sonic-cfggen", dir_env=DIR_ENV, cache=kit_cache(), dev_env=DEV_ENV, dev=dev)
    for _, where in candidates:
        if all((where / m).is_file() for m in MARKERS):
            return Lookup(where, candidates)
    return Lookup(None, candidates)


def sku_dir(kit: Path, hwsku: str) -> Path | None:
    found = sorted(kit.glob(f"device/*/{hwsku}"))
    return found[0] if found and found[0].is_dir() else None


def _git(args: list[str], cwd: Path) -> None:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise CfggenError(f"git {' '.join(args)} failed: {(proc.stderr or proc.stdout).strip()[-400:]}")


def _copy_resolved(src: Path, dest: Path) -> None:
    """A SKU folder with its symlinks (into other SKUs' folders) replaced by the files they name."""
    dest.mkdir(parents=True)
    for f in sorted(src.iterdir()):
        if f.is_file():  # follows a symlink; a dangling one is skipped
            shutil.copyfile(f, dest / f.name)


def fetch_kit(repository: str | None = None, commit: str = PINNED_COMMIT, dest: Path | None = None) -> Path:
    """Fetch the pinned generator, templates and SKU folders into `dest` (default: the cache) atomically."""
    repository = repository or os.environ.get(REPO_ENV) or DEFAULT_REPOSITORY
    dest = dest or kit_cache(commit)
    if not shutil.which("git"):
        raise CfggenError("git is needed to fetch sonic-cfggen (apt-get install git)")
    skus = [hardware.load_hwsku(name) for name in hardware.hwsku_names()]
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=dest.parent) as tmp:
        work = Path(tmp) / "git"
        work.mkdir()
        _git(["init", "-q"], work)
        _git(["remote", "add", "origin", repository], work)
        # the whole Mellanox device folder: SKU files are symlinks into other platforms' folders
        _git(["sparse-checkout", "set", "--no-cone", f"/{ENGINE}/", f"/{PY_COMMON}/",
              *(f"/{t}" for t in TEMPLATES), f"/{DEVICE_ROOT}/"], work)
        _git(["fetch", "-q", "--depth", "1", "--filter=blob:none", "origin", commit], work)
        _git(["-c", "advice.detachedHead=false", "checkout", "-q", "FETCH_HEAD"], work)
        staged = Path(tmp) / "kit"
        shutil.copytree(work / ENGINE, staged / "engine", ignore=shutil.ignore_patterns("tests", "*.pyc"))
        shutil.copytree(work / PY_COMMON, staged / "engine" / "sonic_py_common")
        (staged / "templates").mkdir()
        for t in TEMPLATES:
            if not (work / t).is_file():
                raise CfggenError(f"{repository} at {commit}: no {t}")
            shutil.copyfile(work / t, staged / "templates" / Path(t).name)
        for sku in skus:
            src = work / DEVICE_ROOT / sku.platform / sku.name
            if not src.is_dir():
                raise CfggenError(f"{repository} at {commit}: no {DEVICE_ROOT}/{sku.platform}/{sku.name}")
            _copy_resolved(src, staged / "device" / sku.platform / sku.name)
        _write_stubs(staged)
        (staged / STAMP).write_text(f"sonic-net/sonic-buildimage {commit} ({repository}), Apache-2.0: {ENGINE}, "
                                    f"{PY_COMMON}, {', '.join(TEMPLATES)}, {DEVICE_ROOT}/<platform>/<hwsku> "
                                    f"({', '.join(s.name for s in skus)}); stub/ is netauto's\n")
        if not all((staged / m).is_file() for m in MARKERS):
            raise CfggenError(f"{repository} at {commit}: the kit lacks {', '.join(MARKERS)}")
        if dest.exists():
            shutil.rmtree(dest)
        staged.rename(dest)
    return dest


def _write_stubs(kit: Path) -> None:
    (kit / "stub" / "swsscommon").mkdir(parents=True)
    (kit / "stub" / "swsscommon" / "__init__.py").write_text("")
    (kit / "stub" / "swsscommon" / "swsscommon.py").write_text(_SWSSCOMMON)
    (kit / "stub" / "sonic_yang.py").write_text(_SONIC_YANG)


def venv_python() -> Path:
    """The Python of the generator's venv (the one ../shared/sonic-cfggen/run makes), made once from PyPI."""
    venv = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "netauto-sonic-cfggen" / "venv"
    python = venv / "bin" / "python"
    if os.path.lexists(venv.parent):  # code netauto runs: only this user's own (netauto.cache.trusted)
        for folder in (venv.parent, venv, venv / "bin"):
            st = os.lstat(folder) if os.path.lexists(folder) else None
            why = refusal(st) if st is not None else None
            if why is not None:
                raise CfggenError(f"{folder}: {why}: not running the Python there (fix: remove {venv.parent}; it is "
                                  "made again, this user's own)")
    else:
        private_dir(venv.parent)
    if not python.is_file():
        for cmd in ([sys.executable, "-m", "venv", str(venv)], [str(venv / "bin" / "pip"), "install", "-q", *VENV_PACKAGES]):
            # umask 077: the check above refuses a folder its group may write (umask 002 made the venv 0775)
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=TIMEOUT_S, umask=0o077)
            if proc.returncode != 0:
                raise CfggenError(f"{' '.join(cmd[:3])} failed: {(proc.stderr or proc.stdout).strip()[-400:]}")
    return python


def render(kit: Path, what: str, config_db: dict[str, Any], hwsku: str | None = None,
           template_text: str | None = None) -> dict[str, Any]:
    """SONiC's tables from the SKU's buffers.json.j2 (`what` = "buffers") or qos.json.j2 ("qos") for a config_db,
    as `config qos reload` renders them (`template_text`: a replacement for that SKU file, as installed in the SKU
    folder); CfggenError with SONiC's last error line when the template fails."""
    template = {"buffers": "buffers.json.j2", "qos": "qos.json.j2"}[what]
    sku = hwsku or str(config_db["DEVICE_METADATA"]["localhost"]["hwsku"])
    folder = sku_dir(kit, sku)
    if folder is None:
        raise CfggenError(f"no SKU folder {sku!r} in {kit}/device")
    python = venv_python()
    with tempfile.TemporaryDirectory(prefix="netauto-cfggen-") as tmp:
        work = Path(tmp)
        for f in [*folder.iterdir(), *(kit / "templates").glob("*.j2")]:
            shutil.copyfile(f, work / f.name)  # the SKU templates include qos_config.j2 / buffers_config.j2 beside them
        if template_text is not None:
            (work / template).write_text(template_text)
        cfg = work / "config_db.json"
        cfg.write_text(json.dumps(config_db))
        env = {**os.environ, "PYTHONPATH": f"{kit / 'engine'}:{kit / 'stub'}"}
        proc = subprocess.run([str(python), "sonic-cfggen", "-j", str(cfg), "-p", str(work / "port_config.ini"),
                               "-t", str(work / template)], cwd=kit / "engine", env=env, capture_output=True,
                              text=True, check=False, timeout=TIMEOUT_S)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise CfggenError(f"sonic-cfggen {template} for {sku}: {last}")
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def main(argv: list[str] | None = None) -> int:
    def venv(flags: Mapping[str, bool]) -> None:
        if not flags["--no-venv"]:
            print(f"sonic-cfggen's Python: {venv_python()}")

    no_venv = ("--no-venv", "do not prepare the generator's venv (its PyPI dependencies; else made once here)")
    command = KitCommand("get-sonic-cfggen", __doc__ or "", "sonic-cfggen", "no sonic-cfggen kit", "a kit",
                         kit_cache(), f"${REPO_ENV} or {DEFAULT_REPOSITORY}", PINNED_COMMIT,
                         (CfggenError, subprocess.TimeoutExpired), (no_venv,), venv)
    return run(command, argv, lambda: find_kit(dev=True), fetch_kit)


if __name__ == "__main__":
    sys.exit(main())
