"""Dynamic Port Breakout (DPB), run by deploy itself when a SONiC switch's cages are split differently from the
intent: the only way netauto changes a port's lanes.

SONiC changes a breakout with `config interface breakout <parent port> <mode>` (sonic-utilities config/main.py
`breakout`, config_mgmt.py `breakOutPort`): it deletes the cage's old ports and, with `-f`
(--force-remove-dependencies), every CONFIG_DB entry that names them, adds the new ports (lanes, alias, speed
from platform.json), and writes BREAKOUT_CFG|<parent> last, once the ports are in place; `-y` answers its
prompt. netauto does not pass `-l` (--load-predefined-config: /etc/sonic/port_breakout_config_db.json, which
images do not ship). Through `config replace` / `apply-patch` a lane change is rejected by GCU's PORT validator
or leaves the ports down until a reboot (sonic-utilities PR #4642, sonic-buildimage #23822, #23403), so the
config replace that follows DPB never changes lanes.

Order in a push (deploy/mode_sonic.py): read the running CONFIG_DB and plan the cages whose BREAKOUT_CFG mode
differs (`plan`); the switch is drained; `config interface breakout` per cage; the lanes and BREAKOUT_CFG read
back from CONFIG_DB and each new port's creation from STATE_DB (`PORT_TABLE|<port>` state "ok", what swss's
portmgrd waits for before configuring a port: sonic-swss cfgmgr/portmgr.cpp isPortStateOk); then the config
replace target is rebuilt from the new running CONFIG_DB, checked and applied; after it each port's oper
state (APPL_DB `PORT_TABLE:<port>` oper_status, what `show interfaces status` prints) is read back.

Rollback (rollback.sh, also run by the on-device watchdog): each changed cage back to its old mode by DPB (a
cage already in its old mode is left alone), then `config rollback` to the checkpoint taken before DPB.

No SONiC runs here: the tests drive this against a stand-in that records the commands and keeps the lane
state as DPB would (tests/test_deploy_sonic_dpb.py); what swss, syncd and the ASIC do is not verified.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass

from netauto.deploy import sonic_db
from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed

TIMEOUT = 600.0  # one DPB removes and adds ports through orchagent/syncd
PORT_WAIT = 120.0  # s for the new ports to be created in the ASIC (STATE_DB state ok)
POLL = 2.0
SHOWN = 5


@dataclass(frozen=True, slots=True)
class Change:
    """One cage's breakout: its parent port (BREAKOUT_CFG key), the mode the switch has, the intent's."""

    port: str
    old: str
    new: str
    index: str | None  # the cage's PORT `index` (front-panel number): which ports belong to it

    def command(self) -> str:
        return f"config interface breakout {shlex.quote(self.port)} {shlex.quote(self.new)} -y -f"

    def undo_line(self) -> str:
        """rollback.sh: back to the old mode by DPB, unless the cage is (still) in it."""
        key = shlex.quote(f"BREAKOUT_CFG|{self.port}")
        return (f'[ "$(sonic-db-cli CONFIG_DB HGET {key} brkout_mode)" = {shlex.quote(self.old)} ] || '
                f"config interface breakout {shlex.quote(self.port)} {shlex.quote(self.old)} -y -f")


def _index(port: str, running: sonic_db.Config, intent: sonic_db.Config) -> str | None:
    for config in (intent, running):
        found = ((config.get("PORT") or {}).get(port) or {}).get("index")
        if found is not None:
            return str(found)
    return None


def plan(running: sonic_db.Config, intent: sonic_db.Config) -> list[Change]:
    """The cages whose breakout mode the intent changes, in port order. A port change DPB does not explain (an
    intent port missing or on other lanes in a cage whose mode stays) is refused here, before anything changes."""
    have_cfg, want_cfg = running.get("BREAKOUT_CFG") or {}, intent.get("BREAKOUT_CFG") or {}
    changes = []
    for port in sorted(want_cfg, key=sonic_db._port_order):
        new = (want_cfg[port] or {}).get("brkout_mode")
        old = (have_cfg.get(port) or {}).get("brkout_mode")
        if new and old and new != old:
            changes.append(Change(port, str(old), str(new), _index(port, running, intent)))
    cages = {c.index for c in changes}
    left = [c for c in sonic_db.breakout_changes(running, intent)
            if not c.startswith(tuple(f"{ch.port}:" for ch in changes))
            and _index(c.split(":", 1)[0], running, intent) not in cages]
    if left:
        more = f" (+{len(left) - SHOWN} more)" if len(left) > SHOWN else ""
        raise StepFailed(f"port lanes differ from the intent where no breakout mode changes ({'; '.join(left[:SHOWN])}"
                         f"{more}): the switch's BREAKOUT_CFG and PORT disagree with its platform, or the intent "
                         f"was rendered for another HWSKU; netauto changes lanes only by Dynamic Port Breakout")
    return changes


def describe(changes: list[Change]) -> str:
    shown = "; ".join(f"{c.port} {c.old} -> {c.new}" for c in changes[:SHOWN])
    return shown + (f" (+{len(changes) - SHOWN} more)" if len(changes) > SHOWN else "")


def run(session: DeviceSession, changes: list[Change]) -> None:
    """`config interface breakout` per cage, one at a time (DPB holds a lock of its own and re-reads the
    config each time)."""
    for change in changes:
        res = session.run(change.command(), timeout=TIMEOUT)
        if not res.ok:
            raise StepFailed(f"{change.command()} failed: {res.tail(400)}")


def lanes_wrong(running: sonic_db.Config, intent: sonic_db.Config, changes: list[Change]) -> list[str]:
    """After DPB: each changed cage's BREAKOUT_CFG mode and every intent port on it, with the intent's lanes."""
    wrong = []
    have_cfg = running.get("BREAKOUT_CFG") or {}
    ports = running.get("PORT") or {}
    for change in changes:
        now = (have_cfg.get(change.port) or {}).get("brkout_mode")
        if now != change.new:
            wrong.append(f"BREAKOUT_CFG|{change.port} is {now}, not {change.new}")
        for port in on_cage(intent, change):
            want = (intent["PORT"][port] or {}).get("lanes")
            have = (ports.get(port) or {}).get("lanes")
            if have != want:
                wrong.append(f"{port} lanes {have or 'missing'}, not {want}")
    return wrong


def on_cage(config: sonic_db.Config, change: Change) -> list[str]:
    """The config's ports on the changed cage."""
    return sorted((p for p, f in (config.get("PORT") or {}).items() if str((f or {}).get("index")) == change.index),
                  key=sonic_db._port_order)


