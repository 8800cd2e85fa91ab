"""NOS x release facts: supported releases, files per config-ownership mode and their paths, NVUE spelling
per Cumulus release, where FRR runs. The facts are data (`data/*.yaml`, each with its source); this module
only loads them once and hands out typed, resolved views.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from netauto.platforms.datafile import load_cached

from netauto.errors import NetautoError

DATA = Path(__file__).resolve().parent / "data"
CumulusMode = Literal["nvue", "linux-files"]
CUMULUS_MODES: tuple[CumulusMode, ...] = ("nvue", "linux-files")


# Cumulus `qos roce` (and a qos_features.conf PFC group without cable_length) sizes PFC headroom for 100 m of
# cable (CL QoS page, "Priority Flow Control": `qos pfc <profile> cable-length`, default 100; domain.md
# Corrections "PFC headroom and distance").
QOS_ROCE_CABLE_M = 100


def _data(name: str) -> dict[str, Any]:
    return load_cached(DATA / f"{name}.yaml")


def release_tuple(release: str) -> tuple[int, ...]:
    """"5.15" -> (5, 15); "5.15.1" -> (5, 15, 1)."""
    return tuple(int(part) for part in release.split("."))


def release_train(release: str) -> str:
    """The x.y train a release belongs to ("5.15.1" -> "5.15"): the unit schemas and spelling tables exist for."""
    return ".".join(str(p) for p in release_tuple(release)[:2])


# ---------------------------------------------------------------- Cumulus releases
def cumulus_releases() -> tuple[str, ...]:
    return tuple(_data("nos_cumulus")["releases"])


def unsupported_release(release: str) -> str | None:
    """Why netauto cannot target this Cumulus release, or None when it can."""
    supported = cumulus_releases()
    if release_train(release) in supported:
        return None
    return (f"Cumulus Linux {release} is not supported (supported: {supported[0]} to {supported[-1]}; adaptive "
            f"routing and the PFC watchdog on Spectrum-4 need {cumulus_feature_release('adaptive_routing_spectrum4')}+)")


def cumulus_feature_release(feature: str) -> str:
    return str(_data("nos_cumulus")["features"][feature])


def nvue_schema_module(release: str) -> str:
    """The nvueschema module holding NVIDIA's NVUE schema of this release, e.g. nvueschema.models.v5_15."""
    why = unsupported_release(release)
    if why:
        raise NetautoError(why)
    return "nvueschema.models.v" + release_train(release).replace(".", "_")


# ---------------------------------------------------------------- NVUE spelling
def schema_spelled_subtrees() -> tuple[str, ...]:
    """NVUE paths ("system.telemetry") whose insides spell enabled/disabled in every release (data/nos_cumulus.yaml)."""
    return tuple(_data("nos_cumulus")["schema_spelled_subtrees"])


@dataclass(frozen=True, slots=True)
class NvueSpelling:
    """How one Cumulus release spells the NVUE keys netauto renders (see data/cumulus.yaml for each field)."""

    release: str
    toggle_key: str  # `enable` (<= 5.14) or `state` (>= 5.15)
    on: str
    off: str
    flag_on: str
    flag_off: str
    ipv4_container: str  # `ip` or `ipv4`
    vrf_under_ip: bool
    ecn_on: str
    pfc_watchdog_on: str
    auto_save_key: str
    auto_save_off: str
    vrr_link_state_key: str  # `state` (<= 5.14) or `vrr-state` (>= 5.15)
    bfd_profiles: bool = False  # BGP neighbour BFD through `router bfd profile` (>= 5.15) or inline timers

    def toggle(self, state: bool) -> dict[str, str]:
        """A feature switch: {"enable": "on"} or {"state": "enabled"}."""
        return {self.toggle_key: self.on if state else self.off}

    def flag(self, state: bool) -> str:
        return self.flag_on if state else self.flag_off

    # compatibility with the templates that still read nv.enable
    @property
    def enable(self) -> str:
        return self.toggle_key


@lru_cache(maxsize=None)
def nvue_spelling(release: str) -> NvueSpelling:
    """The full spelling table of a release: the deltas of data/cumulus.yaml applied in release order."""
    why = unsupported_release(release)
    if why:
        raise NetautoError(why)
    target = release_tuple(release_train(release))
    table: dict[str, Any] = {}
    for since, delta in sorted(_data("nos_cumulus")["spelling"].items(), key=lambda kv: release_tuple(kv[0])):
        if release_tuple(since) <= target:
            table.update(delta)
    return NvueSpelling(release=release_train(release), **{k.replace("-", "_"): v for k, v in table.items()})


# ---------------------------------------------------------------- files and ownership
@dataclass(frozen=True, slots=True)
class DeviceFile:
    role: str  # "nvue", "interfaces", "frr", ...
    path: str  # on-device path without the leading slash
    push: bool  # deploy writes it (True) or it is a rendered view for the lab and validate (False)


@lru_cache(maxsize=None)
def cumulus_files(mode: CumulusMode = "nvue") -> tuple[DeviceFile, ...]:
    try:
        files = _data("nos_cumulus")["modes"][mode]["files"]
    except KeyError:
        raise NetautoError(f"unknown Cumulus config mode {mode!r} (known: {', '.join(CUMULUS_MODES)})") from None
    return tuple(DeviceFile(role, f["path"], bool(f["push"])) for role, f in files.items())


