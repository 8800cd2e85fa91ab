"""prices.unpriced (the warning's part list) and the cost rows' "N unpriced line(s) left out" read the same
lines: the ones the price file does not price, site rows aside (prices.unpriced_lines)."""

from __future__ import annotations

import os
import threading
from decimal import Decimal
from pathlib import Path

import pytest

from netauto import prices
from netauto.bom import TOTAL, Line
from netauto.errors import InventoryError

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


def _load_error(tmp_path: Path, text: str) -> str:
    f = tmp_path / "prices.csv"
    f.write_text(text)
    with pytest.raises(InventoryError) as err:
        prices.load(f)
    return str(err.value)


@pytest.mark.parametrize("price", ["1e-999999999", "1E3", "1_000", "-0", " 12 000", "0x10", "14500.1234567"])
def test_a_price_is_plain_digits_not_an_exponent_or_a_sign(tmp_path: Path, price: str) -> None:
    """Decimal() takes exponents, `_` and signs: 1e-999999999 is finite and in range, and printing it as a money
    cell would write a billion digits; every price is digits with at most 6 decimals, as the hint says."""
    msg = _load_error(tmp_path, f"part,unit_price,currency\nSN5600,{price},CNY\n")
    assert "prices.csv:2" in msg and "unit price of SN5600" in msg, msg


def test_a_cell_larger_than_the_csv_field_limit_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    msg = _load_error(tmp_path, "part,unit_price,currency\nSN5600," + "1" * 200_000 + ",CNY\n")
    assert "prices.csv" in msg, msg


def test_a_price_file_that_never_ends_is_read_only_up_to_the_limit(tmp_path: Path) -> None:
    """A pipe (`--prices <(...)`) or a huge file: read at most MAX_BYTES + 1 bytes, never the whole stream
    (Path.read_bytes() waited for the end of a pipe that never closes, and held a huge file in memory)."""
    fifo = tmp_path / "prices.csv"
    os.mkfifo(fifo)
    result: list[str] = []

    def reader() -> None:
        try:
            prices.load(fifo)
        except InventoryError as e:
            result.append(str(e))

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    with open(fifo, "wb") as w:
        w.write(b"part,unit_price,currency\n" + b"x" * prices.MAX_BYTES)
        w.flush()
        t.join(timeout=20)
        finished = not t.is_alive()
    t.join(timeout=20)  # the writer is closed now: an old reader gets its end of file
    assert finished and result and "larger than" in result[0], result


def test_good_prices_stay_exact(tmp_path: Path) -> None:
    f = tmp_path / "prices.csv"
    f.write_text("part,unit_price,currency\nSN5600,208000,CNY\nMMS4X00-NS,14500.50,CNY\nMFP7E30-N050,0,CNY\n")
    table = prices.load(f)
    assert table.unit == {"SN5600": Decimal(208000), "MMS4X00-NS": Decimal("14500.50"), "MFP7E30-N050": Decimal(0)}


def test_a_network_with_nothing_priced_still_has_its_cost_row() -> None:
    """Every network with priceable lines gets a cost row: one whose parts the file prices none of had no row
    at all (its cost read as absent, not as 0 with its lines left out)."""
    lines = [*LINES[:3], Line("frontend", "switch", "SN4600C leaf", "", 2), *LINES[3:]]
    rows = {r.split(",")[0]: (r.split(",")[2], r.split(",")[-1]) for r in prices.to_csv(lines, TABLE).splitlines() if ",cost," in r}
    assert rows["frontend"] == ("total (CNY; 1 unpriced line(s) left out)", "0"), rows
    assert list(rows) == ["compute", "frontend", "storage", TOTAL], rows
