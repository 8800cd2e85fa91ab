"""Apply strategy: a SONiC switch. CONFIG_DB through the generic config updater (check: `config replace
--dry-run`; arm: `config checkpoint`; apply: `config replace`; verify: the owned tables read back; rollback:
`config rollback`, see sonic_config), then FRR's file like a Cumulus switch (mode_files), drained around both.
When the switch's cages are split otherwise than the intent, Dynamic Port Breakout runs first, drained, and the
replace target is rebuilt from the CONFIG_DB it leaves (sonic_breakout; docs/sonic-deploy.md).
The lab has no SONiC runtime: there config_db.json is inert and only the FRR part runs."""

from __future__ import annotations

import json

from netauto.deploy import common, drain, remote, sonic_breakout, sonic_config, sonic_db, sonic_preflight
from netauto.deploy.mode_files import SwitchFiles
from netauto.deploy.push import SONIC_DB, Push
from netauto.deploy.remote import StepFailed

BREAKOUT = "breakout"  # push.state key: the planned sonic_breakout.Change list


class Sonic(SwitchFiles):
    name = "sonic"

    def read(self, push: Push) -> bool:
        changed = super().read(push)
        diffs = self._read(push).diffs
        if SONIC_DB in diffs and SONIC_DB not in push.target.inert:
            push.checkpoint = "netauto-" + push.stage.rsplit("/", 1)[-1].removeprefix("run.")
            if remote.has_command(push.session, "sonic-cfggen"):
                intent = json.loads(push.target.files[SONIC_DB].content)
                push.state[BREAKOUT] = push.step("breakout-plan", lambda: sonic_breakout.plan(
                    sonic_config.running(push.session), intent))
        return changed

    @staticmethod
    def _breakouts(push: Push) -> list[sonic_breakout.Change]:
        found = push.state.get(BREAKOUT)
        return found if isinstance(found, list) else []

    def check(self, push: Push) -> None:
        super().check(push)
        if not push.checkpoint:
            return
        changes = self._breakouts(push)
        if not changes:
            # the whole target checked here first (sonic_preflight), then by the switch's GCU
            sonic_config.check(push.session, f"{push.stage}/intent{SONIC_DB}", push.target.name,
                               push.target.files[SONIC_DB].content)
            return
        if not drain.drains(push.target):
            raise StepFailed(f"{push.target.name}: Dynamic Port Breakout needed ({sonic_breakout.describe(changes)}) "
                             f"but this switch is not drained by the push (no BGP in its intent, or drained by "
                             f"intent): DPB takes the cages' ports down; drain it first (`netauto drain`)")
        if not remote.has_command(push.session, "config", "sonic-db-cli"):
            raise StepFailed("a breakout change needs SONiC's `config` and `sonic-db-cli` on the switch")
        sonic_preflight.models_dir()  # the post-breakout check needs them: refuse now, before any change
        push.result.notes.append(f"Dynamic Port Breakout planned for {len(changes)} cage(s) "
                                 f"({sonic_breakout.describe(changes)}); the config replace target is rebuilt and "
                                 f"checked after it")

    def _first_lines(self, push: Push) -> list[str]:
        # CONFIG_DB first: FRR's interfaces live there; lanes first: a GCU rollback never changes them
        if not push.checkpoint:
            return []
        undo = [c.undo_line() for c in reversed(self._breakouts(push))]
        return [*undo, sonic_config.rollback_line(push.checkpoint)]

    def _checkpoint_cmd(self, push: Push) -> str | None:
        return sonic_config.checkpoint_cmd(push.checkpoint) if push.checkpoint else None

    def _apply_first(self, push: Push) -> None:
        if not push.checkpoint:
            return
        changes = self._breakouts(push)
        staged = f"{push.stage}/intent{SONIC_DB}"
        if changes:
            self._breakout(push, changes, staged)
        # ports and addresses first: BGP unnumbered peers need their interfaces
        push.step("config-replace", lambda: sonic_config.replace(push.session, staged))
        push.result.notes.append("config_db applied with SONiC's config replace (GCU), checkpoint kept until "
                                 "confirmed")
        if changes:
            ports = [p for c in changes for p in sonic_breakout.on_cage(json.loads(
                push.target.files[SONIC_DB].content), c)]
            states = push.step("oper-state", lambda: sonic_breakout.oper_states(push.session, ports))
            down = sorted((p for p, s in states.items() if s != "up"), key=sonic_db._port_order)
            push.result.notes.append(f"oper state of the {len(ports)} broken-out port(s) after the replace: "
                                     f"{len(ports) - len(down)} up" + (f", not up: {', '.join(down[:8])}"
                                                                        if down else ""))

    def _breakout(self, push: Push, changes: list[sonic_breakout.Change], staged: str) -> None:
        """DPB per cage (drained), lanes and port creation read back, then the replace target rebuilt from the
        CONFIG_DB DPB left, staged over the first one and checked as any target is."""
        session, intent_text = push.session, push.target.files[SONIC_DB].content
        intent = json.loads(intent_text)
        push.step("breakout", lambda: sonic_breakout.run(session, changes))
        after = push.step("breakout-readback", lambda: sonic_config.running(session))
        wrong = sonic_breakout.lanes_wrong(after, intent, changes)
        if wrong:
            raise StepFailed(f"after the breakout: {'; '.join(wrong[:sonic_breakout.SHOWN])}")
        ports = [p for c in changes for p in sonic_breakout.on_cage(intent, c)]
        waited = push.step("breakout-ports", lambda: sonic_breakout.wait_created(session, ports))
        push.result.notes.append(f"Dynamic Port Breakout done: {sonic_breakout.describe(changes)}; {len(ports)} "
                                 f"port(s) on their lanes and created ({waited:.0f} s)")
        target = sonic_db.dumps(sonic_db.target_config(after, intent))
        read = self._read(push)
        read.expected[SONIC_DB] = target
        guard = common.guard_script(read, self._drained_frr(push)[1])
        push.step("restage", lambda: session.upload(push.stage, {staged: target, f"{push.stage}/guard.sh": guard}))
        push.step("config-check", lambda: sonic_config.check(session, staged, push.target.name, intent_text))

    def verify(self, push: Push) -> None:
        if push.checkpoint:
            push.step("verify-config-db", lambda: sonic_config.verify(push.session,
                                                                      push.target.files[SONIC_DB].content))
        super().verify(push)

    def confirm_extra(self, push: Push) -> str:
        return sonic_config.delete_checkpoint_cmd(push.checkpoint) if push.checkpoint else ""
