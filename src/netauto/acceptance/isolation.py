"""Tenant isolation probes (docs/tenants.md, "Acceptance"): tests that must FAIL to connect.

For each tenant and the next one (a ring over the tenants: every tenant probes one other and is probed by one; two
tenants probe each other), on every rail: from the tenant's first server's rail NIC to the other tenant's first
server's NIC of the same rail, an ICMP echo from the rail's address (`ping -I`, the host's per-rail routing
table). Both sit on the same leaf of a rail-optimized fabric when the servers share a scalable unit, so the probe
crosses the place where the two VRFs meet. The VRFs route nothing between tenants, so no reply may come back: a
reply fails the test, naming both tenants and servers. A probe without ping's summary line did not run and fails
too (it proves nothing). The per-VRF route simulation (SIM-05) proves every pair offline; these probes prove the
switches' forwarding agrees, a handful per tenant.
"""

from __future__ import annotations

import shlex

from netauto.acceptance.model import ISOLATION, AccTest, End, safe_id
from netauto.formats.ping import PingError, parse_ping
from netauto.model.types import FabricModel

PROBE = "ping -c 3 -W 1 -q -I {src} {dst}"  # iputils: 3 echoes, 1 s each, summary only, from the rail's address


def _ring(names: list[str]) -> list[tuple[str, str]]:
    if len(names) < 2:
        return []
    return [(names[i], names[(i + 1) % len(names)]) for i in range(len(names) if len(names) > 2 else 2)]


def isolation_tests(model: FabricModel, leaves: dict[str, list[End]]) -> list[AccTest]:
    """`leaves`: the NICs the plan may use (ends_by_leaf: a lab's subset of servers)."""
    ends = {(e.server, e.rail): e for nics in leaves.values() for e in nics}
    first: dict[str, str] = {}
    for t in model.tenants:
        srv = next((s for s in t.servers if any(k[0] == s for k in ends)), None)
        if srv is not None:
            first[t.name] = srv
    out = []
    for a, b in _ring(list(first)):
        rails = sorted({r for s, r in ends if s == first[a]} & {r for s, r in ends if s == first[b]})
        for rail in rails:
            c, s = ends[(first[a], rail)], ends[(first[b], rail)]
            tid = safe_id(f"isolation-{a}-{c.server}-r{rail}-{b}-{s.server}")
            cmd = {"client": PROBE.format(src=shlex.quote(c.ip), dst=shlex.quote(s.ip))}
            out.append(AccTest(tid, ISOLATION, c.server, s.server, rail, cmd, 0.0, "isolation", (c, s),
                               tenants=(a, b)))
    return out


def judge_isolation(test: AccTest, text: str, name: str) -> tuple[bool, str]:
    """(passed, detail) of one probe's output: passed only when echoes went out and none came back."""
    a, b = (test.tenants + ("?", "?"))[:2]
    try:
        got = parse_ping(text)
    except PingError as e:
        return False, f"{name}: {e}: isolation of {a} from {b} not shown"
    if got.received:
        return False, (f"tenant isolation broken: {test.client} (tenant {a}) reached {test.server} (tenant {b}) on rail "
                       f"{test.rail}: {got.received} of {got.transmitted} echoes answered")
    if not got.transmitted:
        return False, f"{name}: no echo sent: isolation of {a} from {b} not shown"
    return True, f"{name}: {test.client} (tenant {a}) -> {test.server} (tenant {b}): 0 of {got.transmitted} answered"
