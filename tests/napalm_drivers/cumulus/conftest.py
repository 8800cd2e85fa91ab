"""NAPALM's harness for `netauto_cumulus`: the driver, its mocked twin, and test cases from mocked_data/."""

from pathlib import Path

import pytest
from napalm.base.test import conftest as parent_conftest

from netauto.napalm.drivers import CumulusDriver
from napalm_drivers.harness import deselect_unimplemented, patched_driver

HERE = Path(__file__).parent


@pytest.fixture(scope="class")
def set_device_parameters(request):
    request.cls.driver = CumulusDriver
    request.cls.patched_driver = patched_driver(CumulusDriver, HERE)
    request.cls.vendor = "netauto_cumulus"
    parent_conftest.set_device_parameters(request)


def pytest_generate_tests(metafunc):
    parent_conftest.pytest_generate_tests(metafunc, __file__)


def pytest_collection_modifyitems(config, items):
    deselect_unimplemented(config, items, CumulusDriver, HERE)
