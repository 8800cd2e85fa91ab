"""What deploy pushes to a SONiC switch's config_db.json: netauto's tables replaced, the switch's own kept."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES

from netauto.deploy import sonic_db
from netauto.pipeline import render


@pytest.fixture(scope="module")
def intent() -> dict:
    _, artifacts = render(EXAMPLES / "mixed-sonic" / "inventory")
    art = next(a for a in artifacts if a.device == "su1-r0-leaf" and a.path == "etc/sonic/config_db.json")
    return json.loads(art.content)


def _switch_with_extras(intent: dict) -> dict:
    """What a real switch holds after netauto's file was loaded: image tables, the platform mac, unused ports."""
    running = json.loads(json.dumps(intent))
    running["FEATURE"] = {"bgp": {"state": "enabled", "auto_restart": "enabled"}}
    running["DEVICE_METADATA"]["localhost"]["mac"] = "1c:34:da:00:00:01"
    running["PORT"]["Ethernet504"] = {"admin_status": "down", "lanes": "504,505,506,507", "speed": "400000"}
    return running


def test_the_switchs_own_config_is_kept(intent):
    running = _switch_with_extras(intent)
    target = sonic_db.target_config(running, intent)
    assert target == running  # nothing netauto owns differs: nothing to change, nothing lost
    assert sonic_db.differences(running, intent) == []
    text = sonic_db.dumps(running)
    assert sonic_db.expected_file(text, json.dumps(intent)) == text  # dry-run: no diff


def test_owned_tables_are_replaced_and_stale_entries_removed(intent):
    running = _switch_with_extras(intent)
    port = next(iter(intent["INTERFACE"]))
    running["INTERFACE"]["Ethernet999|10.9.9.9/31"] = {}  # left over from an older intent
    running["PORT"][port.split("|")[0]]["mtu"] = "9100"  # hand edit on a fabric port
    running["DEVICE_METADATA"]["localhost"]["bgp_asn"] = "65999"
    target = sonic_db.target_config(running, intent)
    assert "Ethernet999|10.9.9.9/31" not in target["INTERFACE"]
    assert target["PORT"][port.split("|")[0]]["mtu"] == intent["PORT"][port.split("|")[0]]["mtu"]
    assert target["DEVICE_METADATA"]["localhost"]["bgp_asn"] == intent["DEVICE_METADATA"]["localhost"]["bgp_asn"]
    assert target["DEVICE_METADATA"]["localhost"]["mac"] == "1c:34:da:00:00:01"
    assert target["PORT"]["Ethernet504"]["admin_status"] == "down" and "FEATURE" in target
    assert sonic_db.differences(running, intent) == [
        "DEVICE_METADATA|localhost", "INTERFACE|Ethernet999|10.9.9.9/31", f"PORT|{port.split('|')[0]}"]
    assert sonic_db.differences(target, intent) == []


def test_expected_file_diff_shows_only_what_netauto_changes(intent):
    from netauto.deploy.device import unified

    running = _switch_with_extras(intent)
    port = next(iter(intent["PORT"]))
    running["PORT"][port]["mtu"] = "9100"
    before = sonic_db.dumps(running)
    diff = unified("/etc/sonic/config_db.json", before, sonic_db.expected_file(before, json.dumps(intent)))
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("---", "+++")]
    assert changed == ['-            "mtu": "9100",', f'+            "mtu": "{intent["PORT"][port]["mtu"]}",']


def test_unreadable_running_file_means_the_whole_intent(intent):
    text = json.dumps(intent)
    assert sonic_db.expected_file(None, text) == text.encode()
    assert sonic_db.expected_file(b"{not json", text) == text.encode()
    assert sonic_db.expected_file(b"[]", text) == text.encode()
