"""iperf3 `--json` (-J) results: the lab's stand-in for perftest (no RDMA in a network namespace).

Keys from iperf3's own JSON (esnet/iperf src/iperf_api.c, iperf 3.12 here): `end.sum_received.bits_per_second`
(TCP: what the receiver got) and `end.sum_sent`; UDP runs carry `end.sum`. An `error` key says why a run failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from netauto.formats import device_json
from netauto.formats.values import finite


class Iperf3Error(ValueError):
    """Not an iperf3 JSON result, or a failed run."""


@dataclass(frozen=True, slots=True)
class Iperf3Result:
    received_gbps: float
    sent_gbps: float
    seconds: float


def parse_iperf3_json(text: str) -> Iperf3Result:
    try:
        doc = device_json.loads(text)  # a result file is input: bounded nesting
    except ValueError as e:
        raise Iperf3Error(f"not iperf3 JSON: {e}") from None
    if not isinstance(doc, dict):
        raise Iperf3Error("not iperf3 JSON: not an object")
    if doc.get("error"):
        raise Iperf3Error(f"iperf3: {doc['error']}")
    end = doc.get("end") or {}
    recv = end.get("sum_received") or end.get("sum") if isinstance(end, dict) else None
    sent = end.get("sum_sent") or end.get("sum") if isinstance(end, dict) else None
    if not isinstance(recv, dict) or "bits_per_second" not in recv:
        raise Iperf3Error("iperf3 JSON without end.sum_received")
    if sent is not None and not isinstance(sent, dict):
        raise Iperf3Error("iperf3 JSON end.sum_sent: not an object")
    try:
        return Iperf3Result(finite(recv["bits_per_second"]) / 1e9, finite((sent or recv)["bits_per_second"]) / 1e9,
                            finite(recv.get("seconds", 0.0)))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise Iperf3Error(f"iperf3 JSON end.sum_received: {e}") from None
