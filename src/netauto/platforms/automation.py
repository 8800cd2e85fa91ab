"""What each automation library calls a device of each NOS (Nornir host `platform` and per-plugin names).

A device is reached over SSH to a Linux shell on all three NOSes (Cumulus Linux 5, community SONiC's host
shell, a GPU server), which is what Netmiko's `linux` driver speaks (its `cumulus_linux` driver expects NCLU's
`net commit`, gone in Cumulus 5; `dell_sonic`/`edgecore_sonic` drive the vendors' sonic-cli, not the shell;
`generic` leaves bracketed-paste codes in the output, lab notes G6). NAPALM drivers are netauto's own
(`napalm.get_network_driver("netauto_cumulus")`). Scrapli: scrapli_community's `cumulus_linux` (its prompt
pattern is Cumulus's `user@host:mgmt:~$`, variant `root-login` for root) and scrapli's GenericDriver
(nornir_scrapli platform `generic`) for the SONiC and server shells.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AutomationNames:
    nornir: str  # Host.platform: the NOS, so `nr.filter(platform="sonic")` reads naturally
    netmiko: str
    napalm: str
    scrapli: str


AUTOMATION: dict[str, AutomationNames] = {
    "cumulus": AutomationNames(nornir="cumulus", netmiko="linux", napalm="netauto_cumulus", scrapli="cumulus_linux"),
    "sonic": AutomationNames(nornir="sonic", netmiko="linux", napalm="netauto_sonic", scrapli="generic"),
    "linux": AutomationNames(nornir="linux", netmiko="linux", napalm="netauto_linux", scrapli="generic"),
}


def automation_names(nos: str) -> AutomationNames:
    try:
        return AUTOMATION[nos]
    except KeyError:
        raise KeyError(f"no automation names for NOS {nos!r} (known: {', '.join(AUTOMATION)})") from None
