"""`netauto verify`: is the running network the one the source of truth describes?

A catalog of checks (netauto.verify.catalog) runs over Nornir against switches and GPU servers. Each device is
read once through netauto's NAPALM drivers (netauto.napalm: one SSH round trip for all getters), and each check
compares that running state with the resolved model. Every result names device, item, expected and actual;
a check that cannot run on a device (no such hardware or tool there) is reported as not applicable, with why.
"""
