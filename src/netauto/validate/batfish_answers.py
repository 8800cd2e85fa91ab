"""Batfish answers -> `netauto validate` findings; known Batfish gaps filtered (counted, documented, never errors).

Pure functions over the pandas frames pybatfish returns (`answer().frame()`), so they are tested without a
Batfish service. Column names are Batfish's (InitIssuesAnswerer, FileParseStatusAnswerer,
BgpSessionStatusAnswerer, BgpSessionCompatibilityAnswerer, IpOwnersAnswerer, UndefinedReferences,
TracerouteAnswerer).

Rules:
    BF-PARSE       Batfish could not parse / convert a file or line (initIssues, fileParseStatus)
    BF-BGP-STATUS  a compatible BGP session would not come up (bgpSessionStatus NOT_ESTABLISHED)
    BF-BGP-COMPAT  a BGP peering is misconfigured or has no unique remote (bgpSessionCompatibility)
    BF-DUP-IP      an IP address is configured on more than one node/VRF (ipOwners duplicatesOnly)
    BF-UNDEF-REF   a config references a structure that is not defined (undefinedReferences)
    BF-TRACE       a rail-to-rail flow is not delivered (traceroute, one per rail pair)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from ipaddress import ip_address
from typing import TYPE_CHECKING, Any

from netauto.validate.findings import BATFISH_CHECKS, Finding, Severity
from netauto.platforms.nos import cumulus_path

if TYPE_CHECKING:
    import pandas

    from netauto.model.types import FabricModel
    from netauto.validate.batfish import Snapshot

RULES = BATFISH_CHECKS  # kept here too: the answer mappers name their rule ids


# ---------------------------------------------------------------- known Batfish gaps
@dataclass(frozen=True)
class Gap:
    name: str
    reason: str
    pattern: re.Pattern[str]


def _rx(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


GAPS: tuple[Gap, ...] = (
    Gap("qos", "Batfish does not model QoS/RoCE (PFC, ECN, ETS, DSCP/TC maps, buffers, PFC watchdog); "
               "netauto's own QoS rules check them",
        _rx(r"\b(qos|pfc|ecn|wred|dscp|cos|ets|roce|cnp|buffer|scheduler|queue|watchdog|traffic[-_ ]class|"
            r"priority[-_ ]flow[-_ ]control)\b|PFC_WD|BUFFER_|WRED_|DSCP_TO_|TC_TO_|_TO_TC|PORT_QOS_MAP|SCHEDULER")),
    Gap("adaptive-routing", "Batfish does not model NVIDIA adaptive routing; netauto's AR-uniformity rule checks it",
        _rx(r"adaptive[-_ ]?routing|link[-_]util(ization)?[-_]threshold")),
    Gap("ipv6", "the fabric is IPv4 (unnumbered sessions ride on IPv6 link-local, RFC 5549); Batfish's IPv6 "
                "support is partial, so IPv6 lines, addresses and extended next-hop are not checked by it",
        _rx(r"ipv6|inet6|extended-nexthop|link-local|\bfe80:|(?<![\w:])::|[0-9a-f]{1,4}::|\bnd\s+ra")),
    Gap("gshut", "`bgp graceful-shutdown` and the graceful-shutdown (GSHUT) community are not modelled by "
                 "Batfish; the route simulation (netauto validate --drain) covers draining",
        _rx(r"graceful[-_ ]shutdown|\bgshut\b")),
    Gap("nvue-only", "NVUE / ifupdown2 / switchd settings outside Batfish's routing model (FEC, autoneg, "
                     "NVUE-only keys); netauto's own rules check them",
        _rx(r"\bnvue?\b|startup\.yaml|link-fec|link-autoneg|switchd|\bnv\s+(set|unset)")),
)
MGMT_LOOPBACK = Gap("mgmt-vrf-loopback", "127.0.0.0/8 on the Cumulus management VRF device is host-local on "
                                         "every switch, not a duplicate address", _rx(r"^127\."))


def gap_of(*texts: object) -> Gap | None:
    """The first known gap a row's text falls in (None: a real finding)."""
    blob = " ".join(_s(t) for t in texts if _s(t))
    if not blob:
        return None
    return next((g for g in GAPS if g.pattern.search(blob)), None)


