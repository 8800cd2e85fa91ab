"""Did an NCCL job use every NIC of every host, with GPUDirect RDMA? Judged from NCCL's own log
(`NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET`, as the plan's mpirun sets; formats.nccl_log): a busbw that passes
can still come from fewer NICs than cabled (a rail NCCL_IB_HCA leaves out, a NIC down at start), or through host
memory (no GDRDMA: PCIe bounce, CPU load), which the next job with more data would show."""

from __future__ import annotations

from pathlib import Path

from netauto.acceptance.model import AccTest
from netauto.formats.nccl_log import parse_nccl_log


def nccl_log_problems(text: str, expected: dict[str, list[str]]) -> list[str]:
    """One line per problem; `expected`: host (NCCL's short name) -> the RDMA devices of its rail NICs."""
    seen = parse_nccl_log(text)
    out = []
    for host, devices in expected.items():
        got = seen.get(host.split(".")[0])
        if got is None or not got.devices:
            out.append(f"{host}: no `NET/IB : Using` line in the NCCL log (NCCL_DEBUG=INFO not set, or no IB/RoCE "
                       "transport: NCCL fell back to sockets)")
            continue
        listed = {name for name, _ in got.devices.values()}
        if missing := [d for d in devices if d not in listed]:
            out.append(f"{host}: NCCL does not use {', '.join(missing)} (NET/IB lists {', '.join(sorted(listed))})")
        if idle := [d for d in devices if d in listed and d not in got.used_names()]:
            out.append(f"{host}: no NCCL channel through {', '.join(idle)}")
        if not_roce := sorted(name for name, link in got.devices.values() if link != "RoCE"):
            out.append(f"{host}: {', '.join(not_roce)} not RoCE")
        if got.without_gdr:
            out.append(f"{host}: {got.without_gdr} of {got.connections} network connections without GPUDirect RDMA "
                       "(no /GDRDMA: nvidia-peermem loaded? NCCL_NET_GDR_LEVEL?)")
    return out


def nccl_test_problems(test: AccTest, folder: Path) -> list[str]:
    """The problems NCCL's log in an NCCL test's result file (RESULTS/<id>.txt: mpirun's output, NCCL logs to
    stdout) shows for the test's hosts and their planned NICs."""
    path = folder / f"{test.id}.txt"
    if not path.is_file():
        return []
    expected: dict[str, list[str]] = {}
    for e in test.ends:
        expected.setdefault(e.server, []).append(e.rdma)
    return nccl_log_problems(path.read_text(errors="replace"), expected)
