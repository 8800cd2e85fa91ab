"""What netauto checks itself, on this machine, before a SONiC switch's CONFIG_DB is touched: the target that
`config replace` (GCU) will get is the one GCU accepts.

1. No port breakout: SONiC changes breakouts by Dynamic Port Breakout (`config interface breakout`, which
   removes the old ports' dependent config and adds the new ports with their platform defaults: sonic-utilities
   doc/Command-Reference.md "config interface breakout", config/main.py). Through `config replace` upstream rejects
   it or races with buffermgrd on lossless ports (sonic-utilities PR #4642; sonic-buildimage #23403, #11328).
   deploy runs DPB itself first when a cage's BREAKOUT_CFG mode differs (netauto.deploy.sonic_breakout) and
   checks the target built after it; a lane change still left in a target is refused with the manual, drained
   procedure (`breakout_refusal`).
2. The target is the one built from the *running* CONFIG_DB (`sonic-cfggen -d --print-data`): the file staged
   from the saved config_db.json must equal it, else the push would revert unsaved runtime changes to tables
   netauto does not own.
3. The whole target (every table this checker maps: netauto's and those that point into them, e.g. the buffer
   profile lists a SKU-default switch keeps) passes `yanglint` with SONiC's YANG models, leafrefs included,
   as GCU's own first step does. Without the models the push is refused, never silently unchecked.
"""

from __future__ import annotations

from pathlib import Path

from netauto.deploy import sonic_db
from netauto.deploy.remote import StepFailed
from netauto.validate import sonic_yang
from netauto.validate.yang_models import find_models

SHOWN = 5  # errors/ports named in a refusal line


def breakout_refusal(device: str, changes: list[str], intent: sonic_db.Config) -> str:
    """One message: which ports, why not by `config replace`, and the supported manual procedure."""
    modes = {port: (entry or {}).get("brkout_mode") for port, entry in (intent.get("BREAKOUT_CFG") or {}).items()}
    commands = [f"sudo config interface breakout {port} '{mode}' -f -l -y" for port, mode in sorted(
        modes.items(), key=lambda kv: sonic_db._port_order(kv[0])) if any(c.startswith(f"{port}:") for c in changes)]
    more = f" (+{len(changes) - SHOWN} more)" if len(changes) > SHOWN else ""
    steps = "; ".join(commands[:SHOWN]) + (f"; ... ({len(commands)} cages)" if len(commands) > SHOWN else "")
    return (f"{device}: refusing a port breakout change through `config replace` ({'; '.join(changes[:SHOWN])}{more}): "
            f"SONiC changes breakouts only by Dynamic Port Breakout. Do it by hand, drained: `netauto drain {device} "
            f"-i <inventory>`; on the switch {steps or 'config interface breakout <port> <mode> -f -l -y'}; "
            f"`sudo config save -y`; then run deploy again (it configures the new ports and their buffers, and "
            f"undrains the switch at its end)")


def models_dir() -> Path:
    found = find_models().found
    if found is None:
        raise StepFailed("SONiC YANG models not found ($NETAUTO_SONIC_YANG_DIR or the cache of "
                         "scripts/get-sonic-yang-models): deploy validates the whole config_db target against them "
                         "before `config replace`, as GCU does; run scripts/get-sonic-yang-models")
    return found


def yang_errors(device: str, target: sonic_db.Config, models: Path) -> tuple[list[str], list[str]]:
    """(errors, tables not checked here) of the whole target against the SONiC YANG models."""
    checked = {t: v for t, v in target.items() if t in sonic_yang.TABLES and v}
    unmapped = sorted(t for t in target if t not in sonic_yang.TABLES)
    try:
        errors = sonic_yang.check_config_dbs({device: checked}, models).get(device, [])
    except sonic_yang.SonicYangError as exc:
        raise StepFailed(f"{device}: SONiC YANG check could not run: {exc}") from None
    return errors, unmapped


def check_target(device: str, running: sonic_db.Config, intent: sonic_db.Config,
                 models: Path, staged: sonic_db.Config | None = None) -> list[str]:
    """Refuse (StepFailed) a target GCU would reject; the notes of a target it accepts."""
    changes = sonic_db.breakout_changes(running, intent)
    if changes:
        raise StepFailed(breakout_refusal(device, changes, intent))
    target = sonic_db.target_config(running, intent)
    if staged is not None and staged != target:
        stale = sorted({f"{t}|{k}" for t in set(staged) | set(target)
                        for k in set(staged.get(t) or {}) | set(target.get(t) or {})
                        if (staged.get(t) or {}).get(k) != (target.get(t) or {}).get(k)})
        raise StepFailed(f"{device}: the running CONFIG_DB differs from /etc/sonic/config_db.json in "
                         f"{len(stale)} entries ({', '.join(stale[:SHOWN])}): the push would set them to the saved "
                         f"file's values. If the running state is right, `sudo config save -y` on the switch; then "
                         f"run deploy again")
    errors, unmapped = yang_errors(device, target, models)
    if errors:
        more = f" (+{len(errors) - SHOWN} more)" if len(errors) > SHOWN else ""
        raise StepFailed(f"{device}: the config_db target fails the SONiC YANG models, as GCU's `config replace` "
                         f"would: {'; '.join(errors[:SHOWN])}{more}")
    kept = sonic_db.kept_references(sonic_db._replaced(running, intent), running)
    notes = [f"config_db target valid against the SONiC YANG models ({len(target) - len(unmapped)} tables)"]
    if kept:
        notes.append(f"kept from the switch because its own tables reference them: {', '.join(kept)}")
    if unmapped:
        notes.append(f"tables left to GCU's own check (no YANG mapping in netauto): {', '.join(unmapped)}")
    return notes
