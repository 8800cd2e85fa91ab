"""NAPALM's own driver test harness (napalm.base.test.getters.BaseTestGetters) for netauto's drivers, in its
mocked-data mode, the way community drivers run it: each getter test runs the real driver code over outputs
captured from a device (mocked_data/<test>/<case>/<command key>.txt, plus <key>.rc when the command failed)
and compares with the reviewed expected_result.json beside them.

The outputs were captured from the netauto lab (real FRR 8.4, iproute2, lldpd and OpenSSH in network namespaces,
Debian 12) with `python tests/napalm_drivers/harness.py LAB DEVICE DRIVER CASE` (see `capture`); the lab's switches are
FRR nodes standing in for Cumulus and SONiC, so NOS-only commands (`nv`, `sonic-cfggen`) answer "not found"
there exactly as on the lab node. Re-capture after a driver reads a new command, then review the diff of
expected_result.json by hand.

NAPALM_TEST_MOCK=0 with NAPALM_HOSTNAME/USERNAME/OPTIONAL_ARGS runs the same tests against a live device
(tests/test_napalm_harness_lab.py does that against a lab switch).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from napalm.base.test.double import BaseTestDouble

# the getters NAPALM's harness tests that netauto's drivers implement (the others raise NotImplementedError)
GETTERS: dict[str, tuple[str, dict[str, Any]]] = {
    "test_is_alive": ("is_alive", {}),
    "test_get_facts": ("get_facts", {}),
    "test_get_interfaces": ("get_interfaces", {}),
    "test_get_lldp_neighbors": ("get_lldp_neighbors", {}),
    "test_get_lldp_neighbors_detail": ("get_lldp_neighbors_detail", {}),
    "test_get_bgp_neighbors": ("get_bgp_neighbors", {}),
    "test_get_config": ("get_config", {}),
    "test_get_config_filtered": ("get_config", {"retrieve": "candidate"}),
    "test_get_config_sanitized": ("get_config", {"sanitized": True}),
    "test_get_config_sanitized_filtered": ("sanitized_filtered", {}),
}


def sanitized_filtered(driver: Any) -> dict[str, str]:
    """What BaseTestGetters.test_get_config_sanitized_filtered returns: running and startup, each asked alone."""
    return {"running": driver.get_config(retrieve="running", sanitized=True)["running"],
            "startup": driver.get_config(retrieve="startup", sanitized=True)["startup"], "candidate": ""}


class _Transport:
    def is_active(self) -> bool:
        return True


class _Client:
    def get_transport(self) -> _Transport:
        return _Transport()


class FakeSession(BaseTestDouble):
    """Stands in for netauto's SSH session: `run_batch` answers each command key from the current test case's
    files. A key without a file fails the test (IOError), so a getter reading something new is noticed."""

    frr_exec = ""

    def __init__(self, base: Path) -> None:
        super().__init__()
        self.base = base
        self.client = _Client()

    def find_file(self, filename: str) -> str:
        path = self.base / "mocked_data" / self.current_test / self.current_test_case / filename
        if not path.is_file():
            raise OSError(f"Couldn't find file with mocked data: {path}")
        return str(path)

    def run_batch(self, cmds: dict[str, str], timeout: float = 120.0) -> dict[str, tuple[int, str]]:
        out = {}
        for key in cmds:
            text = Path(self.find_file(f"{key}.txt")).read_text()
            rc_file = Path(self.find_file(f"{key}.txt")).with_suffix(".rc")
            out[key] = (int(rc_file.read_text()) if rc_file.is_file() else 0, text)
        return out


def patched_driver(driver: type, base: Path) -> type:
    """`driver` whose netauto device reads from `base`/mocked_data instead of a device."""

    class PatchedDriver(driver):  # type: ignore[misc, valid-type]
        def __init__(self, hostname: str, username: str, password: str, timeout: int = 60,
                     optional_args: dict[str, Any] | None = None) -> None:
            self.patched_attrs = ["fake"]
            self.fake = FakeSession(base)
            super().__init__(hostname, username, password, timeout, {**(optional_args or {}), "session": self.fake})
            self.netauto.run_batch = self.fake.run_batch  # type: ignore[method-assign]

    return PatchedDriver


def capture(driver: Any, base: Path, case: str) -> None:
    """Run every getter of GETTERS on an open live `driver`, recording each command output it reads into
    base/mocked_data/<test>/<case>/ and the getter's result as expected_result.json (to be reviewed)."""
    real = driver.netauto.run_batch
    for test, (method, kwargs) in GETTERS.items():
        folder = base / "mocked_data" / test / case
        folder.mkdir(parents=True, exist_ok=True)

        def recording(cmds: dict[str, str], timeout: float = 120.0, folder: Path = folder) -> dict[str, tuple[int, str]]:
            got = real(cmds, timeout)
            for key, (rc, text) in got.items():
                (folder / f"{key}.txt").write_text(text)
                if rc:
                    (folder / f"{key}.rc").write_text(f"{rc}\n")
            return got

        driver.netauto.run_batch = recording
        result = sanitized_filtered(driver) if method == "sanitized_filtered" else getattr(driver, method)(**kwargs)
        (folder / "expected_result.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    driver.netauto.run_batch = real


def lab_device(lab: str, device: str) -> tuple[str, dict[str, Any]]:
    """(management address, NAPALM optional_args) of a device of a running `netauto lab up --ssh`."""
    from netauto.lab.runtime import NODE_MARKER
    from netauto.lab.state import lab_dir, load_state

    ssh = lab_dir(lab) / "ssh"
    addr = load_state(lab)["nodes"][device]["mgmt_address"].split("/")[0]
    return addr, {"key_file": str(ssh / "id_ed25519"), "known_hosts": str(ssh / "known_hosts"),
                  "netns": f"na-{lab}-mgmt", "guard": f"/etc/{NODE_MARKER}"}


def _main(argv: list[str]) -> int:
    """capture LAB DEVICE DRIVER CASE: record a lab device's outputs for the harness (run as root)."""
    import napalm

    lab, dev, name, case = argv
    addr, opts = lab_device(lab, dev)
    drv = napalm.get_network_driver(name)(addr, "root", "", optional_args=opts)
    drv.open()
    try:
        capture(drv, Path(__file__).parent / name.removeprefix("netauto_"), case)
    finally:
        drv.close()
    return 0


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(_main(sys.argv[1:]))


def run_live(driver_name: str, host: str, username: str, optional_args: dict[str, Any]) -> Any:
    """NAPALM's harness, unchanged, against a live device (NAPALM_TEST_MOCK=0): a pytest run in a subprocess,
    since the harness reads its mode when it is imported. Returns the CompletedProcess."""
    import subprocess

    env = {**os.environ, "NAPALM_TEST_MOCK": "0", "NAPALM_HOSTNAME": host, "NAPALM_USERNAME": username,
           "NAPALM_PASSWORD": "", "NAPALM_OPTIONAL_ARGS": json.dumps(optional_args)}
    folder = Path(__file__).parent / driver_name.removeprefix("netauto_")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-o", "addopts=", str(folder)], capture_output=True, text=True, env=env, timeout=600,
                          cwd=Path(__file__).parents[2])


