"""Plan the acceptance tests from the model: which NIC pairs, through which leaves and spines, in which round.

Point-to-point tests (one per NIC pair, both directions are not needed: a write loads the client's transmit and
the server's receive path, and every NIC is a client in one test and a server in another where it can be):
- leaf: a ring over the NICs on each leaf (n >= 3: every NIC in two tests with two different partners, so a
  slow pair names its bad end; n = 2: the one pair);
- spine: through the spines, a ring over the SUs on each rail (NIC i of SU s with NIC i+1 of SU s+1); a fabric of
  one SU pairs rail r with rail r+1 instead (server i with server i+1: leaf r -> spine -> leaf r+1);
- via-<spine> (--per-spine): a ring over each pod's leaves once per spine of the pod, the other spines drained,
  so every leaf-spine bundle is measured on its own, in two tests with two different partner leaves.
- <network> (each storage network: lossless, or lossy with --tool iperf3): every GPU server's storage NIC k with
  NIC k of a storage node (the network's servers that are not GPU servers; the nodes rotate so each is used, and
  a network without one pairs GPU server i with server i+1), through the network's own leaves and spines. A
  storage NIC never meets a compute rail; perftest takes the network's own RoCE class (its servers' host_tos).
- compute planes (docs/compute-planes.md): the leaf, spine and via-<spine> tests of every plane, each plane
  planned by itself over its own NIC ports, leaves and spines (no test crosses planes), ids prefixed `p<p>-`;
  each plane's tests get their own rounds (perftest's listener port is per rail, not per plane).
NCCL (`nccl-tests`): all_reduce_perf and alltoall_perf per SU, then over the whole fabric (more than one SU).

Rounds: first fit, phase by phase; a round never uses a NIC twice, nor (pinned rounds) a leaf-spine bundle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from netauto.acceptance import commands, expect
from netauto.acceptance.model import ALL_REDUCE, ALLTOALL, IPERF3, PERFTEST, AccTest, End, Plan, Round, safe_id
from netauto.errors import NetautoError, UsageError
from netauto.model.cluster import NetworkModel
from netauto.model.compute_planes import network_name, plane_of
from netauto.model.types import FabricModel, Server, Switch

TOOLS = (PERFTEST, IPERF3)
_PHASE_ORDER = {"leaf": 0, "spine": 1, "nccl": 3}  # the catalog's phase order; pinned (via-<spine>), storage: 2


@dataclass(frozen=True, slots=True)
class PlanOptions:
    tool: str = PERFTEST
    efficiency: float = expect.BW_EFFICIENCY
    nccl: bool = True
    nccl_efficiency: float | None = None  # None: per collective (expect.NCCL_EFFICIENCY)
    per_spine: bool = False
    servers: frozenset[str] | None = None  # only these servers (a lab with a subset); None: every server
    bw: commands.BwOptions = field(default_factory=commands.BwOptions)
    iperf3: commands.Iperf3Options = field(default_factory=commands.Iperf3Options)


def rate_gbps(rate: str) -> float:
    """iperf3 `-b` spelling (200M, 1G, 500K, bits/s) in Gb/s."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)", rate.strip(), re.IGNORECASE)
    if not m or float(m.group(1)) <= 0:
        raise UsageError(f"--rate {rate!r}: give iperf3's -b form, e.g. 200M or 1G")
    return float(m.group(1)) * {"": 1e-9, "K": 1e-6, "M": 1e-3, "G": 1.0}[m.group(2).upper()]


def ends_by_leaf(model: FabricModel, servers: frozenset[str] | None = None,
                 network: str = "compute") -> dict[str, list[End]]:
    """Every NIC cabled to an enabled leaf port, per leaf in fabric order (leaves, then servers by SU/index);
    `servers`: only theirs; `network`: the network `model` is (compute, or a network's own fabric)."""
    out: dict[str, list[End]] = {sw.name: [] for sw in model.switches if sw.role == "leaf"}
    ports = {(sw.name, i.name): i for sw in model.switches if sw.role == "leaf" for i in sw.interfaces}
    for srv in model.servers:
        if servers is not None and srv.name not in servers:
            continue
        for r in srv.rails:
            port = ports.get((r.leaf, r.leaf_port))
            if port is None or not port.enabled:
                continue
            out[r.leaf].append(End(srv.name, r.index, r.nic, r.rdma_device, r.ip, r.leaf, r.leaf_port, port.speed_mbps,
                                   network))
    return {k: v for k, v in out.items() if v}


def _ring(items: list, *, closed: bool) -> Iterable[tuple]:
    n = len(items)
    if n == 2 or (n > 2 and not closed):
        yield from ((items[i], items[i + 1]) for i in range(n - 1))
    elif n > 2:
        yield from ((items[i], items[(i + 1) % n]) for i in range(n))


