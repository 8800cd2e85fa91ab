"""The real validators report the rules' own Finding (findings.tool_finding), the file on-device once validate's
runner has it (Finding.on_device): one finding type from checker to report."""

from __future__ import annotations

from pathlib import Path

import pytest

from netauto.validate.external import parse_bgpd_output
from netauto.validate.findings import Finding, tool_finding

ROOT = Path("/tmp/netauto-validate-x/gpu-pod1")


def test_a_tool_finding_is_an_error_of_rule_ext_tool():
    assert tool_finding("vtysh", "leaf1", "/t/leaf1/etc/frr/frr.conf", 7, "% Unknown command") == Finding(
        "EXT-vtysh", "error", "leaf1", "% Unknown command", "/t/leaf1/etc/frr/frr.conf", 7)


def test_the_bgpd_reader_returns_rule_findings():
    out = ("2026/11/23 09:10:54 BGP: [SHWNK-NWT5S][EC 100663304] Command returned Warning Config Failed on "
           "config line 45:  neighbor swp99 peer-group NOPE\n")
    assert parse_bgpd_output("leaf1", "frr.conf", out) == [
        Finding("EXT-bgpd", "error", "leaf1", "Warning Config Failed: neighbor swp99 peer-group NOPE", "frr.conf", 45)]


@pytest.mark.parametrize("device,file,expected", [
    ("su1-r0-leaf", f"{ROOT}/su1-r0-leaf/etc/frr/frr.conf", "etc/frr/frr.conf"),  # under the device's folder
    ("monitoring", f"{ROOT}/monitoring/prometheus/netauto.rules.test.yml", "prometheus/netauto.rules.test.yml"),
    ("gpu01", f"{ROOT}/gpu02/etc/netplan/60-rails.yaml", f"{ROOT}/gpu02/etc/netplan/60-rails.yaml"),  # elsewhere
    ("gpu01", "/etc/systemd/system/x.service", "/etc/systemd/system/x.service"),
    ("", f"{ROOT}/spine1/etc/frr/frr.conf", "spine1/etc/frr/frr.conf"),  # no device: relative to the tree
])
def test_on_device_makes_the_file_relative_to_the_device_folder(device: str, file: str, expected: str):
    found = tool_finding("netplan", device, file, 3, "col 5: x").on_device(ROOT)
    assert found == Finding("EXT-netplan", "error", device, "col 5: x", expected, 3)
