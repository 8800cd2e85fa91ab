"""The BGP post-check of a switch push: which intended sessions must come back, which may wait for their peer.

A push must never break what worked: every intended session that was Established before the push must be
Established again (else the push fails and is rolled back). A session that was not up before (a new link while
the fabric grows, a peer not configured yet, the first push to a new switch) cannot be the push's fault when the
peer never answers: the push succeeds and says which sessions wait for which peer, so that growing a fabric can
push the spines before the new leaves exist. It is the push's fault when the peer answers and refuses: a BGP
NOTIFICATION received after the push (wrong ASN, a bad OPEN) fails it like a lost session.

FRR facts used: `show bgp summary json` lists peers under ipv4Unicast.peers by neighbour name (the interface for
an unnumbered neighbour) with `state`; `show bgp neighbors json` gives per neighbour `lastNotificationReason`,
`lastErrorCodeSubcode` and `lastResetTimerMsecs` (milliseconds since the last reset) once a NOTIFICATION was sent
or received; a neighbour whose peer has no BGP configured shows none of them (state Active/Connect).
Seen on FRR 8.4 (Debian 12) in the lab: wrong remote-as on the peer -> lastErrorCodeSubcode "0501"/"0202",
peer without the neighbour -> state Active and no notification fields.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from netauto.formats import device_json
from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import frr
from netauto.formats.bgp_summary import parse_bgp_summary

NEW_SESSION_GRACE = 30.0  # seconds a session new to the device gets: FRR's connect retry here is 10 s


@dataclass
class PostCheck:
    """The outcome: sessions that were up and are not (a failure), sessions refused by their peer since the
    push (a failure), sessions that wait for a peer that does not answer (a note)."""

    lost: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    waiting: list[str] = field(default_factory=list)
    seconds: float = 0.0


def established(session: DeviceSession) -> set[str]:
    """The neighbours in state Established (`show bgp summary json`); empty when FRR cannot be asked."""
    res = session.run(frr(session, "vtysh -c 'show bgp summary json'"))
    if not res.ok:
        return set()
    try:
        return parse_bgp_summary(res.stdout).established()
    except ValueError:
        return set()


def notifications(session: DeviceSession, names: list[str], within_ms: float) -> dict[str, str]:
    """Neighbour -> the NOTIFICATION reason, for those of `names` reset by a NOTIFICATION in the last `within_ms`."""
    res = session.run(frr(session, "vtysh -c 'show bgp neighbors json'"))
    if not res.ok or not names:
        return {}
    try:
        data = device_json.loads(res.stdout or "{}")
    except ValueError:
        return {}
    if not isinstance(data, dict):  # the device's answer: another shape says nothing
        return {}
    out = {}
    for name in names:
        nb = data.get(name)
        if not isinstance(nb, dict):
            continue
        reason = nb.get("lastNotificationReason") or (f"error {nb['lastErrorCodeSubcode']}"
                                                       if nb.get("lastErrorCodeSubcode") else None)
        age = nb.get("lastResetTimerMsecs")
        if reason and isinstance(age, (int, float)) and age <= within_ms:
            out[name] = str(reason)
    return out


def post_check(session: DeviceSession, intended: list[str], before: set[str], timeout: float,
               stop: threading.Event | None = None, clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], None] = time.sleep) -> PostCheck:
    """Wait until every session that was up before is up again and the new ones are up or had their grace."""
    started = clock()
    must = {n for n in intended if n in before}
    grace = min(timeout, NEW_SESSION_GRACE)
    while True:
        up = established(session)
        elapsed = clock() - started
        if must <= up and (set(intended) <= up or elapsed >= grace):
            break
        if elapsed >= timeout or (stop is not None and stop.is_set()):
            break
        sleep(1.0)
    down = [n for n in intended if n not in up]
    check = PostCheck(lost=[n for n in down if n in must], seconds=round(clock() - started, 1))
    new = [n for n in down if n not in must]
    check.refused = notifications(session, new, (clock() - started) * 1000 + 1000) if new else {}
    check.waiting = [n for n in new if n not in check.refused]
    return check
