"""NAPALM's entry for the `netauto_sonic` driver: napalm.get_network_driver("netauto_sonic") imports this module and
returns its only NetworkDriver subclass (netauto.napalm.sonic.SonicDriver)."""

from netauto.napalm.sonic import SonicDriver

__all__ = ["SonicDriver"]
