"""SONiC deploy beyond `config replace`: the diff headers name the device, a push says what it did with each
file (installed, not applied), and Dynamic Port Breakout run by deploy itself.

No SONiC runtime exists here (no redis, swss, syncd, GCU, DPB): the switch side is a stand-in on PATH
(`config`, `sonic-cfggen`, `sonic-db-cli`) that records the command sequence and keeps the lane state the way
sonic-utilities' `config interface breakout` leaves it (tests/sonic_factory.after_breakout); what the real
DPB, orchagent and the ASIC do is not verified here."""

from __future__ import annotations

from types import SimpleNamespace

from test_deploy_plan import _LocalSession

from netauto.deploy import common
from netauto.render.engine import Artifact


def test_dry_run_diff_headers_name_the_device(tmp_path):
    """Six switches' diffs of the same path must be told apart by their headers, not only by the JSON key."""
    path = tmp_path / "config_db.json"
    path.write_text("old\n")
    headers = set()
    for name in ("su1-r0-leaf", "spine4"):
        target = SimpleNamespace(name=name, guard=None, files={str(path): Artifact(name, "x", "new\n")})
        read, _ = common.read_files(_LocalSession(), target)  # type: ignore[arg-type]
        diff = read.diffs[str(path)]
        assert diff.startswith(f"--- running:{name}:{path}\n+++ intent:{name}:{path}\n"), diff
        headers.add(diff.splitlines()[0])
    assert len(headers) == 2


def test_a_file_only_installed_is_not_called_applied():
    """The lab SONiC switch: frr.conf reloaded, config_db.json only installed (inert): partly-applied, naming the
    file; a push of only inert files: installed-not-applied; every changed file applied: applied."""
    from netauto.deploy.mode_files import _note_unapplied
    from netauto.deploy.push import DeviceResult

    target = SimpleNamespace(inert={"/etc/sonic/config_db.json"})
    result = DeviceResult("spine4", "apply", "unchanged",
                          diff={"/etc/sonic/config_db.json": "d", "/etc/sonic/frr/frr.conf": "d"})
    _note_unapplied(_LocalSession(), target, result.diff, result)  # type: ignore[arg-type]
    assert result.not_applied == ["/etc/sonic/config_db.json"]
    assert result.applied_state() == "partly-applied" and result.to_dict()["not_applied"] == result.not_applied
    result.diff.pop("/etc/sonic/frr/frr.conf")
    assert result.applied_state() == "installed-not-applied"
    assert DeviceResult("x", "apply", "unchanged", diff={"/etc/frr/frr.conf": "d"}).applied_state() == "applied"
