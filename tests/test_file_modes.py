"""A rendered file's mode is intent: a hand chmod is a difference in dry-run/drift, the push installs the
rendered mode (owner kept). Runs the device-side shell locally (tests/test_deploy_plan.py's _LocalSession);
the lab test (test_deploy_lab.py) does the same over SSH against a lab server."""

from __future__ import annotations

import os
import stat
import subprocess
from types import SimpleNamespace

from test_deploy_plan import _LocalSession

from netauto.deploy import file_modes
from netauto.deploy.connection import install_cmd
from netauto.render.engine import Artifact


def _target(files: dict[str, int]) -> SimpleNamespace:
    return SimpleNamespace(files={p: Artifact("gpu01", p.lstrip("/"), "x\n", mode) for p, mode in files.items()})


def test_a_hand_chmod_is_a_difference_and_only_that(tmp_path):
    netplan, script, same = tmp_path / "60-rails.yaml", tmp_path / "qos.sh", tmp_path / "sysctl.conf"
    for path, mode in ((netplan, 0o644), (script, 0o644), (same, 0o644)):
        path.write_text("x\n")
        path.chmod(mode)
    target = _target({str(netplan): 0o600, str(script): 0o755, str(same): 0o644, str(tmp_path / "missing"): 0o600})
    running = {str(netplan): b"x\n", str(script): b"x\n", str(same): b"x\n", str(tmp_path / "missing"): None}
    content = {str(script): "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"}
    diffs = file_modes.with_modes(_LocalSession(), target, running, content)  # type: ignore[arg-type]
    assert diffs == {str(netplan): "mode 0644 -> 0600 (running -> intent)\n",
                     str(script): "mode 0644 -> 0755 (running -> intent)\n" + content[str(script)]}
    assert file_modes.describe(diffs[str(netplan)]) == "mode 0644 -> 0600"
    assert file_modes.describe(diffs[str(script)]) == "mode 0644 -> 0755, 2 line(s) differ"
    assert file_modes.describe(content[str(script)]) == "2 line(s) differ"


def test_install_sets_the_intended_mode_and_keeps_the_owner(tmp_path):
    dest, src = tmp_path / "60-rails.yaml", tmp_path / "staged"
    dest.write_text("old\n")
    dest.chmod(0o666)
    src.write_text("new\n")
    if os.geteuid() == 0:
        os.chown(dest, 65534, 65534)
    subprocess.run(["sh", "-c", install_cmd(str(src), str(dest), 0o600, keep_mode=False)], check=True)
    st = dest.stat()
    assert (stat.S_IMODE(st.st_mode), dest.read_text()) == (0o600, "new\n")
    assert st.st_uid == (65534 if os.geteuid() == 0 else os.getuid())
    dest.chmod(0o640)
    subprocess.run(["sh", "-c", install_cmd(str(src), str(dest), 0o644)], check=True)  # keep_mode: as before
    assert stat.S_IMODE(dest.stat().st_mode) == 0o640
