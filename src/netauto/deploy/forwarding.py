"""Is a neighbour still forwarding through a device being drained? Measured per session, on the neighbour.

A device's BGP session with a neighbour is, on the neighbour, one of its ports (`Target.facing`): every path
learnt over it has its next hop on that port. Drained means, on every neighbour:

- every prefix that has a way around the device (a valid path learnt over another session whose AS path does
  not pass the device further on) no longer uses a session to the device: not in BGP's selection (bestpath /
  multipath), not among the active next hops of zebra's selected route (RIB), not among its next hops in the
  FIB (zebra's `fib` flag) and not among the kernel route's next hops (`ip -j -4 route show`; on Cumulus the
  table switchd programs into the ASIC), the last two where readable;
- every prefix reachable only through the device carries the GSHUT local-preference 0 (the neighbour has
  processed the drain; there is nowhere else to send that traffic).

The ASNs are not used to decide which path is "through" the device except further along an AS path: spines
share one ASN (RFC 7938), so a path via spine2 starts with the drained spine1's ASN and is still
a way around it. The MLAG case (an aggregation switch learns the drained access switch's loopback from its peer,
AS path `<peer> <drained>`) has the device's ASN after the first hop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from netauto.formats import device_json
from netauto.deploy.connection import DeviceSession
from netauto.deploy.remote import StepFailed, frr
from netauto.formats.routes import RibEntry, parse_kernel_routes, parse_zebra_routes

_SPLIT = "__NETAUTO_SPLIT__"
BGP = "vtysh -c 'show bgp ipv4 unicast json'"
ZEBRA = "vtysh -c 'show ip route json'"
KERNEL = "ip -j -4 route show"


@dataclass
class Forwarding:
    """One neighbour's tables, read in one round trip."""

    bgp: dict[str, list[dict]]  # `show bgp ipv4 unicast json` routes
    rib: dict[str, RibEntry] | None  # zebra's selected routes (None: unreadable)
    kernel: dict[str, frozenset[str]] | None  # the kernel's (None: unreadable, e.g. no `ip -j`)


def read_forwarding(session: DeviceSession) -> Forwarding:
    """BGP, zebra and the kernel in one command (vtysh where FRR runs: SONiC's bgp container; `ip` on the host)."""
    script = (f"{frr(session, BGP)}; echo {_SPLIT}; {frr(session, ZEBRA)}; echo {_SPLIT}; "
              f"{KERNEL} 2>/dev/null || echo null")
    res = session.run(script)
    parts = res.stdout.split(_SPLIT + "\n")
    if len(parts) != 3:
        raise StepFailed(f"reading the neighbour's routes failed: {res.tail(200)}")
    try:
        bgp = bgp_routes(device_json.loads(parts[0] or "{}"))
    except ValueError as exc:
        raise StepFailed(f"show bgp ipv4 unicast json: unparsable output ({exc})") from None
    return Forwarding(bgp, _or_none(parse_zebra_routes, parts[1]), _or_none(parse_kernel_routes, parts[2]))


def bgp_routes(doc: object) -> dict[str, list[dict]]:
    """`show bgp ipv4 unicast json`'s `routes` as drain_view reads them: prefix -> its paths (objects), each path's
    `nexthops` a list of objects. The neighbour's FRR (or whoever answers for it) chooses these bytes: another
    shape is a ValueError (the drain reports the neighbour unreadable), a path or next hop that is no object is
    left out; before, `{"routes": []}` or a number for a path raised an AttributeError out of the drain."""
    if not isinstance(doc, dict) or not isinstance(doc.get("routes", {}), dict):
        raise device_json.DeviceJsonError("not an object with an object `routes`")
    out: dict[str, list[dict]] = {}
    for prefix, paths in doc.get("routes", {}).items():
        if not isinstance(paths, list):
            raise device_json.DeviceJsonError(f"the paths of {str(prefix)[:60]!r} are not a list")
        out[prefix] = [{**p, "nexthops": [h for h in p.get("nexthops") or [] if isinstance(h, dict)]
                        if isinstance(p.get("nexthops"), list) else []} for p in paths if isinstance(p, dict)]
    return out


