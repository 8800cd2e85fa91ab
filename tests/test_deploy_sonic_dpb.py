"""SONiC deploy beyond `config replace`: the diff headers name the device, a push says what it did with each
file (installed, not applied), and Dynamic Port Breakout run by deploy itself.

No SONiC runtime exists here (no redis, swss, syncd, GCU, DPB): the switch side is a stand-in on PATH
(`config`, `sonic-cfggen`, `sonic-db-cli`) that records the command sequence and keeps the lane state the way
sonic-utilities' `config interface breakout` leaves it (tests/sonic_factory.after_breakout); what the real
DPB, orchagent and the ASIC do is not verified here."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import EXAMPLES, ROOT, sonic_yang_models
from test_deploy_plan import _LocalSession

from netauto.deploy import common, sonic_db
from netauto.pipeline import render
from netauto.platforms.hardware import hwsku_names, load_hwsku
from netauto.render.engine import Artifact


@pytest.fixture(scope="module")
def intents() -> dict[str, dict]:
    """Every SONiC switch of examples/mixed-sonic, as rendered."""
    _, artifacts = render(EXAMPLES / "mixed-sonic" / "inventory")
    return {a.device: json.loads(a.content) for a in artifacts if a.path == "etc/sonic/config_db.json"}


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


def _cfggen_device_dir() -> Path | None:
    """SONiC's SKU folders (../shared/sonic-cfggen/device beside a development clone, or
    $NETAUTO_SONIC_CFGGEN_DIR/device)."""
    for base in (os.environ.get("NETAUTO_SONIC_CFGGEN_DIR"), ROOT.parent / "shared" / "sonic-cfggen"):
        if base and (Path(base) / "device").is_dir():
            return Path(base) / "device"
    return None


@pytest.mark.parametrize("sku", hwsku_names())
def test_breakout_cfg_defaults_are_the_skus_hwsku_json(sku):
    """netauto's platform data gives every cage the mode SONiC's own generator writes into BREAKOUT_CFG
    (sonic-config-engine portconfig.py parse_breakout_mode: hwsku.json default_brkout_mode)."""
    device = _cfggen_device_dir()
    if device is None:
        pytest.skip("SONiC's SKU folders not found (../shared/sonic-cfggen or $NETAUTO_SONIC_CFGGEN_DIR)")
    hw = load_hwsku(sku)
    found = json.loads((device / hw.hardware.sonic_platform / sku / "hwsku.json").read_text())["interfaces"]
    ours = hw.breakout_modes({})
    assert ours == {port: found[port]["default_brkout_mode"] for port in ours}
    # every cage has a row: the parents of platform.json are all there (O128's hwsku.json also lists children)
    assert len(ours) == len(hw.hardware.cages)


def test_rendered_breakout_cfg_keeps_a_row_for_every_cage(intents):
    """spine4 splits its used cages 2x400G; the cages it does not use keep the SKU's 1x800G, and none is missing
    (SONiC's DPB and `show interfaces breakout` read BREAKOUT_CFG per cage)."""
    cfg = intents["spine4"]["BREAKOUT_CFG"]
    assert len(cfg) == 65 and cfg["Ethernet512"] == {"brkout_mode": "1x25G[10G]"}
    modes = {e["brkout_mode"] for e in cfg.values()}
    assert modes == {"2x400G[200G,100G,50G,40G,25G,10G]", "1x800G[400G,200G,100G,50G,40G,25G,10G]", "1x25G[10G]"}


class _Session(_LocalSession):
    """_LocalSession that can upload (stage files written locally)."""

    def upload(self, directory: str, files: dict[str, bytes]) -> None:
        for path, data in files.items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(data)


def _push(tmp_path, intent: dict, name: str = "spine4"):
    from netauto.deploy import device
    from netauto.deploy.push import Push, Read, Steps

    stage = tmp_path / "stage"
    target = SimpleNamespace(
        name=name, kind="switch", inert=set(), asn=65000, drained_by_intent=False, nos="sonic", frr_exec="",
        files={device.SONIC_DB: Artifact(name, device.SONIC_DB.lstrip("/"), json.dumps(intent)),
               device.SONIC_FRR: Artifact(name, device.SONIC_FRR.lstrip("/"), "router bgp 65000\n")})
    result = device.DeviceResult(name, "apply", "unchanged", diff={device.SONIC_DB: "d"})
    read = Read({device.SONIC_DB: b"{}"}, {device.SONIC_DB: b"{}"}, {device.SONIC_DB: "d"}, None)
    return Push(_Session(), target, device.ApplyOptions(), result, Steps(result), str(stage), "test",  # type: ignore[arg-type]
                read=read, checkpoint="netauto-x")


def _standin(tmp_path, monkeypatch, running: dict) -> Path:
    import sonic_standin

    folder = tmp_path / "switch"
    for key, value in sonic_standin.install(folder, running).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("NETAUTO_SONIC_YANG_DIR", str(sonic_yang_models()))
    return folder


def test_deploy_runs_dynamic_port_breakout_drained_then_replaces_and_rolls_back_by_dpb(tmp_path, intents,
                                                                                        monkeypatch):
    """spine4 on a factory ACS-SN5600 (every cage 1x800G) whose intent splits its used cages 2x400G: the push
    plans DPB per changed cage, runs `config interface breakout <port> <mode> -y -f` on each, reads lanes and
    port creation back, rebuilds the replace target from what DPB left, checks it (YANG, GCU dry-run) and
    replaces: no lane ever changes through `config replace` (the stand-in's PORT validator refuses that).
    Then the armed rollback: DPB back to 1x800G, `config rollback` to the checkpoint: the CONFIG_DB as before."""
    import sonic_standin
    from sonic_factory import factory_config_db

    from netauto.deploy import sonic_breakout, sonic_config
    from netauto.deploy.mode_sonic import BREAKOUT, Sonic

    intent = intents["spine4"]
    factory = factory_config_db("ACS-SN5600")
    folder = _standin(tmp_path, monkeypatch, factory)
    push = _push(tmp_path, intent)
    strategy = Sonic()
    push.state[BREAKOUT] = sonic_breakout.plan(sonic_config.running(push.session), intent)  # as read() does
    changes = push.state[BREAKOUT]
    used = sorted({f["index"] for f in intent["PORT"].values()}, key=int)
    assert [c.index for c in changes] == used and all(c.new.startswith("2x400G") for c in changes)
    strategy.check(push)  # plans, refuses nothing, asks the switch's GCU nothing yet
    assert any(n.startswith(f"Dynamic Port Breakout planned for {len(changes)} cage(s)") for n in push.result.notes)
    assert [c for c in sonic_standin.commands(folder) if c.startswith("config")] == []
    rollback = strategy._first_lines(push)
    assert rollback[-1].startswith("config rollback netauto-x")
    direct = tmp_path / "direct.json"  # the old way: the lane change inside the replace target
    direct.write_bytes(sonic_db.dumps(sonic_db.target_config(factory, intent)))
    assert not push.session.run(f"config replace --dry-run {direct}").ok
    (folder / "commands.log").unlink()
    common.run_ok(push.session, sonic_config.checkpoint_cmd("netauto-x"))  # what arm does
    strategy._apply_first(push)

    config = [c for c in sonic_standin.commands(folder) if c.startswith("config ")]
    staged = f"{push.stage}/intent/etc/sonic/config_db.json"
    assert config == ["config checkpoint netauto-x",
                      *[f"config interface breakout {c.port} {c.new} -y -f" for c in changes],
                      f"config replace --dry-run {staged}", f"config replace {staged}"]
    now = json.loads((folder / "running.json").read_text())
    assert {p: now["PORT"][p]["lanes"] for p in intent["PORT"]} == {p: f["lanes"] for p, f in intent["PORT"].items()}
    assert sonic_db.differences(now, intent) == []  # what verify checks
    assert json.loads(Path(staged).read_text()) == now  # the saved file installed later is the running DB
    notes = " | ".join(push.result.notes)
    assert f"{sum(1 for _ in intent['PORT'])} port(s) on their lanes and created" in notes
    assert "oper state of the" in notes and "not up" not in notes
    steps = [s for s, _ in push.result.steps]
    assert steps.index("breakout") < steps.index("breakout-readback") < steps.index("config-check") \
        < steps.index("config-replace") < steps.index("oper-state")

    for line in rollback:  # rollback.sh's SONiC lines, in order
        common.run_ok(push.session, line)
    assert json.loads((folder / "running.json").read_text()) == factory
    back = [c for c in sonic_standin.commands(folder) if c.startswith("config ")][len(config):]
    assert back[:len(changes)] == [f"config interface breakout {c.port} {c.old} -y -f" for c in reversed(changes)]
    assert back[len(changes):] == ["config rollback netauto-x", "config delete-checkpoint netauto-x"]


def test_rollback_before_the_breakout_ran_leaves_the_cages_alone(tmp_path, intents, monkeypatch):
    """The watchdog may fire before DPB ran: a cage already in its old mode is not broken out again."""
    import sonic_standin
    from sonic_factory import factory_config_db

    from netauto.deploy import sonic_breakout

    intent = intents["spine4"]
    factory = factory_config_db("ACS-SN5600")
    folder = _standin(tmp_path, monkeypatch, factory)
    changes = sonic_breakout.plan(factory, intent)
    for change in changes:
        common.run_ok(_Session(), change.undo_line())  # type: ignore[arg-type]
    assert [c for c in sonic_standin.commands(folder) if c.startswith("config ")] == []


def test_a_switch_already_broken_out_gets_no_breakout(tmp_path, intents, monkeypatch):
    from sonic_factory import after_breakout, factory_config_db

    from netauto.deploy import sonic_breakout

    intent = intents["su1-r0-leaf"]
    assert sonic_breakout.plan(after_breakout(factory_config_db("ACS-SN5600"), intent), intent) == []


def test_lanes_that_differ_without_a_mode_change_are_refused(intents):
    """A PORT on other lanes in a cage whose BREAKOUT_CFG mode stays: not something DPB explains; refused."""
    from sonic_factory import after_breakout, factory_config_db

    from netauto.deploy import sonic_breakout
    from netauto.deploy.remote import StepFailed

    intent = intents["spine4"]
    running = after_breakout(factory_config_db("ACS-SN5600"), intent)
    port = next(iter(intent["PORT"]))
    running["PORT"][port]["lanes"] = "600,601,602,603"
    with pytest.raises(StepFailed, match=rf"port lanes differ .*{port}: lanes 600,601,602,603 -> .*Dynamic Port"):
        sonic_breakout.plan(running, intent)


def test_mixed_sonic_comment_names_the_disabled_ports_real_peer(intents):
    """examples/mixed-sonic disables one port with a comment saying where it goes: the comment must name the
    switch and link the rendered port description names."""
    import re

    text = (EXAMPLES / "mixed-sonic" / "inventory" / "features.yaml").read_text()
    found = re.search(r"device: (\S+), port: (\S+), disabled: true\}.*cage (\d+) \((\d)\w\w link to (\S+)\)", text)
    assert found, "the disabled-port comment is gone"
    device, port, cage, nth, peer = found.groups()
    fields = intents[device]["PORT"][port]
    assert fields["index"] == cage and fields["description"].startswith(f"to {peer} ")
    to_peer = sorted((p for p, f in intents[device]["PORT"].items() if f["description"].startswith(f"to {peer} ")),
                     key=lambda p: int(p[len("Ethernet"):]))
    assert to_peer.index(port) + 1 == int(nth)
