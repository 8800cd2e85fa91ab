"""Read RESULTS/<id>.txt / <id>.json of each planned test and hold it against the expectation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from netauto.acceptance.isolation import judge_isolation
from netauto.acceptance.model import IPERF3, ISOLATION, NCCL_KINDS, PERFTEST, AccTest
from netauto.acceptance.nccl_check import nccl_test_problems
from netauto.errors import UsageError
from netauto.formats import device_json
from netauto.formats.iperf3 import Iperf3Error, parse_iperf3_json
from netauto.formats.nccl_tests import NcclTestsError, parse_nccl_tests
from netauto.formats.perftest import PerftestError, parse_bw_json, parse_bw_text
from netauto.reading import read_bounded

PLAN_FILE = "plan.json"  # written by `acceptance run` next to the results: what was run, with its expectations
# A test's output is a few KiB (perftest, iperf3 -J of a 10 s run: ~20 KiB; an nccl-tests sweep: ~10 KiB); a
# plan is ~600 bytes per test (100k servers x 8 rails: ~500 MB). Past these a file is not what it claims to be.
MAX_RESULT_BYTES = 16 * 2**20
MAX_PLAN_BYTES = 1024 * 2**20


def _read(path: Path, limit: int, kind: str) -> str:
    return read_bounded(path, limit, UsageError, "check the results folder's permissions",
                        "remove it from the results folder", kind)


@dataclass(slots=True)
class Outcome:
    test: AccTest
    status: str  # pass | fail | not-run | missing (not run under --require-all: an error)
    measured_gbps: float | None = None
    detail: str = ""  # the file read, an average, or why it could not be read

    @property
    def failed(self) -> bool:
        return self.status in ("fail", "missing")


def measure(test: AccTest, folder: Path) -> tuple[float | None, str] | None:
    """(Gb/s, detail) from the test's result file(s); None when there is none; (None, why) when unreadable."""
    files = [p for p in (folder / f"{test.id}.json", folder / f"{test.id}.txt") if p.is_file()]
    if not files:
        return None
    why = ""
    for path in files:
        text = _read(path, MAX_RESULT_BYTES, "a test's output")
        try:
            if test.kind == PERFTEST:
                rep = parse_bw_json(text) if text.lstrip().startswith("{") else parse_bw_text(text)
                return rep.average_gbps, f"{path.name}: BW average {rep.average_gbps:.2f} Gb/s"
            if test.kind == IPERF3:
                got = parse_iperf3_json(text)
                # received is what the listener reports back (any user of the server may be listening on the
                # port); what this client sent, which the link's acknowledgements bound, caps it
                gbps = min(got.received_gbps, got.sent_gbps)
                return gbps, f"{path.name}: received {got.received_gbps:.3f} Gb/s, sent {got.sent_gbps:.3f} Gb/s"
            if test.kind in NCCL_KINDS:
                res = parse_nccl_tests(text)
                busbw = res.largest_busbw if res.rows else float(res.avg_busbw or 0)
                avg = f", Avg bus bandwidth {res.avg_busbw} GB/s" if res.avg_busbw is not None else ""
                return busbw * 8, f"{path.name}: busbw {busbw:.2f} GB/s at the largest size{avg}"
        except (PerftestError, Iperf3Error, NcclTestsError) as e:
            why = f"{path.name}: {e}"
    return None, why or f"{files[0].name}: unreadable"


def judge(tests: list[AccTest], folder: Path, require_all: bool = False) -> list[Outcome]:
    out = []
    for t in tests:
        if t.kind == ISOLATION:
            out.append(_isolation(t, folder, require_all))
            continue
        got = measure(t, folder)
        if got is None:
            out.append(Outcome(t, "missing" if require_all else "not-run", None, "no result file"))
        elif got[0] is None:
            out.append(Outcome(t, "fail", None, got[1]))
        else:
            # NCCL: busbw alone passes a job that left NICs idle or ran without GPUDirect RDMA (its own log tells)
            problems = nccl_test_problems(t, folder) if t.kind in NCCL_KINDS else []
            ok = got[0] >= t.expect_gbps and not problems
            out.append(Outcome(t, "pass" if ok else "fail", got[0], "; ".join([got[1], *problems])))
    return out


def _isolation(t: AccTest, folder: Path, require_all: bool) -> Outcome:
    """A probe that must fail to connect: pass when echoes went out and none came back (acceptance.isolation)."""
    path = folder / f"{t.id}.txt"
    if not path.is_file():
        return Outcome(t, "missing" if require_all else "not-run", None, "no result file")
    ok, detail = judge_isolation(t, _read(path, MAX_RESULT_BYTES, "a test's output"), path.name)
    return Outcome(t, "pass" if ok else "fail", None, detail)


def planned_servers(entries: dict[str, dict]) -> frozenset[str]:
    """The servers a plan.json tests (a lab plan covers a subset): clients, servers, NCCL launchers."""
    return frozenset(str(h) for t in entries.values() for h in (t.get("client"), t.get("server")) if h)


def planned(folder: Path) -> dict[str, dict] | None:
    """RESULTS/plan.json (id -> its test entry), or None when the folder has none."""
    path = folder / PLAN_FILE
    if not path.is_file():
        return None
    try:
        doc = device_json.loads(_read(path, MAX_PLAN_BYTES, "an acceptance plan"))
        return {t["id"]: t for r in doc["rounds"] for t in r["tests"]}
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path}: not an acceptance plan ({e}); remove it or write it with `netauto acceptance "
                         "plan --format json`") from None
