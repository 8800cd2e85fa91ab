"""What each test must reach: a documented fraction of the line rate (docs/acceptance.md, "Expectations").

ib_write_bw reports payload bandwidth. A RoCEv2 packet with a 4096-byte payload (the largest RoCE MTU) carries on
the wire: preamble+SFD 8, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4, inter-frame gap 12 bytes
(IEEE 802.3, IBTA RoCEv2 annex A17): 4096 / 4178 = 98.0 % of the line rate is the ceiling. The default minimum,
90 %, leaves room for the host (PCIe, NUMA) while still catching a link that trained at a lower speed, a lossy
cable (retransmits), a missing PFC/ECN setting (drops) or an untuned NIC.

nccl-tests busbw is in GB/s (bytes; nccl-tests doc/PERFORMANCE.md) and "should be independent of the number of
ranks": across servers the slowest hop of a ring is a GPU's own rail NIC, so all_reduce busbw is held against a
fraction of one NIC's rate; alltoall crosses every rail through the spines and is more sensitive to congestion,
so its floor is lower. Both are starting points for a site to tune (`--nccl-efficiency`), not vendor figures.
"""

from __future__ import annotations

ROCE_PAYLOAD, ROCE_WIRE = 4096, 4096 + 8 + 14 + 20 + 8 + 12 + 4 + 4 + 12
ROCE_CEILING = ROCE_PAYLOAD / ROCE_WIRE  # 0.980
BW_EFFICIENCY = 0.90
NCCL_EFFICIENCY = {"all_reduce_perf": 0.75, "alltoall_perf": 0.50}


def bw_expect(speed_mbps: int, efficiency: float = BW_EFFICIENCY) -> float:
    """Minimum Gb/s of a point-to-point test over a link of `speed_mbps`."""
    return round(speed_mbps / 1000 * efficiency, 1)


def nccl_expect(kind: str, nic_mbps: int, efficiency: float | None = None) -> float:
    """Minimum busbw of an NCCL test, in Gb/s (busbw GB/s x 8), from one GPU NIC's rate."""
    eff = NCCL_EFFICIENCY[kind] if efficiency is None else efficiency
    return round(nic_mbps / 1000 * eff, 1)


def check_efficiency(value: float, option: str) -> float:
    from netauto.errors import UsageError

    if not 0 < value <= 1:
        raise UsageError(f"{option} {value}: give a fraction of the line rate, 0 < x <= 1 (e.g. 0.9)")
    return value