def unimplemented(driver: type, test_name: str) -> bool:
    """The harness test `test_name` exercises a NetworkDriver method that `driver` leaves to NAPALM's base
    class (which raises NotImplementedError): such tests are deselected instead of reported as skipped."""
    from napalm.base import NetworkDriver

    words = test_name.removeprefix("test_").split("_")
    for n in range(len(words), 0, -1):
        method = "_".join(words[:n])
        if hasattr(NetworkDriver, method):
            return getattr(driver, method) is getattr(NetworkDriver, method)
    return False


def deselect_unimplemented(config: Any, items: list[Any], driver: type, folder: Path) -> None:
    """pytest_collection_modifyitems body for one driver's folder."""
    drop = [i for i in items if Path(str(i.fspath)).parent == folder and unimplemented(driver, i.originalname)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [i for i in items if i not in drop]


def conftest_hooks(driver: type, vendor: str, conftest_file: str) -> tuple[Any, Any, Any]:
    """A driver folder's conftest.py: the class fixture NAPALM's harness expects, its test-case generation from
    mocked_data/, and the deselection of unimplemented getters."""
    import pytest
    from napalm.base.test import conftest as parent_conftest

    here = Path(conftest_file).parent

    @pytest.fixture(scope="class")
    def set_device_parameters(request: Any) -> None:
        request.cls.driver = driver
        request.cls.patched_driver = patched_driver(driver, here)
        request.cls.vendor = vendor
        parent_conftest.set_device_parameters(request)

    def pytest_generate_tests(metafunc: Any) -> None:
        parent_conftest.pytest_generate_tests(metafunc, conftest_file)

    def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
        deselect_unimplemented(config, items, driver, here)

    return set_device_parameters, pytest_generate_tests, pytest_collection_modifyitems
