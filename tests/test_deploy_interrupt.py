"""deploy.interrupt.on_signals without a lab: the first SIGINT stops new devices and says which are in flight,
the second writes the results with each device's state and exits 130 (tests/test_deploy_safety_lab.py runs
both against real devices)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from netauto.deploy.device import ApplyOptions
from netauto.deploy.interrupt import on_signals


def test_first_signal_stops_new_devices_and_restores_the_handlers(tmp_path, capsys):
    options = ApplyOptions()
    options.inflight["leaf1"] = {"step": "apply", "drained": True, "deadline": 0}
    before = signal.getsignal(signal.SIGINT)
    with on_signals(options, [], tmp_path / "r.json", {}, ["leaf1", "leaf2"]):
        os.kill(os.getpid(), signal.SIGINT)
    assert options.stop.is_set()
    assert "leaf1: DRAINED, at step apply" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is before
    assert not (tmp_path / "r.json").exists()


def test_second_signal_writes_the_results_and_exits_130(tmp_path):
    results = tmp_path / "r.json"
    code = ("import os, signal, time\n"
            "from netauto.deploy.device import ApplyOptions\n"
            "from netauto.deploy.interrupt import on_signals\n"
            "o = ApplyOptions(); o.inflight['leaf1'] = {'step': 'reload', 'lock_deadline': 0}\n"
            f"with on_signals(o, [], __import__('pathlib').Path({str(results)!r}), {{}}, ['leaf1', 'leaf2']):\n"
            "    os.kill(os.getpid(), signal.SIGINT); os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 130, r.stderr
    assert "SIGTERM again: exiting now" in r.stderr
    data = json.loads(results.read_text())
    assert data["interrupted"] is True and data["untouched"] == ["leaf2"], data
    assert [(d["device"], d["result"]) for d in data["devices"]] == [("leaf1", "interrupted")], data
