"""The parsed fabric: values read back from the rendered files, roles and cabling from the model.

Each switch is reduced to a NOS-agnostic `SwitchState` (state types: `netauto.validate.state`) by the reader of
its NOS (`netauto.validate.readers`), chosen from `SWITCH_READERS`. A Cumulus switch has two: the Linux-files
view (interfaces, frr.conf, qos_features.conf, adaptive_routing.conf) which the rules check, and the NVUE view
(startup.yaml) which must agree with it. A new NOS is one reader module and one row of `SWITCH_READERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from netauto.formats.nvue import NvueError, parse_nvue
from netauto.model.types import FabricModel
from netauto.validate.files import FileSet
from netauto.validate.findings import Finding
from netauto.validate.readers.cumulus import CUMULUS_FILES, cumulus_state
from netauto.validate.readers.nvue import nvue_state
from netauto.validate.readers.server import HOST_FILES, server_state
from netauto.validate.readers.sonic import SONIC_FILES, sonic_state
from netauto.validate.state import ParsedFabric, SwitchState

__all__ = ["HOST_FILES", "SWITCH_READERS", "ParsedFabric", "SwitchReader", "build_view"]


class SwitchReader(NamedTuple):
    paths: dict[str, str]  # file role -> on-device path
    read: Callable[[str, dict[str, str | None]], SwitchState]  # (device, role -> text or None) -> its state


# NOS -> the files its switches get and the reader that turns them into a SwitchState.
SWITCH_READERS: dict[str, SwitchReader] = {
    "cumulus": SwitchReader(CUMULUS_FILES, cumulus_state),
    "sonic": SwitchReader(SONIC_FILES, sonic_state),
}
REQUIRED_ROLES = ("frr", "interfaces", "config_db")  # a switch without these files is a PARSE-01 error


def _problem(device: str, message: str, file: str | None = None) -> Finding:
    return Finding("PARSE-01", "error", device, message, file)


def build_view(model: FabricModel, files: FileSet) -> ParsedFabric:
    """Parse every device's files."""
    return _build_view(model, files)


def _build_view(model: FabricModel, files: FileSet) -> ParsedFabric:
    view = ParsedFabric(model, files)
    for sw in model.switches:
        reader = SWITCH_READERS.get(sw.nos)
        if reader is None:
            view.problems.append(Finding("PARSE-02", "warning", sw.name,
                                         f"no parser for NOS {sw.nos!r}: its files are not checked by the fabric rules"))
            continue
        texts = {role: files.get(sw.name, path) for role, path in reader.paths.items()}
        for role, path in reader.paths.items():
            if texts[role] is None and role in REQUIRED_ROLES:
                view.problems.append(_problem(sw.name, f"missing {path}", path))
        try:
            view.switches[sw.name] = reader.read(sw.name, texts)
        except Exception as exc:  # noqa: BLE001 - a broken file is a finding, not a crash
            view.problems.append(_problem(sw.name, f"cannot parse: {exc}"))
            continue
        nvue_text = texts.get("nvue")
        if nvue_text is not None:
            try:
                tree = parse_nvue(nvue_text)
                view.nvue_raw[sw.name] = tree
                view.nvue[sw.name] = nvue_state(sw.name, tree, sw.cumulus_release)
            except (NvueError, ValueError, TypeError, AttributeError) as exc:
                view.problems.append(_problem(sw.name, f"cannot parse NVUE: {exc}", reader.paths["nvue"]))
    for server in model.servers:
        texts = {role: files.get(server.name, path) for role, path in HOST_FILES.items()}
        if texts["netplan"] is None:
            view.problems.append(_problem(server.name, f"missing {HOST_FILES['netplan']}", HOST_FILES["netplan"]))
        try:
            view.servers[server.name] = server_state(server.name, texts)
        except Exception as exc:  # noqa: BLE001
            view.problems.append(_problem(server.name, f"cannot parse: {exc}", HOST_FILES["netplan"]))
    return view


