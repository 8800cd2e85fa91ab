"""validate's clean-run cache: a real validator re-runs only on devices whose files changed since a clean run,
a file with a finding is checked again every time, and a new tool or netauto identity trusts nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import require_tool

from netauto.validate import clean_cache, external
from netauto.validate.files import FileSet

FRR = "etc/frr/frr.conf"
GOOD = "frr version 8.4\nhostname {dev}\nrouter bgp 65001\n bgp router-id 10.0.0.1\nexit\n"


@pytest.fixture
def cache_on(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(clean_cache.CACHE_ENV, "1")
    clean_cache.tool_identity.cache_clear()
    yield tmp_path / "cache" / "netauto" / "validate"
    clean_cache.tool_identity.cache_clear()


def tree(root: Path, texts: dict[str, str]) -> tuple[FileSet, list[tuple[str, Path]]]:
    refs = []
    for dev, text in texts.items():
        path = root / dev / FRR
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        refs.append((dev, path))
    return FileSet({dev: {FRR: text} for dev, text in texts.items()}, root), refs


def run(root: Path, texts: dict[str, str], ran: list[list[str]]):
    files, refs = tree(root, texts)

    def frr(todo):
        ran.append(sorted(dev for dev, _ in todo))
        return external.frr_vtysh(todo)

    return clean_cache.run_cached("frr test", ("vtysh",), frr, refs, clean_cache.DeviceDigests(files))


def test_only_changed_and_failing_devices_run_again(cache_on, tmp_path):
    require_tool("vtysh", "apt-get install frr")
    texts = {f"leaf{i}": GOOD.format(dev=f"leaf{i}") for i in range(3)}
    ran: list[list[str]] = []
    findings, cached = run(tmp_path / "a", texts, ran)
    assert (findings, cached, ran) == ([], 0, [["leaf0", "leaf1", "leaf2"]])
    # another folder (validate renders into a new temp dir every time), same content: nothing runs
    findings, cached = run(tmp_path / "b", texts, ran)
    assert (findings, cached, ran[1:]) == ([], 3, [])
    # one device changed, and its change is a syntax error: only it runs, and again on the next run
    texts["leaf1"] = texts["leaf1"].replace("bgp router-id", "bgp routr-id")
    for n in range(2):
        findings, cached = run(tmp_path / f"c{n}", texts, ran)
        assert cached == 2 and ran[-1] == ["leaf1"]
        assert [f.device for f in findings] == ["leaf1"]
    assert list(cache_on.iterdir())  # something was recorded where the docs say


def test_new_tool_identity_or_no_cache_runs_everything(cache_on, tmp_path, monkeypatch):
    require_tool("vtysh", "apt-get install frr")
    texts = {"leaf0": GOOD.format(dev="leaf0")}
    ran: list[list[str]] = []
    run(tmp_path / "a", texts, ran)
    monkeypatch.setattr(clean_cache, "_stat_id", lambda path: f"{path}:upgraded")
    clean_cache.tool_identity.cache_clear()
    run(tmp_path / "b", texts, ran)
    monkeypatch.setenv(clean_cache.CACHE_ENV, "0")
    run(tmp_path / "c", texts, ran)
    assert ran == [["leaf0"]] * 3


def test_a_damaged_cache_file_is_a_full_run(cache_on, tmp_path):
    require_tool("vtysh", "apt-get install frr")
    texts = {"leaf0": GOOD.format(dev="leaf0")}
    ran: list[list[str]] = []
    run(tmp_path / "a", texts, ran)
    for f in cache_on.iterdir():
        f.write_bytes(b"\xff\xfe garbage")
    run(tmp_path / "b", texts, ran)
    assert ran == [["leaf0"]] * 2


def test_validate_writes_only_the_devices_a_validator_still_needs(cache_on, tmp_path, monkeypatch):
    """An in-memory validation writes a device's files to its scratch tree only when a real validator runs on
    them (runner.DeviceWriter): with the cache warm, one edited device is the only folder written."""
    require_tool("vtysh", "apt-get install frr")
    from netauto.render.engine import Artifact
    from netauto.validate import runner

    arts = [Artifact(f"leaf{i}", FRR, GOOD.format(dev=f"leaf{i}"), 0o640) for i in range(3)]
    written: list[list[str]] = []

    def validate(artifacts):
        root = tmp_path / f"run{len(written)}"
        writer = runner.DeviceWriter(artifacts, root)
        findings, _ = runner.run_external(root, FileSet.from_artifacts(artifacts), prepare=writer)
        written.append(sorted(p.name for p in root.iterdir()) if root.exists() else [])
        assert not findings
        return root

    validate(arts)
    assert written[0] == ["leaf0", "leaf1", "leaf2"]
    validate(arts)
    assert written[1] == []
    arts[1] = Artifact("leaf1", FRR, arts[1].content.replace("10.0.0.1", "10.0.0.2"), 0o640)
    root = validate(arts)
    assert written[2] == ["leaf1"]
    assert (root / "leaf1" / FRR).stat().st_mode & 0o777 == 0o640


def test_every_real_validator_names_a_checker_and_every_cache_key_a_check():
    """runner.EXTERNAL_CHECKS names each checker by its function (a misspelt one fails `netauto validate`, it is
    not skipped), and every CHECK_TOOLS entry (the clean-run cache's tool identities) belongs to one of them."""
    from netauto.validate import runner

    names = {fn_name for _, _, fn_name in runner.EXTERNAL_CHECKS}
    assert all(callable(runner._checker(name)) for name in names)
    assert set(runner.CHECK_TOOLS) <= names
    with pytest.raises(AttributeError):
        runner._checker("host_tools.no_such_check")
