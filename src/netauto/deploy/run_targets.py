"""build -> credentials -> targets, once: the devices a run talks to and how it logs in (deploy, verify,
acceptance's counters and the Nornir inventory plugin all ask here; `built_targets` is the whole sequence for a
run that only reads).

Credentials come from the environment (`Credentials.from_env`), or, for `--lab NAME`, from the running lab's
keys and its management namespace (`deploy.lab_access`); either way with the host-key mode the caller chose
(strict | accept-new | off). The targets are one per device of every network (`deploy.targets.build_targets`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from netauto.deploy import identity
from netauto.deploy.lab_access import lab_access
from netauto.deploy.targets import Access, Credentials, Target, build_targets
from netauto.pipeline import Build, build

__all__ = ["built_targets", "run_credentials", "run_targets"]


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


def built_targets(inventory: Path, templates: Path | None, lab: str | None, host_keys: str = "strict",
                  adopt: bool = False) -> tuple[Build, dict[str, Target], Credentials]:
    """(the build, one target per device of every network, the credentials) for a run that reads the devices
    (verify, acceptance's counters): each target holds the fabric id the inventory records (a device recording
    another is refused before anything is read from it)."""
    built = build(inventory, templates)
    access, creds = run_credentials(lab, host_keys)
    targets = run_targets(built, access, adopt=adopt)
    identity.attach_id(targets, inventory, identity.read_id(inventory))
    return built, targets, creds
