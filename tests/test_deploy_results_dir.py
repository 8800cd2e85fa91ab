"""`deploy --results-dir DIR` (issue 21): the JSON results go where the operator says (default ./deploy-results),
in a folder made 0700; an impossible folder is one line and exit 2, before any device is touched."""

from __future__ import annotations

import stat

import click
import pytest

from netauto.cli.app import cli, load_commands
from netauto.cli.deploy import _default_results

load_commands()


def test_results_dir_is_made_0700_and_holds_the_file(tmp_path):
    folder = tmp_path / "runs" / "nightly"
    path = _default_results("dry-run", folder)
    assert path.parent == folder and path.name.startswith("dry-run-") and path.suffix == ".json"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_results_dir_option_and_environment(tmp_path):
    opt = next(o for o in cli.commands["deploy"].params if o.name == "results_dir")
    assert str(opt.default) == "deploy-results" and opt.envvar == "NETAUTO_DEPLOY_RESULTS_DIR"


def test_results_dir_that_cannot_exist_is_bad_input(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(click.BadParameter) as exc:
        _default_results("apply", blocker / "sub")
    assert "--results-dir" in exc.value.format_message() or exc.value.param_hint == "--results-dir"


def test_two_runs_in_the_same_second_get_two_results_files(tmp_path, monkeypatch):
    """Issue 33 item 11: the file was named per second, so a second deploy overwrote the first one's record."""
    import time

    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20260101-000000")
    first, second = _default_results("apply", tmp_path), _default_results("apply", tmp_path)
    assert first != second and first.exists() and second.exists()
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
