"""NAPALM's entry for the `netauto_sonic` driver: napalm.get_network_driver("netauto_sonic") imports this module and
returns its only NetworkDriver subclass (netauto.napalm.drivers.SonicDriver)."""

from netauto.napalm.drivers import SonicDriver

__all__ = ["SonicDriver"]
