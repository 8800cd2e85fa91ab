"""Apply strategy: a GPU server (netplan, sysctl, the NICs' QoS boot units): check with `netplan generate`
in the stage dir, install, sysctl -p, netplan apply, run each changed boot unit; rollback restores the files
and re-applies them."""

from __future__ import annotations

from netauto.deploy import common, file_modes, host_nic
from netauto.deploy.push import Push, Read
from netauto.deploy.remote import StepFailed


class Server:
    name = "server"

    def read(self, push: Push) -> bool:
        push.read, _ = push.step("read+diff", lambda: common.read_files(push.session, push.target))
        push.result.diff = push.read.diffs
        return bool(push.read.diffs)

    def unchanged(self, push: Push) -> None:
        if push.opts.nic_firmware and not push.target.skip_reason:
            host_nic.firmware(push.session, push.step, push.result.notes)  # files as intended; firmware may not be

    def stage(self, push: Push) -> dict[str, bytes]:
        common.check_guard(push.target, self._read(push).guard)
        rollback = common.rollback_script(push.target.name, push.stage, self.rollback_lines(push)).encode()
        return common.stage_files(push, {f"{push.stage}/rollback.sh": rollback})

    def check(self, push: Push) -> None:
        stage = push.stage
        staged = {p: f"{stage}/intent{p}" for p in self._read(push).diffs}
        netplan = next((p for p in staged if p.startswith("/etc/netplan/")), None)
        if netplan is not None:
            res = push.session.run(f"umask 077; mkdir -p {stage}/root/etc/netplan && cp {staged[netplan]} "
                                   f"{stage}/root{netplan} && netplan generate --root-dir {stage}/root")
            if not res.ok:
                raise StepFailed(f"netplan generate rejected {netplan}: {res.tail(300)}")

    def rollback_lines(self, push: Push) -> list[str]:
        before = self._read(push).before
        lines = common.restore_lines(before, push.stage)
        sysctls = sorted(p for p in before if p.startswith("/etc/sysctl.d/") and before[p] is not None)
        if sysctls:
            lines.append(f"sysctl -q -p {' '.join(sysctls)}")
        lines.append("[ -d /run/systemd/system ] && netplan apply")
        return lines + host_nic.restart_lines(push.target.files)

    def arm(self, push: Push) -> int:
        return common.arm_rollback(push.session, push.target, self._read(push).before, push.stage,
                                   push.opts.confirm_timeout, None, push.result.notes)

    def apply(self, push: Push) -> None:
        session, target, step, stage, result = push.session, push.target, push.step, push.stage, push.result
        diffs = self._read(push).diffs
        pairs = {p: f"{stage}/intent{p}" for p in diffs}
        step("install", lambda: common.install(session, pairs, file_modes.intended(target, pairs)))
        live = {p for p in diffs if p not in target.inert}
        sysctls = sorted(p for p in live if p.startswith("/etc/sysctl.d/"))  # rails' and networks', sysctl.d order
        if sysctls:
            step("sysctl", lambda: common.run_ok(session, f"sysctl -q -p {' '.join(sysctls)}"))
        netplan = sorted(p for p in live if p.startswith("/etc/netplan/"))
        if netplan:
            if not session.run("[ -d /run/systemd/system ]").ok:
                raise StepFailed(f"{', '.join(netplan)} changed but the host runs no systemd: `netplan apply` "
                                 f"impossible")
            step("netplan-apply", lambda: common.run_ok(session, "netplan apply"))
        # enable + run each changed network's boot unit (QoS per NIC, read back)
        host_nic.provision(session, live, step, result.notes, target.files)
        if push.opts.nic_firmware:
            host_nic.firmware(session, step, result.notes)
        inert = sorted(p for p in diffs if p in target.inert)
        result.not_applied += inert
        if inert:
            result.notes.append("installed, not applied (lab server: no systemd-networkd, no ConnectX/mlnx tools): "
                                + ", ".join(inert))

    def verify(self, push: Push) -> None:
        read = self._read(push)
        push.step("final-check", lambda: common.final_check(push.session, read.expected))

    def confirm_extra(self, push: Push) -> str:
        return ""

    def rollback(self, push: Push) -> None:
        common.rollback_files(push.session, push.target, self._read(push).before, push.stage, push.who)

    def rolled_back_note(self) -> str:
        return "rolled back: files byte-identical to before; lock released"

    @staticmethod
    def _read(push: Push) -> Read:
        assert push.read is not None, "read() runs first"
        return push.read
