"""Every address a device or server takes is unique across the cluster (issue 40, item 1).

A management, loopback, rail, BMC or network address given twice (overrides.devices.<name>.mgmt_ip) is an
inventory error naming both holders, the file, line and key, never a fabric that validates clean.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES, DEFAULT_INVENTORY

from netauto.errors import InventoryError
from netauto.pipeline import build_cluster


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "inventory"
    shutil.copytree(src, dst)
    return dst


def _override(inv: Path, file: str, devices: dict[str, dict[str, str]]) -> None:
    path = inv / file
    data = yaml.safe_load(path.read_text()) if path.exists() else {}
    data.setdefault("overrides", {"devices": {}, "ports": []})
    data["overrides"].setdefault("devices", {}).update(devices)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_duplicate_switch_mgmt_ip_names_both_holders(tmp_path: Path) -> None:
    inv = _copy(DEFAULT_INVENTORY, tmp_path)
    taken = next(sw for sw in build_cluster(inv).compute.switches if sw.name == "su1-r0-leaf").mgmt_address
    _override(inv, "features.yaml", {"su1-r1-leaf": {"mgmt_ip": taken.split("/")[0]}})
    with pytest.raises(InventoryError) as err:
        build_cluster(inv)
    text = str(err.value)
    assert "su1-r0-leaf" in text and "su1-r1-leaf" in text, text
    assert err.value.key == "overrides.devices.su1-r1-leaf.mgmt_ip"
    assert err.value.file is not None and err.value.file.name == "features.yaml" and err.value.line


def test_server_mgmt_ip_on_a_switch_address(tmp_path: Path) -> None:
    """A server given a leaf's loopback: two kinds of address, one error."""
    inv = _copy(DEFAULT_INVENTORY, tmp_path)
    leaf = next(sw for sw in build_cluster(inv).compute.switches if sw.name == "su1-r0-leaf")
    _override(inv, "features.yaml", {"gpu03": {"mgmt_ip": leaf.loopback.split("/")[0]}})
    with pytest.raises(InventoryError) as err:
        build_cluster(inv)
    assert "gpu03" in str(err.value) and "su1-r0-leaf's loopback" in str(err.value)
    assert err.value.key == "overrides.devices.gpu03.mgmt_ip"


@pytest.mark.parametrize("holder", ["bmc", "storage-leaf"])
def test_across_networks(tmp_path: Path, holder: str) -> None:
    """Across networks: a compute leaf given a GPU server's BMC address, or a storage leaf's management address."""
    inv = _copy(EXAMPLES / "cluster-64" / "inventory", tmp_path)
    cluster = build_cluster(inv)
    assert cluster.oob is not None
    leaf = cluster.compute.switches[0].name
    if holder == "bmc":
        ip, other = cluster.oob.bmcs[0].ip, f"{cluster.oob.bmcs[0].device}'s BMC"
    else:
        sw = next(p for p in cluster.networks if p.role == "storage").fabric.switches[0]
        ip, other = sw.mgmt_address.split("/")[0], f"{sw.name}'s management"
    _override(inv, "features.yaml", {leaf: {"mgmt_ip": ip}})
    with pytest.raises(InventoryError) as err:
        build_cluster(inv)
    assert leaf in str(err.value) and other in str(err.value), str(err.value)
    assert err.value.key == f"overrides.devices.{leaf}.mgmt_ip"


def test_shipped_inventories_have_unique_addresses() -> None:
    for inv in (DEFAULT_INVENTORY, EXAMPLES / "cluster-64" / "inventory", EXAMPLES / "cluster-lab" / "inventory"):
        build_cluster(inv)  # raises on a duplicate
