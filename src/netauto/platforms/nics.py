"""GPU-server NIC facts (data/nics.yaml): the firmware parameters each NIC kind gets, resolved for a fabric."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from netauto.platforms.datafile import load_cached

DATA = Path(__file__).resolve().parent / "data" / "nics.yaml"


@dataclass(frozen=True, slots=True)
class FirmwareParam:
    name: str  # mlxconfig parameter name, e.g. CNP_DSCP_P1
    value: int
    power_cycle: bool = False  # activated only by a host power cycle (not mlxfwreset, not a warm reboot)


def kinds() -> list[str]:
    return list(load_cached(DATA)["kinds"])


def label(kind: str) -> str:
    return str(load_cached(DATA)["kinds"][kind]["label"])


VENDOR_ID = "15b3"  # Mellanox/NVIDIA networking, PCI ID repository


def pci_device_id(kind: str) -> str:
    """The PF's PCI device id of a NIC kind (data/nics.yaml), e.g. "1021" for ConnectX-7."""
    return str(load_cached(DATA)["kinds"][kind]["pci_device_id"])


def plane_counts(kind: str) -> tuple[int, ...]:
    """The compute-plane counts a NIC kind can be split into (data/nics.yaml `planes`), e.g. (1, 2, 4)."""
    return tuple(int(n) for n in load_cached(DATA)["kinds"][kind].get("planes", [1]))


def plane_modes(kind: str) -> tuple[str, ...]:
    """The multiplane balancing modes a NIC kind runs beside `none` (data/nics.yaml `plane_modes`), e.g. swplb."""
    return tuple(str(m) for m in load_cached(DATA)["kinds"][kind].get("plane_modes") or [])


def plane_port_speed(kind: str, planes: int) -> str | None:
    """Each port's speed when a NIC of `kind` is split into `planes` planes (None: not recorded)."""
    found = (load_cached(DATA)["kinds"][kind].get("plane_port_speed") or {}).get(planes)
    return None if found is None else str(found)


def firmware(kind: str, *, roce_priority: int, cnp_dscp: int, cnp_priority: int, ar: bool) -> tuple[FirmwareParam, ...]:
    """The mlxconfig parameters of `kind` with the fabric's values filled in, in data-file order."""
    values = {"cc_prio_mask": 1 << roce_priority, "cnp_dscp": cnp_dscp, "cnp_priority": cnp_priority, "ar": int(ar)}
    out = []
    cold = set(load_cached(DATA)["kinds"][kind].get("power_cycle") or [])
    for name, raw in load_cached(DATA)["kinds"][kind]["firmware"].items():
        text = str(raw)
        value = values[text[1:-1]] if text.startswith("{") else int(text)
        out.append(FirmwareParam(name, int(value), name in cold))
    return tuple(out)


def host_fec(speed: str) -> str | None:
    """The FEC a server NIC runs at `speed` (data/nics.yaml fec_by_speed, IEEE PMD facts); None: not known."""
    found = load_cached(DATA).get("fec_by_speed", {}).get(speed)
    return None if found is None else str(found)


def operator_firmware(params: tuple[FirmwareParam, ...]) -> dict[str, int]:
    """What the NIC Configuration Operator sets for a roceOptimized template with `params` as rawNvConfig."""
    op = load_cached(DATA)["nic_configuration_operator"]
    return {**{str(k): int(v) for k, v in op["roce_optimized"].items()}, **{p.name: p.value for p in params}}


def operator_raw_nv_config(params: tuple[FirmwareParam, ...]) -> tuple[FirmwareParam, ...]:
    """The fabric's firmware values a roceOptimized NicConfigurationTemplate must carry as rawNvConfig: those its
    own fields do not set (linkType) and that differ from the operator's roceOptimized values."""
    op = load_cached(DATA)["nic_configuration_operator"]
    own = {str(k): int(v) for k, v in op["roce_optimized"].items()}
    return tuple(p for p in params if p.name not in op["from_template"] and own.get(p.name) != p.value)


def operator_template_params() -> frozenset[str]:
    """Firmware parameters a NicConfigurationTemplate sets through its own fields (linkType), not rawNvConfig."""
    return frozenset(str(k) for k in load_cached(DATA)["nic_configuration_operator"]["from_template"])
