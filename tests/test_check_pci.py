"""inventory.base.check_pci: the one PCI address check of every inventory section (rail NICs, plane ports,
the older `servers.pci` list, networks' NICs)."""

import pytest

from netauto.inventory.base import check_pci


@pytest.mark.parametrize("value,expected", [
    ("0000:18:00.0", "0000:18:00.0"),
    ("0000:C0:00.1", "0000:c0:00.1"),
    ("ABCD:ef:1f.7", "abcd:ef:1f.7"),
])
def test_accepted(value, expected):
    assert check_pci(value) == expected


@pytest.mark.parametrize("value", ["18:00.0", "0000:18:00.8", "0000:18:00", "0000:18:00.0 ", "0000:g8:00.0",
                                   "0000:18:00.0\n", "00000:18:00.0"])
def test_refused_with_an_example(value):
    with pytest.raises(ValueError, match=r"is not a PCI address like 0000:29:00\.0 \(domain:bus:device\.function\)"):
        check_pci(value, "0000:29:00.0")
