"""The NOS facts of the platform layer (platforms/nos.py + data/nos_*.yaml) against their sources and the renderer."""

from __future__ import annotations

import pytest

from netauto.platforms import nos
from netauto.validate.nvue_schema import schema


def _schema_has(release: str, path: tuple[str, ...]) -> bool:
    """Whether NVIDIA's NVUE schema of `release` (nvueschema) has this key path (free map keys skipped)."""
    s = schema(release)
    fields = s.fields("NvueConfig")
    for key in path:
        t = fields.get(key) if fields is not None else None
        if t is None:
            return False
        if t.values is not None:  # Dict[str, X] (service ntp <vrf>, ...): look at X
            t = t.values
        fields = s.fields(t.model) if t.model else None
    return True


@pytest.mark.parametrize("release", nos.cumulus_releases())
def test_baseline_and_owned_paths_exist_in_the_schema(release):
    """Every NVUE subtree deploy must keep (users, ssh, ACLs, mgmt VRF, NTP/DNS/syslog) or may own is a real
    path of that release's schema: the table in data/nos_cumulus.yaml follows the schema's moves."""
    for path in nos.nvue_baseline_paths(release) + nos.nvue_owned_paths():
        head = path[:1] if path[0] == "vrf" else path  # `vrf <name>`: a free key
        assert _schema_has(release, head), f"CL {release}: {'.'.join(path)} not in the NVUE schema"


def test_baseline_moves_with_the_release():
    assert ("service", "ntp") in nos.nvue_baseline_paths("5.14")
    assert ("system", "ntp") in nos.nvue_baseline_paths("5.15")
    assert ("service", "syslog") in nos.nvue_baseline_paths("5.12") and ("system", "snmp-server") in nos.nvue_baseline_paths("5.11")
    assert ("system", "syslog") in nos.nvue_baseline_paths("5.13")


def test_supported_releases():
    assert nos.cumulus_releases()[0] == nos.cumulus_feature_release("adaptive_routing_spectrum4") == "5.6"
    assert nos.unsupported_release("5.5") and "5.6" in nos.unsupported_release("5.5")
    assert nos.unsupported_release("5.19")
    assert nos.unsupported_release("5.15.2") is None
    assert nos.nvue_spelling("5.15.2") == nos.nvue_spelling("5.15")


def test_spelling_per_release():
    legacy, modern = nos.nvue_spelling("5.14"), nos.nvue_spelling("5.15")
    assert legacy.toggle(True) == {"enable": "on"} and modern.toggle(False) == {"state": "disabled"}
    assert (legacy.ipv4_container, modern.ipv4_container) == ("ip", "ipv4")
    assert legacy.ecn_on == modern.ecn_on == "enable"  # not on/enabled in any release
    assert nos.nvue_spelling("5.9").auto_save_key == "enable" and nos.nvue_spelling("5.10").auto_save_key == "state"


def test_files_per_mode_match_the_renderer(default_render):
    model, artifacts = default_render
    cumulus = {sw.name for sw in model.switches if sw.nos == "cumulus"}
    rendered = {a.path for a in artifacts if a.device in cumulus}
    for mode in nos.CUMULUS_MODES:
        known = {f.path for f in nos.cumulus_files(mode)}
        assert rendered <= known, rendered - known
    assert nos.cumulus_pushed("nvue") == (nos.cumulus_path("nvue"),)
    assert nos.cumulus_path("nvue") not in nos.cumulus_pushed("linux-files")
    assert set(nos.cumulus_pushed("linux-files")) == {f.path for f in nos.cumulus_files("linux-files")} - {nos.cumulus_path("nvue")}
    off = nos.cumulus_disable_nvue()
    assert off["env"] == {"PASSWORD_NVUE_SYNC": "no"} and nos.cumulus_path("nvue") in off["move_aside"]


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(Exception, match="unknown Cumulus config mode 'files'"):
        nos.cumulus_files("files")  # type: ignore[arg-type]
