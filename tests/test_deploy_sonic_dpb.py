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
