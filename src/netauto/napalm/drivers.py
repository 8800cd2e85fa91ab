"""The NAPALM drivers: netauto's device classes (netauto.napalm.cumulus/sonic/linux) as NAPALM NetworkDrivers,
with NAPALM's exception types. Found by napalm.get_network_driver through the top-level napalm_netauto_* modules.
"""

from __future__ import annotations

from collections.abc import Callable
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


def _napalm_errors(method: str) -> Callable[..., Any]:
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(super(_NapalmErrors, self), method)(*args, **kwargs)
        except device.DriverError as exc:
            raise _MAP.get(type(exc), nx.NapalmException)(str(exc)) from None

    wrapped.__name__ = method
    return wrapped


class _NapalmErrors:
    """Re-raise netauto's driver errors as NAPALM's (ConnectionException, CommitError...)."""

    open = _napalm_errors("open")
    load_replace_candidate = _napalm_errors("load_replace_candidate")
    load_merge_candidate = _napalm_errors("load_merge_candidate")
    commit_config = _napalm_errors("commit_config")
    confirm_commit = _napalm_errors("confirm_commit")
    rollback = _napalm_errors("rollback")


class CumulusDriver(_NapalmErrors, Cumulus, NetworkDriver):
    """NAPALM driver `netauto_cumulus` (NVIDIA Cumulus Linux 5.x; see netauto.napalm.cumulus)."""


class SonicDriver(_NapalmErrors, Sonic, NetworkDriver):
    """NAPALM driver `netauto_sonic` (see netauto.napalm.sonic)."""


class LinuxDriver(_NapalmErrors, Linux, NetworkDriver):
    """NAPALM driver `netauto_linux` (GPU servers; see netauto.napalm.linux)."""
