"""The acceptance plan: rounds of tests that can run at once, each with its command lines and expectation."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

Kind = str  # "ib_write_bw" | "iperf3" | "all_reduce_perf" | "alltoall_perf" | "isolation"
PERFTEST, IPERF3, ALL_REDUCE, ALLTOALL = "ib_write_bw", "iperf3", "all_reduce_perf", "alltoall_perf"
ISOLATION = "isolation"  # a probe between tenants that must fail to connect (acceptance.isolation)
NCCL_KINDS = (ALL_REDUCE, ALLTOALL)
KINDS = (PERFTEST, IPERF3, *NCCL_KINDS, ISOLATION)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_id(text: str) -> str:
    """A test id usable as a file name (RESULTS/<id>.txt): inventory names are hostile text."""
    return _UNSAFE.sub("_", text).lstrip(".") or "_"


@dataclass(frozen=True, slots=True)
class End:
    """One NIC of a point-to-point test: server, rail (a network's NIC index), the RDMA device / netdev and its
    address, and the network it is cabled to ("compute": a rail; else a network of `networks:`)."""

    server: str
    rail: int
    nic: str
    rdma: str
    ip: str
    leaf: str
    leaf_port: str
    speed_mbps: int
    network: str = "compute"


@dataclass(slots=True)
class AccTest:
    id: str
    kind: Kind
    client: str
    server: str | None  # None: an NCCL test (client = the mpirun launcher)
    rail: int | None  # the client NIC's rail; None: NCCL (every rail)
    command: dict[str, str]  # "server"/"client" -> the exact command line run on that side
    expect_gbps: float
    phase: str = "leaf"  # leaf | spine | via-<spine> | <storage network name> | nccl (not in the JSON)
    ends: tuple[End, ...] = ()  # point-to-point: (client, server); NCCL: every NIC of its servers
    via: str | None = None  # the one spine a pinned test crosses (the other spines drained)
    hosts: tuple[str, ...] = ()  # NCCL: the servers of the job
    tenants: tuple[str, ...] = ()  # isolation: (client's tenant, server's tenant)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "client": self.client, "server": self.server, "rail": self.rail,
                "command": dict(self.command), "expect_gbps": self.expect_gbps}


@dataclass(slots=True)
class Round:
    number: int
    tests: list[AccTest]
    drain: list[str] = field(default_factory=list)  # spines drained (graceful shutdown) while this round runs

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"round": self.number, "tests": [t.to_dict() for t in self.tests]}
        if self.drain:
            out["drain"] = list(self.drain)
        return out


@dataclass(slots=True)
class Plan:
    fabric: str
    rounds: list[Round]

    def tests(self) -> list[AccTest]:
        return [t for r in self.rounds for t in r.tests]

    def to_json(self) -> str:
        return json.dumps({"rounds": [r.to_dict() for r in self.rounds]}, indent=2) + "\n"
