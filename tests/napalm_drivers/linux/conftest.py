"""NAPALM's harness for `netauto_linux`: the driver, its mocked twin, and test cases from mocked_data/."""

from napalm_drivers.harness import conftest_hooks

from netauto.napalm.drivers import LinuxDriver

set_device_parameters, pytest_generate_tests, pytest_collection_modifyitems = conftest_hooks(
    LinuxDriver, "netauto_linux", __file__)
