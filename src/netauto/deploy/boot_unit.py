"""The boot-time unit that resumes every unconfirmed push's watchdog after a reboot (devstate: the state it reads).

Installed by each push where the device runs systemd (deploy/common.py), brought up to date when a unit of an
older netauto is found (that one resumed watchdogs from any /var/tmp/netauto, see devstate.owned).
"""

from __future__ import annotations

import shlex

from netauto.deploy.devstate import ROOT, STAGES, owned

BOOT_UNIT = "/etc/systemd/system/netauto-watchdog.service"

# systemd unit that resumes the watchdog of every unconfirmed push after a reboot: each watchdog.sh sleeps
# until the deadline written on disk (at once if it has passed), then restores or records why not.
BOOT_UNIT_TEXT = f"""[Unit]
Description=netauto: resume the deploy watchdogs of unconfirmed pushes after a reboot
After=network.target frr.service
ConditionPathExistsGlob={STAGES}

[Service]
Type=simple
ExecStart=/bin/sh -c '{owned(ROOT, "0")} || exit 0; for w in {STAGES}/watchdog.sh; do [ -f "$w" ] && setsid sh "$w" & done; wait'

[Install]
WantedBy=multi-user.target
"""


def install_boot_unit() -> str:
    """Shell: install (or bring up to date: a unit of an older netauto resumed watchdogs from any /var/tmp/netauto)
    BOOT_UNIT where the device runs systemd."""
    text = shlex.quote(BOOT_UNIT_TEXT)
    return (f"{{ [ ! -d /run/systemd/system ] || printf '%s' {text} | cmp -s - {BOOT_UNIT} || {{ printf '%s' {text} "
            f"> {BOOT_UNIT} && chmod 644 {BOOT_UNIT} && systemctl daemon-reload && systemctl enable --quiet "
            f"netauto-watchdog.service; }}; }}")
