"""build -> credentials -> targets, once: the devices a run talks to and how it logs in (deploy, verify and
the Nornir inventory plugin all ask here).

Credentials come from the environment (`Credentials.from_env`), or, for `--lab NAME`, from the running lab's
keys and its management namespace (`deploy.lab_access`); either way with the host-key mode the caller chose
(strict | accept-new | off). The targets are one per device of every network (`deploy.targets.build_targets`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from netauto.deploy.lab_access import lab_access
from netauto.deploy.targets import Access, Credentials, Target, build_targets

if TYPE_CHECKING:
    from netauto.pipeline import Build

__all__ = ["run_credentials", "run_targets"]


def run_credentials(lab: str | None, host_keys: str = "strict") -> tuple[Access | None, Credentials]:
    """(the lab's access or None, the credentials) with `host_keys` as the host-key mode."""
    if lab:
        access, creds = lab_access(lab)
        return access, replace(creds, check_host_keys=host_keys != "off", host_keys=host_keys)
    return None, Credentials.from_env(check_host_keys=host_keys != "off", host_keys=host_keys)


def run_targets(built: Build, access: Access | None, cumulus_mode: str | None = None,
                adopt: bool = False) -> dict[str, Target]:
    """One target per device of every network of the build (the compute fabric's devices, every network's
    switches, the servers only a network has); `adopt` marks each for adoption of a device never deployed."""
    targets = build_targets(built.cluster, built.artifacts, access, cumulus_mode)
    for target in targets.values():
        target.adopt = adopt
    return targets