def cumulus_qos_infra_pool() -> dict[str, str]:
    """qos_infra.conf keys of the lossless (flow control) service pool (data/nos_cumulus.yaml, cited there)."""
    return {str(k): str(v) for k, v in _data("nos_cumulus")["qos_infra_lossless_pool"].items()}


def cumulus_switchd_pfc_watchdog() -> dict[str, str]:
    """switchd.conf keys of the PFC watchdog globals: {"polling_interval_ms": key, "robustness": key}
    (data/nos_cumulus.yaml, cited there)."""
    return {str(k): str(v) for k, v in _data("nos_cumulus")["switchd_pfc_watchdog"].items()}


def cumulus_path(role: str) -> str:
    """On-device path of a Cumulus file role; the same in every mode (only who owns it changes)."""
    for f in cumulus_files("nvue"):
        if f.role == role:
            return f.path
    raise KeyError(role)


def cumulus_pushed(mode: CumulusMode) -> tuple[str, ...]:
    return tuple(f.path for f in cumulus_files(mode) if f.push)


def cumulus_disable_nvue() -> dict[str, Any]:
    """What deploy does in linux-files mode to stop NVUE from overwriting the Linux files (as NVIDIA documents)."""
    return dict(_data("nos_cumulus")["modes"]["linux-files"]["disable_nvue"])


def cumulus_auto_save_off() -> dict[str, str]:
    """`system config auto-save` key -> its "off" value, over every supported release's spelling (the key
    a switch shows tells its spelling: `enable` -> `off` up to 5.9, `state` -> `disabled` from 5.10)."""
    return {s.auto_save_key: s.auto_save_off for s in (nvue_spelling(r) for r in _data("nos_cumulus")["releases"])}


def nvue_owned_paths() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p) for p in _data("nos_cumulus")["ownership"]["owned"])


@lru_cache(maxsize=None)
def nvue_baseline_paths(release: str) -> tuple[tuple[str, ...], ...]:
    """NVUE subtrees netauto never renders and a deploy must keep (users, ssh, ACLs, mgmt VRF, NTP/DNS/syslog)."""
    target = release_tuple(release_train(release))
    chosen: list[list[str]] = []
    for since, paths in sorted(_data("nos_cumulus")["ownership"]["baseline"].items(), key=lambda kv: release_tuple(kv[0])):
        if release_tuple(since) <= target:
            chosen = paths
    return tuple(tuple(p) for p in chosen)


def sonic_path(role: str) -> str:
    """On-device path of a SONiC file role ("config_db", "frr", "qos_template"...); the SKU templates' paths hold
    {platform} and {hwsku} (sonic_sku_path fills them)."""
    return str(_data("nos_sonic")["files"][role]["path"])


def sonic_adaptive_routing() -> tuple[bool, str]:
    """(supported, the cited reason) of adaptive routing on SONiC (data/nos_sonic.yaml adaptive_routing)."""
    found = _data("nos_sonic")["adaptive_routing"]
    return bool(found["supported"]), str(found["reason"])


def sonic_sku_path(path: str, platform: str, hwsku: str) -> str:
    """A path with the switch's SONiC platform and HWSKU filled in (a path without placeholders stays as it is)."""
    return path.replace("{platform}", platform).replace("{hwsku}", hwsku)


def sonic_flex_counters() -> dict[str, dict[str, int]]:
    """SONiC counter group -> its FLEX_COUNTER_TABLE fields (POLL_INTERVAL in ms), data/nos_sonic.yaml."""
    return {group: dict(fields or {}) for group, fields in _data("nos_sonic")["flex_counters"].items()}


def frr_location(nos: str) -> dict[str, str]:
    """Where FRR runs on a NOS and which files it reads."""
    if nos == "cumulus":
        return dict(_data("nos_cumulus")["frr"])
    return dict(_data("nos_sonic")["frr"])


def sonic_device_types(role: str) -> tuple[str, ...]:
    """DEVICE_METADATA.localhost.type candidates of a netauto tier, preferred first (data/nos_sonic.yaml)."""
    return tuple(str(t) for t in _data("nos_sonic")["device_types"][role])


def sonic_device_type(role: str, topologies: Iterable[str]) -> str | None:
    """The first DEVICE_METADATA type of a tier whose buffer defaults are among `topologies` (a SKU's t0, t1...)."""
    have = set(topologies)
    return next((kind for kind in sonic_device_types(role) if sonic_buffer_topology(kind) in have), None)


def sonic_buffer_topology(device_type: str) -> str:
    """The buffers_defaults_<postfix>.j2 SONiC's buffers template imports for a DEVICE_METADATA type: the
    substring tests of sonic-buildimage files/build_templates/buffers_config.j2 (snapshot 086b03bd), in its order;
    any other type takes the SKU's default_topo, t0 in every Mellanox buffers.json.j2."""
    role = device_type.lower()
    if "mgmt" not in role:
        if "torrouter" in role:
            return "t0"
        if "leafrouter" in role:
            return "t1"
        if "lowerspinerouter" in role:
            return "lt2"
    if role == "fabricregionalhub":
        return "lt2"
    if role in ("upperregionalhub", "lowerregionalhub"):
        return "t2"
    if "spinerouter" in role and "mgmt" not in role:
        return "ft2" if role == "fabricspinerouter" else "t2"
    return "t0"  # default_topo of the Mellanox buffers.json.j2 ({%- set default_topo = 't0' %})
