"""Result files in the tools' own formats, for the acceptance tests (and the shipped samples in examples/).

perftest: the printf formats of linux-rdma/perftest src/perftest_parameters.c / .h (commit 00b55b6):
ctx_print_test_info's lines, RESULT_LINE, RESULT_FMT_G, REPORT_FMT (-D: "BW peak won't be measured", peak 0.00).
nccl-tests: NVIDIA/nccl-tests src/util.cu (commit a0b82b2): header lines, writeBenchmarkLinePreamble
"%12li  %12li  %8s  %6s  %6s", writeBenchmarkLineBody "  %7s  %6s  %6s  %6g", writeResultFooter.
iperf3: tests/data/acceptance/iperf3-200M.json, recorded from iperf 3.12 here (loopback, -b 200M -J).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from netauto.acceptance.model import ALL_REDUCE, IPERF3, NCCL_KINDS, PERFTEST, AccTest, End

DATA = Path(__file__).parent / "data" / "acceptance"
LINE = "-" * 87 + "\n"
REPORT_FMT = " %-7lu    %-10lu       %-7.2f            %-7.2f\t\t     %-7.6f"


def perftest_text(device: str, gbps: float, qps: int = 4) -> str:
    head = (LINE + "                    RDMA_Write BW Test\n"
            f" Dual-port       : OFF\t\tDevice         : {device}\n"
            f" Number of qps   : {qps}\t\tTransport type : IB\n"
            " Connection type : RC\t\tUsing SRQ      : OFF\n PCIe relax order: ON\n ibv_wr* API     : ON\n"
            " TX depth        : 128\n CQ Moderation   : 100\n Mtu             : 4096[B]\n Link type       : Ethernet\n"
            " GID index       : 3\n Max inline data : 0[B]\n rdma_cm QPs\t : OFF\n Data ex. method : Ethernet\n" + LINE)
    addr = " local address: LID 0000 QPN 0x0108 PSN 0x5b1c2e RKey 0x1fffbd VAddr 0x007f3a5c000000\n" \
           " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:00:00:01\n"
    iters = int(gbps * 1e9 * 10 / 8 / 65536)
    rows = (" WARNING: BW peak won't be measured in this run.\n" + LINE +
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n" +
            REPORT_FMT % (65536, iters, 0.0, gbps, gbps * 1e9 / 8 / 65536 / 1e6) + "\n" + LINE)
    return head + addr * qps + rows


def perftest_json(device: str, gbps: float) -> str:
    """write_test_info_to_file + write_bw_report_to_file (REPORT_FMT_JSON), as perftest writes it."""
    return ("{\n\"test_info\": {\n\"test\": \"RDMA_Write_BW_Test\",\n\"Dual_port\": \"OFF\",\n"
            f"\"Device\": \"{device}\",\n\"Number_of_qps\": 4,\n\"Transport_type\": \"IB\",\n"
            "\"Connection_type\": \"RC\",\n\"Using_SRQ\": \"OFF\",\n\"PCIe_relax_order\": \"ON\",\n\"ibv_wr_API\": \"ON\",\n"
            "\"TX_depth\": 128,\n\"CQ_Moderation\": 100,\n\"Mtu\": 4096,\n\"Link_type\": \"Ethernet\",\n\"GID_index\": 3,\n"
            "\"Max_inline_data\": 0,\n\"rdma_cm_QPs\": \"OFF\",\n\"Use_ROCm_memory\": \"OFF\",\n"
            "\"Use_MUSA_memory\": \"OFF\",\n\"Data_ex_method\": \"Ethernet\"\n},\n\"results\": {\n"
            f"\"MsgSize\": 65536,\n\"n_iterations\": {int(gbps * 1e9 * 10 / 8 / 65536)},\n\"BW_peak\": 0.00,\n"
            f"\"BW_average\": {gbps:.2f},\n\"MsgRate\": {gbps * 1e9 / 8 / 65536 / 1e6:.6f}\n}}\n}}\n")


def nccl_text(kind: str, busbw_gbytes: float, ranks: int = 16) -> str:
    op, typ = ("sum", "float") if kind == ALL_REDUCE else ("none", "float")
    lines = ["# nccl-tests version 2.17.1 nccl-headers=22703 nccl-library=22703",
             f"# Collective test starting: {kind}",
             "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 20 "
             "agg iters: 1 validation: 1 graph: 0 unalign: 0", "#", "# Using devices", "#",
             "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " % (
                 "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"),
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " % (
                 "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")]
    factor = 2 * (ranks - 1) / ranks if kind == ALL_REDUCE else (ranks - 1) / ranks
    size, total = 1 << 30, []
    while size <= 1 << 34:
        bus = busbw_gbytes * (0.9 if size < 1 << 34 else 1.0)
        alg = bus / factor
        t = size / (alg * 1e9) * 1e6
        pre = "%12li  %12li  %8s  %6s  %6s" % (size, size // 4, typ, op, "-1")
        body = "  %7s  %6s  %6s  %6g" % (f"{t:.0f}", f"{alg:.2f}", f"{bus:.2f}", 0)
        lines.append(pre + body + body)
        total.append(bus)
        size <<= 1
    lines += ["# %-20s : %d %s" % ("Out of bounds values", 0, "OK"),
              "# %-20s : %g %s" % ("Avg bus bandwidth", round(sum(total) / len(total), 4), ""), "#",
              f"# Collective test concluded: {kind}", "#"]
    return "\n".join(lines) + "\n"


def nccl_debug(t: AccTest) -> str:
    """NCCL_DEBUG=INFO lines of a healthy job (NVIDIA/nccl formats: formats/nccl_log.py): every host lists its
    planned NICs and carries one GPUDirect channel (send and receive) through each."""
    lines = []
    hosts: dict[str, list[str]] = {}
    for e in t.ends:
        hosts.setdefault(e.server, []).append(e.rdma)
    for h, devs in hosts.items():
        lines.append(f"{h}:100:101 [0] NCCL INFO NET/IB : Using" + "".join(f" [{i}]{d}:1/RoCE" for i, d in enumerate(devs))
                     + " [RO]; OOB eth0:192.0.2.1<0>")
        for i in range(len(devs)):
            for way in ("send", "receive"):
                lines.append(f"{h}:100:102 [{i}] NCCL INFO Channel {i:02d}/0 : {i}[{i}] -> {8 + i}[{i}] [{way}] "
                             f"via NET/IB/{i}/GDRDMA")
    return "\n".join(lines) + "\n"


def iperf3_json(gbps: float) -> str:
    doc = json.loads((DATA / "iperf3-200M.json").read_text())
    scale = gbps * 1e9 / doc["end"]["sum_received"]["bits_per_second"]
    for key in ("sum_received", "sum_sent"):
        doc["end"][key]["bits_per_second"] *= scale
    return json.dumps(doc)


def write_results(folder: Path, tests: list[AccTest], gbps_of, *, json_too: bool = False) -> None:
    """One result file per test, at `gbps_of(test)` Gb/s (busbw for NCCL: Gb/s / 8 GB/s); None: no file."""
    folder.mkdir(parents=True, exist_ok=True)
    for t in tests:
        g = gbps_of(t)
        if g is None:
            continue
        if t.kind == PERFTEST:
            dev = t.ends[0].rdma
            (folder / f"{t.id}.txt").write_text(perftest_text(dev, g))
            if json_too:
                (folder / f"{t.id}.json").write_text(perftest_json(dev, g))
        elif t.kind == IPERF3:
            (folder / f"{t.id}.txt").write_text(iperf3_json(g))
        elif t.kind in NCCL_KINDS:
            (folder / f"{t.id}.txt").write_text(nccl_debug(t) + nccl_text(t.kind, g / 8, ranks=8 * len(t.hosts)))


def report_cli(inventory: Path, folder: Path, fmt: str) -> subprocess.CompletedProcess:
    """`netauto acceptance report -i INVENTORY FOLDER --format FMT`, run as the operator runs it."""
    return subprocess.run([sys.executable, "-c", "from netauto.cli import main; main()", "acceptance", "report", "-i",
                           str(inventory), str(folder), "--format", fmt], capture_output=True, text=True, timeout=300)


def bad_nic_results(folder: Path, tests: list[AccTest], bad: End) -> None:
    """Result files where every perftest through NIC `bad` (its network, server, rail) is at 40 Gb/s and every
    other one just above its minimum; no NCCL results."""
    key = (bad.network, bad.server, bad.rail)
    write_results(folder, tests, lambda t: None if t.kind != PERFTEST else
                  (40.0 if key in {(e.network, e.server, e.rail) for e in t.ends} else 0.95 * t.expect_gbps / 0.9))
