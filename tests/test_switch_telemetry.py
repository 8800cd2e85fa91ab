"""Switch telemetry in the rendered configs (issue 28): SONiC FLEX_COUNTER_TABLE counter polling (YANG-valid,
owned field by field by deploy) and Cumulus NVUE `system telemetry` OTLP export (NVUE-schema-valid per release,
absent when the inventory does not configure it or the release has no such key).
Schema-checked only: no NVUE or SONiC runs here."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from conftest import DEFAULT_INVENTORY as INVENTORY, EXAMPLES, sonic_yang_models

from netauto.deploy import sonic_db
from netauto.errors import NetautoError
from netauto.formats.nvue import parse_nvue
from netauto.model.types import SwitchTelemetry
from netauto.pipeline import build_cluster, render
from netauto.platforms.nos import cumulus_feature_release, cumulus_releases, release_tuple, sonic_flex_counters
from netauto.render.nvue import startup_yaml
from netauto.validate.nvue_schema import check
from netauto.validate.sonic_yang import check_config_dbs

COLLECTOR = SwitchTelemetry(otlp_host="192.168.200.9", otlp_port=4317, interval_s=1)


def _inventory_with_telemetry(tmp_path: Path, telemetry: dict | None) -> Path:
    out = tmp_path / "inventory"
    out.mkdir()
    for f in sorted(INVENTORY.glob("*.yaml")):
        data = yaml.safe_load(f.read_text()) or {}
        if "features" in data and telemetry is not None:
            data["features"]["telemetry"] = telemetry
        (out / f.name).write_text(yaml.safe_dump(data))
    return out


@pytest.fixture(scope="module")
def sonic_dbs() -> dict[str, dict]:
    _, artifacts = render(EXAMPLES / "mixed-sonic" / "inventory")
    return {a.device: json.loads(a.content) for a in artifacts if a.path == "etc/sonic/config_db.json"}


# ---------------------------------------------------------------- SONiC
def test_every_sonic_switch_polls_the_counters_the_alerts_read(sonic_dbs):
    assert sonic_dbs
    for device, db in sonic_dbs.items():
        table = db["FLEX_COUNTER_TABLE"]
        assert set(table) == set(sonic_flex_counters()), device  # PFCWD too: the shipped fabric runs the watchdog
        assert all(fields["FLEX_COUNTER_STATUS"] == "enable" for fields in table.values())
        assert table["PORT"]["POLL_INTERVAL"] == "1000" and table["QUEUE"]["POLL_INTERVAL"] == "1000"
        assert "POLL_INTERVAL" not in table["PFCWD"]  # sonic-flex_counter.yang: PFCWD has no interval leaf


def test_flex_counters_pass_yanglint_and_a_bad_interval_does_not(sonic_dbs):
    models = sonic_yang_models()
    device, db = next(iter(sorted(sonic_dbs.items())))
    fast, toggle = copy.deepcopy(db), copy.deepcopy(db)
    fast["FLEX_COUNTER_TABLE"]["QUEUE"]["POLL_INTERVAL"] = "50"  # below the YANG's 100 ms
    toggle["FLEX_COUNTER_TABLE"]["PORT"]["FLEX_COUNTER_STATUS"] = "on"  # not enable|disable
    result = check_config_dbs({device: db, "fast": fast, "toggle": toggle}, models)
    assert result[device] == []
    assert any("QUEUE POLL_INTERVAL" in e for e in result["fast"]), result["fast"]
    assert any("PORT FLEX_COUNTER_STATUS" in e for e in result["toggle"]), result["toggle"]


def test_deploy_owns_only_the_counter_fields_netauto_renders(sonic_dbs):
    intent = next(iter(sonic_dbs.values()))
    running = {"FLEX_COUNTER_TABLE": {"RIF": {"FLEX_COUNTER_STATUS": "enable"},
                                      "QUEUE": {"FLEX_COUNTER_STATUS": "disable", "FLEX_COUNTER_DELAY_STATUS": "false"}}}
    target = sonic_db.target_config(running, intent)["FLEX_COUNTER_TABLE"]
    assert target["RIF"] == {"FLEX_COUNTER_STATUS": "enable"}  # the image's group stays
    assert target["QUEUE"] == {"FLEX_COUNTER_STATUS": "enable", "FLEX_COUNTER_DELAY_STATUS": "false",
                               "POLL_INTERVAL": "1000"}
    assert sonic_db.differences(running, intent)  # a disabled QUEUE poll is a difference verify reports


# ---------------------------------------------------------------- Cumulus NVUE
@pytest.fixture(scope="module")
def leaf():
    cluster = build_cluster(INVENTORY)
    sw = next(s for s in cluster.compute.switches if s.nos == "cumulus" and s.role == "leaf")
    return cluster.compute, sw


def _doc(sw, model, release: str, telemetry: SwitchTelemetry | None) -> tuple[dict, list]:
    sw = copy.copy(sw)
    sw.cumulus_release, sw.telemetry = release, telemetry
    doc = parse_nvue(startup_yaml(sw, model))
    return doc, check(doc, release)


@pytest.mark.parametrize("release", cumulus_releases())
def test_system_telemetry_per_release(leaf, release):
    model, sw = leaf
    _, problems = _doc(sw, model, release, COLLECTOR)
    assert problems == []
    text = startup_yaml(_with(sw, release, COLLECTOR), model)
    has = release_tuple(release) >= release_tuple(cumulus_feature_release("telemetry"))
    assert ("telemetry:" in text) == has
    if has:
        toggle = "state: enabled" if release_tuple(release) >= (5, 15) else "enable: on"
        block = text[text.index("    telemetry:"):]
        assert toggle in block.splitlines()[1] or toggle in block
        assert "192.168.200.9:" in block and "port: 4317" in block and "sample-interval: 1" in block
        assert ("buffer-stats:" in text) == (release_tuple(release) >= (5, 12))


def _with(sw, release, telemetry):
    sw = copy.copy(sw)
    sw.cumulus_release, sw.telemetry = release, telemetry
    return sw


def test_telemetry_keys_are_schema_checked(leaf):
    """The checker sees the new keys: telemetry forced into 5.9 (no `system telemetry`) and the 5.14 toggle
    spelled the 5.15 way are NVUE-01 findings."""
    model, sw = leaf
    doc_59 = parse_nvue(startup_yaml(_with(sw, "5.10", COLLECTOR), model))
    assert check(doc_59, "5.9")
    doc_514 = parse_nvue(startup_yaml(_with(sw, "5.14", COLLECTOR), model))
    telemetry = doc_514["system"]["telemetry"]
    assert telemetry.pop("enable") == "on"
    telemetry["state"] = "enabled"
    assert any("telemetry" in str(p) for p in check(doc_514, "5.14"))


def test_absent_when_not_configured(leaf):
    model, sw = leaf
    assert sw.telemetry is None  # the default inventory configures none
    assert "telemetry" not in startup_yaml(_with(sw, "5.15", None), model)


def test_the_inventory_key_reaches_every_cumulus_switch(tmp_path):
    inv = _inventory_with_telemetry(tmp_path, {"otlp": {"host": "192.168.200.9"}, "interval_s": 2})
    cluster = build_cluster(inv)
    switches = [s for s in cluster.compute.switches if s.nos == "cumulus"]
    assert switches and all(s.telemetry == SwitchTelemetry("192.168.200.9", 4317, 2) for s in switches)


@pytest.mark.parametrize("host", ["192.168.200.999", "collector.example", "10.0.0.1; reboot"])
def test_a_bad_collector_address_is_refused(tmp_path, host):
    inv = _inventory_with_telemetry(tmp_path, {"otlp": {"host": host}})
    with pytest.raises(NetautoError, match="IPv4 address"):
        build_cluster(inv)


def test_the_release_wide_spelling_rule_leaves_schema_spelled_telemetry_keys_alone(leaf):
    """AR-05 (`enable: on` up to 5.14) must not flag `export otlp state: enabled`, which the 5.14 schema requires;
    the telemetry toggle itself is still checked."""
    from netauto.validate.rules.consistency import _spelling

    model, sw = leaf
    doc = parse_nvue(startup_yaml(_with(sw, "5.14", COLLECTOR), model))
    assert check(doc, "5.14") == [] and _spelling(doc, modern=False) == []
    doc["system"]["telemetry"]["state"] = doc["system"]["telemetry"].pop("enable") and "enabled"
    assert _spelling(doc, modern=False) == ["system.telemetry.state: `state: enabled` needs CL 5.15 (use `enable: on`)"]
