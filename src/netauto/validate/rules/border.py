"""The frontend's exit: every upstream session of the model exists as intended and is filtered both ways."""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Any

from netauto.model.types import PrefixRule, Upstream
from netauto.validate.upstream_sessions import numbered_neighbors, permitted_space, port_towards
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric
from netauto.validate.rules._util import FRR, file_of


def _intent(view: ParsedFabric, dev: str) -> Upstream | None:
    try:
        return view.intent(dev).bgp.upstream
    except KeyError:
        return None


def _list_problem(where: str, direction: str, name: str | None, lists: dict[str, Any], intended: list[PrefixRule],
                  missing: str, verb: str, suffix: str) -> str | None:
    """What is wrong with one direction's prefix-list of an upstream session: missing, or permitting more than the
    inventory's prefixes (another prefix, or any `le`/`ge` range)."""
    plist = lists.get(name or "")
    if not plist:
        return f"{where}: no {direction} prefix-list ({missing})"
    allowed = [IPv4Network(r.prefix) for r in intended]
    extra = [str(p) for p in permitted_space(plist) if p not in allowed]
    wide = [e.prefix for e in plist if e.action == "permit" and (e.le is not None or e.ge is not None)]
    if not (extra or wide):
        return None
    return (f"{where}: {direction} prefix-list {name} permits {', '.join(sorted(set(extra + wide)))}; the inventory "
            f"{verb} {', '.join(r.prefix for r in intended)}{suffix}")


@rule(id="BORDER-01", severity="error",
      description="upstream (site) sessions as intended: remote-as, a port on the link, inbound and outbound "
                  "prefix-lists no wider than intent, maximum-prefix, a discard route for each advertised aggregate")
def upstream_sessions(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        if st.bgp is None:
            continue
        up = _intent(view, dev)
        f = file_of(st, "frr", FRR)
        intended = {p.address: p for p in (up.peers if up else [])}
        for addr in sorted(intended):
            if not st.bgp.has_neighbor(addr):
                yield dev, f"upstream {intended[addr].description} ({addr}): no BGP neighbour", f
        for prefix in (up.aggregates if up else []):
            if prefix not in st.bgp.discard_routes:  # without it the unused part of the pool loops to the site
                yield dev, (f"no discard route for the advertised {prefix} (`ip route {prefix} blackhole`): a packet "
                            "for an unused address would bounce between the site and this switch"), f
        for name in numbered_neighbors(st.bgp):
            if name not in intended:
                continue  # BGP-04 reports a neighbour the model does not have
            want = intended[name]
            nb = st.bgp.effective(name)
            where = f"upstream neighbour {name} ({want.description})"
            if nb.remote_as != str(want.asn):
                yield dev, f"{where}: remote-as {nb.remote_as}, the inventory says {want.asn}", f
            if not nb.activated or nb.shutdown:
                yield dev, f"{where}: not activated in ipv4 unicast (or shut down)", f
            if port_towards(st, name) is None:
                yield dev, f"{where}: no up port with an address in its subnet ({want.interface} intended)", f
            assert up is not None
            for problem in (_list_problem(where, "inbound", nb.prefix_list_in, st.bgp.prefix_lists, up.accept,
                                          "would accept whatever the site sends", "accepts only", " (exact)"),
                            _list_problem(where, "outbound", nb.prefix_list_out, st.bgp.prefix_lists, up.advertise,
                                          "would advertise every route of the switch", "advertises only", "")):
                if problem:
                    yield dev, problem, f
            if not nb.maximum_prefix:
                yield dev, f"{where}: no inbound maximum-prefix", f
