"""Prices of a bill of materials: a CSV file `part,unit_price,currency` (hostile input: bounded, typed, one
currency), each bill line priced by its part number, totals per network and overall (`netauto bom --prices`),
and the cost of a growth (`netauto plan --from --to --prices`)."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from netauto.bom import COLUMNS as BOM_COLUMNS
from netauto.bom import TOTAL, Line, part_of
from netauto.errors import InventoryError

MAX_BYTES = 1_000_000
_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+-]{0,63}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# digits, at most 6 decimals: no exponent (Decimal("1e-999999999") is finite and prints as a billion digits),
# no sign, no `_`; up to 10^12
_PRICE = re.compile(r"^(?:\d{1,12}(?:\.\d{1,6})?|1000000000000)$")
COLUMNS = (*BOM_COLUMNS, "unit_price", "total")


@dataclass(frozen=True, slots=True)
class Prices:
    currency: str
    unit: dict[str, Decimal]

    def of(self, part: str) -> Decimal | None:
        return self.unit.get(part) if part else None


def load(path: Path) -> Prices:
    """The price file; any bad row is one error naming the file, the line and the fix."""
    try:
        with path.open("rb") as f:  # never the whole of a huge file or of a pipe that does not end
            raw = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise InventoryError(f"cannot read the price file: {e.strerror}", file=path,
                             hint="give a CSV with the columns part,unit_price,currency") from None
    if len(raw) > MAX_BYTES:
        raise InventoryError(f"price file larger than {MAX_BYTES} bytes", file=path, hint="one row per part")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InventoryError("price file is not UTF-8 text", file=path, hint="save it as UTF-8 CSV") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:  # a cell over the csv module's field limit
        raise InventoryError(f"not a CSV file: {e}", file=path, hint="one row part,unit_price,currency per part") from None
    if not rows or [c.strip() for c in rows[0]] != ["part", "unit_price", "currency"]:
        raise InventoryError("the first row must be part,unit_price,currency", file=path, line=1,
                             hint="write the header row part,unit_price,currency")
    unit: dict[str, Decimal] = {}
    currencies: set[str] = set()
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 3:
            raise InventoryError(f"{len(row)} columns, expected 3", file=path, line=n, hint="part,unit_price,currency")
        part, price, cur = (c.strip() for c in row)
        if not _PART.fullmatch(part):
            raise InventoryError("not a part number (letters, digits, . _ / + -)", file=path, line=n,
                                 hint="e.g. MMS4X00-NS or SN5600")
        if not _PRICE.fullmatch(price):
            raise InventoryError(f"unit price of {part} is not a number from 0 to 10^12", file=path, line=n,
                                 hint="write the price as digits (at most 6 decimals, no sign or exponent), e.g. 14500 or 14500.50")
        value = Decimal(price)
        if not _CURRENCY.fullmatch(cur):
            raise InventoryError(f"currency of {part} is not an ISO 4217 code", file=path, line=n, hint="e.g. CNY, USD")
        if part in unit:
            raise InventoryError(f"{part} is priced twice", file=path, line=n, hint="one row per part")
        currencies.add(cur)
        if len(currencies) > 1:
            raise InventoryError(f"more than one currency ({', '.join(sorted(currencies))})", file=path, line=n,
                                 hint="convert every price to one currency")
        unit[part] = value
    if not unit:
        raise InventoryError("the price file prices nothing", file=path, hint="add rows part,unit_price,currency")
    return Prices(currencies.pop(), unit)


def _money(value: Decimal) -> str:
    return f"{value.normalize():f}"


def totals(lines: list[Line], prices: Prices) -> dict[str, Decimal]:
    """Priced total per network and overall (key "total"), from the priced lines."""
    out: dict[str, Decimal] = {}
    for x in lines:
        unit = prices.of(x.part)
        if unit is not None:
            out[x.network] = out.get(x.network, Decimal(0)) + unit * x.count
    return out


def unpriced_lines(lines: list[Line], prices: Prices) -> list[Line]:
    """The bill lines (of every network and "total") the price file does not price; site rows are never priced."""
    return [x for x in lines if x.category != "site" and prices.of(x.part) is None]


def unpriced(lines: list[Line], prices: Prices) -> list[str]:
    """The parts (or items without a part number) of the lines the price file does not price."""
    return list(dict.fromkeys(x.part or x.item for x in unpriced_lines(lines, prices) if x.network != TOTAL))


def to_csv(lines: list[Line], prices: Prices) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for x in lines:
        unit = prices.of(x.part)
        w.writerow((x.network, x.category, x.item, x.length, x.count, x.part,
                    "" if unit is None else _money(unit), "" if unit is None else _money(unit * x.count)))
    gaps = Counter(x.network for x in unpriced_lines(lines, prices))
    values = totals(lines, prices)
    for net in dict.fromkeys(x.network for x in lines if x.category != "site"):  # priced or not: a row each
        value = values.get(net, Decimal(0))
        label = f"total ({prices.currency})"
        if gaps.get(net):  # a partial sum says so where it is read, not only on stderr
            label = f"total ({prices.currency}; {gaps[net]} unpriced line(s) left out)"
        w.writerow((net, "cost", label, "", "", "", "", _money(value)))
    return buf.getvalue()


def delta_cost(delta: list[tuple[str, str, str, str, int]], prices: Prices) -> tuple[dict[str, Decimal], list[str]]:
    """Cost of a growth's bill delta (its "total" rows) per category (switch, transceiver, cable) and the parts
    of it the price file does not price."""
    cost: dict[str, Decimal] = {}
    missing: list[str] = []
    for net, cat, item, length, d in delta:
        if net != TOTAL or cat == "site":
            continue
        part = part_of(cat, item, length)
        unit = prices.of(part)
        if unit is None:
            missing.append(part or item)
        else:
            cost[cat] = cost.get(cat, Decimal(0)) + unit * d
    return cost, missing


def delta_text(cost: dict[str, Decimal], missing: list[str], currency: str) -> str:
    parts = ", ".join(f"{cat} {value:+,f}" for cat, value in cost.items())
    line = f"cost of the growth: {sum(cost.values(), Decimal(0)):+,f} {currency}" + (f" ({parts})" if parts else "")
    return line + (f"; not priced: {', '.join(missing)}" if missing else "") + "\n"