def leaf_pairs(model: FabricModel, leaves: dict[str, list[End]]) -> list[tuple[str, str]]:
    """Pairs of leaves whose NICs meet through the spines: per rail a ring over the SUs, or (one SU) a ring over
    the rails."""
    sw = {s.name: s for s in model.switches if s.name in leaves}
    sus = sorted({s.su for s in sw.values() if s.su is not None})
    if len(sus) > 1:
        pairs = []
        for rail in sorted({s.rail for s in sw.values() if s.rail is not None}):
            ring = [s.name for s in sorted(sw.values(), key=lambda s: s.su or 0) if s.rail == rail]
            pairs += list(_ring(ring, closed=True))
        return pairs
    return list(_ring(list(sw), closed=True))


def _pair_ends(a: list[End], b: list[End]) -> list[tuple[End, End]]:
    """NIC i of leaf a with NIC i+1 of leaf b (never the same server: a host's own NICs talk through its kernel)."""
    out = []
    for i in range(max(len(a), len(b))):
        c = a[i % len(a)]
        s = next((b[(i + k) % len(b)] for k in range(1, len(b) + 1) if b[(i + k) % len(b)].server != c.server), None)
        if s is not None:
            out.append((c, s))
    return out


def _with_tos(opts: PlanOptions, model: FabricModel) -> PlanOptions:
    """`opts` with perftest's ToS: the one given, else the one NCCL uses (NCCL_IB_TC = host_tos: RoCE DSCP << 2 |
    ECT(0)) on `model`'s servers (a storage network: its own `qos:` profile's)."""
    if opts.bw.tclass is not None:
        return opts
    tos = next((s.qos.host_tos for s in model.servers), (26 << 2) | 2)
    return replace(opts, bw=replace(opts.bw, tclass=tos))


def storage_networks(networks: Sequence[NetworkModel], tool: str) -> list[NetworkModel]:
    """The networks the plan tests: storage ones, lossless (RoCE: perftest or iperf3) or lossy with iperf3 (TCP)."""
    return [n for n in networks if n.role == "storage" and (n.qos == "lossless" or tool == IPERF3)]


def _partner(nodes: list[str], start: int, server: str, nic: int, nics: dict[str, dict[int, End]]) -> End | None:
    """NIC `nic` of the first of `nodes` from `start` (round) that is not `server` and has that NIC."""
    for i in range(len(nodes)):
        n = nodes[(start + i) % len(nodes)]
        if n != server and nic in nics[n]:
            return nics[n][nic]
    return None


