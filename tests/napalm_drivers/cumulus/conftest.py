"""NAPALM's harness for `netauto_cumulus`: the driver, its mocked twin, and test cases from mocked_data/."""

from napalm_drivers.harness import conftest_hooks

from netauto.napalm.drivers import CumulusDriver

set_device_parameters, pytest_generate_tests, pytest_collection_modifyitems = conftest_hooks(
    CumulusDriver, "netauto_cumulus", __file__)
