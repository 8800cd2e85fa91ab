"""A rendered file's mode and owner are intent: a hand chmod/chown is a difference in dry-run/drift, the push
installs the rendered mode and owner. Runs the device-side shell locally (tests/test_deploy_plan.py's
_LocalSession); tests/test_deploy_lab.py does the same over SSH against a lab server."""

from __future__ import annotations

import grp
import os
import pwd
import stat
import subprocess
from types import SimpleNamespace

import pytest
from test_deploy_plan import _LocalSession

from netauto.deploy import file_modes, remote
from netauto.deploy.connection import install_cmd
from netauto.render.engine import Artifact

ME = f"{pwd.getpwuid(os.getuid()).pw_name}:{grp.getgrgid(os.getgid()).gr_name}"


def _target(files: dict[str, tuple[int, str | None]]) -> SimpleNamespace:
    return SimpleNamespace(files={p: Artifact("gpu01", p.lstrip("/"), "x\n", mode, owner)
                                  for p, (mode, owner) in files.items()})


def test_a_hand_chmod_or_chown_is_a_difference_and_only_that(tmp_path):
    netplan, script, same, other = (tmp_path / n for n in ("60-rails.yaml", "qos.sh", "sysctl.conf", "frr.conf"))
    for path in (netplan, script, same, other):
        path.write_text("x\n")
        path.chmod(0o644)
    target = _target({str(netplan): (0o600, ME), str(script): (0o755, None), str(same): (0o644, ME),
                      str(other): (0o644, "frr:frr"), str(tmp_path / "missing"): (0o600, ME)})
    running, meta = remote.read_files_meta(_LocalSession(), sorted(target.files))  # type: ignore[arg-type]
    assert running == {p: (None if p.endswith("missing") else b"x\n") for p in target.files}
    content = {str(script): "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"}
    diffs = file_modes.with_modes(target, meta, content)  # type: ignore[arg-type]
    assert diffs == {str(netplan): "mode 0644 -> 0600 (running -> intent)\n",
                     str(script): "mode 0644 -> 0755 (running -> intent)\n" + content[str(script)],
                     str(other): f"owner {ME} -> frr:frr (running -> intent)\n"}
    assert file_modes.describe(diffs[str(netplan)]) == "mode 0644 -> 0600"
    assert file_modes.describe(diffs[str(script)]) == "mode 0644 -> 0755, 1 changed line"
    assert file_modes.describe(diffs[str(other)]) == f"owner {ME} -> frr:frr"
    assert file_modes.describe(content[str(script)]) == "1 changed line"


def test_install_sets_the_intended_mode_and_owner(tmp_path):
    dest, src = tmp_path / "60-rails.yaml", tmp_path / "staged"
    dest.write_text("old\n")
    dest.chmod(0o666)
    src.write_text("new\n")
    subprocess.run(["sh", "-c", install_cmd(str(src), str(dest), 0o600, None, keep_mode=False)], check=True)
    assert (stat.S_IMODE(dest.stat().st_mode), dest.read_text()) == (0o600, "new\n")
    dest.chmod(0o640)
    subprocess.run(["sh", "-c", install_cmd(str(src), str(dest), 0o644)], check=True)  # keep_mode: as before
    assert stat.S_IMODE(dest.stat().st_mode) == 0o640
    if os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    subprocess.run(["sh", "-c", install_cmd(str(src), str(dest), 0o640, "nobody:nogroup", keep_mode=False)], check=True)
    st = dest.stat()
    assert (st.st_uid, grp.getgrgid(st.st_gid).gr_name, stat.S_IMODE(st.st_mode)) == (65534, "nogroup", 0o640)


def test_napalm_push_keeps_the_mode_and_owner_read_with_the_identity(tmp_path):
    """A NAPALM commit replaces content only: the file keeps its mode and owner, read in the same round trip as
    the device's identity (its fabric marker and the file's header)."""
    from netauto.napalm.linux import Linux

    conf = tmp_path / "app.conf"
    conf.write_text("old\n")
    conf.chmod(0o640)
    session = _LocalSession()
    session.frr_exec = ""  # type: ignore[attr-defined]
    driver = Linux("gpu01", "root", optional_args={"session": session, "config_path": str(conf)})
    driver._name = "gpu01"  # as read once by the first commit (`hostname`)
    target = driver._target(b"new\n")
    art = target.files[str(conf)]
    assert (art.mode, art.owner, art.content) == (0o640, ME, "new\n")
    assert len(session.commands) == 1  # identity, bytes, mode and owner: one command on the device
    missing = Linux("gpu01", "root", optional_args={"session": session, "config_path": str(tmp_path / "new.conf")})
    missing._name = "gpu01"
    art = missing._target(b"x\n").files[str(tmp_path / "new.conf")]
    assert (art.mode, art.owner) == (0o644, None)  # a new file: 0644, the owner the install gives it