class Planner:
    def __init__(self, model: FabricModel, opts: PlanOptions, networks: Sequence[NetworkModel] = (),
                 planes: Sequence[FabricModel] = (), network: str = "compute") -> None:
        """`planes`: compute planes 2.. (`ClusterModel.compute_planes`), `model` being plane 1; `network`: the
        compute plane `model` is (a plane's own planner)."""
        if opts.tool not in TOOLS:
            raise UsageError(f"--tool {opts.tool}: choose {' or '.join(TOOLS)}")
        self.model, self.o, self.tclass = model, _with_tos(opts, model), opts.bw.tclass  # tclass: as given
        self.tenant: str | None = None  # a tenant's own planner (tenants: no test crosses tenants)
        self.network = network
        self.prefix = ""  # test id prefix: `p<p>-` on every plane of a multi-plane fabric
        self.leaves = ends_by_leaf(model, opts.servers, network)
        self.networks = storage_networks(networks, opts.tool)
        self.rate = rate_gbps(opts.iperf3.rate) if opts.tool == IPERF3 else 0.0
        self.planes: list[Planner] = []  # every compute plane's own planner (this one first), when more than one
        if planes:
            self.planes = [self]
            for p, fab in enumerate(planes, start=2):
                self.planes.append(Planner(fab, opts, network=network_name(p)))
            for p, sub in enumerate(self.planes, start=1):
                sub.prefix = f"p{p}-"
        self._fabric_of = {sw.name: sub.model for sub in (self.planes or [self]) for sw in sub.model.switches}

    def fabrics(self) -> list[FabricModel]:
        """The fabrics besides `model` whose cables the plan tests: compute planes 2.., then storage networks."""
        return [sub.model for sub in self.planes[1:]] + [n.fabric for n in self.networks]

    def _p2p(self, phase: str, c: End, s: End, via: str | None = None, bw: commands.BwOptions | None = None) -> AccTest:
        base = f"{c.server}-r{c.rail}-{s.server}-r{s.rail}"
        tid = safe_id(f"{self.prefix}{phase}-{base}")
        if self.o.tool == IPERF3:
            cmd = commands.iperf3(c, s, self.o.iperf3)
            exp = round(self.rate * self.o.efficiency, 4)
        else:
            cmd = commands.perftest(tid, c, s, bw or self.o.bw)
            exp = expect.bw_expect(min(c.speed_mbps, s.speed_mbps), self.o.efficiency)
        return AccTest(tid, self.o.tool, c.server, s.server, c.rail, cmd, exp, phase, (c, s), via)

    def leaf_tests(self) -> list[AccTest]:
        return [self._p2p("leaf", c, s) for ends in self.leaves.values() for c, s in _ring(ends, closed=True)]

    def spine_tests(self) -> list[AccTest]:
        seen: set[frozenset] = set()
        out = []
        for a, b in leaf_pairs(self.model, self.leaves):
            for c, s in _pair_ends(self.leaves[a], self.leaves[b]):
                key = frozenset({(c.server, c.rail), (s.server, s.rail)})
                if key not in seen:
                    seen.add(key)
                    out.append(self._p2p("spine", c, s))
        return out

    def pinned_tests(self) -> list[AccTest]:
        """Per pod, a ring over its leaves (by rail, then SU) once per spine of the pod: every leaf-spine bundle in
        two tests with two different partner leaves, so a slow bundle is told from its partners'."""
        out = []
        pods: dict[int, list[Switch]] = {}
        for name in self.leaves:
            sw = self.model.switch(name)
            pods.setdefault(sw.pod, []).append(sw)
        for pod, members in pods.items():
            ring = [sw.name for sw in sorted(members, key=lambda sw: (sw.rail or 0, sw.su or 0))]
            for a, b in _ring(ring, closed=True):
                out += self._through_each_spine(pod, a, b)
        return out

    def _through_each_spine(self, pod: int, a: str, b: str) -> list[AccTest]:
        """Leaf a to leaf b once per spine, through NICs that rotate with the spine (never one server's two)."""
        out = []
        ea, eb = self.leaves[a], self.leaves[b]
        for k, spine in enumerate(pod_spines(self.model, pod)):
            c = ea[k % len(ea)]
            j = k % len(eb)
            s = next((x for x in eb[j:] + eb[:j] if x.server != c.server), None)
            if s is not None:
                out.append(self._p2p(f"via-{spine.name}", c, s, via=spine.name))
        return out

    def network_tests(self) -> list[AccTest]:
        """Per storage network: each GPU server's NIC k with NIC k of a storage node (rotating over the nodes), or,
        without nodes, of the next GPU server; only ends of that network (never a compute rail)."""
        compute = {s.name for s in self.model.servers}
        out = []
        for net in self.networks:
            bw = _with_tos(replace(self.o, bw=replace(self.o.bw, tclass=self.tclass)), net.fabric).bw
            nics: dict[str, dict[int, End]] = {}
            for ends in ends_by_leaf(net.fabric, self.o.servers, net.name).values():
                for e in ends:
                    nics.setdefault(e.server, {})[e.rail] = e
            gpus = [s.name for s in net.fabric.servers if s.name in compute and s.name in nics]
            nodes = [s.name for s in net.fabric.servers if s.name not in compute and s.name in nics]
            for j, g in enumerate(gpus):
                for k, c in sorted(nics[g].items()):
                    s = _partner(nodes or gpus, j + k + (0 if nodes else 1), g, k, nics)
                    if s is not None:
                        out.append(self._p2p(net.name, c, s, bw=bw))
        return out

    def nccl_tests(self) -> list[AccTest]:
        """all_reduce and alltoall per SU, then over the whole fabric: one rank per GPU of each host's own profile,
        held against the slowest node's NIC total (`nccl_slots`, `expect.nccl_expect`)."""
        groups: dict[str, list[str]] = {}
        mine = [s for s in self.model.servers if self.o.servers is None or s.name in self.o.servers]
        prefix = f"{self.tenant}-" if self.tenant else ""
        for srv in mine:
            groups.setdefault(f"{prefix}su{srv.su}", []).append(srv.name)
        if len(groups) > 1:
            groups[f"{prefix}fabric"] = [s.name for s in mine]
        by_server: dict[str, list[End]] = {}
        for ends in (e for sub in (self.planes or [self]) for e in sub.leaves.values()):  # every plane's ports
            for e in ends:
                by_server.setdefault(e.server, []).append(e)
        gpus = {s.name: gpus_of(s) for s in self.model.servers}
        out = []
        for kind in (ALL_REDUCE, ALLTOALL):
            for name, members in groups.items():
                hosts = [h for h in members if h in by_server]
                if len(hosts) < 2:
                    continue
                nics = tuple(e for h in hosts for e in by_server[h])
                node_mbps = min(sum(e.speed_mbps for e in by_server[h]) for h in hosts)
                exp = expect.nccl_expect(kind, node_mbps, self.o.nccl_efficiency)
                out.append(AccTest(safe_id(f"{kind.removesuffix('_perf')}-{name}"), kind, hosts[0], None, None,
                                   commands.nccl(kind, [(h, gpus[h]) for h in hosts]), exp, "nccl", nics,
                                   hosts=tuple(hosts)))
        return out

    def catalog(self) -> list[AccTest]:
        """Every test this fabric can have (the report looks tests up here), in phase order. With tenants: each
        tenant's tests over its own servers only, so no test crosses tenants (their VRFs would not connect)."""
        tests = self._tenant_tests() if self.model.tenants and self.tenant is None else self._own_tests()
        seen: set[str] = set()
        dup = next((t.id for t in tests if t.id in seen or seen.add(t.id)), None)  # type: ignore[func-returns-value]
        if dup:
            raise NetautoError(f"two acceptance tests would share the id {dup!r}: server names that differ only in "
                               "characters outside A-Z a-z 0-9 . _ - (naming.server)")
        return tests

    def _own_tests(self) -> list[AccTest]:
        tests = [t for sub in (self.planes or [self]) for t in sub.leaf_tests() + sub.spine_tests() + sub.pinned_tests()]
        tests += self.network_tests()
        if self.o.tool == PERFTEST:
            tests += self.nccl_tests()
        return tests

    def _tenant_tests(self) -> list[AccTest]:
        out: list[AccTest] = []
        for t in self.model.tenants:
            servers = frozenset(t.servers) if self.o.servers is None else frozenset(t.servers) & self.o.servers
            sub = Planner(self.model, replace(self.o, servers=servers))
            sub.tenant = t.name
            out += sub._own_tests()
        out += self.network_tests()  # the storage networks: one plan over every tenant's GPU servers
        return sorted(out, key=lambda t: _PHASE_ORDER.get(t.phase, 2))

    def plan(self) -> Plan:
        tests = [t for t in self.catalog() if (self.o.per_spine or not t.via) and (self.o.nccl or t.phase != "nccl")]
        rounds: list[Round] = []
        phases: dict[str, list[AccTest]] = {}
        for t in tests:
            phases.setdefault(self._phase_key(t), []).append(t)
        for group in phases.values():
            for rnd in schedule(group, len(rounds)):
                rnd.drain = sorted({s for t in rnd.tests for s in self._drain(t)})
                rounds.append(rnd)
        return Plan(self.model.name, rounds)

    def _phase_key(self, t: AccTest) -> str:
        """Tests of one key share rounds: pinned tests through spine i of every pod run together (pods' spines
        are disjoint), NCCL jobs of one collective and size together."""
        network = t.ends[0].network if t.ends else "compute"
        plane = "" if network == "compute" else f"@{network}"  # a plane's own rounds
        if t.via:
            return f"via#{self._fabric_of[t.via].switch(t.via).index}{plane}"
        if plane_of(network) is None:
            return f"network#{network}"
        return f"{t.phase}{plane}" if t.phase != "nccl" else f"nccl-{t.kind}-{len(t.hosts)}"

    def _drain(self, t: AccTest) -> list[str]:
        if not t.via:
            return []
        fabric = self._fabric_of[t.via]  # the spine's own plane: a drain never touches another plane
        pod = fabric.switch(t.via).pod
        return [s.name for s in pod_spines(fabric, pod) if s.name != t.via]


