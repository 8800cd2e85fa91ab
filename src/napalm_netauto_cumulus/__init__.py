"""NAPALM's entry for the `netauto_cumulus` driver: napalm.get_network_driver("netauto_cumulus") imports this module and
returns its only NetworkDriver subclass (netauto.napalm.drivers.CumulusDriver)."""

from netauto.napalm.drivers import CumulusDriver

__all__ = ["CumulusDriver"]
