"""Apply strategy: a Cumulus switch whose configuration NVUE owns (see netauto.deploy.nvue): NVUE's applied
configuration is read, merged, checked, drained, applied with NVUE's confirm timer, verified and rolled back;
no Linux file is written. Tested against the stand-in tests/nv_standin.py only (no NVUE on this machine)."""

from __future__ import annotations

from netauto.deploy import common, devstate, drain, nvue, sessions
from netauto.deploy.push import NVUE_STARTUP, Push
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target


def intent(target: Target) -> nvue.NvDoc:
    return nvue.parse(target.files[NVUE_STARTUP].content, f"{target.name}: rendered {NVUE_STARTUP}")


def note(target: Target) -> str:
    return (f"NVUE mode: NVUE's applied configuration compared, not files; NVUE generates "
            f"{', '.join(target.nvue_writes) or 'the Linux files'} (not pushed, not diffed)")


class Nvue:
    name = "nvue"

    def read(self, push: Push) -> bool:
        applied = push.step("read+diff", lambda: nvue.show_applied(push.session))
        push.state["applied"] = applied
        push.state["intent"] = wanted = intent(push.target)
        text = nvue.diff(applied.set, wanted.set)
        push.result.diff = {nvue.DIFF_KEY: text} if text else {}
        return bool(text)

    def unchanged(self, push: Push) -> None:
        return None

    def _docs(self, push: Push) -> tuple[nvue.NvDoc, nvue.NvDoc]:
        applied, wanted = push.state["applied"], push.state["intent"]
        assert isinstance(applied, nvue.NvDoc) and isinstance(wanted, nvue.NvDoc)
        return applied, wanted

    def stage(self, push: Push) -> dict[str, bytes]:
        applied, wanted = self._docs(push)
        stage = push.stage
        merged = nvue.merge(applied.set, wanted.set)
        push.state["merged"] = merged
        files = {f"{stage}/merged.yaml": nvue.NvDoc(applied.header, merged).text().encode(),
                 f"{stage}/backup.yaml": applied.text().encode(),
                 f"{stage}/rollback.sh": "\n".join(self.rollback_lines(push)).encode(),
                 f"{stage}/check-before.sh": nvue.check_before_script(stage).encode(),
                 # NVUE mode: no file hashes to guard (NVUE rewrites its files); the lock keeps other runs out
                 f"{stage}/guard.sh": b"#!/bin/sh\nexit 0\n",
                 f"{stage}/watchdog.sh": devstate.watchdog_script(stage, push.opts.run.run, push.target.name).encode()}
        if drain.drains(push.target):
            files[f"{stage}/drained.yaml"] = nvue.NvDoc(applied.header, nvue.drained(merged, applied.version)) \
                .text().encode()
        return files

    def check(self, push: Push) -> None:
        pending = nvue.check(push.session, f"{push.stage}/merged.yaml")
        merged = push.state["merged"]
        assert isinstance(merged, dict)
        push.result.notes.append(f"NVUE mode: {len(str(pending).splitlines())} line(s) of `nv config diff` staged "
                                 f"and checked; baseline kept "
                                 f"({', '.join(sorted(set(merged) - {'interface', 'qos', 'router'}))})")

    def rollback_lines(self, push: Push) -> list[str]:
        return nvue.rollback_script(push.stage).splitlines() + [""]

    def arm(self, push: Push) -> int:
        push.state["sessions"] = push.step("sessions-before", lambda: sessions.established(push.session))
        return common.arm_rollback(push.session, push.target, {}, push.stage, push.opts.confirm_timeout,
                                   None, push.result.notes)

    def apply(self, push: Push) -> None:
        session, target, opts, result, step, stage = (push.session, push.target, push.opts, push.result,
                                                      push.step, push.stage)
        applied, _ = self._docs(push)
        drains = drain.drains(target)
        gshut = nvue.gshut_value(applied.version)
        if drains:
            drain.record_before(target, opts, result)
            push.journal["drained"] = True
            step("drain", lambda: nvue.run(session, f"nv set router bgp graceful-shutdown {gshut} && "
                                                    f"nv config apply -y"))
            step("wait-drained", lambda: drain.wait_drained(target, opts, result))
        document = f"{stage}/drained.yaml" if drains else f"{stage}/merged.yaml"
        step("nv-apply", lambda: nvue.run(session, f"nv config replace {document} && nv config apply -y --confirm "
                                                   f"{nvue.confirm_arg(opts.confirm_timeout)}"))
        before = push.state["sessions"]
        assert isinstance(before, set)
        step("sessions", lambda: common.require_sessions(push, before))
        step("nv-confirm", lambda: nvue.run(session, nvue.CONFIRM_YES))
        if drains:
            step("undrain", lambda: nvue.run(session, f"nv config replace {stage}/merged.yaml && nv config apply -y"))
            push.journal["drained"] = False
            step("wait-undrained", lambda: drain.wait_undrained(target, opts, result))

    def verify(self, push: Push) -> None:
        _, wanted = self._docs(push)

        def check() -> None:
            now = nvue.show_applied(push.session)
            wrong = nvue.differing_paths(now.set, wanted.set)
            if wrong:
                raise StepFailed(f"verify: NVUE's applied configuration differs from the intent in: {', '.join(wrong)}")

        push.step("verify", check)
        push.result.notes.append("applied with NVUE (nv config replace/apply --confirm)")
        push.result.notes.append(note(push.target))

    def confirm_extra(self, push: Push) -> str:
        return ""

    def rollback(self, push: Push) -> None:
        """rollback.sh now, then proof (NVUE's applied tree equals the backup's), then disarm and release."""
        backup, _ = self._docs(push)
        common.run_rollback(push.session, push.stage, timeout=600)
        now = nvue.show_applied(push.session)
        problem = None
        if now.set != backup.set:
            problem = (f"NVUE's applied configuration differs from before after rollback "
                       f"({', '.join(nvue.differing_paths(now.set, backup.set)) or 'baseline'})")
        common.rollback_proven(push.session, push.stage, problem, push.who, " (NVUE)")

    def rolled_back_note(self) -> str:
        return "rolled back: NVUE's applied configuration identical to before; lock released"
