"""NAPALM drivers for Cumulus Linux (NVUE or Linux files), SONiC and GPU hosts, built on netauto's SSH session
(netauto.deploy.connection) and deploy engine (netauto.deploy.device).

Registered the way NAPALM finds community drivers: `napalm.get_network_driver("netauto_cumulus")` imports the
top-level module `napalm_netauto_cumulus` (shipped with netauto), which exposes exactly one NetworkDriver
subclass; likewise `netauto_sonic` and `netauto_linux`. nornir_napalm uses the same lookup (host platform).
"""

DRIVER_NAMES = ("netauto_cumulus", "netauto_sonic", "netauto_linux")