def _db_field(session: DeviceSession, db: str, key: str, field: str, ports: list[str]) -> dict[str, str]:
    """One command: `sonic-db-cli <db> HGET <key of port> <field>` for each port, the value or "" per port, each on
    one line (a newline in a value, which any writer of the database may put there, would shift the next port's)."""
    script = "; ".join(f"printf '%s\\n' \"$(sonic-db-cli {db} HGET {shlex.quote(key.format(p))} {field} | tr -d '\\r\\n')\""
                       for p in ports)
    res = session.run(script, timeout=60)
    if not res.ok:
        raise StepFailed(f"sonic-db-cli {db} failed: {res.tail(300)}")
    values = res.stdout.splitlines()
    return {p: (values[i].strip() if i < len(values) else "") for i, p in enumerate(ports)}


def wait_created(session: DeviceSession, ports: list[str], timeout: float = PORT_WAIT) -> float:
    """Until every new port is created in the ASIC (STATE_DB PORT_TABLE|<port> state ok); seconds waited."""
    started = time.monotonic()
    while True:
        states = _db_field(session, "STATE_DB", "PORT_TABLE|{}", "state", ports)
        missing = [p for p, s in states.items() if s != "ok"]
        if not missing:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise StepFailed(f"after the breakout, {len(missing)} port(s) not created within {timeout:.0f} s "
                             f"(STATE_DB PORT_TABLE state not ok): {', '.join(missing[:SHOWN])}")
        time.sleep(POLL)


def oper_states(session: DeviceSession, ports: list[str]) -> dict[str, str]:
    """Each port's oper_status from APPL_DB (up/down; "" when the port has none yet)."""
    return _db_field(session, "APPL_DB", "PORT_TABLE:{}", "oper_status", ports)
