"""Benchmark: `netauto deploy --dry-run` over a 40-switch lab, 1 SSH worker vs N workers (root).

    sudo python benchmarks/bench_deploy.py [--mgmt-rtt 0,5,20] [--gate-rtt 20] [--workers 8,16,40] [--repeat 2]

Brings up a lab of the shipped gpu-pod1 design widened to 4 SUs x 8 rails (32 leaves) + 8 spines = 40
switches (1 server per SU), runs the same dry-run (connect over SSH from the lab's mgmt namespace with
host-key checking, read every file, diff) with 1 worker and with N, for every management-network round-trip
time in --mgmt-rtt, prints a table (RTT, workers, seconds, speedup) and always tears the lab down.
Not part of the test run.

Why an added RTT, and why the gate (exit 1 when the best speedup at --gate-rtt is below 8x) is at 20 ms:
- In the lab both SSH ends (the 40 sshd's and this client) share the machine's CPUs (2 on the CI box) and
  the management "network" is a local bridge with ~0.05 ms RTT. A dry-run is then CPU-bound: ~40 ms of CPU
  per switch (about 30 on the sshd side: fork/re-exec, key exchange, bash + tar; about 10 in this client),
  so N workers can at best divide the time by the number of cores. The 0 ms row shows that floor; it is
  printed, not gated. Real switches do their half of the work on their own CPUs, and the deploy host reaches
  them over a management network where each SSH connection costs round trips (TCP, KEX, auth, channel
  open, exec, close: ~7 per switch, measured from the slope of the 1-worker times): that time is what
  workers overlap.
- 20 ms is the gate because it stands for a management network reached across sites or over a VPN/jump
  path, the case the rollout tool is built for; it was fixed before measuring and not tuned to pass. Inside
  one data centre the RTT is lower and the switches' own CPUs (not the deploy host) bound the time.
- --mgmt-rtt adds the round-trip time inside the lab's management namespace with `tc qdisc ... netem delay`
  on every management port (the whole RTT on the mgmt -> device direction). Kernels built without
  sch_netem (this CI kernel has no netem and no modules) get the same RTT from a delay relay started inside
  the management namespace instead: one TCP relay per switch that holds each chunk for RTT/2 in each
  direction and holds the connect for one RTT; the client still verifies each switch's host key under its
  own address. The table says which method was used. The relay is a user-space process on the same CPUs
  (its CPU time is printed): it makes the N-worker times slightly worse than netem would.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

GATE = 8.0
RELAY_BASE_PORT = 22000


def wide_inventory(dst: Path) -> Path:
    """gpu-pod1 with 4 SUs and 8 spines (1 link each): 40 switches."""
    shutil.copytree(REPO / "inventory", dst)
    topo = dst / "topology.yaml"
    text = topo.read_text()
    for old, new in (("sus_per_pod: 1", "sus_per_pod: 4"), ("spines_per_pod: 4", "spines_per_pod: 8"),
                     ("leaf_spine_links: 2 ", "leaf_spine_links: 1 "),
                     ('server: "gpu{index:02d}"', 'server: "su{su}-gpu{index:02d}"')):
        assert old in text, f"inventory/topology.yaml no longer has {old!r}"
        text = text.replace(old, new)
    topo.write_text(text)
    return dst


# ------------------------------------------------------------------------------------------ delay relay


class _Side(asyncio.Protocol):
    """One TCP connection of the relay: what it receives reaches the other side RTT/2 later, in order."""

    def __init__(self, half: float) -> None:
        self.half = half
        self.peer: _Side | None = None
        self.transport: asyncio.Transport | None = None
        self.pending: list = []  # actions that came due before the other side was connected
        self.due = 0.0

    def connection_made(self, transport) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle stalls of the relay's own

    def _later(self, action, *args) -> None:
        loop = asyncio.get_running_loop()
        self.due = max(loop.time() + self.half, self.due + 1e-6)  # strictly increasing: order is kept
        loop.call_at(self.due, self._to_peer, action, args)

    def _to_peer(self, action: str, args: tuple) -> None:
        peer = self.peer
        if peer is None or peer.transport is None:
            self.pending.append((action, args))
            return
        if not peer.transport.is_closing():
            getattr(peer.transport, action)(*args)

    def flush(self) -> None:
        for action, args in self.pending:
            self._to_peer(action, args)
        self.pending = []

    def data_received(self, data: bytes) -> None:
        self._later("write", data)
        # ACK at once, as the netauto client does (connection._QuickAckSocket): a delayed ACK here would let
        # sshd hold its next packet under Nagle, a stall the real path does not have
        self.transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)

    def eof_received(self) -> bool:
        self._later("write_eof")
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._later("close")


async def _relay(rtt: float, upstreams: list[str], base: int) -> None:
    """Inside the mgmt namespace: 127.0.0.1:(base+i) -> upstreams[i]:22, every byte held RTT/2 each way,
    the connect held one RTT (the TCP handshake). Protocol callbacks and timers only: little CPU."""
    loop = asyncio.get_running_loop()
    half = rtt / 2

    def client_side(target: str) -> _Side:
        down = _Side(half)

        async def connect() -> None:
            await asyncio.sleep(rtt)
            up = _Side(half)
            try:
                await loop.create_connection(lambda: up, target, 22)
            except OSError:
                if down.transport is not None:
                    down.transport.close()
                return
            down.peer, up.peer = up, down
            down.flush()

        loop.create_task(connect())
        return down

    servers = [await loop.create_server(lambda ip=ip: client_side(ip), "127.0.0.1", base + i)
               for i, ip in enumerate(upstreams)]
    loop.add_signal_handler(signal.SIGTERM, lambda: os._exit(0))
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


class Delay:
    """The added management-network RTT: netem on the mgmt ports, or the relay where the kernel has no netem."""

    def __init__(self, lab: str, rtt_ms: float, addresses: dict[str, str]) -> None:
        self.ns = f"na-{lab}-mgmt"
        self.rtt_ms = rtt_ms
        self.addresses = addresses
        self.ports: list[str] = []
        self.relay: subprocess.Popen | None = None
        self.method = "none"
        self._patched = None
        self.relay_cpu: float | None = None  # CPU seconds the relay used (it shares the CPUs with the lab)

    def _tc(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.ns, "tc", *args], check=False, capture_output=True,
                              text=True)

    def __enter__(self) -> Self:
        if self.rtt_ms <= 0:
            return self
        links = subprocess.run(["ip", "-n", self.ns, "-o", "link", "show", "master", "br0"], capture_output=True,
                               text=True, check=True).stdout
        ports = [line.split(":")[1].strip().split("@")[0] for line in links.splitlines() if line.strip()]
        first = self._tc("qdisc", "replace", "dev", ports[0], "root", "netem", "delay", f"{self.rtt_ms}ms")
        if first.returncode == 0:
            self.ports = [ports[0]]
            for p in ports[1:]:
                res = self._tc("qdisc", "replace", "dev", p, "root", "netem", "delay", f"{self.rtt_ms}ms")
                if res.returncode != 0:
                    raise RuntimeError(f"tc netem on {p}: {res.stderr.strip()}")
                self.ports.append(p)
            self.method = "tc netem"
            return self
        self._start_relay(first.stderr.strip())
        return self

    def _start_relay(self, why: str) -> None:
        from netauto.deploy import connection

        ips = sorted(set(self.addresses.values()))
        self.relay = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, sys.executable, __file__, "_relay", str(self.rtt_ms), *ips],
            stdout=subprocess.PIPE, text=True)
        line = self.relay.stdout.readline() if self.relay.stdout else ""
        if line.strip() != "ready":
            raise RuntimeError(f"delay relay did not start ({line!r})")
        port_of = {ip: RELAY_BASE_PORT + i for i, ip in enumerate(ips)}
        original = connection.connect_in_netns

        def via_relay(netns, host, port, timeout=10.0):  # same signature as connect_in_netns
            return original(netns, "127.0.0.1", port_of[host], timeout) if netns == self.ns else \
                original(netns, host, port, timeout)

        connection.connect_in_netns = via_relay  # the SSH host name (host-key check) stays the switch's address
        self._patched = original
        self.method = f"delay relay in {self.ns} (no netem: {why.splitlines()[0] if why else 'tc failed'})"

    def __exit__(self, *exc: object) -> None:
        for p in self.ports:
            self._tc("qdisc", "del", "dev", p, "root")
        if self._patched is not None:
            from netauto.deploy import connection

            connection.connect_in_netns = self._patched
        if self.relay is not None:
            try:
                fields = Path(f"/proc/{self.relay.pid}/stat").read_text().rsplit(")", 1)[1].split()
                self.relay_cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                pass
            self.relay.terminate()
            try:
                self.relay.wait(10)
            except subprocess.TimeoutExpired:
                self.relay.kill()


# ---------------------------------------------------------------------------------------------- benchmark


def timed_dry_run(targets, names, creds, workers: int) -> tuple[float, list]:
    from netauto.deploy import run

    t0 = time.perf_counter()
    results = run.dry_run(targets, names, creds, workers)
    return time.perf_counter() - t0, results


def measure(targets, names, creds, counts: list[int], repeat: int) -> dict[int, float]:
    timings: dict[int, list[float]] = {w: [] for w in [1, *counts]}
    for _ in range(repeat):
        for workers in timings:
            sec, results = timed_dry_run(targets, names, creds, workers)
            bad = [(r.device, r.result, r.error) for r in results if r.result != "unchanged"]
            assert not bad, f"unexpected results: {bad[:3]}"
            timings[workers].append(sec)
    return {w: min(t) for w, t in timings.items()}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "_relay":  # internal: the delay relay, inside the mgmt namespace
        asyncio.run(_relay(float(sys.argv[2]) / 1000, sys.argv[3:], RELAY_BASE_PORT))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="8,16,40", help="comma-separated worker counts compared with 1")
    ap.add_argument("--repeat", type=int, default=2, help="runs per setting (the best is reported)")
    ap.add_argument("--mgmt-rtt", default="0,5,20", metavar="MS[,MS...]",
                    help="management-network round-trip times to add, in ms (0: the bare lab)")
    ap.add_argument("--gate-rtt", type=float, default=20.0, metavar="MS",
                    help=f"the RTT whose best speedup must reach {GATE:.0f}x (exit 1 otherwise; see the docstring)")
    ap.add_argument("--lab", help="use this running lab (started from the benchmark's 40-switch inventory) "
                                  "instead of starting one; it is not torn down")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root (it starts a lab)", file=sys.stderr)
        return 2
    from netauto.deploy.lab_access import lab_access
    from netauto.deploy.run import select
    from netauto.deploy.targets import build_targets
    from netauto.lab import runtime
    from netauto.lab.plan import build_plan
    from netauto.pipeline import render

    rtts = [float(r) for r in args.mgmt_rtt.split(",")]
    if args.gate_rtt not in rtts:
        rtts.append(args.gate_rtt)
    counts = [int(w) for w in args.workers.split(",")]
    name = args.lab or f"depbench{os.getpid() % 100000}"
    if not name.startswith(("bench", "dep")):
        print("lab names used by benchmarks start with bench or dep", file=sys.stderr)
        return 2
    rows: list[tuple[float, int, float, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="netauto-bench-deploy-") as tmp:
        inv = wide_inventory(Path(tmp) / "inventory")
        model, artifacts = render(inv)
        try:
            if not args.lab:
                t0 = time.perf_counter()
                runtime.up(build_plan(model, artifacts, name, 1), ssh=True)
                print(f"lab {name}: {len(model.switches)} switches up in {time.perf_counter() - t0:.1f} s")
            access, creds = lab_access(name)
            targets = build_targets(model, artifacts, access)
            names = select(targets, "switches")
            for rtt in rtts:
                switch_ips = {n: targets[n].host for n in names}
                with Delay(name, rtt, switch_ips) as delay:
                    best = measure(targets, names, creds, counts, args.repeat)
                one = best[1]
                for w, sec in best.items():
                    rows.append((rtt, w, sec, one / sec, delay.method))
                relay = f", relay CPU {delay.relay_cpu:.1f} s" if delay.relay_cpu is not None else ""
                print(f"mgmt RTT +{rtt:g} ms ({delay.method}{relay}): " +
                      ", ".join(f"{w} worker(s) {sec:.2f} s" for w, sec in best.items()), flush=True)
        finally:
            if not args.lab:
                runtime.down(name)
    print(f"\ndry-run of {len(names)} switches, best of {args.repeat}, {os.cpu_count()} CPUs "
          f"(load average now {os.getloadavg()[0]:.1f}):\n")
    print("| added mgmt RTT | workers | seconds | speedup |")
    print("|---:|---:|---:|---:|")
    for rtt, w, sec, speedup, _ in rows:
        print(f"| {rtt:g} ms | {w} | {sec:.2f} | {speedup:.1f}x |")
    methods = sorted({m for *_, m in rows if m != "none"})
    if methods:
        print(f"\nRTT added with: {'; '.join(methods)}")
    gate = max(s for rtt, w, _, s, _ in rows if rtt == args.gate_rtt and w != 1)
    verdict = "PASS" if gate >= GATE else "FAIL"
    print(f"\n{verdict}: best speedup at +{args.gate_rtt:g} ms RTT is {gate:.1f}x (required {GATE:.0f}x)")
    return 0 if gate >= GATE else 1


if __name__ == "__main__":
    raise SystemExit(main())
