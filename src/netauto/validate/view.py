"""The parsed fabric: values read back from the rendered files, roles and cabling from the model.

Each switch is reduced to a NOS-agnostic `SwitchState` (state types: `netauto.validate.state`) by the reader of
its NOS (`netauto.validate.readers`), chosen from `SWITCH_READERS`. A Cumulus switch has two: the Linux-files
view (interfaces, frr.conf, qos_features.conf, adaptive_routing.conf) which the rules check, and the NVUE view
(startup.yaml) which must agree with it. A new NOS is one reader module and one row of `SWITCH_READERS`.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from netauto.formats.fastyaml_similar import Similar
from netauto.formats.nvue import NvueError, parse_nvue
from netauto.model.types import FabricModel, Server, Switch
from netauto.validate import forked
from netauto.validate.files import FileSet
from netauto.validate.findings import Finding
from netauto.validate.readers.cumulus import CUMULUS_FILES, cumulus_state
from netauto.validate.readers.nvue import nvue_state
from netauto.validate.readers.server import HOST_FILES, server_state
from netauto.validate.readers.sonic import SONIC_FILES, sonic_state
from netauto.validate.state import ParsedFabric, ServerState, SwitchState

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


class Readers(NamedTuple):
    """The YAML readers of one parse: each reads a file as a difference from the similar files before it
    (`formats.fastyaml_similar`), so the parsed trees share their unchanged subtrees and are read-only."""

    nvue: Similar
    netplan: Similar

    @classmethod
    def new(cls) -> Readers:
        return cls(Similar(yaml12=True), Similar(yaml12=False))


def build_view(model: FabricModel, files: FileSet) -> ParsedFabric:
    """Parse every device's files (a large fabric's in two processes: `_parse_parallel`)."""
    devices: list[Switch | Server] = [*model.switches, *model.servers]
    readers = Readers.new()
    with gc_paused():
        parsed = _parse_parallel(devices, files, readers) if len(devices) >= PARALLEL_MIN else None
        if parsed is None:
            parsed = [_parse(dev, files, readers) for dev in devices]
    view = ParsedFabric(model, files)
    for dev, got in zip(devices, parsed):
        view.problems += got.problems
        if got.state is None:
            continue
        if isinstance(got.state, ServerState):
            view.servers[dev.name] = got.state
            continue
        view.switches[dev.name] = got.state
        if got.nvue_raw is not None:
            view.nvue_raw[dev.name] = got.nvue_raw
        if got.nvue is not None:
            view.nvue[dev.name] = got.nvue
    return view


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while parsing: the parsers build millions of small dicts and lists (no cycles;
    reference counting frees them), and every collection would walk the whole model and file set again (-20% CPU
    on the 10k example)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class _Parsed(NamedTuple):
    """One device's files, read: its state (None when unreadable), a Cumulus switch's NVUE tree and view, problems."""

    state: SwitchState | ServerState | None
    nvue_raw: dict[str, Any] | None
    nvue: SwitchState | None
    problems: list[Finding]


def _parse(dev: Switch | Server, files: FileSet, readers: Readers) -> _Parsed:
    return _parse_server(dev, files, readers) if isinstance(dev, Server) else _parse_switch(dev, files, readers)


def _parse_switch(sw: Switch, files: FileSet, readers: Readers) -> _Parsed:
    problems: list[Finding] = []
    reader = SWITCH_READERS.get(sw.nos)
    if reader is None:
        return _Parsed(None, None, None, [Finding("PARSE-02", "warning", sw.name,
                                                  f"no parser for NOS {sw.nos!r}: its files are not checked by the fabric rules")])
    texts = {role: files.get(sw.name, path) for role, path in reader.paths.items()}
    for role, path in reader.paths.items():
        if texts[role] is None and role in REQUIRED_ROLES:
            problems.append(_problem(sw.name, f"missing {path}", path))
    try:
        state = reader.read(sw.name, texts)
    except Exception as exc:  # noqa: BLE001 - a broken file is a finding, not a crash
        return _Parsed(None, None, None, [*problems, _problem(sw.name, f"cannot parse: {exc}")])
    tree, nvue = None, None
    nvue_text = texts.get("nvue")
    if nvue_text is not None:
        try:
            tree = parse_nvue(nvue_text, readers.nvue)
            nvue = nvue_state(sw.name, tree, sw.cumulus_release)
        except (NvueError, ValueError, TypeError, AttributeError) as exc:
            problems.append(_problem(sw.name, f"cannot parse NVUE: {exc}", reader.paths["nvue"]))
    return _Parsed(state, tree, nvue, problems)


def _parse_server(server: Server, files: FileSet, readers: Readers) -> _Parsed:
    problems: list[Finding] = []
    texts = {role: files.get(server.name, path) for role, path in HOST_FILES.items()}
    if texts["netplan"] is None:
        problems.append(_problem(server.name, f"missing {HOST_FILES['netplan']}", HOST_FILES["netplan"]))
    try:
        return _Parsed(server_state(server.name, texts, readers.netplan), None, None, problems)
    except Exception as exc:  # noqa: BLE001
        return _Parsed(None, None, None, [*problems, _problem(server.name, f"cannot parse: {exc}", HOST_FILES["netplan"])])


# ---------------------------------------------------------------- two processes for a large fabric
# Below this many devices a second process costs more than it saves. Above it, a forked child reads every other
# device while this process reads the rest; its results come back pickled (`validate.forked`), which costs about a
# fifth of reading the files (less since the trees share their subtrees: view.Readers).
PARALLEL_MIN = 256


def _parse_parallel(devices: list[Switch | Server], files: FileSet, readers: Readers) -> list[_Parsed] | None:
    """Every device parsed, the odd ones in a forked child; None where fork is not usable (`forked.usable`)."""
    halves = forked.beside(lambda: [_parse(dev, files, readers) for dev in devices[1::2]],
                           lambda: [_parse(dev, files, readers) for dev in devices[0::2]])
    if halves is None:
        return None
    odd_parsed, even = halves
    out: list[_Parsed] = []
    for i in range(len(devices)):
        out.append(even[i // 2] if i % 2 == 0 else odd_parsed[i // 2])
    return out
