"""The on-device watchdog, run for real by /bin/sh in a private mount namespace (its own /var/tmp): a push
killed during its own rollback (a second Ctrl-C) leaves the `rolling` marker; the watchdog must finish the
job at its deadline, not exit silently and leave the device locked (issue 27, item 6)."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from netauto.deploy import devstate

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                                reason="needs root and unshare (a private /var/tmp for the device's state)")

STAGE = f"{devstate.ROOT}/run.TEST0001"


def _device(tmp_path: Path, rolling_pid: str | None, rolled_back: bool) -> Path:
    """A script that builds a stopped push's on-device state in the private /var/tmp, runs its watchdog
    (deadline passed) and prints what is left."""
    watchdog = devstate.watchdog_script(STAGE, "RUN1", "leaf1")
    script = textwrap.dedent(f"""\
        set -e
        mount -t tmpfs tmpfs /var/tmp
        S={STAGE}; F=/var/tmp/device/frr.conf
        mkdir -p $S/backup/var/tmp/device /var/tmp/device {devstate.LOCK}
        echo old > $S/backup$F; echo new > $F
        echo stage=$S > {devstate.LOCK}/info
        printf "#!/bin/sh\\ncp -p $S/backup$F $F\\ntouch $S/rolled-back\\n" > $S/rollback.sh
        printf '#!/bin/sh\\nexit 0\\n' > $S/guard.sh
        printf "#!/bin/sh\\ngrep -qx old $F\\n" > $S/check-before.sh
        echo $(( $(date +%s) - 1 )) > $S/deadline
        cat > $S/watchdog.sh <<'WATCHDOG'
        {textwrap.indent(watchdog, '        ').lstrip()}
        WATCHDOG
        """)
    if rolling_pid is not None:
        script += f"mkdir $S/rolling; echo {rolling_pid} > $S/rolling/pid\n"
    if rolled_back:
        script += "cp -p $S/backup$F $F; touch $S/rolled-back\n"
    script += textwrap.dedent(f"""\
        set +e
        timeout 30 sh $S/watchdog.sh; echo "rc=$?"
        echo "file=$(cat $F)"; [ -d {devstate.LOCK} ] && echo LOCKED; [ -d $S ] && echo STAGE-LEFT
        cat {devstate.HISTORY} 2>/dev/null
        """)
    path = tmp_path / "device.sh"
    path.write_text(script)
    return path


def _run(path: Path) -> str:
    res = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", str(path)], capture_output=True,
                         text=True, timeout=60)
    assert "rc=" in res.stdout, res.stdout + res.stderr
    return res.stdout


def _dead_pid() -> str:
    p = subprocess.Popen(["true"])
    p.wait()
    return str(p.pid)


@pytest.mark.parametrize("rolled_back", [False, True], ids=["rollback-killed-half-way", "rollback-done-unproven"])
def test_watchdog_finishes_a_rollback_whose_push_was_killed(tmp_path, rolled_back):
    out = _run(_device(tmp_path, _dead_pid(), rolled_back))
    assert "file=old" in out and "LOCKED" not in out and "STAGE-LEFT" not in out, out
    assert "watchdog restored the files and state from before the push" in out, out


def test_watchdog_without_marker_restores_as_before(tmp_path):
    out = _run(_device(tmp_path, None, False))
    assert "file=old" in out and "LOCKED" not in out, out


def test_status_says_restorable_when_a_rollback_was_interrupted():
    state = devstate._parse_status(f"__NOW__ 1000\n__LOCK__\nrun=R\n__HELD__\n"
                                   f"__STAGE__ {STAGE} 1030 alive rolling:dead backup deadline rolling\n__HISTORY__\n")
    text = state.describe()
    assert "RESTORABLE" in text and "finishes and proves it in 30 s" in text, text
    state.stages[0].markers = {"rolling:alive", "rolling"}
    assert "a rollback is running on the device now" in state.describe()
    state.stages[0].watchdog_alive = False
    state.stages[0].markers = {"rolling:dead", "rolling"}
    assert "`netauto deploy clear` finishes it" in state.describe()


def test_a_changed_host_key_is_a_warning_line_in_every_report_format():
    from netauto.deploy.host_keys import host_key_warning
    from netauto.verify import output
    from netauto.verify.findings import Report

    status = "CHANGED host key accepted only because of --no-host-key-check: SHA256:x differs from /k"
    line = host_key_warning("spine3", status)
    assert line == f"WARNING spine3: {status}"
    assert host_key_warning("spine3", "NOT CHECKED (--no-host-key-check): matches known_hosts (SHA256:x)") is None
    rep = Report("gpu-pod1", warnings=[line])
    for text in (output.to_json(rep), output.to_junit(rep, "netauto drift"), output.to_markdown(rep)):
        assert "WARNING spine3: CHANGED host key" in text, text


def test_a_run_killed_before_arming_is_released_by_its_lock_watchdog(tmp_path):
    """Locked, nothing changed yet (PRE_ARM), client gone: at the deadline the lock watchdog only releases."""
    path = _device(tmp_path, None, False)
    text = path.read_text().replace("set +e\n", f"touch $S/{devstate.PRE_ARM}; set +e\n", 1)
    path.write_text(text)
    out = _run(path)
    assert "file=new" in out and "LOCKED" not in out and "STAGE-LEFT" not in out, out  # nothing restored
    assert "stopped before any change; lock released by its watchdog" in out, out
