"""SONiC pushes GCU accepts: the `config replace` target deploy builds over a factory-booted CONFIG_DB of each
shipped HWSKU (tests/sonic_factory.py, facts from sonic-buildimage's SKU templates) passes yanglint with the
full SONiC YANG models, leafrefs included; a breakout change is refused with the Dynamic Port Breakout procedure.

No SONiC runtime exists here (no redis, swss, GCU): the switch side is a stand-in `sonic-cfggen`/`config` on PATH
that prints a CONFIG_DB and accepts `config replace --dry-run`; what GCU itself would say is not verified."""

from __future__ import annotations

import copy
import json
import os
import stat

import pytest
from conftest import EXAMPLES, sonic_yang_models
from sonic_factory import after_breakout, factory_config_db

from netauto.deploy import sonic_db, sonic_preflight
from netauto.deploy.remote import StepFailed
from netauto.pipeline import render
from netauto.platforms.hardware import hwsku_names
from netauto.validate.sonic_yang import check_config_dbs


@pytest.fixture(scope="module")
def intents() -> dict[str, dict]:
    """Every SONiC switch of the shipped fabrics (examples/mixed-sonic is the one with SONiC)."""
    _, artifacts = render(EXAMPLES / "mixed-sonic" / "inventory")
    found = {a.device: json.loads(a.content) for a in artifacts if a.path == "etc/sonic/config_db.json"}
    assert len(found) == 9
    return found


@pytest.fixture(scope="module")
def models():
    return sonic_yang_models()


def test_the_factory_config_db_of_every_shipped_hwsku_is_itself_valid(models):
    """The fixture is a real SONiC config: each SKU's factory DB (all ports active, and with inactive ports on
    the zero profiles) passes the models before netauto touches it."""
    dbs = {sku: factory_config_db(sku) for sku in hwsku_names()}
    dbs["ACS-SN5600 inactive ports"] = factory_config_db("ACS-SN5600", active=["Ethernet0", "Ethernet8"])
    assert {"BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"} <= set(dbs["ACS-SN5600"])
    assert check_config_dbs(dbs, models) == {name: [] for name in dbs}


def test_every_shipped_sonic_switch_over_a_factory_db_passes_yanglint(intents, models):
    """Over each switch's SKU defaults (after its breakouts were done by DPB), deploy's target is YANG-valid; so is
    the plain merge (owned tables replaced, nothing kept) now that netauto renders the profile lists and the
    profiles they name as SONiC's buffers template does (issue 39 item 2)."""
    targets, old = {}, {}
    for device, intent in intents.items():
        sku = intent["DEVICE_METADATA"]["localhost"]["hwsku"]
        running = after_breakout(factory_config_db(sku), intent)
        assert sonic_db.breakout_changes(running, intent) == []
        targets[device] = sonic_db.target_config(running, intent)
        assert sonic_db.differences(targets[device], intent) == []  # verify after the push: the intent is there
        assert {"ingress_lossless_profile", "egress_lossy_profile"} <= set(targets[device]["BUFFER_PROFILE"])
        old[device] = sonic_db._replaced(running, intent)
        assert sonic_preflight.check_target(device, running, intent, models)[0].startswith("config_db target valid")
    assert check_config_dbs(targets, models) == {d: [] for d in targets}
    assert check_config_dbs(old, models) == {d: [] for d in old}


def test_inactive_ports_keep_their_zero_profiles(intents, models):
    """Ports the intent does not use keep the SKU's zero profiles their profile lists name; what nothing kept
    names any more (the PG zero profile of BUFFER_PG, which netauto owns, and its ingress_zero_pool) goes."""
    intent = intents["spine4"]
    running = after_breakout(factory_config_db("ACS-SN5600", active=["Ethernet256", "Ethernet264"]), intent)
    target = sonic_db.target_config(running, intent)
    assert {"ingress_lossless_zero_profile", "egress_lossy_zero_profile"} <= set(target["BUFFER_PROFILE"])
    assert "ingress_lossy_pg_zero_profile" not in target["BUFFER_PROFILE"] and "ingress_zero_pool" not in target["BUFFER_POOL"]
    assert check_config_dbs({"spine4": target}, models) == {"spine4": []}


