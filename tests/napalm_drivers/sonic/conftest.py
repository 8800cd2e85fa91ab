"""NAPALM's harness for `netauto_sonic`: the driver, its mocked twin, and test cases from mocked_data/."""

from napalm_drivers.harness import conftest_hooks

from netauto.napalm.drivers import SonicDriver

set_device_parameters, pytest_generate_tests, pytest_collection_modifyitems = conftest_hooks(
    SonicDriver, "netauto_sonic", __file__)
