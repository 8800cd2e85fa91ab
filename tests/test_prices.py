"""prices.unpriced (the warning's part list) and the cost rows' "N unpriced line(s) left out" read the same
lines: the ones the price file does not price, site rows aside (prices.unpriced_lines)."""

from __future__ import annotations

from decimal import Decimal

from netauto import prices
from netauto.bom import TOTAL, Line

TABLE = prices.Prices("CNY", {"SN5600": Decimal(100)})
LINES = [
    Line("compute", "switch", "SN5600 (leaf)", "", 2),
    Line("compute", "switch", "SN9999 (spine)", "", 1),
    Line("compute", "transceiver", "generic 100G optic", "", 4),  # no part number: named by its item
    Line("storage", "switch", "SN5600 (leaf)", "", 1),
    Line("storage", "switch", "SN9999 (spine)", "", 1),
    Line("frontend", "site", "site router port", "", 2),  # the site's end of an upstream link: never priced
    Line(TOTAL, "switch", "SN5600 (leaf)", "", 3),
    Line(TOTAL, "switch", "SN9999 (spine)", "", 2),
    Line(TOTAL, "transceiver", "generic 100G optic", "", 4),
]


def _cost_rows() -> dict[str, str]:
    return {r.split(",")[0]: r.split(",")[2] for r in prices.to_csv(LINES, TABLE).splitlines() if ",cost," in r}


def test_the_warning_and_the_cost_rows_name_the_same_lines() -> None:
    gaps = prices.unpriced_lines(LINES, TABLE)
    assert [(x.network, x.item) for x in gaps] == [
        ("compute", "SN9999 (spine)"), ("compute", "generic 100G optic"), ("storage", "SN9999 (spine)"),
        (TOTAL, "SN9999 (spine)"), (TOTAL, "generic 100G optic")]
    assert prices.unpriced(LINES, TABLE) == ["SN9999", "generic 100G optic"]
    assert _cost_rows() == {"compute": "total (CNY; 2 unpriced line(s) left out)",
                            "storage": "total (CNY; 1 unpriced line(s) left out)",
                            TOTAL: "total (CNY; 2 unpriced line(s) left out)"}


def test_a_fully_priced_bill_has_plain_totals_and_no_warning() -> None:
    table = prices.Prices("CNY", {"SN5600": Decimal(100), "SN9999": Decimal(1)})
    lines = [x for x in LINES if x.category != "transceiver"]
    assert prices.unpriced(lines, table) == [] and prices.unpriced_lines(lines, table) == []
    assert set(prices.to_csv(lines, table).splitlines()[-3:]) == {
        "compute,cost,total (CNY),,,,,201", "storage,cost,total (CNY),,,,,101", "total,cost,total (CNY),,,,,302"}
