"""perftest (`ib_write_bw` and the other `*_bw` tools) results: the text report and the `--out_json` file.

Formats from linux-rdma/perftest src/perftest_parameters.h (commit 00b55b6, 2026-07): the table header
`RESULT_FMT_G` " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]" (MiB/sec without
`--report_gbits`: `RESULT_FMT`; MB/sec in releases before 4.5), one row per message size printed with `REPORT_FMT`
" %-7lu    %-10lu       %-7.2lf            %-7.2lf  ...", the table framed by `RESULT_LINE` (dashes). The JSON file
is written by perftest_parameters.c write_test_info_to_file / write_bw_report_to_file:
`{"test_info": {..., "Device": ..., "Link_type": ...}, "results": {"MsgSize", "n_iterations", "BW_peak",
"BW_average", "MsgRate"}}` whose BW values are in the unit of the text report (Gb/s only with --report_gbits: the
JSON does not say which, so the caller states it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netauto.formats import device_json
from netauto.formats.values import finite

MIB_PER_GBIT = 1e9 / (2**20 * 8)  # perftest --help: "Factor=10^9/(2^20*8)=119.2; MiB=Gb_result * factor"
_HEADER = re.compile(r"#bytes\s+#iterations\s+BW peak\[(?P<unit>Gb|MiB|MB)/sec\]\s+BW average\[(?:Gb|MiB|MB)/sec\]")
_ROW = re.compile(r"^\s*(?P<size>\d+)\s+(?P<iters>\d+)\s+(?P<peak>[\d.]+)\s+(?P<avg>[\d.]+)\s+(?P<rate>[\d.]+)")


class PerftestError(ValueError):
    """The text holds no perftest bandwidth report."""


@dataclass(frozen=True, slots=True)
class BwRow:
    size: int  # message size, bytes
    iterations: int
    peak_gbps: float
    average_gbps: float
    msg_rate_mpps: float


@dataclass(slots=True)
class BwReport:
    rows: list[BwRow] = field(default_factory=list)
    device: str | None = None
    errors: list[str] = field(default_factory=list)  # perftest's own complaints (" Couldn't connect ...")

    @property
    def average_gbps(self) -> float:
        """The BW average of the largest message size (what a line-rate test measures)."""
        return max(self.rows, key=lambda r: r.size).average_gbps


def _gbps(value: float, unit: str) -> float:
    if unit == "Gb":
        return value
    if unit == "MiB":
        return value / MIB_PER_GBIT
    return value * 8e6 / 1e9  # MB/sec (10^6 bytes) of releases before 4.5


def parse_bw_text(text: str) -> BwReport:
    """The rows under the BW header (any unit, converted to Gb/s); PerftestError when there is no row."""
    rep = BwReport()
    unit = None
    for line in text.splitlines():
        m = _HEADER.search(line)
        if m:
            unit = m.group("unit")
            continue
        dev = re.match(r"\s*Dual-port\s*:\s*\S+\s+Device\s*:\s*(\S+)", line)
        if dev:
            rep.device = dev.group(1)
        low = line.strip().lower()
        if low.startswith(("couldn't", "failed", "unable", "error")):
            rep.errors.append(line.strip())
        r = _ROW.match(line) if unit else None
        if r and unit:
            try:
                peak, avg, rate = (finite(r[k]) for k in ("peak", "avg", "rate"))
            except ValueError as e:
                raise PerftestError(f"BW row {line.strip()[:60]!r}: {e}") from None
            rep.rows.append(BwRow(int(r["size"]), int(r["iters"]), _gbps(peak, unit), _gbps(avg, unit), rate))
    if not rep.rows:
        raise PerftestError("no `BW average` row" + (f" ({rep.errors[0]})" if rep.errors else ""))
    return rep


def parse_bw_json(text: str, *, gbits: bool = True) -> BwReport:
    """An `--out_json` file; `gbits`: the run used --report_gbits (else the values are MiB/s)."""
    try:
        doc = device_json.loads(text)  # a result file is input: bounded nesting
        res = doc["results"]
        avg = finite(res.get("BW_average", res.get("bw_avg")))
        peak = finite(res.get("BW_peak", avg))
        rate = finite(res.get("MsgRate", 0.0))
        size, iterations = int(finite(res.get("MsgSize", 0))), int(finite(res.get("n_iterations", 0)))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise PerftestError(f"not a perftest --out_json bandwidth file: {e}") from None
    unit = "Gb" if gbits else "MiB"
    row = BwRow(size, iterations, _gbps(peak, unit), _gbps(avg, unit), rate)
    info = doc.get("test_info")
    device = info.get("Device") if isinstance(info, dict) else None
    return BwReport(rows=[row], device=device if isinstance(device, str) else None)
