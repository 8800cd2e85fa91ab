"""Apply strategy: a Cumulus Linux switch whose Linux files netauto owns (linux-files mode, and every lab
switch): install the files, reload FRR and ifupdown2, drained around the change. SONiC's strategy
(mode_sonic) extends this one with CONFIG_DB."""

from __future__ import annotations

import shlex

from netauto.deploy import common, drain, file_modes, nvue_off, remote, sessions
from netauto.deploy.connection import DeviceSession
from netauto.deploy.push import FRR_CONF, INTERFACES, NVUE_STARTUP, DeviceResult, Push, Read
from netauto.deploy.remote import StepFailed
from netauto.deploy.targets import Target

SWITCHD_FILES = ("/etc/cumulus/",)


def linux_files_cumulus(target: Target) -> bool:
    """A Cumulus switch in linux-files mode: deploy owns its Linux files, provided NVUE no longer does."""
    return target.kind == "switch" and target.nos == "cumulus" and target.cumulus_mode == "linux-files"


class SwitchFiles:
    """check: vtysh --dryrun, ifup -s; stage: intent + drained frr.conf; apply: drain, install, frr-reload,
    ifreload, sessions, verify FRR, undrain; rollback: files back, reload."""

    name = "cumulus-files"

    # --- read -------------------------------------------------------------------------------------------
    def read(self, push: Push) -> bool:
        owner = self._nvue_preflight(push)
        extra = [p for p in nvue_off.watched_paths() if p not in push.target.files] if owner else []
        read, watched = push.step("read+diff", lambda: common.read_files(push.session, push.target, extra))
        if owner is not None:
            if any(watched[p] != owner.files.get(p) for p in extra):
                raise StepFailed(f"NVUE's files changed between the preflight and the read: {', '.join(extra)}")
            read.before.update(watched)  # backed up by the armed rollback, restored by it, proven after it
            read.nvue_off = owner
        push.read = read
        push.result.diff = read.diffs
        return bool(read.diffs) or owner is not None  # switching NVUE off is a change of its own

    def _nvue_preflight(self, push: Push) -> nvue_off.NvueOwner | None:
        """Linux-files Cumulus, inside the lock and before anything is read for the push: does NVUE still own
        the files? Yes without --disable-nvue: refuse (one line, nothing changed). Yes with it: the owner,
        whose steps run after the rollback is armed. None: nothing to switch off."""
        if not linux_files_cumulus(push.target):
            return None
        owner = push.step("nvue-preflight", lambda: nvue_off.read(push.session))
        if not owner.active:
            if owner.nv:
                push.result.notes.append("NVUE present but not in charge of the files (auto-save off, no "
                                         "startup.yaml, password sync off)")
            return None
        if not push.opts.disable_nvue:
            raise StepFailed(nvue_off.refusal(push.target.name, owner))
        return owner

    def unchanged(self, push: Push) -> None:
        return None

    # --- stage / check ----------------------------------------------------------------------------------
    def stage(self, push: Push) -> dict[str, bytes]:
        read = self._read(push)
        target = push.target
        common.check_guard(target, read.guard)
        extra, allowed = self._drained_frr(push)
        extra[f"{push.stage}/rollback.sh"] = common.rollback_script(target.name, push.stage,
                                                                    self.rollback_lines(push)).encode()
        if read.nvue_off is not None:
            extra.update(nvue_off.env_upload(read.nvue_off, push.stage))
        return common.stage_files(push, extra, allowed)

    @staticmethod
    def _drained_frr(push: Push) -> tuple[dict[str, bytes], dict[str, set[str | None]]]:
        """The drained variant of a changed frr.conf (staged file, and its hash the guard allows)."""
        target, read = push.target, SwitchFiles._read(push)
        frr_path = drain.frr_path(target)
        if frr_path not in read.diffs or not drain.drains(target):
            return {}, {}
        drained = drain.drained_variant(target.files[frr_path].content, drain.bgp_asn(target)).encode()
        return {f"{push.stage}/frr-drained.conf": drained}, {frr_path: {common.sha(drained)}}

    def check(self, push: Push) -> None:
        staged = {p: f"{push.stage}/intent{p}" for p in self._read(push).diffs}
        target = push.target
        frr_path = drain.frr_path(target)
        if frr_path in staged:
            remote.frr_check(push.session, staged[frr_path])
        if INTERFACES in staged and INTERFACES not in target.inert:
            remote.ifupdown_check(push.session, staged[INTERFACES])

    # --- rollback lines / arm ---------------------------------------------------------------------------
    def rollback_lines(self, push: Push) -> list[str]:
        read = self._read(push)
        lines = nvue_off.rollback_lines(read.nvue_off, push.stage) if read.nvue_off is not None else []
        return lines + self._first_lines(push) + common.restore_lines(read.before, push.stage) \
            + self._state_lines(push.target, read.before, push.stage)

    def _first_lines(self, push: Push) -> list[str]:
        return []

    @staticmethod
    def _state_lines(target: Target, before: dict[str, bytes | None], stage: str) -> list[str]:
        """Restore the running state derived from the restored files: FRR reload, ifreload, the drain."""
        lines = []
        if before.get(drain.frr_path(target)) is not None:
            lines.append(f"{target.frr_exec}{remote.FRR_RELOAD} --reload {FRR_CONF}")
        if before.get(INTERFACES) is not None and INTERFACES not in target.inert:
            lines.append("mkdir -p /run/network; ifreload -a")
        if target.asn is not None and not target.drained_by_intent:
            # the drain is runtime state: undo it unless the device ran drained before the push
            lines.append(f"grep -q '^ bgp graceful-shutdown' {stage}/running.before || {target.frr_exec}"
                         f"vtysh -c 'configure terminal' -c 'router bgp {target.asn}' -c 'no bgp graceful-shutdown'")
        return lines

    def arm(self, push: Push) -> int:
        return common.arm_rollback(push.session, push.target, self._read(push).before, push.stage,
                                   push.opts.confirm_timeout, self._checkpoint_cmd(push), push.result.notes)

    def _checkpoint_cmd(self, push: Push) -> str | None:
        return None

    # --- apply / verify ---------------------------------------------------------------------------------
    def apply(self, push: Push) -> None:
        read = self._read(push)
        if read.nvue_off is not None:
            owner = read.nvue_off
            done = push.step("disable-nvue", lambda: nvue_off.disable(push.session, owner, push.stage,
                                                                      push.opts.run.run))
            push.result.notes.append("NVUE switched off (--disable-nvue; rolled back with the push): " + "; ".join(done))
        if read.diffs:
            self._apply_changed(push)

    def _apply_changed(self, push: Push) -> None:
        session, target, step, result, stage = push.session, push.target, push.step, push.result, push.stage
        diffs = self._read(push).diffs
        frr_path = drain.frr_path(target)
        via_nv = NVUE_STARTUP in diffs and NVUE_STARTUP not in target.inert and remote.has_command(session, "nv")
        drains = drain.drains(target)
        before = step("sessions-before", lambda: sessions.established(session)) if target.sessions else set()
        if drains:
            drain.drain(session, target, push.opts, result, step)
        if via_nv:
            step("nv-apply", lambda: _nvue_startup_apply(session, f"{stage}/intent{NVUE_STARTUP}",
                                                         push.opts.confirm_timeout))
            result.notes.append("applied with NVUE: nv config replace + nv config apply --confirm")
        else:
            self._apply_first(push)
            self._install_linux_files(push, drains)
        step("sessions", lambda: common.require_sessions(push, before))
        # the drain lives in frr.conf only when frr.conf itself changed (drained variant installed); otherwise
        # it is runtime state that verify would report as a difference from the file, so lift it first
        drained_file = drains and frr_path in diffs and not via_nv
        if drains and not drained_file:
            asn = drain.bgp_asn(target)
            step("undrain", lambda: remote.set_gshut(session, asn, False))
            push.journal["drained"] = False
            step("wait-undrained", lambda: drain.wait_undrained(target, push.opts, result))
        if frr_path in target.files and not via_nv:
            # FRR is verified while still drained by file: the undrain below reloads the intent itself
            hidden = step("verify", lambda: remote.frr_verify(session, FRR_CONF))
            if hidden:
                result.notes.append(f"FRR defaults not displayed in running-config: {len(hidden)} line(s)")
        if drained_file:
            step("undrain", lambda: _install_and_reload(session, target, frr_path, f"{stage}/intent{frr_path}"))
            push.journal["drained"] = False
            step("wait-undrained", lambda: drain.wait_undrained(target, push.opts, result))

    def _apply_first(self, push: Push) -> None:
        """What applies before the Linux files (SONiC: CONFIG_DB)."""

    def _install_linux_files(self, push: Push, drained: bool) -> None:
        """Install the Linux files, reload FRR and ifupdown2.

        While drained, /etc/frr/frr.conf first holds the intent plus `bgp graceful-shutdown`, so the reload
        keeps the switch drained; the reload always reads the confdir's frr.conf (another file makes
        frr-reload.py run `write`, which would overwrite frr.conf from the running config, lab-notes G5).
        On SONiC that file is installed as /etc/sonic/frr/frr.conf, which the bgp container sees as
        /etc/frr/frr.conf. A config_db.json applied with `config replace` is installed here as well: it is
        the config replace's target, so the saved file equals the running config.
        """
        session, target, step, stage = push.session, push.target, push.step, push.stage
        diffs = self._read(push).diffs
        frr_path = drain.frr_path(target)
        pairs = {p: (f"{stage}/frr-drained.conf" if p == frr_path and drained else f"{stage}/intent{p}")
                 for p in diffs}
        step("install", lambda: common.install(session, pairs, file_modes.intended(target, pairs)))
        if frr_path in diffs:
            step("frr-reload", lambda: remote.frr_reload(session, FRR_CONF))
        if INTERFACES in diffs and INTERFACES not in target.inert:
            step("ifreload", lambda: remote.ifreload(session))
        _note_unapplied(session, target, diffs, push.result)

    def verify(self, push: Push) -> None:
        read = self._read(push)
        push.step("final-check", lambda: common.final_check(push.session, read.expected))

    def rollback(self, push: Push) -> None:
        common.rollback_files(push.session, push.target, self._read(push).before, push.stage, push.who)

    def confirm_extra(self, push: Push) -> str:
        return ""

    def rolled_back_note(self) -> str:
        return "rolled back: files byte-identical to before, running FRR config identical; lock released"

    @staticmethod
    def _read(push: Push) -> Read:
        assert push.read is not None, "read() runs first"
        return push.read


