"""`netauto validate --batfish HOST[:PORT]`: upload the snapshot to a Batfish service and ask it.

Nothing here runs (or imports pybatfish) unless --batfish is given. Before anything else `preflight` checks
that pybatfish is installed and that a TCP connection to the service port (9996, the pybatfish v2 API)
opens within CONNECT_TIMEOUT seconds: pybatfish itself would retry with exponential back-off for minutes
(urllib3 Retry, 10 tries, backoff 0.8 s, capped at 120 s per sleep). While the questions run, pybatfish's
shared HTTP session gets a bounded retry policy (RUN_RETRIES tries) and is restored afterwards, so a
service that dies mid-run also fails in seconds, not minutes. Every failure is a `BatfishError` (exit 2,
one line, no traceback).

Questions asked: initIssues, fileParseStatus, bgpSessionCompatibility, bgpSessionStatus,
ipOwners(duplicatesOnly=True), undefinedReferences, and a traceroute per rail pair
(`batfish_answers.select_trace_pairs`). Answers map to findings in `batfish_answers`.
"""

from __future__ import annotations

import socket
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
import inspect

from netauto.validate import batfish_answers as bfa
from netauto.model.types import FabricModel
from netauto.validate.files import BadInput, FileSet
from netauto.validate.findings import Finding
from netauto.validate.batfish import build_snapshot

DEFAULT_PORT = 9996  # pybatfish >= 2023 talks only to the v2 API port (9997 was v1; 8888 is the allinone Jupyter)
CONNECT_TIMEOUT = 3.0  # TCP connect to the service port
PROBE_TIMEOUT = 5.0  # first HTTP request (question templates): a port that accepts but never answers
REQUEST_TIMEOUT = 120.0  # each later request (answers are polled work items, so requests stay short)
RUN_RETRIES = 3
TRACE_LIMIT = 64
INSTALL_HINT = "pip install 'netauto-fabric[batfish]'"


class BatfishError(BadInput):
    """No pybatfish, no service, or the service failed: exit 2 with one clear line."""


@dataclass(frozen=True)
class Target:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}" if ":" not in self.host else f"[{self.host}]:{self.port}"


