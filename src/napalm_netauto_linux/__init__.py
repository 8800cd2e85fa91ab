"""NAPALM's entry for the `netauto_linux` driver: napalm.get_network_driver("netauto_linux") imports this module and
returns its only NetworkDriver subclass (netauto.napalm.drivers.LinuxDriver)."""

from netauto.napalm.drivers import LinuxDriver

__all__ = ["LinuxDriver"]
