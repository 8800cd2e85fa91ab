"""`netauto lab check`: BGP sessions Established, ECMP width in the kernel, pings across the fabric.

Polling is cheap: one thread setns()es into each switch's netns and counts ESTABLISHED TCP/179
connections in /proc/thread-self/net/tcp{,6}; only a switch whose count looks complete is confirmed with
one `vtysh ... show bgp summary json` (lab-notes §2.4).
"""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable
import ipaddress

from netauto.formats import device_json
from netauto.formats.bgp_summary import BgpSummary, parse_bgp_summary
from netauto.formats.routes import route_widths
from netauto.lab import netns
from netauto.lab.runtime import vtysh


@dataclass(slots=True)
class Result:
    kind: str  # "bgp" | "ecmp" | "ping" | "drain"
    device: str
    item: str
    expected: str
    actual: str
    ok: bool


@dataclass(slots=True)
class CheckReport:
    results: list[Result] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    forwarded: dict[str, int] = field(default_factory=dict)  # switch -> IPv4 packets forwarded during the pings

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def failures(self) -> list[Result]:
        return [r for r in self.results if not r.ok]


def _summary(st: dict[str, Any], dev: str) -> BgpSummary | None:
    try:
        p = vtysh(st, dev, "show bgp vrf default ipv4 unicast summary json")
        if p.returncode != 0:
            return None
        return parse_bgp_summary(p.stdout)
    except (ValueError, subprocess.TimeoutExpired):
        return None


def wait_sessions(st: dict[str, Any], timeout: float, log: Callable[[str], None]) -> tuple[list[Result], float]:
    expected: dict[str, list[dict]] = {}
    for s in st["sessions"]:
        expected.setdefault(s["device"], []).append(s)
    switches = sorted(expected)
    ns = {d: st["nodes"][d]["ns"] for d in switches}
    confirmed: dict[str, BgpSummary] = {}
    t0 = time.monotonic()
    last_log = 0.0
    while True:
        pending = [d for d in switches if d not in confirmed]
        counts = netns.in_netns([ns[d] for d in pending], netns.established_bgp)
        ready = [d for d in pending if (counts.get(ns[d]) or 0) >= len(expected[d])]
        with ThreadPoolExecutor(max_workers=8) as ex:
            for d, summ in zip(ready, ex.map(lambda d: _summary(st, d), ready)):
                peers = summ.peers if summ else {}
                if all(s["interface"] in peers and peers[s["interface"]].state == "Established" for s in expected[d]):
                    confirmed[d] = summ or BgpSummary()
        el = time.monotonic() - t0
        if len(confirmed) == len(switches) or el > timeout:
            break
        if el - last_log > 10:
            last_log = el
            log(f"  {len(confirmed)}/{len(switches)} switches have all sessions Established after {el:.0f} s")
        time.sleep(0.5)
    elapsed = time.monotonic() - t0
    results: list[Result] = []
    missing = [d for d in switches if d not in confirmed]
    with ThreadPoolExecutor(max_workers=8) as ex:
        final = dict(zip(missing, ex.map(lambda d: _summary(st, d), missing)))
    for d in switches:
        summ = confirmed.get(d) or final.get(d)
        peers = summ.peers if summ else {}
        for s in expected[d]:
            p = peers.get(s["interface"])
            want = f"Established with {s['peer_device']} {s['peer_port']}"
            if p is None:
                results.append(Result("bgp", d, s["interface"], want, "no such neighbour in the running config", False))
                continue
            state, host = p.state, p.hostname
            ok = state == "Established" and (host is None or host == s["peer_device"])
            actual = state + (f" with {host}" if host else "")
            if state == "Established" and host and host != s["peer_device"]:
                actual += " (miscabled or wrong peer)"
            results.append(Result("bgp", d, s["interface"], want, actual, ok))
        extra = sorted(set(peers) - {s["interface"] for s in expected[d]})
        for e in extra:
            results.append(Result("bgp", d, e, "no session (not in the model)", peers[e].state, False))
    return results, elapsed


