"""A SONiC switch's CONFIG_DB, changed the way SONiC supports changing it live: the generic config
updater (GCU, sonic-utilities 202012+). `config replace` computes a patch from the running CONFIG_DB to
the target file, validates it against the YANG models and applies it table by table with the fewest
service restarts (unlike `config reload`, which restarts every service and takes the switch down).

    breakout  when the switch's cages are split otherwise than the intent: Dynamic Port Breakout first, on the
              drained switch, and the target rebuilt from the CONFIG_DB it leaves (netauto.deploy.sonic_breakout)
    check     here, before anything changes (netauto.deploy.sonic_preflight): no lane change left for the
              replace, the staged target equals the one built from the running CONFIG_DB, and
              the whole target passes yanglint with SONiC's YANG models (leafrefs included); then on the
              switch: config replace --dry-run <target>   (GCU's YANG validation and patch, nothing applied)
    arm       config checkpoint netauto-<id>      (the running CONFIG_DB, for the rollback)
    apply     config replace <target>
    verify    sonic-cfggen -d --print-data: every table netauto owns equals the intent
    rollback  the breakouts undone by DPB, then config rollback netauto-<id>   (also in the on-device watchdog)
    confirm   config delete-checkpoint netauto-<id>

The lab has no SONiC runtime (no redis, swss or GCU): there config_db.json is installed as a file and
marked inert, so none of this runs in the lab and none of it has run against a real switch yet.
"""

from __future__ import annotations

import json
import shlex

from netauto.deploy import remote, sonic_breakout, sonic_db, sonic_preflight
from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed
from netauto.formats import device_json

TIMEOUT = 600.0  # GCU applies table by table and can take minutes on a big config


def check(session: DeviceSession, staged: str, device: str = "", intent_text: str | None = None) -> list[str]:
    """Before anything changes: the target is one GCU accepts (sonic_preflight, on this machine, from the
    running CONFIG_DB), and the switch's GCU agrees (YANG-valid, patch computable). Returns notes."""
    if not remote.has_command(session, "config", "sonic-cfggen"):
        raise StepFailed("config_db.json changed but the switch has no SONiC `config`/`sonic-cfggen` "
                         "(not SONiC, or not in PATH for this user)")
    notes: list[str] = []
    if intent_text is not None:
        models = sonic_preflight.models_dir()
        staged_text = remote.read_files(session, [staged])[staged]
        try:
            staged_db = device_json.loads(staged_text) if staged_text is not None else None
        except ValueError:
            staged_db = None
        if staged_db is None:
            raise StepFailed(f"the staged {staged} is missing or not JSON")
        notes = sonic_preflight.check_target(device, running(session), json.loads(intent_text), models, staged_db)
    res = session.run(f"config replace --dry-run {shlex.quote(staged)}", timeout=TIMEOUT)
    if not res.ok:
        raise StepFailed(f"config replace --dry-run rejected config_db.json: {res.tail(400)}")
    return notes


def preview(session: DeviceSession, device: str, intent_text: str) -> list[str]:
    """For a dry-run/drift: what the push's check would say about the target built from the running CONFIG_DB
    (the breakouts deploy would run first, YANG errors, the references kept), as notes; nothing is changed or
    staged."""
    if not remote.has_command(session, "sonic-cfggen"):
        return []
    intent = json.loads(intent_text)
    try:
        db = running(session)
        changes = sonic_breakout.plan(db, intent)
        if changes:
            return [f"deploy would first run Dynamic Port Breakout on the drained switch ({len(changes)} cage(s): "
                    f"{sonic_breakout.describe(changes)}); the config replace target is built from the CONFIG_DB "
                    f"that leaves and checked then"]
        return sonic_preflight.check_target(device, db, intent, sonic_preflight.models_dir())
    except StepFailed as exc:
        return [f"the push would be refused: {exc}"]


def checkpoint_cmd(name: str) -> str:
    return f"config checkpoint {shlex.quote(name)} >/dev/null"


def delete_checkpoint_cmd(name: str) -> str:
    return f"config delete-checkpoint {shlex.quote(name)} >/dev/null 2>&1"


def rollback_line(name: str) -> str:
    """For the rollback script: restore CONFIG_DB, then drop the checkpoint."""
    return f"config rollback {shlex.quote(name)} && {delete_checkpoint_cmd(name)}"


def replace(session: DeviceSession, staged: str) -> None:
    res = session.run(f"config replace {shlex.quote(staged)}", timeout=TIMEOUT)
    if not res.ok:
        raise StepFailed(f"config replace failed: {res.tail(400)}")


def running(session: DeviceSession) -> sonic_db.Config:
    res = session.run("sonic-cfggen -d --print-data", timeout=TIMEOUT)
    if not res.ok:
        raise StepFailed(f"sonic-cfggen -d --print-data failed: {res.tail(400)}")
    try:
        doc = device_json.loads(res.stdout)
    except ValueError as exc:
        raise StepFailed(f"sonic-cfggen -d --print-data: unparsable output ({exc})") from None
    if not sonic_db.is_config(doc):
        raise StepFailed("sonic-cfggen -d --print-data: not the shape of a CONFIG_DB (table -> key -> fields)")
    return doc  # type: ignore[no-any-return]


def verify(session: DeviceSession, intent_text: str) -> None:
    wrong = sonic_db.differences(running(session), json.loads(intent_text))
    if wrong:
        raise StepFailed(f"verify: running CONFIG_DB differs from the intent in {len(wrong)} entries: {wrong[:5]}")