def test_kept_references_are_transitive():
    running = {"BUFFER_PORT_INGRESS_PROFILE_LIST": {"Ethernet8": {"profile_list": "p1,p2"}},
               "BUFFER_PROFILE": {"p1": {"pool": "zp"}, "p2": {"pool": "ip"}, "unused": {"pool": "zp"}},
               "BUFFER_POOL": {"zp": {"size": "0"}, "ip": {"size": "9"}}}
    intent = {"BUFFER_PROFILE": {"mine": {"pool": "ip"}}, "BUFFER_POOL": {"ip": {"size": "10"}}}
    target = sonic_db.target_config(running, intent)
    assert target["BUFFER_PROFILE"] == {"mine": {"pool": "ip"}, "p1": {"pool": "zp"}, "p2": {"pool": "ip"}}
    assert target["BUFFER_POOL"] == {"ip": {"size": "10"}, "zp": {"size": "0"}}  # the intent's pool wins
    assert sonic_db.differences(target, intent) == [] and sonic_db.differences(running, intent) != []


def test_a_breakout_change_is_refused_with_the_dpb_procedure(intents, models):
    intent = intents["spine4"]
    running = factory_config_db("ACS-SN5600")  # every cage 1x800G; the intent splits cages 2x400G
    with pytest.raises(StepFailed) as err:
        sonic_preflight.check_target("spine4", running, intent, models)
    text = str(err.value)
    assert "refusing a port breakout change through `config replace`" in text
    assert "Ethernet0: breakout 1x800G[400G,200G,100G,50G,40G,25G,10G] -> 2x400G[200G,100G,50G,40G,25G,10G]" in text
    assert "sudo config interface breakout Ethernet0 '2x400G[200G,100G,50G,40G,25G,10G]' -f -l -y" in text
    assert "netauto drain spine4" in text and "config save" in text and "\n" not in text


def test_a_yang_invalid_target_is_refused_before_the_switch_sees_it(intents, models):
    intent = copy.deepcopy(intents["spine4"])
    running = after_breakout(factory_config_db("ACS-SN5600"), intent)
    first = next(iter(intent["BUFFER_PG"]))
    intent["BUFFER_PG"][first]["profile"] = "no_such_profile"
    with pytest.raises(StepFailed, match=r"fails the SONiC YANG models.*BUFFER_PG\|.*no_such_profile"):
        sonic_preflight.check_target("spine4", running, intent, models)


def _standin(tmp_path, running: dict) -> dict[str, str]:
    """`sonic-cfggen -d --print-data` prints `running`; `config replace --dry-run` logs and succeeds."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "running.json").write_text(json.dumps(running))
    scripts = {"sonic-cfggen": f'#!/bin/sh\ncat {tmp_path}/running.json\n',
               "config": f'#!/bin/sh\necho "$@" >> {tmp_path}/config.log\n'}
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(stat.S_IRWXU)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_check_refuses_a_target_staged_from_a_stale_file_and_accepts_the_running_one(tmp_path, intents, models,
                                                                                      monkeypatch):
    """deploy's check step: the target staged from the saved file must be the one built from the running
    CONFIG_DB (else GCU would revert unsaved changes); then the switch's own dry-run runs."""
    from test_deploy_plan import _LocalSession

    from netauto.deploy import sonic_config

    intent = intents["su1-r0-leaf"]
    running = after_breakout(factory_config_db("ACS-SN5600"), intent)
    for key, value in _standin(tmp_path, running).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("NETAUTO_SONIC_YANG_DIR", str(models))
    staged = tmp_path / "target.json"
    saved = copy.deepcopy(running)
    saved["FLEX_COUNTER_TABLE"]["ACL"]["FLEX_COUNTER_STATUS"] = "enable"  # a change not yet in the running DB
    staged.write_bytes(sonic_db.dumps(sonic_db.target_config(saved, intent)))
    with pytest.raises(StepFailed, match=r"running CONFIG_DB differs .*FLEX_COUNTER_TABLE\|ACL.*config save -y"):
        sonic_config.check(_LocalSession(), str(staged), "su1-r0-leaf", json.dumps(intent))  # type: ignore[arg-type]
    assert not (tmp_path / "config.log").exists()  # refused before the switch's GCU was asked
    staged.write_bytes(sonic_db.dumps(sonic_db.target_config(running, intent)))
    notes = sonic_config.check(_LocalSession(), str(staged), "su1-r0-leaf", json.dumps(intent))  # type: ignore[arg-type]
    assert (tmp_path / "config.log").read_text() == f"replace --dry-run {staged}\n"
    assert not any("BUFFER_PROFILE|ingress_lossless_profile" in n for n in notes)  # netauto renders it now