def gap_notes(filtered: Counter[str]) -> list[str]:
    """One note per gap that filtered rows, with its reason (the documentation travels with the report)."""
    reasons = {g.name: g.reason for g in (*GAPS, MGMT_LOOPBACK)}
    return [f"batfish: filtered {n} row(s) as known gap '{name}': {reasons.get(name, '')}"
            for name, n in sorted(filtered.items())]


# ---------------------------------------------------------------- cell helpers
def _s(value: Any) -> str:
    """A frame cell as text: None/NaN -> "", lists joined, pybatfish objects through str()."""
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(_s(v) for v in value)
    return str(value)


def _list(value: Any) -> list[Any]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    return [value]


def _rows(frame: pandas.DataFrame | None) -> list[dict[str, Any]]:
    if frame is None or len(frame) == 0:
        return []
    return frame.to_dict("records")


def _iface(value: Any) -> tuple[str, str]:
    """(node, interface) of a pybatfish Interface cell (or its dict / "node[iface]" text)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "", ""
    if hasattr(value, "hostname") and hasattr(value, "interface"):
        return str(value.hostname), str(value.interface)
    if isinstance(value, dict):
        return str(value.get("hostname", "")), str(value.get("interface", ""))
    m = re.fullmatch(r"(.*)\[(.*)\]", str(value))
    return (m.group(1), m.group(2)) if m else ("", str(value))


def _where(snap: Snapshot | None, filename: str, line: int | None) -> tuple[str, str | None, int | None]:
    if snap is None:
        return filename.rsplit("/", 1)[-1].rsplit(".", 1)[0], None, line
    return snap.locate(filename, line)


def _frr(snap: Snapshot | None, device: str) -> str | None:
    return snap.frr_path.get(device, cumulus_path("frr")) if snap else cumulus_path("frr")


# ---------------------------------------------------------------- initIssues + fileParseStatus -> BF-PARSE
ERROR_ISSUES = {"Parse error", "Convert error"}
BAD_PARSE_STATUS = {"FAILED", "UNKNOWN", "UNSUPPORTED", "EMPTY", "WILL_NOT_COMMIT"}


def parse_findings(init_issues: pandas.DataFrame | None, parse_status: pandas.DataFrame | None,
                   snap: Snapshot | None, filtered: Counter[str]) -> list[Finding]:
    found: list[Finding] = []
    for row in _rows(init_issues):
        kind = _s(row.get("Type") or row.get("Issue_Type")) or "Issue"
        details = _s(row.get("Details") or row.get("Issue"))
        text = _s(row.get("Line_Text"))
        severity: Severity = "error" if kind in ERROR_ISSUES else "warning"
        if severity == "warning":  # gaps only ever excuse warnings, never a file Batfish failed on
            gap = gap_of(details, text, row.get("Parser_Context"))
            if gap:
                filtered[gap.name] += 1
                continue
        message = f"{kind}: {details}" + (f" (`{text.strip()}`)" if text.strip() else "")
        sources = _list(row.get("Source_Lines"))
        if sources:
            for fl in sources:
                filename = _s(getattr(fl, "filename", None) or (fl.get("filename") if isinstance(fl, dict) else fl))
                lines = list(getattr(fl, "lines", None) or (fl.get("lines", []) if isinstance(fl, dict) else []))
                device, path, line = _where(snap, filename, lines[0] if lines else None)
                extra = f" [+{len(lines) - 1} more line(s)]" if len(lines) > 1 else ""
                found.append(Finding("BF-PARSE", severity, device, message + extra, path, line))
        else:
            for node in _list(row.get("Nodes")) or [""]:
                found.append(Finding("BF-PARSE", severity, _s(node), message))
    for row in _rows(parse_status):
        status = _s(row.get("Status")).upper()
        filename = _s(row.get("File_Name"))
        fmt = _s(row.get("File_Format"))
        device, path, _ = _where(snap, filename, None)
        if status in BAD_PARSE_STATUS:
            found.append(Finding("BF-PARSE", "error", device, f"Batfish parse status {status} for {filename}"
                                 f" (format {fmt or '?'}): its configuration is not checked by Batfish", path))
        elif status in ("PASSED", "PARTIALLY_UNRECOGNIZED") and fmt:
            want = "SONIC" if filename.startswith("sonic_configs/") or "/sonic_configs/" in filename else "CUMULUS"
            if filename.endswith((".cfg", "frr.conf", "config_db.json")) and want not in fmt.upper():
                found.append(Finding("BF-PARSE", "error", device,
                                     f"Batfish read {filename} as {fmt}, not {want.lower()}: snapshot layout broken", path))
    return found


# ---------------------------------------------------------------- BGP
COMPAT_OK = {"UNIQUE_MATCH", "DYNAMIC_MATCH"}
COMPAT_WHY = {
    "NO_MATCH_FOUND": "no compatible remote peer (remote-as, peer interface or layer-1 edge wrong?)",
    "MULTIPLE_REMOTES": "more than one remote peer matches",
    "HALF_OPEN": "the remote side has no matching neighbor statement",
    "INVALID_LOCAL_IP": "local IP is not owned by this node",
    "LOCAL_IP_UNKNOWN_STATICALLY": "local IP unknown",
    "NO_LOCAL_AS": "no local AS", "NO_LOCAL_IP": "no local IP", "NO_REMOTE_AS": "no remote-as",
    "NO_REMOTE_IP": "no remote IP", "NO_REMOTE_PREFIX": "no remote prefix",
    "UNKNOWN_REMOTE": "remote IP not in the snapshot",
}


def _session(row: dict[str, Any]) -> str:
    _, local_if = _iface(row.get("Local_Interface"))
    rnode, rif = _iface(row.get("Remote_Interface"))
    local = local_if or _s(row.get("Local_IP")) or "?"
    remote = _s(row.get("Remote_Node")) or rnode
    remote = (f"{remote} {rif}".strip() if remote or rif else "") or _s(row.get("Remote_IP")) or "?"
    asn = _s(row.get("Remote_AS"))
    vrf = _s(row.get("VRF"))
    return f"{local} -> {remote}" + (f" (remote AS {asn})" if asn else "") + (f" vrf {vrf}" if vrf and vrf != "default" else "")


def bgp_compat_findings(frame: pandas.DataFrame | None, snap: Snapshot | None) -> list[Finding]:
    found = []
    for row in _rows(frame):
        status = _s(row.get("Configured_Status"))
        if status in COMPAT_OK or not status:
            continue
        device = _s(row.get("Node"))
        severity: Severity = "warning" if status == "UNKNOWN_REMOTE" else "error"
        found.append(Finding("BF-BGP-COMPAT", severity, device,
                             f"BGP {_session(row)}: {status} ({COMPAT_WHY.get(status, 'incompatible')})", _frr(snap, device)))
    return found


def bgp_status_findings(frame: pandas.DataFrame | None, snap: Snapshot | None) -> tuple[list[Finding], int]:
    """NOT_ESTABLISHED sessions (compatible but down); NOT_COMPATIBLE ones are counted, BF-BGP-COMPAT reports them."""
    found, incompatible = [], 0
    for row in _rows(frame):
        status = _s(row.get("Established_Status"))
        if status == "NOT_COMPATIBLE":
            incompatible += 1
        elif status and status != "ESTABLISHED":
            device = _s(row.get("Node"))
            found.append(Finding("BF-BGP-STATUS", "error", device,
                                 f"BGP {_session(row)}: {status} (compatible configuration but the session does "
                                 "not come up: no route to the peer, or the link is down)", _frr(snap, device)))
    return found, incompatible


# ---------------------------------------------------------------- duplicate IPs
def dup_ip_findings(frame: pandas.DataFrame | None, filtered: Counter[str]) -> list[Finding]:
    by_ip: dict[str, list[dict[str, Any]]] = {}
    for row in _rows(frame):
        ip = _s(row.get("IP"))
        if MGMT_LOOPBACK.pattern.search(ip):
            filtered[MGMT_LOOPBACK.name] += 1
            continue
        try:
            if ip_address(ip).version == 6:
                filtered["ipv6"] += 1
                continue
        except ValueError:
            pass
        by_ip.setdefault(ip, []).append(row)
    found = []
    for ip, rows in sorted(by_ip.items()):
        owners = [f"{_s(r.get('Node'))}[{_s(r.get('Interface'))}]" + (f" vrf {_s(r.get('VRF'))}" if _s(r.get("VRF")) not in ("", "default") else "")
                  for r in rows]
        active = any(r.get("Active") in (True, "true", "True") for r in rows)
        for r, me in zip(rows, owners):
            others = [o for o in owners if o != me]
            mask = _s(r.get("Mask"))
            found.append(Finding("BF-DUP-IP", "error" if active else "warning", _s(r.get("Node")),
                                 f"IP {ip}{'/' + mask if mask else ''} on {_s(r.get('Interface'))} is also on "
                                 f"{', '.join(others) or 'another VRF'}" + ("" if active else " (all inactive)")))
    return found


# ---------------------------------------------------------------- undefined references
def undefined_ref_findings(frame: pandas.DataFrame | None, snap: Snapshot | None,
                           filtered: Counter[str]) -> list[Finding]:
    found = []
    for row in _rows(frame):
        stype, name, ctx = _s(row.get("Struct_Type")), _s(row.get("Ref_Name")), _s(row.get("Context"))
        gap = gap_of(name, ctx)
        if gap:
            filtered[gap.name] += 1
            continue
        lines = row.get("Lines")
        filename = _s(getattr(lines, "filename", None) or row.get("File_Name"))
        line_list = list(getattr(lines, "lines", None) or [])
        device, path, line = _where(snap, filename, line_list[0] if line_list else None)
        found.append(Finding("BF-UNDEF-REF", "error", device,
                             f"undefined {stype or 'structure'} `{name}` referenced by {ctx or '?'}", path, line))
    return found


# ---------------------------------------------------------------- traceroute per rail pair
DELIVERED = {"ACCEPTED", "DELIVERED_TO_SUBNET", "EXITS_NETWORK"}
UNSURE = {"INSUFFICIENT_INFO"}


@dataclass(frozen=True)
class TracePair:
    src_rail: int
    dst_rail: int
    src_server: str
    src_ip: str
    src_leaf: str
    src_port: str
    dst_server: str
    dst_ip: str
    dst_leaf: str

    @property
    def start_location(self) -> str:
        return f"@enter({self.src_leaf}[{self.src_port}])"

    def label(self) -> str:
        return (f"rail {self.src_rail} -> rail {self.dst_rail}: {self.src_server} {self.src_ip} "
                f"(via {self.src_leaf}) -> {self.dst_server} {self.dst_ip} (on {self.dst_leaf})")


def select_trace_pairs(model: FabricModel, limit: int = 64) -> list[TracePair]:
    """One representative flow per rail pair (unordered, alternating direction), plus one same-rail flow per
    rail between two leaves when a rail has several leaves (several SUs); at most `limit`, spread evenly.

    The source is a server NIC entering its rail leaf (RoCEv2, UDP 4791; at the port, or at the rail SVI in
    leaf-subnet mode); the destination a NIC of another server, preferably in another SU, so the flow crosses
    the spine (or super-spine) layer.
    """
    servers = sorted((s for s in model.servers if s.rails), key=lambda s: (s.su, s.index, s.name))
    if not servers or limit <= 0:
        return []
    rails = sorted({r.index for s in servers for r in s.rails})
    combos = [(a, b) for i, a in enumerate(rails) for b in rails[i + 1:]]
    leaves_of = {r: {rl.leaf for s in servers for rl in s.rails if rl.index == r} for r in rails}
    combos += [(r, r) for r in rails if len(leaves_of[r]) > 1]
    if len(combos) > limit:
        step = len(combos) / limit
        combos = [combos[int(i * step)] for i in range(limit)]
    pairs: list[TracePair] = []
    for k, (a, b) in enumerate(combos):
        if k % 2 and a != b:
            a, b = b, a
        srcs = [s for s in servers if any(r.index == a for r in s.rails)]
        src = srcs[k % len(srcs)]
        src_rail = next(r for r in src.rails if r.index == a)
        dsts = [(s, next(r for r in s.rails if r.index == b)) for s in servers
                if s.name != src.name and any(r.index == b for r in s.rails)]
        dsts = [(s, r) for s, r in dsts if r.leaf != src_rail.leaf]
        if not dsts:
            continue
        other_su = [(s, r) for s, r in dsts if s.su != src.su]
        pool = other_su or dsts
        dst, dst_rail = pool[(k + len(pool) // 2) % len(pool)]
        pairs.append(TracePair(a, b, src.name, src_rail.ip, src_rail.leaf, _l3_port(model, src_rail.leaf, src_rail.leaf_port),
                               dst.name, dst_rail.ip, dst_rail.leaf))
    return pairs


def _l3_port(model: FabricModel, leaf: str, port: str) -> str:
    """Where a NIC's packets enter the leaf at layer 3: the port itself (p2p /31), or the rail SVI when the port
    is an access port of the rail VLAN (leaf-subnet mode); Batfish start locations are layer-3 interfaces."""
    try:
        sw = model.switch(leaf)
        iface = sw.interface(port)
    except KeyError:
        return port
    if iface.address is None and iface.access_vlan is not None and sw.svi is not None:
        return sw.svi.name
    return port


def trace_findings(results: list[tuple[TracePair, pandas.DataFrame | None]]) -> tuple[list[Finding], list[str]]:
    found: list[Finding] = []
    widths: list[int] = []
    delivered = 0
    for pair, frame in results:
        rows = _rows(frame)
        traces = [t for row in rows for t in _list(row.get("Traces"))]
        if not traces:
            found.append(Finding("BF-TRACE", "error", pair.src_leaf, f"{pair.label()}: no trace (flow not started: "
                                                                     f"is {pair.src_port} up with {pair.src_ip}'s subnet?)"))
            continue
        disp = Counter(_s(getattr(t, "disposition", None) or (t.get("disposition") if isinstance(t, dict) else "")) for t in traces)
        count = max((int(row["TraceCount"]) for row in rows if _s(row.get("TraceCount")).isdigit()), default=len(traces))
        bad = {d: n for d, n in disp.items() if d not in DELIVERED}
        if not bad:
            delivered += 1
            widths.append(count)
            continue
        failing = next(t for t in traces if _s(getattr(t, "disposition", None) or (t.get("disposition") if isinstance(t, dict) else "")) in bad)
        hops = _list(getattr(failing, "hops", None) or (failing.get("hops") if isinstance(failing, dict) else None))
        last = hops[-1] if hops else None
        last_node = _s(getattr(last, "node", None) or (last.get("node", {}).get("name") if isinstance(last, dict) else ""))
        summary = ", ".join(f"{n} {d}" for d, n in sorted(bad.items()))
        severity: Severity = "warning" if set(bad) <= UNSURE else "error"
        found.append(Finding("BF-TRACE", severity, pair.src_leaf,
                             f"{pair.label()}: {summary} of {len(traces)} path(s)" + (f", last hop {last_node}" if last_node else "")))
    notes = []
    if results:
        width = f"; ECMP paths per flow {min(widths)}-{max(widths)}" if widths else ""
        notes.append(f"batfish: traceroute {delivered}/{len(results)} rail-pair flow(s) delivered{width}")
    return found, notes
