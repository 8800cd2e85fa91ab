"""Apply strategy: a SONiC switch. CONFIG_DB through the generic config updater (check: `config replace
--dry-run`; arm: `config checkpoint`; apply: `config replace`; verify: the owned tables read back; rollback:
`config rollback`, see sonic_config), then FRR's file like a Cumulus switch (mode_files), drained around both.
The lab has no SONiC runtime: there config_db.json is inert and only the FRR part runs."""

from __future__ import annotations

from netauto.deploy import sonic_config
from netauto.deploy.mode_files import SwitchFiles
from netauto.deploy.push import SONIC_DB, Push


class Sonic(SwitchFiles):
    name = "sonic"

    def read(self, push: Push) -> bool:
        changed = super().read(push)
        diffs = self._read(push).diffs
        if SONIC_DB in diffs and SONIC_DB not in push.target.inert:
            push.checkpoint = "netauto-" + push.stage.rsplit("/", 1)[-1].removeprefix("run.")
        return changed

    def check(self, push: Push) -> None:
        super().check(push)
        if push.checkpoint:
            # the whole target checked here first (sonic_preflight), then by the switch's GCU
            sonic_config.check(push.session, f"{push.stage}/intent{SONIC_DB}", push.target.name,
                               push.target.files[SONIC_DB].content)

    def _first_lines(self, push: Push) -> list[str]:
        # CONFIG_DB first: FRR's interfaces live there
        return [sonic_config.rollback_line(push.checkpoint)] if push.checkpoint else []

    def _checkpoint_cmd(self, push: Push) -> str | None:
        return sonic_config.checkpoint_cmd(push.checkpoint) if push.checkpoint else None

    def _apply_first(self, push: Push) -> None:
        if push.checkpoint:
            # ports and addresses first: BGP unnumbered peers need their interfaces
            push.step("config-replace", lambda: sonic_config.replace(push.session, f"{push.stage}/intent{SONIC_DB}"))
            push.result.notes.append("config_db applied with SONiC's config replace (GCU), checkpoint kept until "
                                     "confirmed")

    def verify(self, push: Push) -> None:
        if push.checkpoint:
            push.step("verify-config-db", lambda: sonic_config.verify(push.session,
                                                                      push.target.files[SONIC_DB].content))
        super().verify(push)

    def confirm_extra(self, push: Push) -> str:
        return sonic_config.delete_checkpoint_cmd(push.checkpoint) if push.checkpoint else ""