def gpus_of(srv: Server) -> int:
    """The GPUs of a server's profile (the union of its NICs' `gpus`; one per NIC when the profile names none):
    NCCL runs one rank per GPU (nccl-tests README: one process per GPU, `-g 1`)."""
    return len({g for r in srv.rails for g in r.gpus}) or len(srv.rails)


def pod_spines(model: FabricModel, pod: int) -> list[Switch]:
    return [s for s in model.switches if s.role == "spine" and s.pod == pod]


def resources(t: AccTest) -> set[tuple]:
    """What a test occupies: its NICs (their cables with them) and, pinned, its two leaf-spine bundles."""
    out: set[tuple] = {("nic", e.network, e.server, e.rail) for e in t.ends}
    if t.via:
        out |= {("bundle", e.leaf, t.via) for e in t.ends}
    return out


def schedule(tests: list[AccTest], start: int) -> list[Round]:
    rounds: list[tuple[Round, set[tuple]]] = []
    for t in tests:
        need = resources(t)
        for rnd, used in rounds:
            if not used & need:
                rnd.tests.append(t)
                used |= need
                break
        else:
            rounds.append((Round(start + len(rounds) + 1, [t]), set(need)))
    return [r for r, _ in rounds]


def build(model: FabricModel, opts: PlanOptions, networks: Sequence[NetworkModel] = (),
          planes: Sequence[FabricModel] = ()) -> Plan:
    return Planner(model, opts, networks, planes).plan()
