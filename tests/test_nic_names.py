"""Rail NIC names (issue 23 item 4) and the DGX H100 RDMA devices of the examples (item 5): a rail NIC netauto
renames may not take a name in the kernel's own namespaces (eth*, ib*, en*, systemd.link(5)), unless the
inventory declares the names to be the host's own predictable names (nic_names: kernel); every example pairs a
DGX H100 PCI address with that NIC's RDMA device as the shipped DGX profile does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, EXAMPLES

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.model.resolve import resolve
from netauto.model.resolve import checked

LEAF_SUBNET = EXAMPLES / "2su-leaf-subnet" / "inventory"


def _copy(tmp_path: Path, src: Path, old: str, new: str, name: str = "fabric.yaml") -> Path:
    dst = tmp_path / "inv"
    shutil.copytree(src, dst)
    f = dst / name
    text = f.read_text()
    assert old in text, old
    f.write_text(text.replace(old, new))
    return dst


def test_rail_nics_renamed_into_eth_are_refused_naming_them(tmp_path: Path):
    inv = _copy(tmp_path, LEAF_SUBNET, "nics: [rail0, rail1, rail2, rail3, rail4, rail5, rail6, rail7]",
                "nics: [eth0, eth1, eth2, eth3, eth4, eth5, eth6, eth7]")
    with pytest.raises(InventoryError) as exc:
        resolve(load_inventory(inv))
    text = str(exc.value)
    assert "eth0, eth1, eth2, eth3, eth4, eth5, eth6, eth7" in text and "servers.nics" in text
    assert "fabric.yaml:" in text and "nic_names: kernel" in text


@pytest.mark.parametrize("name", ["ib0", "enp24s0np0", "eth9"])
def test_a_profile_nic_in_the_kernel_namespace_is_refused(tmp_path: Path, name: str):
    inv = _copy(tmp_path, DEFAULT_INVENTORY, "name: rail0,", f"name: {name},", "topology.yaml")
    with pytest.raises(InventoryError) as exc:
        resolve(load_inventory(inv))
    assert name in str(exc.value) and "servers.profiles.dgx-h100.nics" in str(exc.value)


def test_kernel_names_declared_as_such_are_not_renamed_and_pass_host06(tmp_path: Path):
    from netauto.pipeline import validate

    inv = _copy(tmp_path, LEAF_SUBNET, "nics: [rail0, rail1, rail2, rail3, rail4, rail5, rail6, rail7]",
                "nics: [enp24s0np0, enp64s0np0, enp79s0np0, enp94s0np0, enp154s0np0, enp192s0np0, enp206s0np0, "
                "enp220s0np0]\n  nic_names: kernel")
    text = (inv / "fabric.yaml").read_text()
    # without PCI addresses the NIC Configuration Operator cannot own the firmware (its template selects by PCI)
    text = text.replace("nic_config: nic-configuration-operator", "nic_config: netauto")
    (inv / "fabric.yaml").write_text("\n".join(line for line in text.splitlines() if not line.startswith("  pci:")) + "\n")
    model = resolve(load_inventory(inv))
    assert all(r.match == "kernel" for s in model.servers for r in s.rails)
    result = validate(inv, external=False, simulate=False)
    assert not [f for f in result.findings if f.rule == "HOST-06"], [f.message for f in result.findings]


def test_host06_offers_the_fix_for_an_unresolvable_nic(tmp_path: Path):
    from netauto.pipeline import validate

    inv = _copy(tmp_path, LEAF_SUBNET, "  pci: [", "  # pci: [")
    f = inv / "fabric.yaml"  # no PCI: the host scripts own the firmware (the operator's template selects by PCI)
    f.write_text(f.read_text().replace("nic_config: nic-configuration-operator", "nic_config: netauto"))
    result = validate(inv, external=False, simulate=False)
    msgs = [f.message for f in result.findings if f.rule == "HOST-06"]
    assert msgs and all("nic_names: kernel" in m and "pci" in m for m in msgs if "unresolvable" in m)


def _dgx_rdma() -> dict[str, str]:
    prof = checked(load_inventory(DEFAULT_INVENTORY)).profiles["dgx-h100"]
    return {n.pci: n.rdma for n in prof.nics if n.pci}


@pytest.mark.parametrize("inv", sorted(p for p in EXAMPLES.glob("*/inventory")) + [DEFAULT_INVENTORY],
                         ids=lambda p: p.parent.name)
def test_examples_pair_dgx_h100_pci_addresses_with_their_rdma_devices(inv: Path):
    want = _dgx_rdma()
    assert sorted(want.values(), key=lambda d: int(d.split("_")[1])) == \
        ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]
    for name, prof in checked(load_inventory(inv)).profiles.items():
        for nic in prof.nics:
            if nic.pci in want:
                assert nic.rdma == want[nic.pci], (inv, name, nic.pci, nic.rdma)
