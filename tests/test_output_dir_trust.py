"""A folder netauto fills with device content (`backup -o DIR`, `acceptance run`'s RESULTS) is written only when
it is the running user's own: in another user's folder (or one others may write) that user could plant a link
(`DIR/leaf1 -> /etc/...`: root then made folders and wrote device files there) or swap a result before
`acceptance report` reads it. One line naming the folder and the fix, exit 2, nothing written."""

from __future__ import annotations

import os
import pytest

from netauto.acceptance.store import results_dir
from netauto.errors import NetautoError
from netauto.private_files import private_dir
from netauto.verify.backup import backup

NOBODY = 65534


def _writers():
    """Each way a folder is chosen for netauto's output: private_dir(own=True), backup, acceptance RESULTS."""
    return [pytest.param(lambda p: private_dir(p, own=True), id="private_dir"),
            pytest.param(lambda p: backup({}, [], None, p), id="backup"),  # type: ignore[arg-type]
            pytest.param(results_dir, id="acceptance-results")]


@pytest.mark.parametrize("write", _writers())
def test_another_users_folder_is_refused(tmp_path, write):
    if os.geteuid() != 0:
        pytest.skip("making a folder of another user needs root")
    folder = tmp_path / "out"
    folder.mkdir(mode=0o755)
    os.chown(folder, NOBODY, NOBODY)
    with pytest.raises(NetautoError, match=r"out: owned by uid 65534.*fix") as err:
        write(folder)
    assert err.value.exit_code == 2 and list(folder.iterdir()) == []


@pytest.mark.parametrize("write", _writers())
def test_a_symlinked_folder_is_refused(tmp_path, write):
    target = tmp_path / "etc"
    target.mkdir(mode=0o755)
    (tmp_path / "out").symlink_to(target)
    with pytest.raises(NetautoError, match="a symbolic link"):
        write(tmp_path / "out")
    assert list(target.iterdir()) == [] and target.stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("write", _writers())
def test_a_folder_in_a_folder_others_may_write_is_refused(tmp_path, write):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # no sticky bit: anyone may rename `out` away and put a link in its place
    with pytest.raises(NetautoError, match=r"shared: writable by others"):
        write(shared / "out")
    assert list(shared.iterdir()) == []


@pytest.mark.parametrize("write", _writers())
def test_own_folders_and_sticky_tmp_still_work(tmp_path, write):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    write(mine)
    assert mine.stat().st_mode & 0o777 == 0o700
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)  # /tmp: others cannot rename what this user made there
    write(sticky / "new" / "out")
    assert (sticky / "new" / "out").is_dir()


def test_the_cli_says_one_line_before_any_connection(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from conftest import DEFAULT_INVENTORY
    from netauto.cli.app import cli
    from netauto.verify import run

    def no_ssh(*args: object, **kwargs: object) -> None:
        raise AssertionError("connected to devices before checking the output folder")

    monkeypatch.setattr(run, "run_task", no_ssh)
    (tmp_path / "out").symlink_to(tmp_path)
    res = CliRunner().invoke(cli, ["backup", "-i", str(DEFAULT_INVENTORY), "-o", str(tmp_path / "out")])
    assert isinstance(res.exception, NetautoError), res.output  # main() prints it as one line, exit 2
    assert res.exception.exit_code == 2 and "a symbolic link" in str(res.exception)


# `render -o /tmp/b` (ansible_compat/README's own example): a /tmp/b another user made first, or a link there, let
# that user swap the rendered tree (scripts that run as root on every server) after the render and before it is
# deployed. In a folder every user may write (sticky: /tmp), render uses only an entry of its own.
def _shared(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    return shared


def _render(out):
    import subprocess
    import sys

    from conftest import DEFAULT_INVENTORY

    return subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(DEFAULT_INVENTORY), "-o", str(out)],
                          capture_output=True, text=True, timeout=600)


def test_render_refuses_another_users_folder_in_a_shared_one(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("making a folder of another user needs root")
    from netauto.errors import OutputError
    from netauto.render.output import _target

    planted = _shared(tmp_path) / "b"
    planted.mkdir(mode=0o755)
    os.chown(planted, NOBODY, NOBODY)
    with pytest.raises(OutputError, match=r"b: owned by uid 65534 in .*shared, a folder every user may write"):
        _target(planted / "gpu-pod1")
    proc = _render(planted)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "fix:" in proc.stderr, proc.stderr
    assert list(planted.iterdir()) == []


def test_render_refuses_a_link_in_a_shared_folder(tmp_path):
    from netauto.errors import OutputError
    from netauto.render.output import _target

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = _shared(tmp_path) / "b"
    link.symlink_to(elsewhere)
    with pytest.raises(OutputError, match="a symbolic link in"):
        _target(link / "gpu-pod1")


def test_render_refuses_a_folder_others_may_write(tmp_path):
    from netauto.errors import OutputError
    from netauto.render.output import _target

    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    with pytest.raises(OutputError, match="writable by others"):
        _target(out / "gpu-pod1")


def test_render_into_its_own_folder_in_a_shared_one_still_works(tmp_path):
    from netauto.render.output import _target

    shared = _shared(tmp_path)
    assert _target(shared / "new" / "gpu-pod1") == shared / "new" / "gpu-pod1"  # netauto makes it: its own
    (shared / "mine").mkdir()
    assert _target(shared / "mine" / "gpu-pod1").parent == shared / "mine"
    assert _target(shared / "gpu-pod1").parent == shared  # straight into /tmp: the sticky bit protects it


@pytest.mark.parametrize("write", _writers())
def test_a_new_folder_inside_another_users_folder_in_tmp_is_refused(tmp_path, write):
    if os.geteuid() != 0:
        pytest.skip("making a folder of another user needs root")
    planted = _shared(tmp_path) / "team"
    planted.mkdir(mode=0o755)
    os.chown(planted, NOBODY, NOBODY)
    with pytest.raises(NetautoError, match="owned by uid 65534 in"):
        write(planted / "new" / "out")
    assert list(planted.iterdir()) == []


def test_acceptance_plan_output_is_a_folder_of_its_own(tmp_path):
    """plan.json says what each test must reach; `acceptance report` judges by it: another user's folder would let
    that user lower the bar."""
    from click.testing import CliRunner

    from conftest import DEFAULT_INVENTORY
    from netauto.cli.app import cli

    (tmp_path / "out").symlink_to(tmp_path)
    res = CliRunner().invoke(cli, ["acceptance", "plan", "-i", str(DEFAULT_INVENTORY), "-o", str(tmp_path / "out")])
    assert isinstance(res.exception, NetautoError) and "a symbolic link" in str(res.exception), res.output
    res = CliRunner().invoke(cli, ["acceptance", "plan", "-i", str(DEFAULT_INVENTORY), "-o", str(tmp_path / "new")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "new" / "plan.json").stat().st_mode & 0o777 == 0o600
