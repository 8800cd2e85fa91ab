"""The NAPALM drivers: netauto's device classes (netauto.napalm.cumulus/sonic/linux) behind NAPALM's
NetworkDriver, with NAPALM's exception types. Found by napalm.get_network_driver through the top-level
napalm_netauto_* modules.

A driver *holds* its netauto device (attribute `netauto`) instead of inheriting from it, so its public methods
are exactly NAPALM's, with NAPALM's signatures (napalm.base.test.getters.BaseTestGetters.test_method_signatures),
and an unopened driver can be inspected. netauto's own reads (interface_details, get_bgp_state,
get_route_widths, get_policy_routing, get_qos_counters, run_batch) are on `driver.netauto`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from napalm.base import NetworkDriver
from napalm.base import exceptions as nx

from netauto.napalm import device
from netauto.napalm.cumulus import Cumulus
from netauto.napalm.linux import Linux
from netauto.napalm.sonic import Sonic

_MAP: dict[type[Exception], type[Exception]] = {
    device.ConnectionException: nx.ConnectionException,
    device.ReplaceConfigException: nx.ReplaceConfigException,
    device.MergeConfigException: nx.MergeConfigException,
    device.CommitError: nx.CommitError,
}


@contextmanager
def _napalm_errors() -> Iterator[None]:
    """netauto's driver errors as NAPALM's exception of the same role (ConnectionException, CommitError...)."""
    try:
        yield
    except device.DriverError as exc:
        raise _MAP.get(type(exc), nx.NapalmException)(str(exc)) from None


class _Driver(NetworkDriver):
    device_class: Callable[..., device.NetautoDevice] = device.NetautoDevice
    platform = ""  # the driver's name, as NAPALM's own drivers set it

    def __init__(self, hostname: str, username: str, password: str, timeout: int = 60,
                 optional_args: dict[str, Any] | None = None) -> None:
        self.hostname, self.username, self.password, self.timeout = hostname, username, password, timeout
        self.netauto: device.NetautoDevice = self.device_class(hostname, username, password, timeout, optional_args)

    def open(self) -> None:
        with _napalm_errors():
            self.netauto.open()

    def close(self) -> None:
        self.netauto.close()

    def is_alive(self) -> dict[str, bool]:  # type: ignore[override]
        return self.netauto.is_alive()

    def get_facts(self) -> dict[str, Any]:  # type: ignore[override]
        with _napalm_errors():
            return self.netauto.get_facts()

    def get_interfaces(self) -> dict[str, Any]:  # type: ignore[override]
        with _napalm_errors():
            return self.netauto.get_interfaces()

    def get_lldp_neighbors(self) -> dict[str, Any]:  # type: ignore[override]
        with _napalm_errors():
            return self.netauto.get_lldp_neighbors()

    def get_lldp_neighbors_detail(self, interface: str = "") -> dict[str, Any]:  # type: ignore[override]
        with _napalm_errors():
            return self.netauto.get_lldp_neighbors_detail(interface)

    def get_bgp_neighbors(self) -> dict[str, Any]:  # type: ignore[override]
        with _napalm_errors():
            return self.netauto.get_bgp_neighbors()

    def get_config(self, retrieve: str = "all", full: bool = False, sanitized: bool = False,
                   format: str = "text") -> dict[str, str]:  # type: ignore[override]
        with _napalm_errors():
            return self.netauto.get_config(retrieve, full, sanitized, format)

    def load_replace_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        with _napalm_errors():
            self.netauto.load_replace_candidate(filename, config)

    def load_merge_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        with _napalm_errors():
            self.netauto.load_merge_candidate(filename, config)

    def compare_config(self) -> str:
        with _napalm_errors():
            return self.netauto.compare_config()

    def discard_config(self) -> None:
        self.netauto.discard_config()

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        with _napalm_errors():
            self.netauto.commit_config(message, revert_in)

    def has_pending_commit(self) -> bool:
        return self.netauto.has_pending_commit()

    def confirm_commit(self) -> None:
        with _napalm_errors():
            self.netauto.confirm_commit()

    def rollback(self) -> None:
        with _napalm_errors():
            self.netauto.rollback()


class CumulusDriver(_Driver):
    """NAPALM driver `netauto_cumulus` (NVIDIA Cumulus Linux 5.x; see netauto.napalm.cumulus)."""

    device_class = Cumulus
    platform = "netauto_cumulus"


class SonicDriver(_Driver):
    """NAPALM driver `netauto_sonic` (see netauto.napalm.sonic)."""

    device_class = Sonic
    platform = "netauto_sonic"


class LinuxDriver(_Driver):
    """NAPALM driver `netauto_linux` (GPU servers; see netauto.napalm.linux)."""

    device_class = Linux
    platform = "netauto_linux"