def test_check_refuses_without_the_yang_models(tmp_path, intents, monkeypatch):
    from test_deploy_plan import _LocalSession

    from netauto.deploy import sonic_config

    intent = intents["su1-r0-leaf"]
    for key, value in _standin(tmp_path, after_breakout(factory_config_db("ACS-SN5600"), intent)).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("NETAUTO_SONIC_YANG_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(StepFailed, match="SONiC YANG models not found"):
        sonic_config.check(_LocalSession(), str(tmp_path / "t.json"), "x", json.dumps(intent))  # type: ignore[arg-type]


def test_dry_run_preview_names_the_breakout_deploy_would_run(tmp_path, intents, models, monkeypatch):
    """`deploy --dry-run` on a switch whose intent changes a breakout says the push would run Dynamic Port
    Breakout first (tests/test_deploy_sonic_dpb.py: how), and which cages."""
    from test_deploy_plan import _LocalSession

    from netauto.deploy import sonic_config

    intent = intents["spine4"]
    for key, value in _standin(tmp_path, factory_config_db("ACS-SN5600")).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("NETAUTO_SONIC_YANG_DIR", str(models))
    notes = sonic_config.preview(_LocalSession(), "spine4", json.dumps(intent))  # type: ignore[arg-type]
    assert len(notes) == 1 and notes[0].startswith("deploy would first run Dynamic Port Breakout on the drained "
                                                   "switch (8 cage(s): Ethernet0 1x800G"), notes
    (tmp_path / "running.json").write_text(json.dumps(after_breakout(factory_config_db("ACS-SN5600"), intent)))
    notes = sonic_config.preview(_LocalSession(), "spine4", json.dumps(intent))  # type: ignore[arg-type]
    assert notes[0].startswith("config_db target valid") and not (tmp_path / "config.log").exists()


def test_the_push_check_step_refuses_a_breakout_before_the_switchs_gcu(tmp_path, intents, models, monkeypatch):
    """deploy's own check step (device._check, what runs after staging and before the rollback is armed) goes
    through the preflight: a target that still changes lanes (no breakout planned for it by the push's read)
    stops there, and GCU's dry-run is never asked."""
    from types import SimpleNamespace

    from test_deploy_plan import _LocalSession

    from netauto.deploy import device
    from netauto.deploy.mode_sonic import Sonic
    from netauto.deploy.push import Push, Read, Steps
    from netauto.render.engine import Artifact

    intent = intents["spine4"]
    running = factory_config_db("ACS-SN5600")
    for key, value in _standin(tmp_path, running).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("NETAUTO_SONIC_YANG_DIR", str(models))
    stage = tmp_path / "stage"
    staged = stage / "intent" / device.SONIC_DB.lstrip("/")
    staged.parent.mkdir(parents=True)
    staged.write_bytes(sonic_db.dumps(sonic_db.target_config(running, intent)))
    target = SimpleNamespace(name="spine4", kind="switch", inert=set(),
                             files={device.SONIC_DB: Artifact("spine4", device.SONIC_DB.lstrip("/"), json.dumps(intent))})
    result = device.DeviceResult("spine4", "apply", "unchanged")
    push = Push(_LocalSession(), target, device.ApplyOptions(), result, Steps(result), str(stage), "test",  # type: ignore[arg-type]
                read=Read({device.SONIC_DB: None}, {}, {device.SONIC_DB: "diff"}, None), checkpoint="netauto-x")
    with pytest.raises(StepFailed, match="refusing a port breakout change"):
        Sonic().check(push)  # the SONiC strategy's check step, as the push runs it
    assert not (tmp_path / "config.log").exists()