@dataclass
class BatfishReport:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def parse_target(text: str) -> Target:
    """HOST, HOST:PORT, [V6]:PORT or http(s)://HOST[:PORT] -> Target (port 9996 by default)."""
    raw = text.strip()
    for scheme in ("http://", "https://"):
        raw = raw.removeprefix(scheme)
    raw = raw.rstrip("/")
    host, port = raw, DEFAULT_PORT
    if raw.startswith("["):
        end = raw.find("]")
        if end < 0:
            raise BatfishError(f"--batfish {text}: unbalanced [ in host")
        host, rest = raw[1:end], raw[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise BatfishError(f"--batfish {text}: expected HOST[:PORT]")
            port = _port(text, rest[1:])
    elif raw.count(":") == 1:
        host, p = raw.split(":")
        port = _port(text, p)
    if not host:
        raise BatfishError(f"--batfish {text}: no host (expected HOST[:PORT], e.g. localhost or bf.lab:9996)")
    return Target(host, port)


def _port(text: str, value: str) -> int:
    if not value.isdigit() or not 0 < int(value) < 65536:
        raise BatfishError(f"--batfish {text}: port {value!r} is not a TCP port")
    return int(value)


def require_pybatfish() -> None:
    try:
        import pybatfish  # noqa: F401  # lazy: optional dependency (extra [batfish])
        from pybatfish.client.session import Session  # noqa: F401  # lazy: optional dependency (extra [batfish])
    except ImportError as exc:
        raise BatfishError(f"--batfish needs pybatfish, which is not installed ({exc}): {INSTALL_HINT}") from None


def check_reachable(target: Target, timeout: float = CONNECT_TIMEOUT) -> float:
    """Open (and close) one TCP connection to the service; seconds it took, or BatfishError within ~timeout."""
    t0 = time.perf_counter()
    try:
        with socket.create_connection((target.host, target.port), timeout=timeout):
            pass
    except OSError as exc:
        waited = time.perf_counter() - t0
        why = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise BatfishError(
            f"no Batfish service at {target} ({why} after {waited:.1f}s): start one "
            f"(e.g. `docker run -d -p 9996:9996 batfish/allinone`) or point --batfish at it (HOST[:PORT])") from None
    return time.perf_counter() - t0


def preflight(text: str, timeout: float = CONNECT_TIMEOUT) -> Target:
    """Everything that can fail fast, before the (long) validation runs."""
    target = parse_target(text)
    require_pybatfish()
    check_reachable(target, timeout)
    return target


@contextmanager
def bounded_retries(tries: int = RUN_RETRIES) -> Iterator[None]:
    """Swap pybatfish's module-level retrying HTTP adapters for a bounded one; restore them afterwards."""
    try:
        import requests  # lazy: +requests only with pybatfish (extra [batfish])
        from pybatfish.client import restv2helper  # lazy: optional dependency (extra [batfish])
        from requests.adapters import HTTPAdapter  # lazy: +requests only with pybatfish (extra [batfish])
        from urllib3 import Retry  # lazy: +urllib3 only with pybatfish (extra [batfish])
    except ImportError:
        yield
        return
    # private names of pybatfish (module-level requests.Session objects), bounded in pyproject
    found = [getattr(restv2helper, n, None) for n in ("_requests_session", "_requests_session_fail_fast")]
    sessions = [s for s in found if isinstance(s, requests.Session)]
    saved = [dict(s.adapters) for s in sessions]
    adapter = HTTPAdapter(max_retries=Retry(total=tries, connect=tries, read=tries, backoff_factor=0.5,
                                            status_forcelist=[429, 500, 502, 503, 504]))
    try:
        for s in sessions:
            s.mount("http://", adapter)
            s.mount("https://", adapter)
        yield
    finally:
        for s, adapters in zip(sessions, saved):
            s.adapters.clear()
            s.adapters.update(adapters)


def _default_session(target: Target) -> Any:
    """A pybatfish Session whose first request (loading the question templates) fails in seconds."""
    from pybatfish.client.session import Session  # lazy: optional dependency (extra [batfish])

    params = inspect.signature(Session.__init__).parameters
    kwargs: dict[str, Any] = {"host": target.host, "load_questions": False}
    kwargs["port" if "port" in params else "port_v2"] = target.port  # `port` since pybatfish 2024
    if "timeout" in params:  # older pybatfish has no request timeout: the bounded retries still apply
        kwargs["timeout"] = PROBE_TIMEOUT
    bf = Session(**kwargs)
    bf.q.load()
    if "timeout" in params:
        bf.timeout = REQUEST_TIMEOUT
    return bf


def _frame(bf: Any, name: str, notes: list[str], **params: Any) -> Any:
    """`bf.q.<name>(**params).answer().frame()`; a question the service does not offer becomes a note."""
    question = getattr(bf.q, name, None)
    if question is None:
        notes.append(f"skipped: batfish question {name} (not offered by this Batfish service)")
        return None
    return question(**params).answer().frame()


def ask(target: Target, snapshot_dir: Path, snap: Any, model: Any, *, trace_limit: int = TRACE_LIMIT,
        session_factory: Callable[[Target], Any] | None = None) -> BatfishReport:
    """Upload the snapshot in `snapshot_dir` and ask every question; findings and notes."""
    report = BatfishReport()
    t0 = time.perf_counter()
    stage = "connect"
    try:
        with bounded_retries(0):  # one try: the port answered TCP, so HTTP either works now or not at all
            bf = (session_factory or _default_session)(target)
        stage = "ask"
        with bounded_retries():
            bf.set_network(f"netauto-{snap.fabric}")
            bf.init_snapshot(str(snapshot_dir), name=snap.fabric, overwrite=True)
            t1 = time.perf_counter()
            report.timings["batfish_upload"] = t1 - t0
            notes = report.notes
            filtered: Counter[str] = Counter()
            init_issues = _frame(bf, "initIssues", notes)
            parse_status = _frame(bf, "fileParseStatus", notes)
            report.findings += bfa.parse_findings(init_issues, parse_status, snap, filtered)
            report.findings += bfa.bgp_compat_findings(_frame(bf, "bgpSessionCompatibility", notes), snap)
            status, incompatible = bfa.bgp_status_findings(_frame(bf, "bgpSessionStatus", notes), snap)
            report.findings += status
            report.findings += bfa.dup_ip_findings(_frame(bf, "ipOwners", notes, duplicatesOnly=True), filtered)
            report.findings += bfa.undefined_ref_findings(_frame(bf, "undefinedReferences", notes), snap, filtered)
            pairs = bfa.select_trace_pairs(model, trace_limit)
            traces = []
            if pairs and getattr(bf.q, "traceroute", None) is not None:
                from pybatfish.datamodel.flow import HeaderConstraints  # lazy: optional dependency (extra [batfish])

                for pair in pairs:
                    headers = HeaderConstraints(srcIps=pair.src_ip, dstIps=pair.dst_ip, ipProtocols=["UDP"],
                                                dstPorts="4791")  # RoCEv2
                    traces.append((pair, _frame(bf, "traceroute", notes, startLocation=pair.start_location,
                                                headers=headers)))
            elif pairs:
                notes.append("skipped: batfish traceroute (not offered by this Batfish service)")
            trace_found, trace_notes = bfa.trace_findings(traces)
            report.findings += trace_found
            report.timings["batfish_questions"] = time.perf_counter() - t1
    except BadInput:
        raise
    except Exception as exc:  # noqa: BLE001 - requests/urllib3/pybatfish errors: one line, exit 2
        first = str(exc).splitlines()[0][:300] if str(exc) else ""
        hint = (f" (is {target} a Batfish service? pybatfish talks to its v2 API, port {DEFAULT_PORT})"
                if stage == "connect" else "")
        raise BatfishError(f"Batfish service at {target} failed after {time.perf_counter() - t0:.1f}s: "
                           f"{type(exc).__name__}: {first}{hint}") from None
    report.notes.append(f"ran: batfish at {target} on {snap.cumulus + snap.sonic} switch config(s), "
                        f"{snap.edges} layer-1 edges ({len(pairs)} traceroute(s))")
    if incompatible:
        report.notes.append(f"batfish: {incompatible} session(s) NOT_COMPATIBLE in bgpSessionStatus (see BF-BGP-COMPAT)")
    report.notes += trace_notes
    report.notes += bfa.gap_notes(filtered)
    return report


def run(target: Target, model: FabricModel, files: FileSet, *, trace_limit: int = TRACE_LIMIT,
        session_factory: Callable[[Target], Any] | None = None) -> BatfishReport:
    """Build the snapshot of `model` from `files` (rendered, or a --configs tree read back) in a temp folder and
    ask Batfish."""
    with tempfile.TemporaryDirectory(prefix="netauto-batfish-") as tmp:
        snapdir = Path(tmp) / model.name
        snap = build_snapshot(model, files, snapdir)
        return ask(target, snapdir, snap, model, trace_limit=trace_limit, session_factory=session_factory)
