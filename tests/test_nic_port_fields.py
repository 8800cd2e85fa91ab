"""A rail NIC (servers.profiles.*.nics[]) and its port on a further compute plane (plane_ports) name a NIC port
the same way: one set of field types (inventory/base.py), so the two refuse the same values with the same words."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from netauto.inventory.base import Strict
from netauto.inventory.compute_planes import PlanePort
from netauto.inventory.servers import RailNic

GOOD = {"name": "rail0", "rdma": "mlx5_0", "pci": "0000:18:00.0"}
MODELS = {"rail-nic": (RailNic, {"rail": 0}, "0000:18:00.0"), "plane-port": (PlanePort, {}, "0000:18:00.1")}


def _error(model: type, extra: dict[str, Any], **change: str) -> str:
    with pytest.raises(ValidationError) as info:
        model(**{**GOOD, **extra, **change})
    (err,) = info.value.errors()
    return f"{'.'.join(map(str, err['loc']))}: {err['msg']}"


@pytest.mark.parametrize("kind", MODELS)
def test_accepted_and_pci_lower_cased(kind: str) -> None:
    model, extra, _ = MODELS[kind]
    port = model(**{**GOOD, **extra, "pci": "0000:C0:00.1"})
    assert (port.name, port.rdma, port.pci) == ("rail0", "mlx5_0", "0000:c0:00.1")
    assert model(**{**GOOD, **extra, "pci": None}).pci is None


@pytest.mark.parametrize("kind", MODELS)
def test_pci_refused_with_the_models_example(kind: str) -> None:
    model, extra, example = MODELS[kind]
    assert _error(model, extra, pci="18:00.0") == (
        f"pci: Value error, '18:00.0' is not a PCI address like {example} (domain:bus:device.function)")


@pytest.mark.parametrize("kind", MODELS)
def test_rdma_name_within_an_interface_names_15_characters(kind: str) -> None:
    """RdmaName alone allows 32 characters; a NIC port's RDMA device is held to 15 (check_ifname)."""
    model, extra, _ = MODELS[kind]
    assert model(**{**GOOD, **extra, "rdma": "m" * 15}).rdma == "m" * 15
    assert _error(model, extra, rdma="m" * 16) == (
        f"rdma: Value error, '{'m' * 16}' is not a valid Linux interface name (1-15 chars)")


@pytest.mark.parametrize("kind", MODELS)
@pytest.mark.parametrize("field,value", [("name", "rail 0"), ("name", "r" * 16), ("name", ".."), ("rdma", "-mlx5")])
def test_names_refused_alike(kind: str, field: str, value: str) -> None:
    model, extra, _ = MODELS[kind]
    assert _error(model, extra, **{field: value}) == _error(RailNic, {"rail": 0}, **{field: value})
    assert _error(model, extra, **{field: value}).startswith(f"{field}: ")


def test_one_set_of_field_types() -> None:
    """The twin validator stubs are gone: both models hold the same annotated types and no field validator of
    their own (the inventory base's, which every model inherits, aside)."""
    inherited = set(Strict.__pydantic_decorators__.field_validators)
    for field in ("name", "rdma", "pci"):
        rail, plane = RailNic.model_fields[field], PlanePort.model_fields[field]
        assert rail.annotation == plane.annotation or field == "pci"
    for model in (RailNic, PlanePort):
        assert not set(model.__pydantic_decorators__.field_validators) - inherited
