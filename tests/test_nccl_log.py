"""NCCL's own log (NCCL_DEBUG=INFO) read for the NICs and GPUDirect RDMA a job used (issue 34 item 2).

tests/data/acceptance/nccl-debug-info-2node.log is written in NCCL's line formats (NVIDIA/nccl 5067397: debug.cc
prefix, net_ib/init.cc `NET/IB : Using`, transport/net.cc `Channel ... via NET/IB/<dev>[(proxy)][/GDRDMA][/Shared]`);
no GPU runs here, so it was not captured from a job. Hand-checked: su1-gpu01 carries channels 0-7 on NICs 0-7, all
GPUDirect; su1-gpu02 lists the same 8 NICs but its channels 4-7 ride NICs 0-3 (rails 4-7 idle: mlx5_6, mlx5_9,
mlx5_10, mlx5_11), and NIC 3's four connections (channels 3 and 7, send and receive) lack /GDRDMA."""

from __future__ import annotations

from pathlib import Path

from netauto.acceptance.nccl_check import nccl_log_problems
from netauto.formats.nccl_log import parse_nccl_log

LOG = (Path(__file__).parent / "data/acceptance/nccl-debug-info-2node.log").read_text()
DGX = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]


def test_parse_devices_channels_and_gdr():
    got = parse_nccl_log(LOG)
    assert set(got) == {"su1-gpu01", "su1-gpu02"}
    one, two = got["su1-gpu01"], got["su1-gpu02"]
    assert one.devices == {i: (d, "RoCE") for i, d in enumerate(DGX)}
    assert one.used == {i: 2 for i in range(8)} and one.connections == 16 and one.without_gdr == 0
    assert two.used == {0: 4, 1: 4, 2: 4, 3: 4} and two.without_gdr == 4
    assert two.used_names() == {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5"}


def test_problems_name_the_idle_nics_and_the_missing_gdr():
    assert nccl_log_problems(LOG, {"su1-gpu01": DGX, "su1-gpu02": DGX, "su1-gpu03": DGX}) == [
        "su1-gpu02: no NCCL channel through mlx5_6, mlx5_9, mlx5_10, mlx5_11",
        "su1-gpu02: 4 of 16 network connections without GPUDirect RDMA (no /GDRDMA: nvidia-peermem loaded? "
        "NCCL_NET_GDR_LEVEL?)",
        "su1-gpu03: no `NET/IB : Using` line in the NCCL log (NCCL_DEBUG=INFO not set, or no IB/RoCE transport: "
        "NCCL fell back to sockets)",
    ]
    assert nccl_log_problems(LOG, {"su1-gpu01": DGX}) == []
    # a NIC the host has but NCCL does not list (NCCL_IB_HCA left it out)
    assert nccl_log_problems(LOG, {"su1-gpu01.example.net": [*DGX, "mlx5_12"]}) == [
        "su1-gpu01.example.net: NCCL does not use mlx5_12 (NET/IB lists " + ", ".join(sorted(DGX)) + ")"]


def test_other_lines_and_hostile_text_are_skipped():
    assert parse_nccl_log("garbage\n\x1b[31mNCCL INFO NET/IB : Using [0]x:1/RoCE; OOB\n") == {}
    assert parse_nccl_log("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n") == {}
