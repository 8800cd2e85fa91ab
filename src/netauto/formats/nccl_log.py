"""NCCL's own log (`NCCL_DEBUG=INFO`, subsystems INIT and NET): which NICs each host's NCCL uses, and through which
NIC and whether with GPUDirect RDMA each channel's network connection runs.

Formats from NVIDIA/nccl (commit 5067397, 2026-06):
* every line: `<hostname>:<pid>:<tid> [<cudaDev>] NCCL INFO <message>` (src/debug.cc, ncclDebugLog);
* src/transport/net_ib/init.cc: `NET/IB : Using [<d>]<dev>:<port>[:<rail>][:<network>]/<link> ...[RO]; OOB <if>:<addr>`,
  `<link>` "IB" or "RoCE" (NCCL_IB_LLSTR), `[d]` the NET device index;
* src/transport/net.cc: `Channel <cc>/<conn> : <rank>[<dev>] -> <rank>[<dev>] [send|receive] via NET/<net>/<netDev>`
  then `(<proxyRank>)` when another rank proxies, `/GDRDMA` when GPUDirect RDMA is used (`(PCI)` its PCI mode),
  `/Shared`.
Lines of other subsystems and levels are skipped; hostile text (a log is output of the servers) is bounded by the
caller and only matched, never interpreted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PREFIX = r"^(?P<host>[^\s:]+):\d+:\d+ \[\d+\] NCCL INFO "
_USING = re.compile(_PREFIX + r"NET/IB : Using(?P<devs>.*?)(?: \[RO\])? ?; OOB ")
_DEV = re.compile(r"\[(?P<idx>\d+)\](?P<name>[A-Za-z0-9_.-]+):(?P<port>\d+)(?::\d*)*/(?P<link>IB|RoCE)\b")
_CHANNEL = re.compile(_PREFIX + r"Channel (?P<ch>\d+)/(?P<conn>\d+) : \d+\[\d+\] -> \d+\[\d+\] "
                      r"\[(?P<dir>send|receive)\] via NET/(?P<net>[A-Za-z0-9_]+)/(?P<dev>\d+)(?:\(\d+\))?"
                      r"(?P<gdr>/GDRDMA)?")


@dataclass(slots=True)
class HostNet:
    """What one host's NCCL reported: its NET/IB devices (index -> name, link layer) and its channels' use."""

    devices: dict[int, tuple[str, str]] = field(default_factory=dict)  # index -> (rdma device, "RoCE" | "IB")
    used: dict[int, int] = field(default_factory=dict)  # device index -> network connections through it
    without_gdr: int = 0  # network connections without /GDRDMA
    connections: int = 0

    def used_names(self) -> set[str]:
        return {self.devices[i][0] for i in self.used if i in self.devices}


def parse_nccl_log(text: str) -> dict[str, HostNet]:
    """Per host name (as NCCL prints it: gethostname up to the first '.'), its NET/IB devices and channels."""
    out: dict[str, HostNet] = {}
    for line in text.splitlines():
        m = _USING.match(line)
        if m:
            host = out.setdefault(m["host"], HostNet())
            for d in _DEV.finditer(m["devs"]):
                host.devices[int(d["idx"])] = (d["name"], d["link"])
            continue
        m = _CHANNEL.match(line)
        if m and m["net"] == "IB":
            host = out.setdefault(m["host"], HostNet())
            dev = int(m["dev"])
            host.used[dev] = host.used.get(dev, 0) + 1
            host.connections += 1
            host.without_gdr += m["gdr"] is None
    return out
