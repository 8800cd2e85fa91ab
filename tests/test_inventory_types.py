"""Inventory numbers and booleans are what YAML typed them: no coercion between them (inventory.base.Strict).

pydantic's lax mode would read `vni: true` as VNI 1, `servers_per_su: yes` as 1 server, `probability: "100"` as 100
and `spines_per_pod: 4.0` as 4: each is an operator's slip (a boolean where a number belongs, a quoted number, a
decimal point on a count), refused here in one line naming file, line, key and fix, through the real CLI (exit 2).
A whole number in a float field (`power_kw: 15`) stays a number: YAML has no other way to write it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES
from pydantic import BaseModel
from test_bad_input import Case, assert_one_clear_error, make_bad_inventory, run_in_process

from netauto.inventory.base import Strict
from netauto.inventory.schema import Inventory

TENANTS = EXAMPLES / "gpu-cloud-tenants" / "inventory"
CLUSTER = EXAMPLES / "cluster-64" / "inventory"

# (inventory, case, a piece of the fix); each loaded without complaint before the rule
CASES: dict[str, tuple[Path, Case, str]] = {
    "topology-int-true": (DEFAULT_INVENTORY, Case(
        "topology.yaml", "servers_per_su: 8", "servers_per_su: true", "servers_per_su", "topology.servers_per_su",
        "expected an integer, got True (a boolean)"), "true/false, yes/no, on/off are YAML booleans"),
    "topology-int-float": (DEFAULT_INVENTORY, Case(
        "topology.yaml", "spines_per_pod: 4", "spines_per_pod: 4.0", "spines_per_pod", "topology.spines_per_pod",
        "expected an integer, got 4.0 (a number)"), "write 4"),
    "topology-float-true": (TENANTS, Case(
        "fabric.yaml", "oversubscription: 2 ", "oversubscription: yes ", "oversubscription", "topology.oversubscription",
        "expected a number, got True (a boolean)"), "YAML booleans"),
    "tenants-vni-true": (TENANTS, Case(
        "fabric.yaml", "      servers: [gpu3, gpu4]\n", "      servers: [gpu3, gpu4]\n      vni: true\n", "vni: true",
        "tenants.members.globex.vni", "expected an integer, got True (a boolean)"), "YAML booleans"),
    "tenants-vni-string": (TENANTS, Case(
        "fabric.yaml", "      servers: [gpu3, gpu4]\n", '      servers: [gpu3, gpu4]\n      vni: "104005"\n', 'vni: "104005"',
        "tenants.members.globex.vni", "expected an integer, got '104005' (a string)"), "write 104005 without quotes"),
    "tenants-rt-asn-string": (TENANTS, Case(
        "fabric.yaml", "route_target_asn: 65000 ", 'route_target_asn: "65000" ', "route_target_asn",
        "tenants.route_target_asn", "expected an integer, got '65000' (a string)"), "without quotes"),
    "qos-int-string": (DEFAULT_INVENTORY, Case(
        "features.yaml", "probability: 100}", 'probability: "100"}', "probability", "qos.ecn.probability",
        "expected an integer, got '100' (a string)"), "write 100 without quotes"),
    "qos-int-on": (DEFAULT_INVENTORY, Case(
        "features.yaml", "polling_interval_ms: 100,", "polling_interval_ms: on,", "polling_interval_ms",
        "qos.pfc_watchdog.polling_interval_ms", "expected an integer, got True (a boolean)"), "YAML booleans"),
    "bool-from-int": (DEFAULT_INVENTORY, Case(
        "addressing.yaml", "vrf: true", "vrf: 1", "vrf: 1", "addressing.management.vrf",
        "expected true or false, got 1 (an integer)"), "write true or false"),
    "bom-int-true": (CLUSTER, Case(
        "bom.yaml", "compute: {server-leaf: 30,", "compute: {server-leaf: true,", "server-leaf: true",
        "bom.cable_length_m.compute.server-leaf", "expected an integer, got True (a boolean)"), "YAML booleans"),
    "hall-float-yes": (CLUSTER, Case(
        "hall.yaml", "power_kw: 15\n", "power_kw: yes\n", "power_kw: yes", "hall.power_kw",
        "expected a number, got True (a boolean)"), "YAML booleans"),
    "hall-int-float": (CLUSTER, Case(
        "hall.yaml", "racks_per_row: 20\n", "racks_per_row: 20.0\n", "racks_per_row", "hall.racks_per_row",
        "expected an integer, got 20.0 (a number)"), "write 20"),
    "hall-model-int-true": (CLUSTER, Case(
        "hall.yaml", "{u: 2,", "{u: true,", "u: true", "hall.models.storage.u",
        "expected an integer, got True (a boolean)"), "YAML booleans"),
    "hall-float-string": (CLUSTER, Case(
        "hall.yaml", "power_kw: 1.5}", 'power_kw: "1.5"}', 'power_kw: "1.5"', "hall.models.storage.power_kw",
        "expected a number, got '1.5' (a string)"), "write 1.5 without quotes"),
    # Literal[1, 2, 4]: strict mode alone takes True and 2.0 there (True == 1 == 1.0 in Python)
    "literal-int-float": (EXAMPLES / "b300-2plane" / "inventory", Case(
        "fabric.yaml", "compute_planes: {count: 2,", "compute_planes: {count: 2.0,", "compute_planes",
        "topology.compute_planes.count", "expected an integer, got 2.0 (a number)"), "write 2"),
    "literal-int-on": (CLUSTER, Case(
        "networks.yaml", "downlinks_breakout: 2, uplinks_first: 33}", "downlinks_breakout: on, uplinks_first: 33}",
        "downlinks_breakout: on", "networks.storage.ports.spine.downlinks_breakout",
        "expected an integer, got True (a boolean)"), "YAML booleans"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_no_coercion_between_numbers_strings_and_booleans(name, tmp_path, capsys, monkeypatch):
    base, case, fix = CASES[name]
    inv, line = make_bad_inventory(tmp_path, case, base)
    code, out, err = run_in_process(["render", "-i", str(inv), "-o", str(tmp_path / "out")], capsys, monkeypatch)
    assert_one_clear_error(code, out, err, case, line)
    assert fix in err, err
    assert not (tmp_path / "out").exists()


def _models(model: Any, seen: set[type]) -> None:
    """Every pydantic model reachable from `model`'s fields (lists, dicts, optionals unwrapped)."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        if model in seen:
            return
        seen.add(model)
        for field in model.model_fields.values():
            _models(field.annotation, seen)
    elif get_origin(model) is not None:  # list[...], dict[..., ...], X | None, Annotated[...]
        for arg in get_args(model):
            _models(arg, seen)


def test_every_inventory_model_takes_the_one_rule():
    """The rule is the base's config: a section model that is not a Strict would coerce again."""
    seen: set[type] = set()
    _models(Inventory, seen)
    assert len(seen) > 40
    assert [m.__name__ for m in seen if not issubclass(m, Strict) and m is not Inventory] == []
    assert all(m.model_config.get("strict") is True for m in seen)