def _route_widths(ns: str) -> dict[str, int]:
    p = subprocess.run(["ip", "-n", ns, "-4", "-j", "route", "show", "proto", "bgp"], capture_output=True, text=True, timeout=20)
    return route_widths(p.stdout)


def wait_ecmp(st: dict[str, Any], expected: dict[str, dict[str, int]], timeout: float) -> tuple[list[Result], float]:
    t0 = time.monotonic()
    while True:
        with ThreadPoolExecutor(max_workers=8) as ex:
            widths = dict(zip(expected, ex.map(lambda d: _route_widths(st["nodes"][d]["ns"]), expected)))
        bad = [(d, p) for d, ps in expected.items() for p, w in ps.items() if widths[d].get(p, 0) != w]
        if not bad or time.monotonic() - t0 > timeout:
            break
        time.sleep(0.5)
    results = []
    for d, ps in sorted(expected.items()):
        got = widths[d]
        wrong = {p: (w, got.get(p, 0)) for p, w in ps.items() if got.get(p, 0) != w}
        want = sorted(set(ps.values()))
        if wrong:
            detail = ", ".join(f"{p}: {g} (want {w})" for p, (w, g) in list(wrong.items())[:4]) + (" ..." if len(wrong) > 4 else "")
            results.append(Result("ecmp", d, f"{len(ps)} prefixes", f"{'/'.join(map(str, want))} paths", detail, False))
        else:
            results.append(Result("ecmp", d, f"{len(ps)} prefixes", f"{'/'.join(map(str, want))} paths",
                                  f"{'/'.join(map(str, sorted(set(got[p] for p in ps)))) or '-'} paths", True))
    return results, time.monotonic() - t0


def _ping(ns: str, src: str, dst: str, count: int, tries: int = 3) -> bool:
    argv = ["nsenter", f"--net=/run/netns/{ns}", "ping", "-n", "-q", "-c", str(count), "-i", "0.2", "-W", "1", "-I", src, dst]
    for _ in range(tries):
        if subprocess.run(argv, capture_output=True, timeout=30).returncode == 0:
            return True
    return False


def run_pings(st: dict[str, Any], count: int = 2) -> tuple[list[Result], float, dict[str, int]]:
    t0 = time.monotonic()
    switches = [d for d, n in st["nodes"].items() if n["kind"] == "switch"]
    before = netns.in_netns([st["nodes"][d]["ns"] for d in switches], netns.forwarded_ipv4)
    pings = st["pings"]
    with ThreadPoolExecutor(max_workers=16) as ex:
        oks = list(ex.map(lambda p: _ping(st["nodes"][p["server"]]["ns"], p["src"], p["dst"], count,
                                          3 if p.get("expect", True) else 1), pings))
    after = netns.in_netns([st["nodes"][d]["ns"] for d in switches], netns.forwarded_ipv4)
    fwd = {d: (after[st["nodes"][d]["ns"]] or 0) - (before[st["nodes"][d]["ns"]] or 0) for d in switches}
    results = [
        Result("ping", p["server"], f"{p['nic']} -> {p['dst_server']} {p['dst_nic']} {p['dst']}",
               f"reply ({p['via']})", "reply" if ok else "no reply", ok)
        if p.get("expect", True) else
        Result("isolation", p["server"], f"{p['nic']} -> {p['dst_server']} {p['dst_nic']} {p['dst']}",
               "no reply (another network)", "reply" if ok else "no reply", not ok)
        for p, ok in zip(pings, oks)
    ]
    return results, time.monotonic() - t0, fwd


