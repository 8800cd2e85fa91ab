"""The parse-back of a large fabric in two processes (validate/view.py) gives the view a single process gives."""

from __future__ import annotations

import dataclasses
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


@pytest.mark.skipif(threading.active_count() > 1, reason="the two-process checks are off in a threaded process")
@pytest.mark.parametrize("broken", [False, True], ids=["clean", "broken"])
def test_rules_beside_the_simulation_equal_one_process(monkeypatch: pytest.MonkeyPatch, broken: bool):
    """The rules and the route simulation split between a forked child and this process (validate.fabric_run) give
    the findings, their order and the simulation of one process, on a fabric with findings of both halves (a
    drained spine, an NVUE-01 / AR-05 error in one leaf's startup.yaml, a BGP error in another's frr.conf)."""
    from netauto.validate import fabric_run, forked

    model, artifacts = render(ROOT / "examples/2su-leaf-subnet/inventory")
    if broken:
        edits = {("su1-r1-leaf", "etc/nvue.d/startup.yaml"): [("    mtu: 9216\n", "    mtu: 99999\n"),
                                                              ("    fec: rs\n", "    enable: on\n")],
                 ("su2-r0-leaf", "etc/frr/frr.conf"): [(" remote-as external", " remote-as 1")]}
        for i, art in enumerate(artifacts):
            for old, new in edits.get((art.device, art.path), []):
                assert old in art.content
                artifacts[i] = art = dataclasses.replace(art, content=art.content.replace(old, new, 1))
    view = view_mod.build_view(model, FileSet.from_artifacts(artifacts))
    spine = next(s.name for s in model.switches if s.role == "spine")
    monkeypatch.setattr(view_mod, "PARALLEL_MIN", 10**9)
    one = fabric_run.rules_and_simulation(view, simulate=True, drain=[spine])
    monkeypatch.setattr(view_mod, "PARALLEL_MIN", 1)
    ran: list[bool] = []
    real = forked.beside

    def spy(child, here):  # noqa: ANN001, ANN202
        got = real(child, here)
        ran.append(got is not None)
        return got

    monkeypatch.setattr(forked, "beside", spy)
    two = fabric_run.rules_and_simulation(view, simulate=True, drain=[spine])
    if ran != [True]:
        pytest.skip("no second CPU or no fork here")
    assert two.findings == one.findings and run_rules(view) == one.findings
    rules = {f.rule for f in one.findings}
    assert not broken or {"NVUE-01", "AR-05"} <= rules and rules - set(fabric_run.BESIDE_SIMULATION)
    assert one.sim is not None and two.sim is not None
    assert two.sim.findings == one.sim.findings and one.sim.findings  # the drained spine's findings
    assert two.sim.notes == one.sim.notes and two.sim.to_dict() == one.sim.to_dict()
