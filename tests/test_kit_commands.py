"""`scripts/get-sonic-yang-models` and `scripts/get-sonic-cfggen` (netauto.validate.yang_models.main,
netauto.validate.sonic_cfggen.main): one entry point shape, built by one helper (netauto.validate.kit_command,
issue #35 item 5), with each command's own lines: `where`, `--if-missing` with a kit found, a fetch, a failed fetch."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

import netauto
from netauto.validate import sonic_cfggen, yang_models
from netauto.validate.kit_command import Lookup

SRC = Path(netauto.__file__).resolve().parent
FOUND, DEST = Path("/kits/found"), Path("/kits/fetched")
COMMIT = yang_models.PINNED_COMMIT[:10]


def _lookup(found: Path | None) -> Lookup:
    return Lookup(found, [("cache", Path("/cache/x")), ("dev", Path("/dev/y"))])


def _patch(monkeypatch: pytest.MonkeyPatch, module: object, found: Path | None, fail: Exception | None) -> list[str]:
    fetched: list[str] = []

    def fetch(repository: str | None, commit: str, dest: Path | None) -> Path:
        fetched.append(commit)
        if fail:
            raise fail
        return DEST

    find, get = ("find_models", "fetch_models") if module is yang_models else ("find_kit", "fetch_kit")
    monkeypatch.setattr(module, find, lambda dev=False: _lookup(found))
    monkeypatch.setattr(module, get, fetch)
    monkeypatch.setattr(sonic_cfggen, "venv_python", lambda: Path("/venv/bin/python"))
    return fetched


CASES = [
    # module, argv, found, fetch error, exit code, stdout, stderr
    (yang_models, ["where"], FOUND, None, 0, f"{FOUND}\n", ""),
    (yang_models, ["where"], None, None, 1, "no SONiC YANG models (looked in: cache /cache/x; dev /dev/y)\n", ""),
    (yang_models, ["--if-missing"], FOUND, None, 0, f"SONiC YANG models: {FOUND}\n", ""),
    (yang_models, ["--if-missing"], None, None, 0, f"SONiC YANG models of sonic-buildimage {COMMIT}: {DEST}\n", ""),
    (yang_models, [], FOUND, None, 0, f"SONiC YANG models of sonic-buildimage {COMMIT}: {DEST}\n", ""),
    (yang_models, [], None, yang_models.YangModelsError("git fetch failed: no"), 1, "",
     "error: git fetch failed: no\n"),
    (sonic_cfggen, ["where"], FOUND, None, 0, f"{FOUND}\n", ""),
    (sonic_cfggen, ["where"], None, None, 1, "no sonic-cfggen kit (looked in: cache /cache/x; dev /dev/y)\n", ""),
    (sonic_cfggen, ["--if-missing"], FOUND, None, 0,
     f"sonic-cfggen: {FOUND}\nsonic-cfggen's Python: /venv/bin/python\n", ""),
    (sonic_cfggen, ["--if-missing", "--no-venv"], FOUND, None, 0, f"sonic-cfggen: {FOUND}\n", ""),
    (sonic_cfggen, ["fetch", "--no-venv"], FOUND, None, 0, f"sonic-cfggen of sonic-buildimage {COMMIT}: {DEST}\n", ""),
    (sonic_cfggen, [], None, sonic_cfggen.CfggenError("git fetch failed: no"), 1, "",
     "error: git fetch failed: no\n"),
    (sonic_cfggen, [], None, subprocess.TimeoutExpired(["pip"], 300), 1, "",
     "error: Command '['pip']' timed out after 300 seconds\n"),
]


@pytest.mark.parametrize(("module", "argv", "found", "fail", "code", "out", "err"), CASES)
def test_each_command_keeps_its_lines(module, argv, found, fail, code, out, err, monkeypatch, capsys) -> None:
    fetched = _patch(monkeypatch, module, found, fail)
    assert module.main(argv) == code
    assert capsys.readouterr() == (out, err)
    expect_fetch = "where" not in argv and not ("--if-missing" in argv and found)
    assert fetched == ([yang_models.PINNED_COMMIT] if expect_fetch else [])


@pytest.mark.parametrize(("module", "prog", "options"), [
    (yang_models, "get-sonic-yang-models", ["--if-missing", "--dest", "--repository"]),
    (sonic_cfggen, "get-sonic-cfggen", ["--if-missing", "--dest", "--repository", "--no-venv"]),
])
def test_help_names_the_command_and_its_options(module, prog, options, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: {prog} ") and all(option in text for option in options)
    assert module.__doc__.split("\n", 1)[0] in text


def test_one_helper_builds_the_kit_commands() -> None:
    """Neither module builds its own argument parser: the shape lives in validate/kit_command.py."""
    for module in ("validate/yang_models.py", "validate/sonic_cfggen.py"):
        tree = ast.parse((SRC / module).read_text())
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "argparse" not in imported, module
        assert any(isinstance(n, ast.ImportFrom) and n.module == "netauto.validate.kit_command"
                   for n in ast.walk(tree)), module


DEV_COPY = Path("/work/shared/sonic-yang-models")


@pytest.mark.parametrize("argv", [["--if-missing"], ["where"]])
def test_a_development_copy_found_says_netauto_itself_does_not_read_it(argv, monkeypatch, capsys) -> None:
    """A newcomer in a checkout with ../shared: check-sonic says "run scripts/get-sonic-yang-models", the script
    finds ../shared and fetches nothing, check-sonic still skips. The script says so, and what to set."""
    monkeypatch.setattr(yang_models, "find_models",
                        lambda dev=False: Lookup(DEV_COPY, [("cache", Path("/cache/x")), ("dev checkout", DEV_COPY)]))
    assert yang_models.main(argv) == 0
    out, err = capsys.readouterr()
    assert str(DEV_COPY) in out
    assert err == (f"note: {DEV_COPY} is a development copy: the tests read it, netauto's own commands do not "
                   f"(fix: export {yang_models.DIR_ENV}={DEV_COPY}, or fetch into the cache: run without "
                   "--if-missing)\n")


def test_k8s_crds_development_copy_found_says_netauto_itself_does_not_read_it(monkeypatch, capsys) -> None:
    from netauto.validate import k8s_crds

    dev = Path("/work/shared/k8s-crds")
    monkeypatch.setattr(k8s_crds, "find_crds", lambda dev_=False, **kw: (dev if kw.get("dev", dev_) else None, [dev]))
    assert k8s_crds.main(["--if-missing"]) == 0
    out, err = capsys.readouterr()
    assert out == f"{dev}\n"
    assert f"export {k8s_crds.DIR_ENV}={dev}" in err and "development copy" in err