def foreign_routes(st: dict[str, Any]) -> list[Result]:
    """Networks: no switch's kernel routing table holds a prefix of another network (no route leak)."""
    results = []
    for dev, pools in sorted(st.get("foreign_pools", {}).items()):
        nets = [ipaddress.IPv4Network(p) for p in pools]
        p = subprocess.run(["ip", "-n", st["nodes"][dev]["ns"], "-4", "-j", "route", "show", "table", "all"],
                           capture_output=True, text=True, timeout=20)
        leaked = []
        for r in device_json.loads(p.stdout or "[]"):
            dst = r.get("dst", "")
            if dst in ("", "default") or not dst[0].isdigit():
                continue
            net = ipaddress.IPv4Network(dst if "/" in dst else dst + "/32", strict=False)
            if any(net.subnet_of(n) or n.subnet_of(net) for n in nets):
                leaked.append(dst)
        results.append(Result("isolation", dev, "routes of other networks", "none",
                              ", ".join(leaked[:4]) or "none", not leaked))
    return results


def check(st: dict[str, Any], *, timeout: float = 60, drained: set[str] | None = None, pings: bool = True,
          log: Callable[[str], None] = lambda s: None, ping_count: int = 2) -> CheckReport:
    """Sessions, then ECMP widths (expected from the model; `drained` adds switches drained at runtime), then pings."""
    rep = CheckReport()
    res, el = wait_sessions(st, timeout, log)
    rep.results += res
    rep.timings["sessions"] = el
    expected = st["ecmp"]
    if drained:
        expected = st.get("ecmp_drained", {}).get(",".join(sorted(drained))) or _recompute(st, drained)
    res, el = wait_ecmp(st, expected, timeout=max(5.0, min(30.0, timeout - rep.timings["sessions"])) if all(r.ok for r in res) else 1.0)  # no point waiting
    rep.results += res
    rep.timings["ecmp"] = el
    if any(not r.ok for r in res):  # short ECMP: a drain nobody told the check about explains it
        rep.results += unexpected_drains(st, drained or set(), res)
    if st.get("foreign_pools"):
        rep.results += foreign_routes(st)
    if pings and st["pings"]:
        res, el, fwd = run_pings(st, ping_count)
        rep.results += res
        rep.timings["pings"] = el
        rep.forwarded = fwd
        for d in sorted(drained or ()):
            if d in fwd:
                rep.results.append(Result("drain", d, "forwarded pkts", "0 (drained)", str(fwd[d]), fwd[d] == 0))
    return rep


def unexpected_drains(st: dict[str, Any], drained: set[str], ecmp: list[Result]) -> list[Result]:
    """Switches drained at runtime (`bgp graceful-shutdown` in FRR's running config) that the check was not told
    of: a failing `drain` result each, and the short ECMP results say so, so `FAIL ecmp 24 (want 32)` during a
    drain names the drain and the option that expects it."""
    switches = [d for d, n in st["nodes"].items() if n["kind"] == "switch" and d not in drained]

    def is_drained(dev: str) -> bool:
        p = vtysh(st, dev, "show running-config")
        return p.returncode == 0 and " bgp graceful-shutdown" in p.stdout.splitlines()

    with ThreadPoolExecutor(max_workers=8) as ex:
        found = [d for d, yes in zip(switches, ex.map(is_drained, switches)) if yes]
    if not found:
        return []
    hint = f"drained: {', '.join(found)} (`lab check {' '.join(f'--drained {d}' for d in found)}` expects it)"
    for r in ecmp:
        if not r.ok:
            r.actual = f"{r.actual}; {hint}"
    return [Result("drain", d, "graceful-shutdown", "not drained (or --drained)", "drained (bgp graceful-shutdown)",
                   False) for d in found]


def _recompute(st: dict[str, Any], drained: set[str]) -> dict[str, dict[str, int]]:
    """Expected widths with extra drained switches: each leaf loses its uplinks to them."""
    up = st.get("uplinks", {})
    out = {}
    for leaf, prefixes in st["ecmp"].items():
        lost = sum(1 for peer in up.get(leaf, []) if peer in drained)
        out[leaf] = {p: w - lost for p, w in prefixes.items()}
    return out
