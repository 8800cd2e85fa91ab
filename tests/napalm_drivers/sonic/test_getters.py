"""napalm.base.test.getters.BaseTestGetters, unchanged, on `netauto_sonic` (see ../harness.py)."""

import pytest
from napalm.base.test.getters import BaseTestGetters


@pytest.mark.usefixtures("set_device_parameters")
class TestGetter(BaseTestGetters):
    """Every getter NAPALM tests; those netauto does not implement are skipped by the harness itself."""
