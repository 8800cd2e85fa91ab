"""Re-render only the devices whose inputs changed (`netauto render` after a small edit).

Every device's files are a function of its own resolved object (a `Switch`, `Server`, `OobSwitch`, `Bmc`) and
of its network's settings; the key of a device is a hash of exactly those (pickled, so every field counts),
of the code and built-in templates (`fingerprint.code_digest`, which also covers an override folder) and of
netauto's version. The cluster-wide folders (`kubernetes/`, `monitoring/`: render.cluster_wide) are keyed by
the inputs each declares there: a change to them re-renders the folder.

That a device's files depend on nothing else is enforced, not assumed: a changed device is rendered against
a view of its network whose device and link lists are withheld (`_Withheld`); a template or builder that reads
them raises `NeedsWholeFabric`, and the caller renders everything (the cold path). The keys of the tree in
an output folder are kept in `netauto.cache.cache_dir("render")` (0600, one file per output folder, only
hashes): deleting it costs one full render; a tree whose manifest is not the one the keys describe, or a file
whose stat is not the manifest's, makes the device (or everything) render again.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import marshal
import pickle
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import netauto
from netauto.cache import cache_dir, read_trusted, write_cache
from netauto.model.cluster import ClusterModel
from netauto.model.types import FabricModel, Switch
from netauto.render import bounded, jinja_env
from netauto.render import cluster_wide as wide_groups
from netauto.render.artifact import Artifact
from netauto.render.device import Network, OobNetwork, compute_network, device_files, device_groups, device_name, networks

if TYPE_CHECKING:
    from netauto.monitoring.facts import Facts



def cluster_wide_keys() -> set[str]:
    """The keys of the files no one device owns (render.cluster_wide: kubernetes/, monitoring/)."""
    return {group.key for group in wide_groups.GROUPS}


CLUSTER_WIDE = tuple(sorted(cluster_wide_keys()))


class NeedsWholeFabric(Exception):
    """A template or builder read another device of the network: this change needs a full render."""


class _Withheld(list):  # type: ignore[type-arg]
    def _refuse(self, *_args: object, **_kwargs: object) -> Any:
        raise NeedsWholeFabric("a template or builder read the network's device or link lists")

    __iter__ = __len__ = __getitem__ = __contains__ = __bool__ = _refuse  # type: ignore[assignment]


class _WithheldIndex(dict):  # type: ignore[type-arg]
    def _refuse(self, *_args: object, **_kwargs: object) -> Any:
        raise NeedsWholeFabric("a template or builder looked another switch up")

    __getitem__ = __iter__ = __len__ = __contains__ = get = items = values = keys = _refuse  # type: ignore[assignment]


LISTS = ("switches", "servers", "links", "exit_links")


def _settings(fabric: FabricModel) -> FabricModel:
    """The network without its devices and links (what every device of it may read)."""
    view = copy.copy(fabric)
    for name in LISTS:
        setattr(view, name, [])
    view._switch_index = {}
    return view


def _view(fabric: FabricModel) -> FabricModel:
    view = copy.copy(fabric)
    for name in LISTS:
        setattr(view, name, _Withheld())
    view._switch_index = _WithheldIndex()
    return view


def _h(*parts: bytes | str) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


def _p(obj: object) -> bytes:
    return pickle.dumps(obj, protocol=5)


class _StablePickler(pickle.Pickler):
    """Pickles a pydantic model (inventory data inside the cluster-wide inputs) without its set of the fields
    given, whose order follows the process's string hash seed: the same inputs, the same bytes in every run.
    Only for hashing: what it writes is never unpickled."""

    def reducer_override(self, obj: object) -> Any:
        fields_set = getattr(obj, "__pydantic_fields_set__", None)
        if isinstance(fields_set, set) and hasattr(obj, "__dict__"):
            return (type(obj), (), (obj.__dict__, sorted(fields_set), getattr(obj, "__pydantic_extra__", None)))
        return NotImplemented


def _stable_p(obj: object) -> bytes:
    buffer = io.BytesIO()
    _StablePickler(buffer, protocol=5).dump(obj)
    return buffer.getvalue()


@dataclass(frozen=True, slots=True)
class Part:
    """What one device's files depend on in one network: `key_part` hashes it. `payload` is the pickled device
    object (a switch or server; an OOB device's name: its files are keyed by the shared OOB context)."""

    label: str  # the network: "compute", "network:<name>", "oob"
    kind: str  # "switch", "server", "oob-switch", "bmc"
    context: str  # the hash of the network's settings, code hash and version
    payload: bytes

    def key_part(self) -> str:
        return _h(self.context, self.kind, self.payload)


@dataclass
class Keyed:
    """Every device's parts and the pickled settings of every network (`netauto.render.store` keeps them)."""

    parts: dict[str, list[Part]] = field(default_factory=dict)
    settings: dict[str, bytes] = field(default_factory=dict)


def device_key(parts: list[Part]) -> str:
    return _h(*(part.key_part() for part in parts))


def keyed_devices(cluster: ClusterModel, code: str) -> Keyed:
    """Every device's parts (what its key hashes) and every network's settings."""
    keyed = Keyed()
    base = f"{netauto.__version__}\0{code}"
    for network in networks(cluster):
        if isinstance(network, OobNetwork):
            assert cluster.oob is not None
            shared = (cluster.oob, cluster.compute_pools, cluster.thresholds, cluster.kubernetes)
            context = _h(base, network.label, _p(_settings(cluster.compute)), _stable_p(shared))
            for kind, group in zip(("oob-switch", "bmc"), device_groups(network)):
                for device in group:  # its files are keyed by the shared OOB context
                    name = device_name(device)
                    keyed.parts.setdefault(name, []).append(Part(network.label, kind, context, name.encode()))
            continue
        keyed.settings[network.label] = settings = _p(_settings(network.fabric))
        context = _h(base, network.label, network.key, settings)
        for kind, group in zip(("switch", "server"), device_groups(network)):
            for device in group:
                keyed.parts.setdefault(device_name(device), []).append(Part(network.label, kind, context, _p(device)))
    return keyed


def device_keys(cluster: ClusterModel, code: str, keyed: Keyed | None = None) -> dict[str, str]:
    """device name -> the hash of everything its files depend on (CLUSTER_WIDE: the cluster-wide files)."""
    keyed = keyed or keyed_devices(cluster, code)
    base = f"{netauto.__version__}\0{code}"
    keys = {name: device_key(parts) for name, parts in keyed.parts.items()}
    for group in wide_groups.GROUPS:
        keys[group.key] = _h(base, *map(_input_bytes, group.inputs(cluster)))
    return keys


def _input_bytes(value: object) -> bytes:
    """One input of a cluster-wide group, serialised for its key (the design facts the fast way)."""
    from netauto.monitoring.facts import Facts  # lazy: the drain fast path imports this module without monitoring/

    return _facts_bytes(value) if isinstance(value, Facts) else _stable_p(value)


def _facts_bytes(found: Facts) -> bytes:
    """Every field of the design facts, serialised in a fifth of pickle's time (100,000 facts at 10k): marshal
    version 2 writes no object references, so equal facts give equal bytes in every process. Anything marshal
    cannot write (a future field's type) falls back to pickle."""
    rows: list[object] = []
    for group in fields(found):
        items = getattr(found, group.name)
        if items and is_dataclass(items[0]):
            names = [f.name for f in fields(items[0])]
            items = [tuple(getattr(item, name) for name in names) for item in items]
        rows.append((group.name, items))
    try:
        return marshal.dumps(rows, 2)
    except ValueError:
        return _stable_p(found)


def render_devices(cluster: ClusterModel, devices: set[str], cluster_wide: set[str],
                   templates: Path | None = None) -> list[Artifact]:
    """The files of `devices` (and of the cluster-wide groups whose keys are in `cluster_wide`: render.cluster_wide),
    exactly as `render_cluster` renders them. Raises NeedsWholeFabric when a device's files read beyond its
    own inputs."""
    if templates:
        return bounded.run_bounded(lambda: list(_devices(cluster, devices, cluster_wide, templates)))
    return list(_devices(cluster, devices, cluster_wide, None))


def render_switches(settings: FabricModel, switches: list[Switch], templates: Path | None = None) -> list[Artifact]:
    """The files of `switches` of the network whose settings (`_settings`) are `settings`, rendered against
    its withheld view as `_devices` renders them (NeedsWholeFabric when a file reads beyond its switch)."""
    def run() -> list[Artifact]:
        env = jinja_env.environment(str(templates) if templates else None)
        network = compute_network(_view(settings))
        return [art for sw in switches for art in device_files(env, network, sw)]

    return bounded.run_bounded(run) if templates else run()


def _devices(cluster: ClusterModel, devices: set[str], cluster_wide: set[str],
             templates: Path | None) -> Iterator[Artifact]:
    """The files of the named devices as render.engine renders them (render.device), each against a view of its
    network that withholds every other device."""
    env = jinja_env.environment(str(templates) if templates else None)
    for network in networks(cluster):
        view = _withheld(network)
        for group in device_groups(network):
            for device in group:
                if device_name(device) in devices:
                    yield from device_files(env, view, device)
    for wide in wide_groups.GROUPS:
        if wide.key in cluster_wide:
            for part in wide.parts(cluster):
                yield from part()


def pseudo_group(folder: str) -> str | None:
    """The key of the cluster-wide group that renders the top-level folder `folder` that is no device's, or
    None: a folder no longer rendered (a removed device's)."""
    group = wide_groups.group_of(folder)
    return group.key if group else None


def _withheld(network: Network | OobNetwork) -> Network | OobNetwork:
    """The network as each of its devices may see it: its settings, no other device."""
    if isinstance(network, OobNetwork):
        return replace(network, cluster=_cluster_view(network.cluster))
    return replace(network, fabric=_view(network.fabric))


def _cluster_view(cluster: ClusterModel) -> ClusterModel:
    """The cluster as the OOB devices see it: its OOB network and settings, no compute or network device."""
    view = copy.copy(cluster)
    view.compute = _view(cluster.compute)
    view.networks = _Withheld()
    view.groups = _Withheld()
    return view



def target_id(target: Path) -> str:
    """The name of an output folder's tree in the render cache (its keys here, its state in `render.store`)."""
    return hashlib.blake2b(str(target.resolve()).encode(), digest_size=12).hexdigest()


def _state_file(target: Path) -> Path:
    return cache_dir("render") / f"devices-{target_id(target)}.json"


def load_keys(target: Path, manifest_fingerprint: str | None) -> dict[str, str]:
    """The device keys of the tree at `target`, when the cache describes the tree that is there ({} else)."""
    try:
        data = json.loads(read_trusted(_state_file(target)) or b"null")
    except ValueError:
        return {}
    if (not isinstance(data, dict) or data.get("version") != netauto.__version__ or manifest_fingerprint is None
            or data.get("tree") != manifest_fingerprint or not isinstance(data.get("keys"), dict)):
        return {}
    return cast(dict[str, str], data["keys"])


def save_keys(target: Path, fingerprint: str, keys: dict[str, str]) -> None:
    """Remember the keys of the tree just written (0600; best effort: without it the next render is full)."""
    write_cache(_state_file(target), json.dumps({"version": netauto.__version__, "tree": fingerprint, "keys": keys}))
