"""NAPALM's entry for the `netauto_linux` driver: napalm.get_network_driver("netauto_linux") imports this module and
returns its only NetworkDriver subclass (netauto.napalm.linux.LinuxDriver)."""

from netauto.napalm.linux import LinuxDriver

__all__ = ["LinuxDriver"]
