"""nccl-tests output (`all_reduce_perf`, `alltoall_perf`, ...): the per-size table and the summary lines.

Format from NVIDIA/nccl-tests src/util.cu (commit a0b82b2, 2026-07): the header `#  size  count  type  redop  root
time  algbw  busbw  #wrong  time  algbw  busbw  #wrong` with units `(B) (elements) ... (us) (GB/s) (GB/s)`, one row
per size (writeBenchmarkLineBody: out-of-place `time algbw busbw #wrong`, then in-place; `N/A` for #wrong without
-c), and the footer `# Out of bounds values : N OK|FAILED` and `# Avg bus bandwidth    : X` (GB/s, bytes:
doc/PERFORMANCE.md). With per-iteration timing (-I) each half carries four more columns; handled by position of
the header's `busbw` columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netauto.formats.values import finite


class NcclTestsError(ValueError):
    """No nccl-tests result in the text."""


@dataclass(frozen=True, slots=True)
class SizeRow:
    size: int  # bytes
    count: int
    type: str
    out_busbw: float  # GB/s
    in_busbw: float
    out_wrong: str  # "0", "N/A"...


@dataclass(slots=True)
class NcclResult:
    rows: list[SizeRow] = field(default_factory=list)
    avg_busbw: float | None = None  # GB/s, the `Avg bus bandwidth` line
    out_of_bounds: int | None = None
    program: str | None = None

    @property
    def largest_busbw(self) -> float:
        """Out-of-place busbw of the largest size (GB/s)."""
        return max(self.rows, key=lambda r: r.size).out_busbw


_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*([\d.eE+-]+)")
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)")
_START = re.compile(r"^#\s*Collective test starting:\s*(\S+)")


def parse_nccl_tests(text: str) -> NcclResult:
    res = NcclResult()
    cols: list[str] | None = None
    for line in text.splitlines():
        s = line.strip()
        if m := _AVG.match(s):
            try:
                res.avg_busbw = finite(m.group(1))
            except ValueError as e:
                raise NcclTestsError(f"Avg bus bandwidth: {e}") from None
        elif m := _OOB.match(s):
            res.out_of_bounds = int(m.group(1))
        elif m := _START.match(s):
            res.program = m.group(1)
        elif s.startswith("#") and "busbw" in s and "size" in s:
            cols = s.lstrip("#").split()
        elif cols and s and not s.startswith("#"):
            parts = s.split()
            if not parts[0].isdigit() or len(parts) < len(cols):
                continue
            # every row starts with the 5 preamble columns (writeBenchmarkLinePreamble: size count type redop root;
            # alltoall prints "none" and "-1"), so the header's positions hold from the left (a -T timestamp trails)
            busbw = [i for i, c in enumerate(cols) if c == "busbw"]
            try:
                out_bw, in_bw = float(parts[busbw[0]]), float(parts[busbw[-1]])
            except (ValueError, IndexError):
                continue
            try:
                out_bw, in_bw = finite(out_bw), finite(in_bw)
            except ValueError as e:
                raise NcclTestsError(f"busbw of size {parts[0]}: {e}") from None
            res.rows.append(SizeRow(int(parts[0]), int(parts[1]), parts[2], out_bw, in_bw, parts[busbw[0] + 1]))
    if res.avg_busbw is None and not res.rows:
        raise NcclTestsError("no nccl-tests result (`Avg bus bandwidth` or size table)")
    return res
