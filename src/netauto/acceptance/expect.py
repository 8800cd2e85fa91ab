"""What each test must reach: a documented fraction of the line rate (docs/acceptance.md, "Expectations").

ib_write_bw reports payload bandwidth. A RoCEv2 packet with a 4096-byte payload (the largest RoCE MTU) carries on
the wire: preamble+SFD 8, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4, inter-frame gap 12 bytes
(IEEE 802.3, IBTA RoCEv2 annex A17): 4096 / 4178 = 98.0 % of the line rate is the ceiling. The default minimum,
90 %, leaves room for the host (PCIe, NUMA) while still catching a link that trained at a lower speed, a lossy
cable (retransmits), a missing PFC/ECN setting (drops) or an untuned NIC.

nccl-tests busbw is in GB/s (bytes; nccl-tests doc/PERFORMANCE.md): it "should be independent of the number of
ranks" and "reflect the speed of the hardware bottleneck". Across servers with one rank per GPU and one NIC per
GPU, NCCL runs one channel per NIC and the bottleneck is the node's network: busbw approaches the sum of its
NICs' rates (8 x 400 Gb/s = 400 GB/s on a DGX H100), not one NIC's. A job that used one NIC of eight would
reach an eighth of it. The pass mark is the slowest node's NIC total (NICs cabled to enabled leaf ports, each at
its port speed) times an efficiency: all_reduce 0.75 (the RoCE payload ceiling 0.98 above, less NCCL's protocol
and the hosts' PCIe/NVLink overheads), alltoall 0.50 (every pair crosses the spines: congestion-sensitive).
The efficiencies are starting points for a site to tune (`--nccl-efficiency`), not vendor figures.
"""

from __future__ import annotations
from netauto.errors import UsageError

ROCE_PAYLOAD, ROCE_WIRE = 4096, 4096 + 8 + 14 + 20 + 8 + 12 + 4 + 4 + 12
ROCE_CEILING = ROCE_PAYLOAD / ROCE_WIRE  # 0.980
BW_EFFICIENCY = 0.90
NCCL_EFFICIENCY = {"all_reduce_perf": 0.75, "alltoall_perf": 0.50}


def bw_expect(speed_mbps: int, efficiency: float = BW_EFFICIENCY) -> float:
    """Minimum Gb/s of a point-to-point test over a link of `speed_mbps`."""
    return round(speed_mbps / 1000 * efficiency, 1)


def nccl_expect(kind: str, node_nic_mbps: int, efficiency: float | None = None) -> float:
    """Minimum busbw of an NCCL test, in Gb/s (busbw GB/s x 8), from a node's NIC total (Mb/s)."""
    eff = NCCL_EFFICIENCY[kind] if efficiency is None else efficiency
    return round(node_nic_mbps / 1000 * eff, 1)


def check_efficiency(value: float, option: str) -> float:
    if not 0 < value <= 1:
        raise UsageError(f"{option} {value}: give a fraction of the line rate, 0 < x <= 1 (e.g. 0.9)")
    return value
