"""The parse-back of a large fabric in two processes (validate/view.py) gives the view a single process gives."""

from __future__ import annotations

import threading

import pytest

from netauto.pipeline import render
from netauto.validate import view as view_mod
from netauto.validate.files import FileSet
from netauto.validate.rules import run_rules

from _validate_helpers import ROOT


def _views(monkeypatch: pytest.MonkeyPatch, inventory):  # noqa: ANN001
    model, artifacts = render(inventory)
    files = FileSet.from_artifacts(artifacts)
    monkeypatch.setattr(view_mod, "PARALLEL_MIN", 10**9)
    serial = view_mod.build_view(model, files)
    monkeypatch.setattr(view_mod, "PARALLEL_MIN", 1)
    forked: list[bool] = []
    real = view_mod._parse_parallel

    def spy(devices, files, readers):  # noqa: ANN001, ANN202
        got = real(devices, files, readers)
        forked.append(got is not None)
        return got

    monkeypatch.setattr(view_mod, "_parse_parallel", spy)
    return serial, view_mod.build_view(model, files), forked


@pytest.mark.skipif(threading.active_count() > 1, reason="the two-process read is off in a threaded process")
def test_two_process_parse_equals_one(monkeypatch: pytest.MonkeyPatch):
    serial, parallel, forked = _views(monkeypatch, ROOT / "examples/mixed-sonic/inventory")  # Cumulus, SONiC, servers
    if forked != [True]:
        pytest.skip("no second CPU or no fork here")
    assert list(parallel.switches) == list(serial.switches) and parallel.switches == serial.switches
    assert parallel.nvue == serial.nvue and parallel.nvue_raw == serial.nvue_raw
    assert list(parallel.servers) == list(serial.servers) and parallel.servers == serial.servers
    assert parallel.problems == serial.problems
    assert run_rules(parallel) == run_rules(serial)