def _install_and_reload(session: DeviceSession, target: Target, frr_path: str, staged: str) -> None:
    """Undrain: the intent frr.conf itself (without the added gshut line), reloaded."""
    common.install(session, {frr_path: staged}, file_modes.intended(target, {frr_path: staged}))
    remote.frr_reload(session, FRR_CONF)


def _note_unapplied(session: DeviceSession, target: Target, diffs: dict[str, str], result: DeviceResult) -> None:
    """Say exactly which changed files nothing applied, instead of pretending."""
    inert = sorted(p for p in diffs if p in target.inert)
    result.not_applied += inert
    if inert:
        result.notes.append("installed, not applied (lab: no NVUE/switchd, no SONiC swss/GCU; on the switch "
                            "nv config apply or config replace applies them): " + ", ".join(inert))
    switchd = sorted(p for p in diffs if p.startswith(SWITCHD_FILES) and p not in target.inert)
    if switchd:
        res = session.run("systemctl reload switchd", timeout=300)
        if not res.ok:
            raise StepFailed(f"systemctl reload switchd failed: {res.tail(300)}")
        result.notes.append("switchd reloaded for: " + ", ".join(switchd))
    daemons = [p for p in diffs if p.endswith("/frr/daemons") and p not in target.inert]
    result.not_applied += daemons
    if daemons:
        result.notes.append(f"{daemons[0]} installed; takes effect at the next FRR restart (not restarted)")


def _nvue_startup_apply(session: DeviceSession, staged_startup: str, confirm_timeout: float) -> None:
    """A rendered startup.yaml pushed as a file on a switch with NVUE: NVUE writes frr.conf/interfaces/switchd
    files itself. Not exercised by the lab (no NVUE there). `--confirm` makes NVUE roll back on its own unless
    confirmed."""
    minutes = max(1, int(confirm_timeout // 60))
    for command in (f"nv config replace {shlex.quote(staged_startup)}", f"nv config apply -y --confirm {minutes}"):
        res = session.run(command, timeout=600)
        if not res.ok:
            raise StepFailed(f"{command} failed: {res.tail(300)}")