def _or_none(parse, text: str):  # type: ignore[no-untyped-def]
    try:
        return parse(text) if text.strip() not in ("", "null") else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _from(path: dict, device: str, ports: set[str]) -> bool:
    """A BGP path learnt from `device` (hostname capability; the peer's interface as a fallback)."""
    hops = path.get("nexthops", [])
    return (any(h.get("hostname") == device or str(h.get("interface")) in ports for h in hops)
            or str(path.get("peerId")) in ports)


def _selected(path: dict) -> bool:
    return bool(path.get("bestpath") or path.get("multipath"))


def _through(path: dict, asn: int | None) -> bool:
    """The path passes the drained device further on (its ASN after the first hop): no way around it. The
    first AS is the session's peer, which may share the device's ASN (spines, RFC 7938) without being it."""
    return asn is not None and str(asn) in str(path.get("path", "")).split()[1:]


def _as_path_len(path: dict) -> int:
    """AS-path length of an FRR JSON path (`"path": "65100 65001"`; absent: 0)."""
    return len(str(path.get("path", "")).split())


@dataclass
class DrainView:
    """One neighbour's view of a device being drained."""

    pending: int  # prefixes still forwarded toward the device although they should not be (0: drained)
    width: int  # widest ECMP set among the prefixes that have a path from the device
    prefixes: int  # prefixes with a path from the device
    marked: int = 0  # prefixes whose paths from the device carry the GSHUT local-preference 0
    waiting: int = 0  # prefixes not (yet) using an unmarked path from the device that is as short as the chosen
    forwarding: list[str] = field(default_factory=list)  # "prefix via port,port (bgp+rib+fib+kernel)" (pending)
    fib_via: int = 0  # (prefix, port) pairs the FIB forwards through the device (kernel; zebra's fib flag else)
    fib: str = "kernel"  # what the FIB reading was: kernel | zebra | unreadable


def drain_view(routes: dict[str, list[dict]], device: str, ports: set[str], asn: int | None = None,
               rib: dict[str, RibEntry] | None = None, kernel: dict[str, frozenset[str]] | None = None) -> DrainView:
    """The neighbour's view of `device` from its BGP table `routes`, zebra's `rib` and the `kernel` table (see
    the module doc); `ports` are the neighbour's ports facing the device (one per session)."""
    view = DrainView(0, 0, 0, fib="kernel" if kernel is not None else "zebra" if rib is not None else "unreadable")
    for prefix, paths in routes.items():
        via = [p for p in paths if p.get("valid") and _from(p, device, ports)]
        if not via:
            continue
        view.prefixes += 1
        others = [p for p in paths if p.get("valid") and not _from(p, device, ports) and not _through(p, asn)]
        chosen = [p for p in paths if p.get("valid") and _selected(p)]
        view.width = max(view.width, len(chosen))
        is_marked = any(p.get("locPrf") == 0 for p in via)
        view.marked += is_marked
        entry = rib.get(prefix) if rib is not None else None
        fib_ports = (kernel.get(prefix, frozenset()) if kernel is not None
                     else entry.fib if entry is not None else frozenset()) & ports
        view.fib_via += len(fib_ports)
        if others:  # a way around the device exists: no session to it may still carry this prefix
            layers = {"bgp": bool(any(_selected(p) for p in via)),
                      "rib": bool(entry is not None and entry.rib & ports),
                      "fib": bool(entry is not None and entry.fib & ports),
                      "kernel": bool(kernel is not None and kernel.get(prefix, frozenset()) & ports)}
            if any(layers.values()):
                view.pending += 1
                used = (entry.rib | entry.fib if entry is not None else frozenset()) | fib_ports
                view.forwarding.append(f"{prefix} via {','.join(sorted(used & ports)) or device} "
                                       f"({'+'.join(k for k, v in layers.items() if v)})")
        elif any(p.get("locPrf", 100) != 0 for p in via):
            view.pending += 1
            view.forwarding.append(f"{prefix} only via {device}, not yet marked GSHUT")
        # undrain: the GSHUT mark is gone but bestpath/multipath has not taken the device's path back yet (FRR
        # updates the path's attributes before it re-runs the selection)
        if (not is_marked and not any(_selected(p) for p in via) and chosen
                and min(map(_as_path_len, via)) <= min(map(_as_path_len, chosen))):
            view.waiting += 1
    return view


def view_of(fwd: Forwarding, device: str, ports: set[str], asn: int | None) -> DrainView:
    return drain_view(fwd.bgp, device, ports, asn, fwd.rib, fwd.kernel)
