"""build -> credentials -> targets -> fabric id, once: the devices a run talks to and how it logs in. deploy,
verify, acceptance's counters and the Nornir inventory plugin all call `built_targets`, the whole sequence, with
their options as its parameters.

Credentials come from the environment (`Credentials.from_env`), or, for `--lab NAME`, from the running lab's
keys and its management namespace (`deploy.lab_access`); either way with the host-key mode the caller chose
(strict | accept-new | off). The targets are one per device of every network (`deploy.targets.build_targets`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from netauto.deploy import identity
from netauto.deploy.lab_access import lab_access
from netauto.deploy.targets import Access, Credentials, Target, build_targets
from netauto.pipeline import Build, build

__all__ = ["RunTargets", "built_targets", "run_credentials", "run_targets"]


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


@dataclass(frozen=True)
class RunTargets:
    """What a run talks to: the build, one target per device, the credentials."""

    build: Build
    targets: dict[str, Target]
    creds: Credentials
    fabric_id: str | None = None  # the inventory's (None: never deployed)
    id_recorded: bool = False  # this run made it (the inventory's first deploy)


def built_targets(inventory: Path, templates: Path | None, lab: str | None, host_keys: str = "strict",
                  adopt: bool = False, *, cumulus_mode: str | None = None, record_id: bool = False,
                  access: Access | None = None, lab_devices_only: bool = False) -> RunTargets:
    """The one sequence every run takes (deploy, verify, acceptance's counters, the Nornir inventory plugin):
    build, credentials (`host_keys`: strict | accept-new | off), one target per device of every network. Each
    target holds the fabric id the inventory records, so a device recording another is refused before anything
    is read from or pushed to it (unless `adopt`); `record_id` (an apply) makes the id if this is the
    inventory's first deploy. `access`: the environment's access when no `lab` is given; `lab_devices_only`:
    with a lab, only the devices it runs (the others are not targets at all, rather than skipped)."""
    built = build(inventory, templates)  # the one render: pushed, and checked by the validation gate
    lab_env, creds = run_credentials(lab, host_keys)
    targets = run_targets(built, lab_env or access, cumulus_mode, adopt)
    if lab_devices_only and lab_env is not None:
        targets = {n: t for n, t in targets.items() if n in lab_env.addresses}
    fabric_id, made = identity.record_id(inventory) if record_id else (identity.read_id(inventory), False)
    identity.attach_id(targets, inventory, fabric_id)
    return RunTargets(built, targets, creds, fabric_id, made)
